/**
 * Assembly at the real publication's scale, in CPU time (user + system of this process) against
 * the floor measured in the same run: reading, parsing, re-serialising, hashing and writing the
 * very bytes the assembly published. Three cases, each through `runAssembly`:
 *
 *   - first frame: a new site and an empty archive (nothing cached, nothing to reuse);
 *   - nothing changed: the scheduled job's usual frame;
 *   - one article edited: a sentence appended to one French article before the frame.
 *
 * Each run of a case is paired with a run of the floor taken just before it, and a case's ratio is
 * the median of its runs' ratios: on a shared 2-core machine the floor alone moves by a third
 * from one second to the next (270 to 460 ms in one process), so a floor measured minutes away
 * from the case it divides made the ratio move as much. The CPU figures are medians of `--runs`
 * runs; the first-frame runs each use a fresh archive. Run alone:
 * `node --expose-gc dist/bench/scale.js [--runs N] [--keep]`.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { runAssembly, type AssemblySummary } from "../app/assembly.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";
import { generatePublication, REAL_SCALE } from "./generate.ts";

export const SCALE_TARGETS = { firstFrame: 6, steady: 1.5, edited: 4 } as const;

/** First frames assembled before any is measured (see measureScale). */
const WARM_UPS = 4;

const PORTS = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: { info: () => {}, warn: () => {} } };
const START = Date.UTC(2026, 10, 21, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

export interface ScaleCase {
  cpuMs: number;
  /** The median of the runs' ratios, each run against the floor taken just before it. */
  ratio: number;
  /** The lowest and highest of the runs' ratios. */
  ratioRange: [number, number];
  target: number;
  phasesMs: AssemblySummary["phasesMs"];
}

export interface ScaleResult {
  runs: number;
  documents: number;
  siteBytes: number;
  floorCpuMs: number;
  firstFrame: ScaleCase;
  steady: ScaleCase;
  edited: ScaleCase;
}

function cpuOf<T>(f: () => T): { value: T; cpuMs: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

async function cpuOfAsync<T>(f: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  const value = await f();
  const used = process.cpuUsage(before);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

interface Run {
  cpuMs: number;
  /** The floor taken just before this run. */
  floorCpuMs: number;
  summary: AssemblySummary;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round1 = (x: number) => Math.round(x * 10) / 10;

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * The floor: every published file read, parsed (JSON, NDJSON lines; text as is), serialised again
 * with JSON.stringify, hashed and written to a fresh folder. What any tool must at least do to
 * publish these bytes from documents it already holds.
 */
function floor(site: string): number {
  const out = fs.mkdtempSync(join(tmpdir(), "risk-scale-floor-"));
  const { cpuMs } = cpuOf(() => {
    for (const file of filesUnder(site)) {
      const text = fs.readFileSync(file, "utf8");
      const again = file.endsWith(".ndjson")
        ? text
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => `${JSON.stringify(JSON.parse(l))}\n`)
            .join("")
        : file.endsWith(".json")
          ? JSON.stringify(JSON.parse(text))
          : text;
      const bytes = Buffer.from(again, "utf8");
      createHash("sha256").update(bytes).digest("hex");
      const target = join(out, relative(site, file));
      fs.mkdirSync(join(target, ".."), { recursive: true });
      fs.writeFileSync(target, bytes);
    }
  });
  fs.rmSync(out, { recursive: true, force: true });
  return cpuMs;
}

export async function measureScale(
  options: { runs?: number; keep?: boolean; log?: (m: string) => void } = {},
): Promise<ScaleResult> {
  const runs = options.runs ?? 9;
  const log = options.log ?? (() => {});
  const dir = fs.mkdtempSync(join(tmpdir(), "risk-scale-"));
  const generated = generatePublication({ dir: join(dir, "pub"), scale: REAL_SCALE });
  const publication = generated.dir;
  let minute = 0;
  const next = () => iso(START + minute++ * 15 * 60_000);

  log("[scale] first frames...");
  // Warm-ups, so that every case runs the code V8 has settled on. One is not enough: counting
  // the CPU time of V8's background threads (optimising compilation, mostly) through /proc, the
  // first frames after one warm-up spent 830, 780, 600 and 480 ms there, and from the fifth on
  // 230 to 300 ms; `--trace-opt` counted 104, 94 and 32 functions optimised in the first three.
  // The last warm-up's site is what the floor reads (the same files as every frame's but for the
  // instant they were generated at).
  for (let w = 0; w < WARM_UPS; w++) {
    fs.rmSync(join(dir, "warm"), { recursive: true, force: true });
    await runAssembly(
      { publication, site: join(dir, "warm/site"), archive: join(dir, "warm/archive.git"), now: next() },
      PORTS,
    );
  }
  const floorSite = join(dir, "warm/site");
  // The floor's own warm-up.
  floor(floorSite);
  const floors: number[] = [];
  /** One run of a case, with the floor taken just before it. */
  const paired = async (assembly: () => Promise<AssemblySummary>): Promise<Run> => {
    const floorCpuMs = floor(floorSite);
    floors.push(floorCpuMs);
    const { value, cpuMs } = await cpuOfAsync(assembly);
    return { cpuMs, floorCpuMs, summary: value };
  };
  const first: Run[] = [];
  for (let r = 0; r < runs; r++) {
    const base = join(dir, `first-${r}`);
    first.push(
      await paired(() =>
        runAssembly(
          { publication, site: join(base, "site"), archive: join(base, "archive.git"), now: iso(START) },
          PORTS,
        ),
      ),
    );
  }
  const site = join(dir, "first-0/site");
  const archive = join(dir, "first-0/archive.git");

  log("[scale] frames with nothing changed...");
  const steady: Run[] = [];
  await runAssembly({ publication, site, archive, now: next() }, PORTS);
  for (let r = 0; r < runs; r++) {
    steady.push(await paired(() => runAssembly({ publication, site, archive, now: next() }, PORTS)));
  }

  log("[scale] frames after one article is edited...");
  const articles = fs
    .readdirSync(join(publication, "content/articles/fr"))
    .filter((n) => n.endsWith(".md"))
    .sort();
  const edited: Run[] = [];
  for (let r = 0; r < runs; r++) {
    const file = join(publication, "content/articles/fr", articles[(r * 37) % articles.length]!);
    fs.appendFileSync(file, `\nUne phrase ajoutée à la révision ${r} : l'écart de crédit s'est resserré.\n`);
    edited.push(await paired(() => runAssembly({ publication, site, archive, now: next() }, PORTS)));
  }

  const floorCpuMs = round1(median(floors));
  const hundredths = (x: number) => Math.round(x * 100) / 100;
  const caseOf = (xs: Run[], target: number): ScaleCase => {
    const cpuMs = round1(median(xs.map((x) => x.cpuMs)));
    const mid = [...xs].sort((a, b) => a.cpuMs - b.cpuMs)[xs.length >> 1]!;
    const ratios = xs.map((x) => x.cpuMs / x.floorCpuMs);
    return {
      cpuMs,
      ratio: hundredths(median(ratios)),
      ratioRange: [hundredths(Math.min(...ratios)), hundredths(Math.max(...ratios))],
      target,
      phasesMs: mid.summary.phasesMs,
    };
  };
  const result: ScaleResult = {
    runs,
    documents:
      generated.counts.articlesFr + generated.counts.articlesEn + generated.counts.guidesFr + generated.counts.guidesEn,
    siteBytes: filesUnder(site).reduce((n, f) => n + fs.statSync(f).size, 0),
    floorCpuMs,
    firstFrame: caseOf(first, SCALE_TARGETS.firstFrame),
    steady: caseOf(steady, SCALE_TARGETS.steady),
    edited: caseOf(edited, SCALE_TARGETS.edited),
  };
  if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
  else log(`[scale] kept ${dir}`);
  return result;
}

export function scaleReport(r: ScaleResult): string {
  const row = (name: string, c: ScaleCase) =>
    `| ${name} | ${c.cpuMs} | ${r.floorCpuMs} | ${c.ratio}x | ${c.ratioRange[0]}x to ${c.ratioRange[1]}x | ${c.target}x: ${c.ratio <= c.target ? "met" : "**not met**"} |`;
  const phases = (name: string, c: ScaleCase) => `${name}: ${JSON.stringify(c.phasesMs)}`;
  return [
    `Real scale (${r.documents} documents, ${r.siteBytes} bytes of surfaces), CPU time of runAssembly against the floor taken just before each run, medians of ${r.runs}:`,
    "| case | CPU ms | floor CPU ms | ratio | runs' ratios | target |",
    "|---|--:|--:|--:|--:|---|",
    row("first frame into an empty archive", r.firstFrame),
    row("nothing changed", r.steady),
    row("one article edited", r.edited),
    "",
    "Phases (wall ms) of the median run:",
    phases("first frame", r.firstFrame),
    phases("nothing changed", r.steady),
    phases("one article edited", r.edited),
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf("--runs");
  const runs = at >= 0 ? Number(argv[at + 1]) : undefined;
  measureScale({ runs, keep: argv.includes("--keep"), log: (m) => process.stderr.write(`${m}\n`) })
    .then((r) => process.stdout.write(`${scaleReport(r)}\n`))
    .catch((e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    });
}
