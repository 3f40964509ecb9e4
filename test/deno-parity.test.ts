/**
 * Runtime parity and determinism of `assemble`: the published bin on Node (the dist/bin/ bundle,
 * so `npm run build` must have run) and the TypeScript sources on Deno (the `deno` devDependency, using
 * node_modules as deno.json says) must write byte-identical sites and byte-identical archive
 * commits for the same --now. Two Node runs into different folders must agree as well.
 */
import { execFile, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import * as zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const NOW = "2026-11-21T10:00:00Z";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST_MAIN = join(ROOT, "dist", "bin", "risk-cli.js");
// What `npx deno` runs; called directly to skip npx's start-up.
const DENO = join(ROOT, "node_modules", ".bin", "deno");
// The flags the README and deno.json give, read from deno.json so that the test runs what users run.
const DENO_FLAGS = denoTaskFlags();
// No update check (network) and no permission prompt (would wait forever without a TTY).
const ENV = { ...process.env, TZ: "UTC", NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };

/** The permission flags of deno.json's `risk-cli` task, which the README's command repeats. */
function denoTaskFlags(): string[] {
  const task = (JSON.parse(fs.readFileSync(join(ROOT, "deno.json"), "utf8")) as { tasks: Record<string, string> })
    .tasks["risk-cli"]!;
  const flags = task.split(/\s+/).filter((word) => word.startsWith("--allow-"));
  const readme = fs.readFileSync(join(ROOT, "README.md"), "utf8");
  if (!readme.includes(`deno run ${flags.join(" ")} cli/main.ts`))
    throw new Error(`The README's Deno command does not give deno.json's flags: ${flags.join(" ")}`);
  return flags;
}

interface Output {
  site: string;
  archive: string;
  summary: { frameHash: string; commit: string };
}

async function assembleWith(runtime: "node" | "deno", dir: string, extra: string[] = []): Promise<Output> {
  const site = join(dir, "site");
  const archive = join(dir, "archive");
  const args = ["assemble", "--now", NOW, "--site", site, "--archive", archive, "--json", ...extra];
  const [cmd, argv] =
    runtime === "node"
      ? [process.execPath, [DIST_MAIN, ...args]]
      : [DENO, ["run", ...DENO_FLAGS, join(ROOT, "cli", "main.ts"), ...args]];
  try {
    const { stdout } = await run(cmd, argv, { cwd: ROOT, env: ENV, maxBuffer: 16 << 20 });
    return { site, archive, summary: JSON.parse(stdout) };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${runtime} assemble failed (exit ${err.code}): ${err.message}\nstdout:\n${err.stdout}\nstderr:\n${err.stderr}`,
    );
  }
}

/** Every file under dir (relative path -> bytes), sorted by path. */
function readTree(dir: string): Map<string, Buffer> {
  const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const paths = files.map((e) => relative(dir, join(e.parentPath, e.name))).sort();
  return new Map(paths.map((p) => [p, fs.readFileSync(join(dir, p))]));
}

function expectSameTree(a: string, b: string): void {
  const ta = readTree(a);
  const tb = readTree(b);
  expect([...tb.keys()]).toEqual([...ta.keys()]);
  expect(ta.size).toBeGreaterThan(0);
  const differing = [...ta].filter(([p, bytes]) => !bytes.equals(tb.get(p)!)).map(([p]) => p);
  expect(differing).toEqual([]);
}

async function head(archive: string): Promise<{ sha: string; frameHash: string; raw: string }> {
  const git = (...a: string[]) => run("git", ["-C", archive, ...a], { env: ENV }).then((r) => r.stdout);
  const sha = (await git("rev-parse", "HEAD")).trim();
  const message = await git("log", "-1", "--format=%B");
  const frameHash = /^Frame-Hash: (.+)$/m.exec(message)?.[1]?.trim() ?? "";
  const raw = await git("cat-file", "-p", sha); // tree, author, committer, message: for a readable diff
  return { sha, frameHash, raw };
}

let tmp: string;

beforeAll(() => {
  if (!fs.existsSync(DIST_MAIN)) throw new Error(`${DIST_MAIN} is missing: run \`npm run build\` before the tests`);
  tmp = fs.mkdtempSync(join(tmpdir(), "risk-parity-"));
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("assemble on Node (dist) and on Deno (sources)", () => {
  it("writes byte-identical sites and the same archive commit", async () => {
    const [node, deno] = await Promise.all([
      assembleWith("node", join(tmp, "node")),
      assembleWith("deno", join(tmp, "deno")),
    ]);
    expectSameTree(node.site, deno.site);
    // The same permissions too: Deno's node:fs creates an appended file 0666 whatever the umask.
    const modes = (dir: string) =>
      fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && !e.name.startsWith("risk-cli.lock"))
        .map(
          (e) =>
            `${relative(dir, join(e.parentPath, e.name))} ${(fs.statSync(join(e.parentPath, e.name)).mode & 0o777).toString(8)}`,
        )
        .filter((line) => !line.startsWith("objects/"))
        .sort();
    expect(modes(deno.site)).toEqual(modes(node.site));
    expect(modes(deno.archive)).toEqual(modes(node.archive));
    expect(modes(node.site).filter((line) => line.endsWith(" 666"))).toEqual([]);

    const [hn, hd] = await Promise.all([head(node.archive), head(deno.archive)]);
    expect(hn.frameHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hd.frameHash).toBe(hn.frameHash);
    expect(hn.frameHash).toBe(`sha256:${node.summary.frameHash}`);
    expect(hd.raw).toBe(hn.raw); // same tree, author, committer, time and message ...
    expect(hd.sha).toBe(hn.sha); // ... hence the same commit
    expect(deno.summary.commit).toBe(hd.sha);
  }, 120_000);
});

/** One command on Node (dist) and on Deno (sources, the task's flags): exit code and output. */
async function runOn(
  runtime: "node" | "deno",
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [cmd, argv] =
    runtime === "node"
      ? [process.execPath, [DIST_MAIN, ...args]]
      : [DENO, ["run", ...DENO_FLAGS, join(ROOT, "cli", "main.ts"), ...args]];
  try {
    const { stdout, stderr } = await run(cmd, argv, { cwd: ROOT, env: ENV, maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}

/** The PID of a process that has just ended. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  }).stdout;
  return Number(pid);
}

/** A local port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

describe("failures on Deno as on Node", () => {
  it("a lock held by a live process of this host: exit 5 on Deno as on Node, the lock left in place", async () => {
    const { archive } = await assembleWith("node", join(tmp, "locked"));
    const lock = join(archive, "risk-cli.lock");
    const holder = `${JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`;
    fs.writeFileSync(lock, holder);
    const later = ["assemble", "--now", "2026-11-21T11:00:00Z", "--archive", archive, "--json"];
    for (const runtime of ["node", "deno"] as const) {
      const r = await runOn(runtime, [...later, "--site", join(tmp, "locked", `site-${runtime}`)]);
      expect({ runtime, code: r.code, json: JSON.parse(r.stdout || "{}") }).toMatchObject({
        runtime,
        code: 5,
        json: { ok: false, code: "E_LOCKED", pid: process.pid },
      });
      expect(fs.readFileSync(lock, "utf8")).toBe(holder);
    }
  }, 120_000);

  it("what a killed run left beside the site is cleaned up on Deno as on Node", async () => {
    const { site, archive } = await assembleWith("node", join(tmp, "leftovers"));
    // A run killed while staging, and one killed between the swap's two renames (the live site
    // renamed aside, the new one not yet in place): its PID is no longer running.
    const dead = deadPid();
    fs.cpSync(site, `${site}.tmp-${dead}`, { recursive: true });
    fs.renameSync(site, `${site}.old-${dead}`);
    const r = await runOn("deno", ["assemble", "--now", "2026-11-21T11:00:00Z", "--site", site, "--archive", archive]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readdirSync(join(tmp, "leftovers")).sort()).toEqual(["archive", "site"]);
    expect(JSON.parse(fs.readFileSync(join(site, "api", "v1", "integrity.json"), "utf8")).frame.seq).toBe(2);
  }, 120_000);

  it("an unreachable upstream publishes the same bytes and reason on Deno as on Node", async () => {
    const publication = join(tmp, "unreachable-pub");
    fs.cpSync(join(ROOT, "demo"), publication, { recursive: true });
    const config = join(publication, "risk.config.yaml");
    const url = `http://127.0.0.1:${await closedPort()}/us.json`;
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace("source: upstream/us.json", `source: ${url}`));
    const extra = ["--publication", publication];
    const [node, deno] = await Promise.all([
      assembleWith("node", join(tmp, "unreachable-node"), extra),
      assembleWith("deno", join(tmp, "unreachable-deno"), extra),
    ]);
    expect(fs.readFileSync(join(node.site, "api", "v1", "risk.json"), "utf8")).toContain(
      "the network failed (ECONNREFUSED)",
    );
    expectSameTree(node.site, deno.site);
    expect((await head(deno.archive)).sha).toBe((await head(node.archive)).sha);
  }, 120_000);
});

describe("a Deno run with fewer permissions than the README gives", () => {
  /** A command on Deno with the README's flags but the one starting with `dropped`. */
  async function without(dropped: string, args: string[]) {
    const flags = DENO_FLAGS.filter((f) => !f.startsWith(dropped));
    expect(flags).toHaveLength(DENO_FLAGS.length - 1);
    try {
      const { stdout, stderr } = await run(DENO, ["run", ...flags, join(ROOT, "cli", "main.ts"), ...args], {
        cwd: ROOT,
        env: ENV,
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
    }
  }

  it("exits 2 naming the permission to add, never an internal error, a stack or a path", async () => {
    const dir = join(tmp, "permissions");
    const { site, archive } = await assembleWith("node", dir);
    const later = ["assemble", "--now", "2026-11-21T11:00:00Z", "--site", site, "--archive", archive];
    const cases: [string, string[], string][] = [
      ["--allow-read", ["verify", "--archive", archive], "read access"],
      ["--allow-read", ["lint", "--publication", join(ROOT, "demo")], "read access"],
      ["--allow-read", ["search", "taux", "--site", site], "read access"],
      ["--allow-read", ["serve", "--site", site, "--port", "0"], "read access"],
      ["--allow-write", later, "write access"],
      ["--allow-env", ["verify", "--archive", archive], "env access to GITHUB_ACTIONS"],
      ["--allow-sys", later, "sys access to hostname"],
      ["--allow-net", ["serve", "--site", site, "--port", "0"], "net access to 127.0.0.1:0"],
      [
        "--allow-net",
        ["archive", "pull", "--archive", archive, "--remote", `http://127.0.0.1:${await closedPort()}/a.git`],
        "net access to 127.0.0.1:",
      ],
    ];
    for (const [dropped, args, refused] of cases) {
      const r = await without(dropped, args);
      const flag = DENO_FLAGS.find((f) => f.startsWith(dropped))!;
      const said = { dropped, command: args[0], code: r.code, stderr: r.stderr };
      expect(said).toMatchObject({ code: 2, stderr: expect.stringContaining(`Deno refused ${refused}`) });
      expect(r.stderr, dropped).toContain(`run risk-cli with ${flag}`);
      expect(r.stderr, dropped).toContain(`deno run ${DENO_FLAGS.join(" ")} cli/main.ts`);
      expect(r.stderr, dropped).not.toMatch(/Uncaught|internal error|^\s+at /m);
      expect(r.stderr, dropped).not.toContain(dir);
    }
    // Nothing was committed by the refused assemblies.
    expect(JSON.parse(fs.readFileSync(join(site, "api", "v1", "integrity.json"), "utf8")).frame.seq).toBe(1);
  }, 180_000);
});

describe("access logs on Deno as on Node", () => {
  /** `traffic ingest LOG` into a copy of an archive each, on Node and on Deno: their reports. */
  async function ingestOnBoth(name: string, bytes: (text: string) => Buffer) {
    const { archive } = await assembleWith("node", join(tmp, name));
    fs.cpSync(archive, join(tmp, name, "archive-deno"), { recursive: true });
    // Yesterday's reads by the machine's clock, which `traffic ingest` counts by.
    const day = new Date(Date.now() - 86_400_000);
    const [dd, mon, yyyy] = day.toUTCString().split(" ").slice(1, 4);
    const text = Array.from(
      { length: 3000 },
      (_, i) =>
        `203.0.113.${i % 200} - - [${dd}/${mon}/${yyyy}:${String(Math.floor(i / 200)).padStart(2, "0")}:00:00 +0000] "GET /series/?n=${i} HTTP/1.1" 200 ${i} "-" "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"`,
    ).join("\n");
    const log = join(tmp, name, "access.log.2");
    fs.writeFileSync(log, bytes(`${text}\n`));
    const ingest = (runtime: "node" | "deno", to: string) =>
      runOn(runtime, ["traffic", "ingest", log, "--archive", to, "--publication", join(ROOT, "demo"), "--json"]);
    const node = await ingest("node", archive);
    const deno = await ingest("deno", join(tmp, name, "archive-deno"));
    expect(node.code, node.stderr).toBe(0);
    return { log, node: JSON.parse(node.stdout), deno };
  }

  it("traffic ingest runs on Deno with the README's permissions and counts as Node does", async () => {
    const { node, deno } = await ingestOnBoth("traffic-plain", (text) => Buffer.from(text));
    expect(node).toMatchObject({ files: 1, counted: 3000 });
    expect({ code: deno.code, report: JSON.parse(deno.stdout || "{}") }, deno.stderr).toEqual({
      code: 0,
      report: node,
    });
  }, 120_000);

  it("a gzip access log cut short: its complete lines counted on Deno as on Node", async () => {
    const { log, node, deno } = await ingestOnBoth("traffic-cut", (text) => {
      const gz = zlib.gzipSync(text, { level: 1 });
      return gz.subarray(0, Math.floor(gz.byteLength / 2));
    });
    expect(node).toMatchObject({ files: 1, truncated: [log] });
    expect(node.counted).toBeGreaterThan(100);
    expect({ code: deno.code, report: JSON.parse(deno.stdout || "{}") }, deno.stderr).toEqual({
      code: 0,
      report: node,
    });
  }, 120_000);
});

describe("deno.json's tasks", () => {
  // Deno's task runner takes node_modules/.bin/deno, which npm links to Deno's own binary, for a
  // JavaScript bin to run; a task that says plain `deno` ran that binary as a module and failed.
  it("run the sources: deno task risk-cli --version prints what the Node bin prints", async () => {
    const [task, node] = await Promise.all([
      run(DENO, ["task", "risk-cli", "--version"], { cwd: ROOT, env: ENV }),
      run(process.execPath, [DIST_MAIN, "--version"], { cwd: ROOT, env: ENV }),
    ]);
    expect(task.stdout).toBe(node.stdout);
    expect(node.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  }, 60_000);
});

describe("assemble is deterministic", () => {
  it("writes byte-identical sites and the same commit from two Node runs in different folders", async () => {
    const [a, b] = await Promise.all([
      assembleWith("node", join(tmp, "node-a")),
      assembleWith("node", join(tmp, "node-b")),
    ]);
    expectSameTree(a.site, b.site);
    const [ha, hb] = await Promise.all([head(a.archive), head(b.archive)]);
    expect(hb.frameHash).toBe(ha.frameHash);
    expect(hb.raw).toBe(ha.raw);
    expect(hb.sha).toBe(ha.sha);
  }, 60_000);
});
