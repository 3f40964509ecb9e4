/**
 * A year of frames: builds an archive of 35,040 frames (one every 15 minutes) of the demo
 * publication with synthetic upstream readings, then measures what must not grow with history.
 *
 * Every frame is made by the assembly itself (`runAssembly`), in one process, with the upstream
 * readings made up in memory instead of collected and the site kept in memory instead of written
 * to a folder. So the archive is the one `risk-cli assemble` would have made from those
 * readings, and `verify` checks it like any other.
 *
 *   node dist/bench/year.js [--frames N] [--keep]
 */
import * as fs from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { UpstreamState } from "../core/inputs/upstream.ts";
import { collectUpstream } from "../core/inputs/collect.ts";
import { loadPublication } from "../core/inputs/publication.ts";
import { readFrame } from "../archive/api/frames.ts";
import { headCommit } from "../archive/git/objects.ts";
import { runAssembly } from "../app/assembly.ts";
import { memorySite } from "../app/site-writer.ts";
import { runReplay } from "../cli/commands/replay.ts";
import { runVerify } from "../cli/commands/verify.ts";
import { demoPublication } from "../cli/paths.ts";
import { closePacks } from "../archive/git/pack.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";

export const YEAR_FRAMES = 35_040;
const STEP_MS = 15 * 60_000;
const START = Date.UTC(2025, 10, 21, 0, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

export interface YearResult {
  frames: number;
  buildSeconds: number;
  buildMsPerFrame: number;
  /** Steady assembly at frame 10 against frame N, in the archive as written (every object loose). */
  assemblyMs: AssemblyPair & { target: number };
  /** The same on a packed clone of the year (the archive as `git gc` leaves it), against a fresh frame-10 archive. */
  packedAssemblyMs: AssemblyPair | null;
  replayMs: { date: string; frameId: string; packedClone: number | null; archive: number; target: number };
  verify: { frames: number; seconds: number; framesPerSecond: number; packedCloneSeconds: number | null };
  size: { looseBytes: number; bytesPerFrame: number; afterGcBytes: number | null; afterGcBytesPerFrame: number | null };
}

/** Deterministic made-up readings: a bounded random walk per instrument, published hourly. */
function syntheticUpstream(base: UpstreamState, i: number, now: number): UpstreamState {
  const instruments: UpstreamState["instruments"] = {};
  let k = 0;
  for (const [key, result] of Object.entries(base.instruments) as [
    keyof UpstreamState["instruments"],
    NonNullable<UpstreamState["instruments"]["us"]>,
  ][]) {
    k++;
    if (!result.ok) continue;
    // One attempt in 500 fails, so the year holds fallbacks too.
    if ((i * 7 + k * 13) % 500 === 0) {
      instruments[key] = { ok: false, source: result.source, status: "timeout", error: "synthetic timeout" };
      continue;
    }
    const hour = Math.floor(now / 3_600_000) * 3_600_000;
    const phase = (hour / 3_600_000) * (0.013 + k * 0.007);
    const value = Math.round((50 + 45 * Math.sin(phase) * Math.cos(phase / 7 + k)) * 100) / 100;
    const scale = result.reading.scale;
    const reading = {
      ...result.reading,
      value: (value / 100) * scale,
      publishedAt: iso(hour),
      observedAt: iso(hour - 3_600_000),
    };
    if (reading.debt) {
      reading.debt = { ...reading.debt, scoreRaw: value, generatedAt: iso(hour) };
      reading.value = Math.round(value * 10) / 10;
      reading.rawValue = value;
      reading.observedAt = iso(hour).slice(0, 10);
    }
    instruments[key] = { ok: true, source: result.source, reading };
  }
  return { ...base, attemptedAt: iso(now), instruments };
}

/**
 * Builds `frames` frames into `archive` through the assembly itself (app/assembly.ts), with the
 * site kept in memory and synthetic readings instead of collected ones; returns the last frame's
 * instant and served files.
 */
export async function buildArchive(
  archive: string,
  frames: number,
  publicationDir: string,
  progress = (_i: number) => {},
) {
  const base = await collectUpstream(
    await loadPublication(nodeFs, publicationDir),
    { fs: nodeFs },
    { attemptedAt: iso(START) },
  );
  const site = memorySite();
  const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: { info: () => {}, warn: () => {} } };
  let at = START;
  for (let i = 0; i < frames; i++) {
    at = START + i * STEP_MS;
    const frame = i;
    await runAssembly(
      { publication: publicationDir, site, archive, now: iso(at), upstream: () => syntheticUpstream(base, frame, at) },
      ports,
    );
    if (i % 500 === 0) progress(i);
  }
  return { lastAt: at, served: site.files };
}

function writeSite(site: string, served: Map<string, Uint8Array>): void {
  fs.rmSync(site, { recursive: true, force: true });
  for (const [path, bytes] of served) {
    fs.mkdirSync(join(site, path, ".."), { recursive: true });
    fs.writeFileSync(join(site, path), bytes);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round1 = (x: number) => Math.round(x * 10) / 10;

interface AssemblyPair {
  atFrame10: number;
  atFrameN: number;
  ratio: number;
  phases10: Record<string, number>;
  phasesN: Record<string, number>;
}

const pairOf = (young: Timed, old: Timed): AssemblyPair => ({
  atFrame10: young.ms,
  atFrameN: old.ms,
  ratio: Math.round((old.ms / young.ms) * 100) / 100,
  phases10: young.phases,
  phasesN: old.phases,
});

interface Timed {
  ms: number;
  phases: Record<string, number>;
}

/**
 * Median wall time of `runs` steady-state assemblies after each archive's last frame. The
 * archives take turns (young, old, young, old...), each run after a forced GC and with the packs
 * closed, so that a slower moment of the machine falls on both sides instead of on one and no
 * run inherits what an earlier one read.
 */
export async function pairedAssemblyTimes(
  sides: { archive: string; site: string; lastAt: number }[],
  publication: string,
  runs: number,
): Promise<Timed[]> {
  const times: number[][] = sides.map(() => []);
  const phases: Record<string, number[]>[] = sides.map(() => ({}));
  for (let r = 0; r <= runs; r++) {
    for (const [k, side] of sides.entries()) {
      const now = iso(side.lastAt + (r + 1) * STEP_MS);
      // As a new process would: no pack index or delta base kept from the run before.
      closePacks();
      (globalThis as { gc?: () => void }).gc?.();
      const t = performance.now();
      const summary = await runAssembly(
        { publication, site: side.site, archive: side.archive, now },
        { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: { info: () => {}, warn: () => {} } },
      );
      if (r === 0) continue;
      times[k]!.push(performance.now() - t);
      for (const [p, v] of Object.entries(summary.phasesMs)) (phases[k]![p] ??= []).push(v);
    }
  }
  return sides.map((_, k) => ({
    ms: round1(median(times[k]!)),
    phases: Object.fromEntries(Object.entries(phases[k]!).map(([p, v]) => [p, round1(median(v))])),
  }));
}

/** The time of an archive's last frame, in epoch ms. */
async function headAt(archive: string): Promise<number> {
  const head = await headCommit(archive);
  if (!head) throw new Error(`${archive} has no frame`);
  return Date.parse((await readFrame(archive, head)).frame.at);
}

function duBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? duBytes(p) : fs.statSync(p).size;
  }
  return n;
}

export async function measureYear(
  options: { frames?: number; runs?: number; keep?: boolean; log?: (m: string) => void } = {},
): Promise<YearResult> {
  const frames = options.frames ?? YEAR_FRAMES;
  const runs = options.runs ?? 5;
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const dir = fs.mkdtempSync(join(tmpdir(), "risk-year-"));
  const publication = join(dir, "pub");
  fs.cpSync(demoPublication(), publication, { recursive: true });
  try {
    // Frame 10: a young archive, the baseline.
    const young = join(dir, "young.git");
    const y = await buildArchive(young, 10, publication);
    writeSite(`${young}-site`, y.served);
    // A second one for the packed comparison (the first gains frames as it is measured).
    const youngB = join(dir, "young-b.git");
    await buildArchive(youngB, 10, publication);
    writeSite(`${youngB}-site`, y.served);
    // A year.
    const year = join(dir, "year.git");
    const t = performance.now();
    const built = await buildArchive(year, frames, publication, (i) =>
      log(`[year] frame ${i} of ${frames}, ${Math.round((performance.now() - t) / 1000)} s`),
    );
    const buildSeconds = (performance.now() - t) / 1000;
    log(`[year] ${frames} frames in ${buildSeconds.toFixed(0)} s`);
    const looseBytes = duBytes(join(year, "objects"));

    // Steady assembly: a frame-10 archive and an old one, taking turns.
    const pair = async (youngArchive: string, oldArchive: string, oldSite: string) => {
      const [a, b] = await pairedAssemblyTimes(
        [
          { archive: youngArchive, site: `${youngArchive}-site`, lastAt: await headAt(youngArchive) },
          { archive: oldArchive, site: oldSite, lastAt: await headAt(oldArchive) },
        ],
        publication,
        Math.max(runs, 15),
      );
      return pairOf(a!, b!);
    };
    // The packed clone is taken now, so that it ends at the year's last frame like the site written for it.
    let clonePath: string | null = null;
    try {
      execFileSync("git", ["clone", "--quiet", "--bare", "--no-local", year, join(dir, "clone")], { stdio: "ignore" });
      clonePath = join(dir, "clone");
    } catch (e) {
      log(`[year] git clone failed, no packed figures: ${(e as Error).message}`);
    }
    writeSite(join(dir, "year-site"), built.served);
    const loose = await pair(young, year, join(dir, "year-site"));
    log(
      `[year] assembly at frame 10: ${loose.atFrame10} ms, at frame ${frames}: ${loose.atFrameN} ms (${loose.ratio}x)`,
    );

    // Replay in the middle of the year, in the archive as written (loose objects) and in a clone.
    const middle = iso(START + Math.floor(frames / 2) * STEP_MS + 7 * 60_000);
    const replayRuns: number[] = [];
    let frameId = "";
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const rep = await runReplay({ archive: year, date: middle, json: true });
      replayRuns.push(performance.now() - t0);
      frameId =
        (rep as { frameId?: string }).frameId ?? (rep as { frame?: { frameId?: string } }).frame?.frameId ?? frameId;
    }
    let packedClone: number | null = null;
    let afterGcBytes: number | null = null;
    if (clonePath) {
      closePacks(); // the first read of the clone in this process
      const t0 = performance.now();
      await runReplay({ archive: clonePath, date: middle, json: true });
      packedClone = round1(performance.now() - t0);
      afterGcBytes = duBytes(join(clonePath, "objects"));
    }

    const tv = performance.now();
    const report = await runVerify({ archive: year, json: true });
    const verifySeconds = (performance.now() - tv) / 1000;
    log(`[year] verify: ${report.frames} frames in ${verifySeconds.toFixed(1)} s`);
    let cloneVerifySeconds: number | null = null;
    if (clonePath) {
      const tc = performance.now();
      await runVerify({ archive: clonePath, json: true });
      cloneVerifySeconds = (performance.now() - tc) / 1000;
      log(`[year] verify of the packed clone: ${cloneVerifySeconds.toFixed(1)} s`);
    }
    // Steady assembly on the packed clone: the year as a scheduled job that runs `git gc` keeps it.
    // `git gc` leaves the Git directory's own files alone, so the frame digest cache is carried over
    // (a clone does not carry it; it would fill again over the next 30 days).
    let packedAssemblyMs: AssemblyPair | null = null;
    if (clonePath) {
      fs.cpSync(join(year, "risk-cli-frames"), join(clonePath, "risk-cli-frames"), { recursive: true });
      writeSite(join(dir, "clone-site"), built.served);
      packedAssemblyMs = await pair(youngB, clonePath, join(dir, "clone-site"));
      log(
        `[year] assembly on the packed clone: frame 10 ${packedAssemblyMs.atFrame10} ms, frame ${frames} ${packedAssemblyMs.atFrameN} ms (${packedAssemblyMs.ratio}x)`,
      );
    }
    return {
      frames,
      buildSeconds: round1(buildSeconds),
      buildMsPerFrame: round1((buildSeconds * 1000) / frames),
      assemblyMs: { ...loose, target: 1.2 },
      packedAssemblyMs,
      replayMs: { date: middle, frameId, packedClone, archive: round1(median(replayRuns)), target: 300 },
      verify: {
        frames: report.frames,
        seconds: round1(verifySeconds),
        framesPerSecond: Math.round(report.frames / verifySeconds),
        packedCloneSeconds: cloneVerifySeconds === null ? null : round1(cloneVerifySeconds),
      },
      size: {
        looseBytes,
        bytesPerFrame: Math.round(looseBytes / frames),
        afterGcBytes,
        afterGcBytesPerFrame: afterGcBytes === null ? null : Math.round(afterGcBytes / frames),
      },
    };
  } finally {
    if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
    else log(`[year] kept ${dir}`);
  }
}

export function yearReport(r: YearResult): string {
  return [
    `A year of frames (${r.frames} frames, one every 15 minutes; built by runAssembly in ${r.buildSeconds} s, ${r.buildMsPerFrame} ms a frame):`,
    `  assembly in the archive as written (all loose): frame 10 ${r.assemblyMs.atFrame10} ms; frame ${r.frames} ${r.assemblyMs.atFrameN} ms; ratio ${r.assemblyMs.ratio}x (target under ${r.assemblyMs.target}x: ${r.assemblyMs.ratio < r.assemblyMs.target ? "met" : "NOT met"})`,
    `    phases at frame 10: ${JSON.stringify(r.assemblyMs.phases10)}; at frame ${r.frames}: ${JSON.stringify(r.assemblyMs.phasesN)}`,
    r.packedAssemblyMs
      ? `  on a packed clone (as after git gc): frame 10 ${r.packedAssemblyMs.atFrame10} ms; frame ${r.frames} ${r.packedAssemblyMs.atFrameN} ms; ratio ${r.packedAssemblyMs.ratio}x (${r.packedAssemblyMs.ratio < r.assemblyMs.target ? "met" : "NOT met"})\n    phases at frame 10: ${JSON.stringify(r.packedAssemblyMs.phases10)}; at frame ${r.frames}: ${JSON.stringify(r.packedAssemblyMs.phasesN)}`
      : "  on a packed clone: n/a (git clone failed)",
    `  replay --date ${r.replayMs.date} (${r.replayMs.frameId}): ${r.replayMs.archive} ms in the archive as written, ${r.replayMs.packedClone ?? "n/a"} ms in a fresh packed clone (target under ${r.replayMs.target} ms)`,
    `  verify: ${r.verify.frames} frames in ${r.verify.seconds} s, ${r.verify.framesPerSecond} frames/s; on the packed clone ${r.verify.packedCloneSeconds ?? "n/a"} s`,
    `  size: ${r.size.looseBytes} bytes loose (${r.size.bytesPerFrame} B/frame); packed clone ${r.size.afterGcBytes ?? "n/a"} bytes (${r.size.afterGcBytesPerFrame ?? "n/a"} B/frame)`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const argv = process.argv.slice(2);
  const framesAt = argv.indexOf("--frames");
  const frames = framesAt >= 0 ? Number(argv[framesAt + 1]) : YEAR_FRAMES;
  measureYear({ frames, keep: argv.includes("--keep") })
    .then((r) => process.stdout.write(`${yearReport(r)}\n${JSON.stringify(r, null, 2)}\n`))
    .catch((e: unknown) => {
      process.stderr.write(`year bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    });
}
