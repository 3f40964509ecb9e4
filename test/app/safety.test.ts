import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { at, git } from "../helpers/archive.ts";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("folders an assembly must never delete", () => {
  function setup() {
    const dir = tempDir("risk-safe-");
    cpSync(join(ROOT, "demo"), `${dir}/pub`, { recursive: true });
    const first = runCli(
      ["assemble", "--publication", "pub", "--site", "site", "--archive", "archive.git", "--now", at(0)],
      {
        cwd: dir,
      },
    );
    expect(first.status, first.stderr).toBe(0);
    return dir;
  }
  const cases: [string, string[]][] = [
    ["--site equal to --archive", ["--site", "archive.git", "--archive", "archive.git"]],
    ["--site holding the archive", ["--site", ".", "--archive", "archive.git"]],
    ["--archive inside the site", ["--site", "site", "--archive", "site/archive.git"]],
    ["--site equal to --publication", ["--site", "pub"]],
    ["--site holding the publication", ["--site", join("..")]],
    ["--site at the current folder", ["--site", "."]],
    ["--site at the root", ["--site", "/"]],
    ["--site at the home folder", ["--site", process.env.HOME ?? "/root"]],
  ];
  for (const [name, flags] of cases) {
    it(`refuses ${name} with exit 2 before touching anything`, () => {
      const dir = setup();
      const before = treeDigest(dir);
      const archive = flags.includes("--archive") ? [] : ["--archive", "archive.git"];
      const args = ["assemble", "--publication", "pub", ...archive, "--now", at(15), ...flags];
      const r = runCli(args, { cwd: dir });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/Refusing --(site|archive)/);
      expect(treeDigest(dir)).toEqual(before);
    });
  }

  it("refuses to replace a folder risk-cli did not write, and commits nothing", () => {
    const dir = setup();
    mkdirSync(`${dir}/docs`);
    writeFileSync(`${dir}/docs/thesis.md`, "years of work\n");
    const head = git(`${dir}/archive.git`, "rev-parse", "refs/heads/main");
    const r = runCli(
      ["assemble", "--publication", "pub", "--site", "docs", "--archive", "archive.git", "--now", at(15)],
      {
        cwd: dir,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("is not a site risk-cli wrote");
    expect(readFileSync(`${dir}/docs/thesis.md`, "utf8")).toBe("years of work\n");
    expect(git(`${dir}/archive.git`, "rev-parse", "refs/heads/main")).toBe(head);
  });

  it("replaces a site an earlier version wrote (no marker yet), and marks it", () => {
    const dir = setup();
    const marker = `${dir}/site/.risk-cli-site`;
    expect(existsSync(marker)).toBe(true);
    // As an earlier version left it: no marker.
    rmSync(marker);
    const r = runCli(
      ["assemble", "--publication", "pub", "--site", "site", "--archive", "archive.git", "--now", at(15)],
      {
        cwd: dir,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});

describe("served bytes are always archived bytes", () => {
  it("never reuses a site file edited in place with its modification time put back", async () => {
    const dir = tempDir("risk-edit-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, json: true };
    await runAssemble({ ...paths, now: at(0) });
    const file = `${paths.site}/llms.txt`;
    const st = statSync(file);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/.$/s, "X")); // same size, other bytes
    utimesSync(file, st.atime, st.mtime); // modification time put back
    const summary = await runAssemble({ ...paths, now: at(15) });
    const integrity = JSON.parse(readFileSync(`${paths.site}/api/v1/integrity.json`, "utf8"));
    const entry = integrity.surfaces.find((s: { path: string }) => s.path === "/llms.txt");
    expect(sha(readFileSync(file))).toBe(entry.sha256);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(summary.frameId).toMatch(/^000002-/);
  });
});

describe("a run killed at any step", () => {
  it("leaves the live site exactly one frame's, and the next run cleans up what it left", async () => {
    const dir = tempDir("risk-kill-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, json: true };
    await runAssemble({ ...paths, now: at(0) });
    const frame1 = treeDigest(paths.site);
    // What a run killed after staging (or after its commit, before the swap) leaves: a complete
    // new site beside the live one, and the previous site moved aside by a killed swap.
    cpSync(paths.site, `${paths.site}.tmp-4194303`, { recursive: true });
    cpSync(paths.site, `${paths.site}.old-4194302`, { recursive: true });
    expect(treeDigest(paths.site)).toEqual(frame1);
    await runAssemble({ ...paths, now: at(15) });
    expect(readdirSync(dir).sort()).toEqual(["archive.git", "site"]);
  });

  it("refuses a site folder replaced by a symbolic link between two runs, naming the link, and commits nothing", async () => {
    const dir = tempDir("risk-link-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, json: true };
    await runAssemble({ ...paths, now: at(0) });
    renameSync(paths.site, `${dir}/site-real`);
    symlinkSync("site-real", paths.site);
    const before = treeDigest(`${dir}/site-real`);
    const head = git(paths.archive, "rev-parse", "refs/heads/main");
    await expect(runAssemble({ ...paths, now: at(15) })).rejects.toMatchObject({
      code: "E_USAGE",
      message: expect.stringContaining(`${paths.site} is a symbolic link`),
    });
    expect(treeDigest(`${dir}/site-real`)).toEqual(before);
    expect(git(paths.archive, "rev-parse", "refs/heads/main")).toBe(head);
    expect(readdirSync(dir).sort()).toEqual(["archive.git", "site", "site-real"]);
  });

  it("takes the branch's lock a run killed while moving the branch left, at once", async () => {
    const dir = tempDir("risk-kill-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, json: true };
    await runAssemble({ ...paths, now: at(0) });
    // A run killed between creating refs/heads/main.lock and renaming it onto the branch, a
    // second ago (its archive lock is stale, as its PID no longer runs).
    const head = git(paths.archive, "rev-parse", "refs/heads/main").trim();
    writeFileSync(`${paths.archive}/refs/heads/main.lock`, `${head}\n`);
    const then = new Date(Date.now() - 1000);
    utimesSync(`${paths.archive}/refs/heads/main.lock`, then, then);
    writeFileSync(
      `${paths.archive}/risk-cli.lock`,
      JSON.stringify({ pid: 4194302, host: hostname(), since: then.toISOString() }),
    );
    const summary = await runAssemble({ ...paths, now: at(15) });
    expect(summary.frameId).toMatch(/^000002-/);
    expect(readdirSync(`${paths.archive}/refs/heads`)).toEqual(["main"]);
  });

  it("brings back the live site when a run was killed between the two renames of the swap", async () => {
    const dir = tempDir("risk-kill-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, json: true };
    await runAssemble({ ...paths, now: at(0) });
    const frame1 = treeDigest(paths.site);
    renameSync(paths.site, `${paths.site}.old-4194302`);
    await runAssemble({ ...paths, now: at(15) });
    expect(readdirSync(dir).sort()).toEqual(["archive.git", "site"]);
    // The same surfaces; the frame log has one more frame, so one more tile.
    const surfaces = (digest: Record<string, string>) => Object.keys(digest).filter((p) => !p.startsWith("log/tile/"));
    expect(surfaces(treeDigest(paths.site))).toEqual(surfaces(frame1));
    expect(Object.keys(treeDigest(paths.site))).toContain("log/tile/0/000.p/1");
  });
});

describe("the cache files kept in the archive", () => {
  it("are read as no cache when a FIFO or a link to /dev/zero stands in their place: the assembly neither hangs nor fills the memory", () => {
    const dir = tempDir("risk-kept-fifo-");
    const [site, archive] = [`${dir}/site`, `${dir}/archive.git`];
    const first = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    const kept = [
      "risk-cli-traffic.json",
      "risk-cli-chain.txt",
      "risk-cli-site-stat.json",
      "risk-cli-publication-lite.json",
      "risk-cli-parsed-files.json",
      "risk-cli-memo.json",
      ...readdirSync(`${archive}/risk-cli-frames`).map((name) => `risk-cli-frames/${name}`),
    ];
    expect(kept.length).toBeGreaterThan(7);
    kept.forEach((name, i) => {
      rmSync(`${archive}/${name}`, { force: true });
      if (i % 2 === 0) execFileSync("mkfifo", [`${archive}/${name}`]);
      else symlinkSync("/dev/zero", `${archive}/${name}`);
    });
    // A read blocked on a FIFO is deaf to SIGTERM: the timeout kills it.
    const r = spawnSync(process.execPath, [CLI, "assemble", "--site", site, "--archive", archive, "--now", at(15)], {
      encoding: "utf8",
      timeout: 30_000,
      killSignal: "SIGKILL",
      env: { ...process.env, SOURCE_DATE_EPOCH: "" },
    });
    expect({ status: r.status, signal: r.signal }, r.stderr).toEqual({ status: 0, signal: null });
    expect(JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8")).frame.seq).toBe(2);
    expect(runCli(["verify", "--archive", archive]).status).toBe(0);
  });
});
