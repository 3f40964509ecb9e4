/**
 * The frame digest cache: what the risk-diff windows read of a baseline frame (BaselineFrame),
 * written by the assembly that commits each frame, so that later assemblies find their 1-, 7-
 * and 30-day baselines without reading old objects from the archive. After `git gc` those are
 * deltas deep in a pack (about 3 ms for the three at a year of frames, against 0.3 ms here).
 * Git's commit-graph file does the same for commit metadata.
 *
 * It lives in the archive's Git directory (`risk-cli-frames/`, which Git ignores and a clone does
 * not carry): one NDJSON file per UTC day of frame times, one line per frame, plus `HEAD`, the
 * commit its last line describes. It is trusted only while `HEAD` is the archive's head: every
 * assembly appends the frame it commits and moves `HEAD`, so all its lines are then frames of the
 * branch's own history. Any other head (a reset, another writer, a restored backup) empties it.
 * A lookup answers only when two consecutive frames (seq n and n + 1, chained by their hashes)
 * enclose the instant, so a missing line can never make it pick an earlier frame; otherwise, or
 * when anything is unreadable, the caller reads the archive as before.
 */
import * as fs from "node:fs";
import { BaselineFrame, type Frame } from "../../core/frame.ts";

const DIR = "risk-cli-frames";
/** Day files older than the longest window (30 days) and a margin are removed. */
const KEEP_DAYS = 32;

interface Line {
  at: string;
  seq: number;
  commit: string;
  previousFrameHash: string | null;
  frame: BaselineFrame;
}

const dayOf = (iso: string) => iso.slice(0, 10);
const dayFile = (gitdir: string, day: string) => `${gitdir}/${DIR}/${day}.ndjson`;
const headFile = (gitdir: string) => `${gitdir}/${DIR}/HEAD`;

function readHead(gitdir: string): string | null {
  try {
    return fs.readFileSync(headFile(gitdir), "latin1").trim();
  } catch {
    return null;
  }
}

/**
 * Records `frame`, just committed as `commit` on top of `parent` (null for the first frame).
 * Never fails the assembly: a cache that cannot be written is removed, and lookups read the
 * archive instead.
 */
export function recordDigest(gitdir: string, parent: string | null, commit: string, frame: Frame): void {
  const dir = `${gitdir}/${DIR}`;
  try {
    if (parent === null || readHead(gitdir) !== parent) fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const line: Line = {
      at: frame.at,
      seq: frame.seq,
      commit,
      previousFrameHash: frame.previousFrameHash,
      frame: { frameId: frame.frameId, at: frame.at, frameHash: frame.frameHash, signals: frame.signals, models: frame.models },
    };
    const file = dayFile(gitdir, dayOf(frame.at));
    const newDay = !fs.existsSync(file);
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    const tmp = `${headFile(gitdir)}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, `${commit}\n`);
    fs.renameSync(tmp, headFile(gitdir));
    if (newDay) {
      const oldest = new Date(Date.parse(frame.at) - KEEP_DAYS * 86_400_000).toISOString().slice(0, 10);
      for (const name of fs.readdirSync(dir)) if (name.endsWith(".ndjson") && name.slice(0, 10) < oldest) fs.rmSync(`${dir}/${name}`, { force: true });
    }
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function readDay(gitdir: string, day: string): Line[] | null {
  let text: string;
  try {
    text = fs.readFileSync(dayFile(gitdir, day), "utf8");
  } catch {
    return null;
  }
  const lines: Line[] = [];
  for (const row of text.split("\n")) {
    if (!row) continue;
    try {
      lines.push(JSON.parse(row) as Line);
    } catch {
      return null; // a torn line: not trusted
    }
  }
  return lines;
}

const shiftDay = (day: string, by: number) => new Date(Date.parse(`${day}T00:00:00Z`) + by * 86_400_000).toISOString().slice(0, 10);

/**
 * The last frame at or before `instant` (epoch ms), from the cache, when the cache belongs to
 * `head` and holds that frame and the one after it; otherwise null.
 */
export function cachedBaseline(gitdir: string, head: string, instant: number): { commit: string; frame: BaselineFrame } | null {
  if (readHead(gitdir) !== head) return null;
  const day = dayOf(new Date(instant).toISOString());
  const lines = readDay(gitdir, day);
  if (!lines) return null;
  const i = lines.findLastIndex((l) => Date.parse(l.at) <= instant);
  // The enclosing pair may straddle midnight: the last frame of the day before, or the first of the next.
  const found = i >= 0 ? lines[i] : readDay(gitdir, shiftDay(day, -1))?.at(-1);
  const next = i >= 0 ? (lines[i + 1] ?? readDay(gitdir, shiftDay(day, 1))?.[0]) : lines[0];
  if (!found || !next) return null;
  if (next.seq !== found.seq + 1 || next.previousFrameHash !== found.frame.frameHash || Date.parse(found.at) > instant || Date.parse(next.at) <= instant) return null;
  const parsed = BaselineFrame.safeParse(found.frame);
  return parsed.success && parsed.data.at === found.at ? { commit: found.commit, frame: parsed.data } : null;
}
