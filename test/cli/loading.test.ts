/**
 * Each command loads only what it uses. The bundled bin's metafile says which packages every
 * chunk holds and which chunks it imports; a module hook records the chunks a real process loads.
 * `--version` must load none of the heavy packages, and `replay` on an archive of loose objects
 * (as assemble writes it) must not load isomorphic-git, yaml or minisearch.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";

const BIN = join(ROOT, "dist", "bin");

interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<
    string,
    {
      entryPoint?: string;
      imports: { path: string; kind: string; external?: boolean }[];
      inputs: Record<string, unknown>;
    }
  >;
}

let meta: Metafile;
let tmp: string;

/** The npm package an input of the bundle comes from, or null for the project's own sources. */
function packageOf(input: string): string | null {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? null;
}

/** Packages held by a set of output files (paths relative to the project, as the metafile has them). */
function packagesIn(outputs: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const o of outputs) {
    for (const input of Object.keys(meta.outputs[o]!.inputs)) {
      const p = packageOf(input);
      if (p) found.add(p);
    }
  }
  return found;
}

/** The output file and every chunk it imports statically, i.e. what loading it loads. */
function staticClosure(start: string): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const i of meta.outputs[queue.pop()!]!.imports) {
      if (i.external || i.kind === "dynamic-import" || seen.has(i.path)) continue;
      seen.add(i.path);
      queue.push(i.path);
    }
  }
  return seen;
}

function outputFor(entryPoint: string): string {
  const found = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === entryPoint);
  if (!found) throw new Error(`the bundle has no chunk for ${entryPoint}: run \`npm run build\``);
  return found[0];
}

/**
 * Runs the bin with the module `preload` imported first, which appends lines to the file the
 * environment variable `logVariable` names; returns the process's result and those lines.
 */
function runLogged(
  preload: string,
  logVariable: string,
  args: string[],
): { status: number | null; stdout: string; lines: string[] } {
  const log = join(tmp, `log-${Math.random().toString(36).slice(2)}.txt`);
  fs.writeFileSync(log, "");
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(preload).href, CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, SOURCE_DATE_EPOCH: "", [logVariable]: log },
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, lines: fs.readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

/** Runs the bin under a module hook and returns its result and the bundle files it loaded. */
function runRecorded(args: string[]): { status: number | null; loaded: string[] } {
  const { status, lines } = runLogged(join(tmp, "register.mjs"), "RISK_LOAD_LOG", args);
  const loaded = lines
    .filter((u) => u.startsWith("file:"))
    .map((u) => relative(ROOT, new URL(u).pathname))
    .filter((p) => p.startsWith("dist/bin/"));
  return { status, loaded: [...new Set(loaded)] };
}

beforeAll(() => {
  const metafile = join(BIN, "meta.json");
  if (!fs.existsSync(metafile)) throw new Error(`${metafile} is missing: run \`npm run build\` before the tests`);
  meta = JSON.parse(fs.readFileSync(metafile, "utf8"));
  tmp = fs.mkdtempSync(join(tmpdir(), "risk-loading-"));
  // The hook runs on Node's loader thread, which has its own copy of the environment.
  fs.writeFileSync(
    join(tmp, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (process.env.RISK_LOAD_LOG) appendFileSync(process.env.RISK_LOAD_LOG, url + "\\n");
  return next(url, context);
}
`,
  );
  fs.writeFileSync(
    join(tmp, "register.mjs"),
    `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`,
  );
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const HEAVY = ["isomorphic-git", "zod", "yaml", "minisearch", "@optique/core", "@optique/run"];

describe("the bundled bin's chunk graph", () => {
  it("keeps every dependency out of what the entry loads statically", () => {
    const entry = outputFor("cli/main.ts");
    expect([...packagesIn(staticClosure(entry))]).toEqual([]);
  });

  it("reaches isomorphic-git from replay only through a dynamic import, and never yaml or minisearch", () => {
    const replay = staticClosure(outputFor("cli/commands/replay.ts"));
    const packages = packagesIn(replay);
    for (const p of ["isomorphic-git", "yaml", "minisearch", "@optique/core"]) expect(packages, p).not.toContain(p);
    // replay does read Git (archive/git/objects.ts is in its graph): the boundary is that module's import.
    expect([...replay].some((o) => "archive/git/objects.ts" in meta.outputs[o]!.inputs)).toBe(true);
  });

  it("keeps isomorphic-git (and its HTTP transport) in chunks that only a dynamic import reaches", () => {
    const holders = Object.keys(meta.outputs).filter((o) => packagesIn([o]).has("isomorphic-git"));
    // The library itself, and its Node HTTP client that only the archive's pull and push load.
    expect(holders.length).toBe(2);
    for (const holder of holders) {
      const importers = Object.values(meta.outputs).flatMap((o) => o.imports.filter((i) => i.path === holder));
      expect(importers.length).toBeGreaterThan(0);
      // esbuild's runtime helpers may be shared, but nothing imports an isomorphic-git chunk statically.
      expect(importers.map((i) => i.kind)).toEqual(importers.map(() => "dynamic-import"));
    }
  });
});

describe("the chunks a process loads", () => {
  it("--version loads the entry's small chunks and no dependency", () => {
    const { status, loaded } = runRecorded(["--version"]);
    expect(status).toBe(0);
    expect(loaded).toContain("dist/bin/risk-cli.js");
    expect([...packagesIn(loaded)]).toEqual([]);
    const bytes = loaded.reduce((n, f) => n + fs.statSync(join(ROOT, f)).size, 0);
    expect(bytes).toBeLessThan(20_000);
  });

  it("replay on an archive of loose objects loads zod and Optique, not isomorphic-git, yaml or minisearch", () => {
    const archive = join(tmp, "archive.git");
    const made = runCli([
      "assemble",
      "--now",
      "2026-11-21T10:00:00Z",
      "--site",
      join(tmp, "site"),
      "--archive",
      archive,
      "--json",
    ]);
    expect(made.status, made.stderr).toBe(0);
    const { status, loaded } = runRecorded(["replay", "--json", "--date", "2026-11-21", "--archive", archive]);
    expect(status).toBe(0);
    const packages = packagesIn(loaded);
    expect(packages).toContain("zod"); // the frame is checked against its schema
    expect(packages).toContain("@optique/core");
    for (const p of HEAVY.filter((h) => !["zod", "@optique/core", "@optique/run"].includes(h)))
      expect(packages, p).not.toContain(p);
  });
});

describe("Optique's grapheme segmenter", () => {
  /** Runs the bin with Intl.Segmenter counted; returns the result and how many were built. */
  function runCounted(args: string[]): { status: number | null; stdout: string; built: number } {
    const count = join(tmp, "count-segmenters.mjs");
    fs.writeFileSync(
      count,
      `import { appendFileSync } from "node:fs";
const Original = Intl.Segmenter;
Intl.Segmenter = class extends Original {
  constructor(...args) {
    super(...args);
    appendFileSync(process.env.RISK_SEGMENTER_LOG, "built\\n");
  }
};
`,
    );
    const { status, stdout, lines } = runLogged(count, "RISK_SEGMENTER_LOG", args);
    return { status, stdout, built: lines.length };
  }

  it("is not built by a command that prints no help (it costs 10 to 15 ms of every start)", () => {
    const r = runCounted(["assemble", "--help"]);
    expect(r.status).toBe(0);
    // Help is laid out to the terminal's width: the segmenter is built, once, when text is measured.
    expect(r.built).toBe(1);
    expect(r.stdout).toContain("--publication");
    const archive = join(tmp, "segmenter-archive.git");
    const made = runCounted([
      "assemble",
      "--now",
      "2026-11-21T10:00:00Z",
      "--site",
      join(tmp, "segmenter-site"),
      "--archive",
      archive,
      "--json",
    ]);
    expect(made.status).toBe(0);
    expect(made.built).toBe(0);
  });
});
