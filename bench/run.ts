/**
 * `npm run bench`: assembly time by phase for the demo and for a generated publication at the real
 * publication's scale, beside the floor on this machine (JSON.stringify + SHA-256 + writing the
 * same bytes), and the bytes an unchanged assembly adds to the archive.
 *
 *   node --expose-gc dist/bench/run.js [--runs N] [--warmup N] [--cold-runs N] [--floor-runs N]
 *                                       [--gc-frames N] [--only demo|scale] [--cpu-prof FILE] [--keep]
 *                                       [--year-frames N] [--startup-runs N] [--startup-frames N] [--scale-runs N]
 *                                       [--quick]
 *
 * Every assembly goes through the application's entry point (runAssembly), in process, with explicit
 * `now` values 15 minutes apart and the same inputs, as a scheduled assembly would. The "cold"
 * figures run the built CLI (dist/bin/risk-cli.js assemble --json) as a fresh process, as the
 * scheduled job does: Node start-up, module loading and an unoptimised JIT included.
 */
import { editorialReport, measureEditorial, type EditorialResult } from "./editorial.ts";
import { measureYear, yearReport, YEAR_FRAMES } from "./year.ts";
import * as fs from "node:fs";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpus, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runAssembly, STEPS, type AssemblySummary as AssembleSummary, type StepName } from "../app/assembly.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";
import { demoPublication } from "../cli/paths.ts";
import { VERSION } from "../core/version.ts";
import { generatePublication, REAL_SCALE, type Generated } from "./generate.ts";
import { benchCollection, collectionTable } from "./collect.ts";
import { measureStartup, startupReport } from "./startup.ts";
import { measureScale, scaleReport } from "./scale.ts";

const PHASES = STEPS;
type Phase = StepName;

/** What an assembly at real scale must reach: a total time, and a ratio to the floor. */
const TARGET_TOTAL_MS = 3000;
const TARGET_RATIO = 4;

const START = Date.parse("2026-11-21T06:00:00Z");
const STEP_MS = 15 * 60 * 1000;

interface Options {
  runs: number;
  warmup: number;
  coldRuns: number;
  floorRuns: number;
  gcFrames: number;
  only: "demo" | "scale" | null;
  cpuProf: string | null;
  keep: boolean;
  /** Frames of the year-of-frames archive; 0 skips it. */
  yearFrames: number;
  /** Runs of each side of the start-up comparisons (bench/startup.ts); 0 skips them. */
  startupRuns: number;
  /** Frames of the archive the start-up part replays. */
  startupFrames: number;
  /** Runs of each real-scale CPU case against the floor (bench/scale.ts); 0 skips them. */
  scaleRuns: number;
}

interface TimedRun {
  wallMs: number;
  bytes: number;
  phasesMs: Record<Phase, number>;
  blobsWritten: number;
  changed: string[];
}

interface FloorResult {
  files: number;
  bytes: number;
  /** The floor produced exactly the served bytes (canonical JSON parses and re-stringifies to itself). */
  sameBytes: boolean;
  medianMs: number;
  parts: { stringifyMs: number; sha256Ms: number; writeMs: number };
  runsMs: number[];
}

interface ColdRun {
  wallMs: number;
  phasesMs: Record<Phase, number>;
}

interface AddedObject {
  oid: string;
  type: string;
  /** Uncompressed size. */
  size: number;
  /** Size of the loose (zlib) file. */
  looseBytes: number;
  /** Path in the new head tree ("(commit)" for the commit). */
  path: string;
}

interface ArchiveGrowth {
  /** Loose-object bytes (sum of file sizes under objects/) added by one unchanged assembly. */
  looseBytesPerFrame: number;
  looseObjectsPerFrame: number;
  /** The objects that frame added, by type and path. */
  objects: AddedObject[];
  blobsWritten: number;
  changedSurfaces: string[];
  /** After `git gc`: pack growth per unchanged frame over `frames` frames, gc'd again. */
  gc: {
    frames: number;
    objectsBytesAfterFirstGc: number;
    objectsBytesAfterSecondGc: number;
    packedBytesPerFrame: number;
    /** Loose bytes the first assembly after a gc adds (blobs already in the pack are re-written loose when missing as loose files). */
    looseBytesFirstFrameAfterGc: number;
    looseObjectsFirstFrameAfterGc: number;
    looseBytesPerLaterFrame: number;
    totalFrames: number;
    packedBytesPerFrameOverall: number;
    gcMs: number;
  } | null;
}

interface ScenarioResult {
  name: string;
  publication: string;
  inputs: Generated["counts"] | null;
  inputBytes: number | null;
  surfaces: number;
  siteBytes: number;
  firstAssemblyMs: number;
  runs: TimedRun[];
  median: Record<Phase | "total" | "phaseSum", number>;
  cold: { runs: ColdRun[]; median: Record<Phase | "total" | "phaseSum", number> } | null;
  /** In-process runs after an input file changed: nothing can be reused, everything is rebuilt. */
  rebuild: Record<Phase | "total", number>;
  floor: FloorResult;
  ratio: number;
  targets: { totalUnder3s: boolean; ratioUnder4x: boolean; coldTotalUnder3s: boolean | null } | null;
  archive: ArchiveGrowth;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    runs: 7,
    warmup: 1,
    coldRuns: 3,
    floorRuns: 7,
    gcFrames: 5,
    only: null,
    cpuProf: null,
    keep: false,
    yearFrames: YEAR_FRAMES,
    startupRuns: 9,
    startupFrames: 300,
    scaleRuns: 5,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--runs") o.runs = positive(a, value());
    else if (a === "--warmup") o.warmup = positive(a, value());
    else if (a === "--cold-runs") o.coldRuns = nonNegative(a, value());
    else if (a === "--floor-runs") o.floorRuns = positive(a, value());
    else if (a === "--gc-frames") o.gcFrames = positive(a, value());
    else if (a === "--only") {
      const v = value();
      if (v !== "demo" && v !== "scale") throw new Error("--only takes demo or scale");
      o.only = v;
    } else if (a === "--cpu-prof") o.cpuProf = value();
    else if (a === "--keep") o.keep = true;
    else if (a === "--year-frames") o.yearFrames = nonNegative(a, value());
    else if (a === "--startup-runs") o.startupRuns = nonNegative(a, value());
    else if (a === "--startup-frames") o.startupFrames = positive(a, value());
    else if (a === "--scale-runs") o.scaleRuns = nonNegative(a, value());
    // A few minutes on every push: the demo only, fewer runs, no year of frames, no real scale.
    else if (a === "--quick")
      Object.assign(o, {
        only: "demo",
        runs: 3,
        coldRuns: 1,
        floorRuns: 3,
        yearFrames: 0,
        startupRuns: 3,
        startupFrames: 50,
        scaleRuns: 0,
      });
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

function nonNegative(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} takes a whole number`);
  return n;
}

function positive(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer`);
  return n;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round1 = (x: number) => Math.round(x * 10) / 10;
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const collect = () => (globalThis as { gc?: () => void }).gc?.();

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

function treeSize(dir: string): { bytes: number; files: number } {
  if (!fs.existsSync(dir)) return { bytes: 0, files: 0 };
  let bytes = 0;
  let files = 0;
  for (const f of filesUnder(dir)) {
    bytes += fs.statSync(f).size;
    files++;
  }
  return { bytes, files };
}

/** The Node effects, with a logger that prints nothing. */
const BENCH_PORTS = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: { info: () => {}, warn: () => {} } };

/** Drives assemblies of one publication into one site and archive, 15 minutes apart. */
class Assembler {
  private frame = 0;
  constructor(
    readonly publication: string,
    readonly site: string,
    readonly archive: string,
  ) {}
  async next(): Promise<{ summary: AssembleSummary; wallMs: number }> {
    const now = iso(START + this.frame++ * STEP_MS);
    collect();
    const t = performance.now();
    const summary = await runAssembly(
      { publication: this.publication, site: this.site, archive: this.archive, now },
      BENCH_PORTS,
    );
    return { summary, wallMs: performance.now() - t };
  }
  /** One assembly by the built CLI in a fresh Node process. */
  cold(): ColdRun {
    const now = iso(START + this.frame++ * STEP_MS);
    const cli = fileURLToPath(new URL("../bin/risk-cli.js", import.meta.url));
    const args = [
      cli,
      "assemble",
      "--publication",
      this.publication,
      "--site",
      this.site,
      "--archive",
      this.archive,
      "--now",
      now,
      "--json",
    ];
    const t = performance.now();
    const stdout = execFileSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const wallMs = performance.now() - t;
    const summary = JSON.parse(stdout) as AssembleSummary;
    return { wallMs: round1(wallMs), phasesMs: summary.phasesMs };
  }
  get frames(): number {
    return this.frame;
  }
}

/**
 * The floor: the same documents, already parsed, stringified by JSON.stringify (NDJSON: one line
 * per record), hashed with SHA-256 and written to a fresh folder. No validation, no canonical key
 * sort, no archive: what any tool must at least do to publish these bytes.
 */
function measureFloor(site: string, runs: number): FloorResult {
  const docs = filesUnder(site)
    .sort()
    .map((file) => {
      const text = fs.readFileSync(file, "utf8");
      const rel = relative(site, file);
      // CSV, Atom and the text corpora are served as written: their floor is the text itself.
      const kind = file.endsWith(".ndjson") ? "ndjson" : file.endsWith(".json") ? "json" : "text";
      const value: unknown =
        kind === "ndjson"
          ? text
              .split("\n")
              .filter((l) => l !== "")
              .map((l) => JSON.parse(l) as unknown)
          : kind === "json"
            ? JSON.parse(text)
            : text;
      return { rel, kind, value, served: Buffer.from(text, "utf8") };
    });
  const encoder = new TextEncoder();
  let sameBytes = true;
  const once = (check: boolean) => {
    const out = fs.mkdtempSync(join(tmpdir(), "risk-bench-floor-"));
    const parts = { stringifyMs: 0, sha256Ms: 0, writeMs: 0 };
    collect();
    const t0 = performance.now();
    for (const d of docs) {
      let t = performance.now();
      const text =
        d.kind === "ndjson"
          ? (d.value as unknown[]).map((l) => `${JSON.stringify(l)}\n`).join("")
          : d.kind === "json"
            ? JSON.stringify(d.value)
            : (d.value as string);
      const bytes = encoder.encode(text);
      parts.stringifyMs += performance.now() - t;
      t = performance.now();
      createHash("sha256").update(bytes).digest("hex");
      parts.sha256Ms += performance.now() - t;
      t = performance.now();
      const file = join(out, d.rel);
      fs.mkdirSync(dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
      parts.writeMs += performance.now() - t;
      if (check && !Buffer.from(bytes).equals(d.served)) sameBytes = false;
    }
    const total = performance.now() - t0;
    fs.rmSync(out, { recursive: true, force: true });
    return { total, parts };
  };
  once(true); // warm-up, and the byte-for-byte check
  const results = Array.from({ length: runs }, () => once(false));
  const runsMs = results.map((r) => r.total);
  return {
    files: docs.length,
    bytes: docs.reduce((n, d) => n + d.served.byteLength, 0),
    sameBytes,
    medianMs: median(runsMs),
    parts: {
      stringifyMs: median(results.map((r) => r.parts.stringifyMs)),
      sha256Ms: median(results.map((r) => r.parts.sha256Ms)),
      writeMs: median(results.map((r) => r.parts.writeMs)),
    },
    runsMs,
  };
}

function git(archive: string, ...args: string[]): void {
  execFileSync("git", [`--git-dir=${archive}`, ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

function looseObjects(objects: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of filesUnder(objects)) {
    const rel = relative(objects, f).split(/[\\/]/);
    if (rel.length === 2 && /^[0-9a-f]{2}$/.test(rel[0]!) && /^[0-9a-f]{38}$/.test(rel[1]!))
      out.set(rel.join(""), fs.statSync(f).size);
  }
  return out;
}

/** Type, size and head-tree path of each object (git cat-file and ls-tree). */
function describeObjects(archive: string, added: Map<string, number>, commit: string): AddedObject[] {
  const gitOut = (args: string[], input?: string) =>
    execFileSync("git", [`--git-dir=${archive}`, ...args], {
      encoding: "utf8",
      input,
      stdio: ["pipe", "pipe", "pipe"],
    });
  const paths = new Map<string, string>([[commit, "(commit)"]]);
  for (const line of gitOut(["ls-tree", "-r", "-t", commit]).split("\n")) {
    const m = /^\d+ \w+ ([0-9a-f]{40})\t(.*)$/.exec(line);
    if (m) paths.set(m[1]!, paths.has(m[1]!) ? `${paths.get(m[1]!)}, ${m[2]}` : m[2]!);
  }
  // The root tree is not listed by ls-tree.
  const root = gitOut(["rev-parse", `${commit}^{tree}`]).trim();
  paths.set(root, "(root tree)");
  const info = gitOut(
    ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
    `${[...added.keys()].join("\n")}\n`,
  );
  return info
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [oid, type, size] = line.split(" ") as [string, string, string];
      return {
        oid,
        type,
        size: Number(size),
        looseBytes: added.get(oid) ?? 0,
        path: paths.get(oid) ?? "(not in head tree)",
      };
    })
    .sort((x, y) => (x.type === y.type ? x.path.localeCompare(y.path) : x.type.localeCompare(y.type)));
}

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function measureArchive(a: Assembler, gcFrames: number): Promise<ArchiveGrowth> {
  const objects = join(a.archive, "objects");
  const before = treeSize(objects);
  const looseBefore = looseObjects(objects);
  const { summary } = await a.next();
  const after = treeSize(objects);
  const added = new Map([...looseObjects(objects)].filter(([oid]) => !looseBefore.has(oid)));
  const withGit = hasGit();
  const growth: ArchiveGrowth = {
    looseBytesPerFrame: after.bytes - before.bytes,
    looseObjectsPerFrame: after.files - before.files,
    objects: withGit ? describeObjects(a.archive, added, summary.commit) : [],
    blobsWritten: summary.blobsWritten,
    changedSurfaces: summary.changed,
    gc: null,
  };
  if (!withGit) {
    process.stderr.write("git not found: skipping the object breakdown and the bytes per frame after git gc\n");
    return growth;
  }
  let t = performance.now();
  git(a.archive, "gc", "--quiet");
  let gcMs = performance.now() - t;
  const s1 = treeSize(objects);
  let looseFirst = { bytes: 0, files: 0 };
  const looseLater: number[] = [];
  for (let i = 0; i < gcFrames; i++) {
    const b = treeSize(objects);
    await a.next();
    const c = treeSize(objects);
    if (i === 0) looseFirst = { bytes: c.bytes - b.bytes, files: c.files - b.files };
    else looseLater.push(c.bytes - b.bytes);
  }
  t = performance.now();
  git(a.archive, "gc", "--quiet");
  gcMs += performance.now() - t;
  const s2 = treeSize(objects);
  git(a.archive, "fsck", "--no-progress");
  growth.gc = {
    frames: gcFrames,
    objectsBytesAfterFirstGc: s1.bytes,
    objectsBytesAfterSecondGc: s2.bytes,
    packedBytesPerFrame: Math.round((s2.bytes - s1.bytes) / gcFrames),
    looseBytesFirstFrameAfterGc: looseFirst.bytes,
    looseObjectsFirstFrameAfterGc: looseFirst.files,
    looseBytesPerLaterFrame: looseLater.length ? median(looseLater) : looseFirst.bytes,
    totalFrames: a.frames,
    packedBytesPerFrameOverall: Math.round(s2.bytes / a.frames),
    gcMs: round1(gcMs / 2),
  };
  return growth;
}

async function scenario(
  name: string,
  publication: string,
  generated: Generated | null,
  opts: Options,
  profile: { start(): Promise<void>; stop(): Promise<void> } | null,
): Promise<ScenarioResult> {
  const work = fs.mkdtempSync(join(tmpdir(), `risk-bench-${name}-`));
  const a = new Assembler(publication, join(work, "site"), join(work, "archive"));
  process.stderr.write(`[${name}] first assembly (warm-up)...\n`);
  const first = await a.next();
  for (let i = 1; i < opts.warmup; i++) await a.next();
  const runs: TimedRun[] = [];
  if (profile) await profile.start();
  for (let i = 0; i < opts.runs; i++) {
    const { summary, wallMs } = await a.next();
    runs.push({
      wallMs: round1(wallMs),
      bytes: summary.bytes,
      phasesMs: summary.phasesMs,
      blobsWritten: summary.blobsWritten,
      changed: summary.changed,
    });
    process.stderr.write(`[${name}] run ${i + 1}/${opts.runs}: ${round1(wallMs)} ms\n`);
  }
  if (profile) await profile.stop();
  // The same number of runs after an input file changed (a comment appended to topics.yaml: the
  // fingerprint moves, the surfaces do not), so that parsing and building are measured too.
  const rebuildRuns: TimedRun[] = [];
  for (let i = 0; i < opts.runs; i++) {
    fs.appendFileSync(join(publication, "content/topics.yaml"), `# bench edit ${i}\n`);
    const { summary, wallMs } = await a.next();
    rebuildRuns.push({
      wallMs: round1(wallMs),
      bytes: summary.bytes,
      phasesMs: summary.phasesMs,
      blobsWritten: summary.blobsWritten,
      changed: summary.changed,
    });
    process.stderr.write(`[${name}] content-changed run ${i + 1}/${opts.runs}: ${round1(wallMs)} ms\n`);
  }
  const rebuild = {
    ...(Object.fromEntries(PHASES.map((p) => [p, round1(median(rebuildRuns.map((r) => r.phasesMs[p])))])) as Record<
      Phase,
      number
    >),
    total: round1(median(rebuildRuns.map((r) => r.wallMs))),
  };
  const med = Object.fromEntries(PHASES.map((p) => [p, round1(median(runs.map((r) => r.phasesMs[p])))])) as Record<
    Phase,
    number
  >;
  const total = round1(median(runs.map((r) => r.wallMs)));
  const phaseSum = round1(median(runs.map((r) => PHASES.reduce((n, p) => n + r.phasesMs[p], 0))));
  let cold: ScenarioResult["cold"] = null;
  if (opts.coldRuns > 0) {
    const coldRuns: ColdRun[] = [];
    for (let i = 0; i < opts.coldRuns; i++) {
      coldRuns.push(a.cold());
      process.stderr.write(`[${name}] cold CLI process ${i + 1}/${opts.coldRuns}: ${coldRuns[i]!.wallMs} ms\n`);
    }
    const cm = Object.fromEntries(PHASES.map((p) => [p, round1(median(coldRuns.map((r) => r.phasesMs[p])))])) as Record<
      Phase,
      number
    >;
    cold = {
      runs: coldRuns,
      median: {
        ...cm,
        total: round1(median(coldRuns.map((r) => r.wallMs))),
        phaseSum: round1(median(coldRuns.map((r) => PHASES.reduce((n, p) => n + r.phasesMs[p], 0)))),
      },
    };
  }
  process.stderr.write(`[${name}] floor...\n`);
  const floor = measureFloor(a.site, opts.floorRuns);
  process.stderr.write(`[${name}] archive growth...\n`);
  const archive = await measureArchive(a, opts.gcFrames);
  const ratio = total / floor.medianMs;
  const result: ScenarioResult = {
    name,
    publication,
    inputs: generated?.counts ?? null,
    inputBytes: generated?.inputBytes ?? null,
    surfaces: first.summary.surfaces,
    siteBytes: runs[runs.length - 1]!.bytes,
    firstAssemblyMs: round1(first.wallMs),
    runs,
    median: { ...med, total, phaseSum },
    cold,
    rebuild,
    floor: {
      ...floor,
      medianMs: round1(floor.medianMs),
      runsMs: floor.runsMs.map(round1),
      parts: {
        stringifyMs: round1(floor.parts.stringifyMs),
        sha256Ms: round1(floor.parts.sha256Ms),
        writeMs: round1(floor.parts.writeMs),
      },
    },
    ratio: Math.round(ratio * 100) / 100,
    targets:
      name === "scale"
        ? {
            totalUnder3s: total < TARGET_TOTAL_MS,
            ratioUnder4x: ratio < TARGET_RATIO,
            coldTotalUnder3s: cold ? cold.median.total < TARGET_TOTAL_MS : null,
          }
        : null,
    archive,
  };
  if (opts.keep) process.stderr.write(`[${name}] kept ${work}\n`);
  else fs.rmSync(work, { recursive: true, force: true });
  return result;
}

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [
    line(cells[0]!),
    `|${widths.map((w, i) => (i === 0 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...cells.slice(1).map(line),
  ].join("\n");
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

function report(results: ScenarioResult[]): string {
  const out: string[] = [];
  out.push("Assembly time by phase, medians in ms. in-process: runAssembly after a warm-up, total = its wall time;");
  out.push(
    "cold CLI: a fresh `node dist/bin/risk-cli.js assemble` process, total = process wall time (start-up and module loading included)",
  );
  const rows: (string | number)[][] = [];
  for (const r of results) {
    rows.push([
      r.name,
      "in-process",
      r.surfaces,
      r.siteBytes,
      ...PHASES.map((p) => r.median[p]),
      r.median.total,
      r.floor.medianMs,
      `${r.ratio.toFixed(1)}x`,
    ]);
    rows.push([
      r.name,
      "content changed",
      r.surfaces,
      r.siteBytes,
      ...PHASES.map((p) => r.rebuild[p]),
      r.rebuild.total,
      r.floor.medianMs,
      `${(r.rebuild.total / r.floor.medianMs).toFixed(1)}x`,
    ]);
    if (r.cold)
      rows.push([
        r.name,
        "cold CLI",
        r.surfaces,
        r.siteBytes,
        ...PHASES.map((p) => r.cold!.median[p]),
        r.cold.median.total,
        r.floor.medianMs,
        `${(r.cold.median.total / r.floor.medianMs).toFixed(1)}x`,
      ]);
  }
  out.push(table(["scenario", "run", "surfaces", "bytes", ...PHASES, "total", "floor", "total/floor"], rows));
  out.push("");
  out.push("Floor: JSON.stringify of the parsed documents + SHA-256 + writing the bytes, median (ms)");
  out.push(
    table(
      ["scenario", "files", "bytes", "same bytes", "stringify", "sha256", "write", "floor"],
      results.map((r) => [
        r.name,
        r.floor.files,
        r.floor.bytes,
        r.floor.sameBytes ? "yes" : "no",
        r.floor.parts.stringifyMs,
        r.floor.parts.sha256Ms,
        r.floor.parts.writeMs,
        r.floor.medianMs,
      ]),
    ),
  );
  out.push("");
  out.push("Archive growth per frame whose content did not change");
  out.push(
    table(
      [
        "scenario",
        "loose bytes",
        "loose objects",
        "blobs written",
        "changed surfaces",
        "packed/frame (gc)",
        "1st frame after gc",
        "later frames",
      ],
      results.map((r) => [
        r.name,
        `${r.archive.looseBytesPerFrame} (${kb(r.archive.looseBytesPerFrame)})`,
        r.archive.looseObjectsPerFrame,
        r.archive.blobsWritten,
        r.archive.changedSurfaces.length,
        r.archive.gc ? `${r.archive.gc.packedBytesPerFrame} (${kb(r.archive.gc.packedBytesPerFrame)})` : "n/a",
        r.archive.gc
          ? `${r.archive.gc.looseBytesFirstFrameAfterGc} in ${r.archive.gc.looseObjectsFirstFrameAfterGc} obj`
          : "n/a",
        r.archive.gc ? r.archive.gc.looseBytesPerLaterFrame : "n/a",
      ]),
    ),
  );
  for (const r of results) {
    if (r.archive.changedSurfaces.length)
      out.push(`  ${r.name}: surfaces whose stored bytes changed: ${r.archive.changedSurfaces.join(", ")}`);
  }
  const detailed = results.find((r) => r.archive.objects.length);
  if (detailed) {
    out.push("");
    out.push(`Objects added by one unchanged frame (${detailed.name})`);
    out.push(
      table(
        ["type", "path", "size", "loose bytes"],
        detailed.archive.objects.map((o) => [o.type, o.path, o.size, o.looseBytes]),
      ),
    );
  }
  const scale = results.find((r) => r.targets);
  if (scale?.targets) {
    const dominant = PHASES.reduce((a, b) => (scale.median[b] > scale.median[a] ? b : a));
    out.push("");
    out.push(
      `Targets at real scale: total ${scale.median.total} ms < ${TARGET_TOTAL_MS} ms: ${scale.targets.totalUnder3s ? "MET" : "MISSED"}; ` +
        `total/floor ${scale.ratio.toFixed(2)}x < ${TARGET_RATIO}x: ${scale.targets.ratioUnder4x ? "MET" : "MISSED"}. ` +
        `Dominant phase: ${dominant} (${scale.median[dominant]} ms, ${Math.round((100 * scale.median[dominant]) / scale.median.phaseSum)}% of the phases).`,
    );
    if (scale.cold) {
      out.push(
        `Cold CLI process at real scale: ${scale.cold.median.total} ms < ${TARGET_TOTAL_MS} ms: ${scale.targets.coldTotalUnder3s ? "MET" : "MISSED"}; ` +
          `${(scale.cold.median.total / scale.floor.medianMs).toFixed(1)}x the floor.`,
      );
    }
  }
  return out.join("\n");
}

async function cpuProfiler(file: string) {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  return {
    async start() {
      await session.post("Profiler.start");
    },
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      fs.writeFileSync(file, JSON.stringify(profile));
      process.stderr.write(`CPU profile of the timed scale runs: ${file}\n`);
    },
  };
}

/** Wall time of `node dist/bin/risk-cli.js --version`: Node start-up plus loading the CLI's modules. */
function cliStartup(runs: number): number | null {
  if (runs === 0) return null;
  const cli = fileURLToPath(new URL("../bin/risk-cli.js", import.meta.url));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    execFileSync(process.execPath, [cli, "--version"], { stdio: "ignore" });
    times.push(performance.now() - t);
  }
  return round1(median(times));
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const startupMs = cliStartup(opts.coldRuns);
  if (!(globalThis as { gc?: unknown }).gc)
    process.stderr.write("note: run with node --expose-gc for steadier figures\n");
  const results: ScenarioResult[] = [];
  let editorial: EditorialResult | null = null;
  if (opts.only !== "scale") {
    // A copy: the content-changed runs edit an input file, and the shipped demo must stay as it is.
    const demoCopy = fs.mkdtempSync(join(tmpdir(), "risk-bench-demo-pub-"));
    fs.cpSync(demoPublication(), demoCopy, { recursive: true });
    results.push(await scenario("demo", demoCopy, null, opts, null));
  }
  if (opts.only !== "demo") {
    process.stderr.write("[scale] generating the publication...\n");
    const generated = generatePublication({ scale: REAL_SCALE });
    const profile = opts.cpuProf ? await cpuProfiler(opts.cpuProf) : null;
    try {
      results.push(await scenario("scale", generated.dir, generated, opts, profile));
      process.stderr.write("[scale] editorial part...\n");
      editorial = await measureEditorial(generated.dir, opts.runs);
    } finally {
      if (!opts.keep) fs.rmSync(generated.dir, { recursive: true, force: true });
      else process.stderr.write(`[scale] kept the publication ${generated.dir}\n`);
    }
  }
  let text = report(results);
  if (editorial) text += `\n\n${editorialReport(editorial)}`;
  if (startupMs !== null)
    text += `\nCLI start-up (node dist/bin/risk-cli.js --version, module loading included): ${startupMs} ms, part of every cold CLI total.`;
  // Risk signals: upstream collection in parallel, against the slowest single fetch of the same run.
  process.stderr.write("[collect] five upstreams answering after 200 ms...\n");
  const collection = await benchCollection({ delayMs: 200, runs: opts.runs });
  text += `\n\n${collectionTable(collection)}`;
  const summary = {
    tool: { name: "risk-cli", version: VERSION },
    machine: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
    },
    options: {
      runs: opts.runs,
      warmup: opts.warmup,
      coldRuns: opts.coldRuns,
      floorRuns: opts.floorRuns,
      gcFrames: opts.gcFrames,
      frameSpacingMinutes: STEP_MS / 60000,
    },
    targets: { totalMs: TARGET_TOTAL_MS, ratio: TARGET_RATIO },
    cliStartupMs: startupMs,
    scenarios: results,
    editorial,
    collection,
  };
  if (opts.scaleRuns > 0 && opts.only !== "demo") {
    const scale = await measureScale({ runs: opts.scaleRuns, log: (m) => process.stderr.write(`${m}\n`) });
    text += `\n\n${scaleReport(scale)}`;
    (summary as Record<string, unknown>).scaleCpu = scale;
  }
  if (opts.startupRuns > 0) {
    const startup = await measureStartup({ runs: opts.startupRuns, frames: opts.startupFrames });
    text += `\n\n${startupReport(startup)}`;
    (summary as Record<string, unknown>).startup = startup;
  }
  if (opts.yearFrames > 0) {
    process.stderr.write(`[year] building ${opts.yearFrames} frames...\n`);
    const year = await measureYear({ frames: opts.yearFrames, runs: opts.runs });
    text += `\n\n${yearReport(year)}`;
    (summary as Record<string, unknown>).year = year;
  }
  const file = join(tmpdir(), "risk-cli-bench-results.json");
  fs.writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(
    `\n${summary.machine.cpu}, ${summary.machine.cores} cores, Node ${summary.machine.node}\n\n${text}\n\nJSON summary: ${file}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
