/**
 * Start-up cost of the published bin (dist/bin/risk-cli.js), in CPU time (user + system) of the
 * child process, against what the same job costs without risk-cli, both sides measured back to
 * back, taking turns, in one run:
 *
 *   1. `risk-cli --version` against `node -e 0` (Node's own start-up);
 *   2. one steady demo frame (`risk-cli assemble` of the built-in demo, inputs unchanged, a fresh
 *      process) against a git-scraping commit of the same site files with one small change
 *      (`git add -A && git commit -q -m x` in a work tree, as a scraper job does);
 *   3. `risk-cli replay --json --date D` on an archive of many frames against `node -e 0`.
 *
 * CPU time rather than wall time: it is what a scheduled job pays for, and it does not move with
 * the other processes of a 2-core machine the way wall time does. Each figure is measured by
 * bash's `time` around the one command, so a process's children (git's) are counted too.
 *
 *   node dist/bench/startup.js [--runs N] [--frames N] [--archive DIR --date DATE] [--keep]
 *
 * Without --archive, an archive of --frames frames (default 300, 15 minutes apart) is built in
 * process as the year bench builds its archive; with it (for example a year archive kept by
 * `node dist/bench/year.js --keep`), replay reads that one at --date.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { demoPublication } from "../cli/paths.ts";
import { buildArchive } from "./year.ts";

export const TARGETS = { version: 2, steadyFrame: 6, replay: 3 } as const;

const BIN = fileURLToPath(new URL("../bin/risk-cli.js", import.meta.url));
const STEP_MS = 15 * 60_000;

export interface StartupOptions {
  runs?: number;
  frames?: number;
  /** An existing archive for replay, instead of building one. */
  archive?: string;
  /** The replay date in that archive (required with `archive`). */
  date?: string;
  keep?: boolean;
  log?: (m: string) => void;
}

/** One comparison: medians of CPU milliseconds, risk-cli's side over the baseline's. */
export interface Pair {
  name: string;
  command: string;
  baseline: string;
  cpuMs: number;
  baselineCpuMs: number;
  ratio: number;
  target: number;
  met: boolean;
  /** Every run, in the order measured, for a look at the spread. */
  runsMs: number[];
  baselineRunsMs: number[];
}

export interface StartupResult {
  runs: number;
  replayArchive: { frames: number | null; date: string; built: boolean };
  pairs: Pair[];
}

/** CPU time (user + system, ms) of `command` run by bash, its children included; its output is dropped. */
function cpuMs(command: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): number {
  const script = `TIMEFORMAT='%3U %3S'; { time ( ${command} >/dev/null 2>&1 ) ; } 2>&1`;
  const r = spawnSync("bash", ["-c", script], { cwd: options.cwd, env: options.env ?? process.env, encoding: "utf8" });
  const m = /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(r.stdout);
  if (r.status !== 0 || !m)
    throw new Error(
      `Cannot time \`${command}\`: bash exited ${r.status}, printed ${JSON.stringify(r.stdout + r.stderr)}`,
    );
  return (Number(m[1]) + Number(m[2])) * 1000;
}

/** Exits non-zero with its output when `command` fails, so that a broken side is never timed as fast. */
function check(command: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const r = spawnSync("bash", ["-c", command], { cwd: options.cwd, env: options.env ?? process.env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`\`${command}\` failed (exit ${r.status}): ${r.stderr || r.stdout}`);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs both sides `runs` times, taking turns (ours, baseline, ours...), after one untimed run of
 * each (index -1). A side gets its run's index and times only its command.
 */
function pair(
  spec: { name: string; command: string; baseline: string; target: number },
  runs: number,
  sides: { ours: (i: number) => number; baseline: (i: number) => number },
): Pair {
  sides.ours(-1);
  sides.baseline(-1);
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(sides.ours(i));
    base.push(sides.baseline(i));
  }
  const cpu = median(ours);
  const baselineCpu = median(base);
  const ratio = cpu / baselineCpu;
  return {
    ...spec,
    cpuMs: round1(cpu),
    baselineCpuMs: round1(baselineCpu),
    ratio: round2(ratio),
    met: ratio <= spec.target,
    runsMs: ours.map(round1),
    baselineRunsMs: base.map(round1),
  };
}

export async function measureStartup(options: StartupOptions = {}): Promise<StartupResult> {
  const runs = options.runs ?? 9;
  const frames = options.frames ?? 300;
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
  if (options.archive && !options.date) throw new Error("--archive needs --date: a date inside that archive");
  const dir = fs.mkdtempSync(join(tmpdir(), "risk-bench-startup-"));
  const node = q(process.execPath);
  const bin = `${node} ${q(BIN)}`;
  const nodeBaseline = `${node} -e 0`;
  const env = { ...process.env, SOURCE_DATE_EPOCH: "", TZ: "UTC" };
  try {
    const pairs: Pair[] = [];

    log("[startup] --version against node -e 0...");
    check(`${bin} --version`);
    pairs.push(
      pair({ name: "--version", command: "risk-cli --version", baseline: "node -e 0", target: TARGETS.version }, runs, {
        ours: () => cpuMs(`${bin} --version`, { env }),
        baseline: () => cpuMs(nodeBaseline, { env }),
      }),
    );

    log("[startup] a steady demo frame against a git-scraping commit...");
    const site = join(dir, "site");
    const archive = join(dir, "archive.git");
    const start = Date.parse("2026-11-21T06:00:00Z");
    const assembleAt = (i: number) =>
      `${bin} assemble --site ${q(site)} --archive ${q(archive)} --now ${iso(start + (i + 2) * STEP_MS)}`;
    // The first frame: the site, the archive and the caches exist before any timed run.
    check(`${bin} assemble --site ${q(site)} --archive ${q(archive)} --now ${iso(start)}`, { env });
    const scraped = join(dir, "scraped");
    fs.cpSync(site, scraped, { recursive: true });
    const gitEnv = {
      ...env,
      GIT_AUTHOR_NAME: "scraper",
      GIT_AUTHOR_EMAIL: "scraper@example.org",
      GIT_COMMITTER_NAME: "scraper",
      GIT_COMMITTER_EMAIL: "scraper@example.org",
    };
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: scraped, env: gitEnv });
    check("git add -A && git commit -q -m initial", { cwd: scraped, env: gitEnv });
    const scrapedFile = join(scraped, "api", "v1", "risk.json");
    const original = fs.readFileSync(scrapedFile, "utf8");
    if (!original.includes('"generated":"')) throw new Error(`${scrapedFile} has no "generated" stamp to change`);
    // One small change, as a scraper's new reading makes: the generated stamp moves.
    const touch = (i: number) =>
      fs.writeFileSync(
        scrapedFile,
        original.replace(/"generated":"[^"]*"/, `"generated":"${iso(start + (i + 2) * STEP_MS)}"`),
      );
    pairs.push(
      pair(
        {
          name: "steady demo frame",
          command: "risk-cli assemble (demo, inputs unchanged)",
          baseline: "git add -A && git commit (same files, one changed)",
          target: TARGETS.steadyFrame,
        },
        runs,
        {
          ours: (i) => cpuMs(assembleAt(i), { env }),
          baseline: (i) => {
            touch(i);
            return cpuMs("git add -A && git commit -q -m x", { cwd: scraped, env: gitEnv });
          },
        },
      ),
    );

    let replayArchive: string;
    let date: string;
    let built = false;
    if (options.archive) {
      replayArchive = options.archive;
      date = options.date!;
    } else {
      log(`[startup] building an archive of ${frames} frames...`);
      replayArchive = join(dir, "many.git");
      const { lastAt } = await buildArchive(replayArchive, frames, demoPublication());
      // Mid-archive, between two frames: the lookup must find the one before.
      date = iso(lastAt - Math.floor(frames / 2) * STEP_MS + 7 * 60_000);
      built = true;
    }
    log(`[startup] replay --json --date ${date} against node -e 0...`);
    const replay = `${bin} replay --json --date ${date} --archive ${q(replayArchive)}`;
    check(replay, { env });
    pairs.push(
      pair(
        {
          name: "replay",
          command: `risk-cli replay --json --date (${built ? `${frames} frames` : replayArchive})`,
          baseline: "node -e 0",
          target: TARGETS.replay,
        },
        runs,
        {
          ours: () => cpuMs(replay, { env }),
          baseline: () => cpuMs(nodeBaseline, { env }),
        },
      ),
    );
    return { runs, replayArchive: { frames: built ? frames : null, date, built }, pairs };
  } finally {
    if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
    else log(`[startup] kept ${dir}`);
  }
}

export function startupReport(r: StartupResult): string {
  const head = ["measure", "risk-cli CPU ms", "baseline", "baseline CPU ms", "ratio", "target", ""];
  const rows = r.pairs.map((p) => [
    p.command,
    String(p.cpuMs),
    p.baseline,
    String(p.baselineCpuMs),
    `${p.ratio}x`,
    `${p.target}x`,
    p.met ? "met" : "NOT met",
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return [
    `Start-up of the published bin (dist/bin/risk-cli.js), CPU time (user + system) of the process, medians of ${r.runs} runs taking turns with the baseline:`,
    line(head),
    ...rows.map(line),
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const argv = process.argv.slice(2);
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const number = (flag: string) => (value(flag) === undefined ? undefined : Number(value(flag)));
  measureStartup({
    runs: number("--runs"),
    frames: number("--frames"),
    archive: value("--archive"),
    date: value("--date"),
    keep: argv.includes("--keep"),
  })
    .then((r) => process.stdout.write(`${startupReport(r)}\n\n${JSON.stringify(r, null, 2)}\n`))
    .catch((e: unknown) => {
      process.stderr.write(`startup bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    });
}
