/**
 * The frame digest cache: what the risk-diff windows read of a baseline frame (BaselineFrame),
 * written by the assembly that commits each frame, so that later assemblies find their 1-, 7-
 * and 30-day baselines without reading old objects from the archive. After `git gc` those are
 * deltas deep in a pack (about 3 ms for the three at a year of frames, against 0.3 ms here).
 * Git's commit-graph file does the same for commit metadata.
 *
 * It lives in the archive's Git directory (`risk-cli-frames/`, which Git ignores and a clone does
 * not carry): one NDJSON file per UTC day of frame times, one line per frame, with a small
 * `.at` file of each line's time and place, plus `HEAD`, the commit its last line describes. It
 * is trusted only while `HEAD` is the archive's head: every assembly appends the frame it commits and moves `HEAD`, so all its lines are then frames of the
 * branch's own history. Any other head (a reset, another writer, a restored backup) empties it.
 * A lookup answers only when two consecutive frames (seq n and n + 1, chained by their hashes)
 * enclose the instant, so a missing line can never make it pick an earlier frame; otherwise, or
 * when anything is unreadable, the caller reads the archive as before.
 */
import * as fs from "node:fs";
import { BaselineFrame, type Frame } from "../../core/frame.ts";
import { appendKeptFile, makeKeptFolder, readKeptFile, writeKeptFile } from "../kept-file.ts";

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
  return readKeptFile(headFile(gitdir), "latin1")?.trim() ?? null;
}

/**
 * True when `commit` is the last frame this archive's own assemblies committed (the cache's
 * `HEAD`): its tree is the one they wrote, each blob checked as it was written. A head pulled,
 * restored or rewritten by anything else is not.
 */
export function wroteHead(gitdir: string, commit: string): boolean {
  return readHead(gitdir) === commit;
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
    makeKeptFolder(gitdir, dir);
    const line: Line = {
      at: frame.at,
      seq: frame.seq,
      commit,
      previousFrameHash: frame.previousFrameHash,
      frame: {
        frameId: frame.frameId,
        at: frame.at,
        frameHash: frame.frameHash,
        signals: frame.signals,
        models: frame.models,
      },
    };
    const file = dayFile(gitdir, dayOf(frame.at));
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
    const newDay = size === undefined;
    const offset = size ?? 0;
    const text = Buffer.from(`${JSON.stringify(line)}\n`);
    appendKeptFile(gitdir, file, text);
    appendKeptFile(gitdir, `${file}.at`, `${frame.at} ${offset} ${text.length}\n`);
    writeKeptFile(gitdir, headFile(gitdir), `${commit}\n`);
    if (newDay) {
      const oldest = new Date(Date.parse(frame.at) - KEEP_DAYS * 86_400_000).toISOString().slice(0, 10);
      for (const name of fs.readdirSync(dir))
        if (name !== "HEAD" && name.slice(0, 10) < oldest) fs.rmSync(`${dir}/${name}`, { force: true });
    }
  } catch {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not this account's to remove (another account of a shared archive wrote it): lookups
      // that find it out of date read the archive instead.
    }
  }
}

/**
 * A day of the cache, read lazily: `<day>.ndjson.at` lists each line's frame time, byte offset
 * and length (30 bytes a frame), which is all a lookup compares; then only the one or two lines
 * it returns are read from `<day>.ndjson` and parsed (a line is about 2.5 KB, a day 240 KB).
 */
interface Day {
  at: string[];
  line(i: number): Line | null;
}

function readDay(gitdir: string, day: string): Day | null {
  const file = dayFile(gitdir, day);
  const index = readKeptFile(`${file}.at`, "latin1");
  if (index === null) return null;
  const rows = index.split("\n");
  if (rows.pop() !== "") return null; // a torn last entry: not trusted
  const at: string[] = [];
  const spans: [number, number][] = [];
  for (const row of rows) {
    const [time, offset, length] = row.split(" ");
    if (time?.length !== 20 || !(Number(offset) >= 0) || !(Number(length) > 0)) return null;
    at.push(time);
    spans.push([Number(offset), Number(length)]);
  }
  return {
    at,
    line(i) {
      const [offset, length] = spans[i]!;
      try {
        // Without blocking or following a link: a FIFO put in its place must not hang the run.
        const fd = fs.openSync(
          file,
          fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0),
        );
        const buf = Buffer.alloc(length);
        try {
          if (!fs.fstatSync(fd).isFile() || fs.readSync(fd, buf, 0, length, offset) !== length) return null;
        } finally {
          fs.closeSync(fd);
        }
        if (buf[length - 1] !== 10) return null;
        const parsed = JSON.parse(buf.toString("utf8")) as Line;
        return parsed.at === at[i] ? parsed : null;
      } catch {
        return null;
      }
    },
  };
}

const shiftDay = (day: string, by: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + by * 86_400_000).toISOString().slice(0, 10);

/**
 * The cache's lookups for an archive whose head is `head`, or null when the cache does not end
 * there. The HEAD file is read once, and each day file at most once, for all the windows.
 */
export function frameDigests(
  gitdir: string,
  head: string,
): { baseline(instant: number): { commit: string; frame: BaselineFrame } | null } | null {
  if (readHead(gitdir) !== head) return null;
  const days = new Map<string, Day | null>();
  const dayAt = (day: string) => {
    if (!days.has(day)) days.set(day, readDay(gitdir, day));
    return days.get(day)!;
  };
  return { baseline: (instant) => baselineAt(dayAt, instant) };
}

/**
 * The last frame at or before `instant` (epoch ms), from the cache, when the cache belongs to
 * `head` and holds that frame and the one after it; otherwise null.
 */
export function cachedBaseline(
  gitdir: string,
  head: string,
  instant: number,
): { commit: string; frame: BaselineFrame } | null {
  return frameDigests(gitdir, head)?.baseline(instant) ?? null;
}

function baselineAt(
  dayAt: (day: string) => Day | null,
  instant: number,
): { commit: string; frame: BaselineFrame } | null {
  const day = dayOf(new Date(instant).toISOString());
  const today = dayAt(day);
  if (!today) return null;
  let i = today.at.length - 1;
  while (i >= 0 && Date.parse(today.at[i]!) > instant) i--;
  // The enclosing pair may straddle midnight: the last frame of the day before, or the first of the next.
  let found: Line | null | undefined;
  let next: Line | null | undefined;
  if (i >= 0) {
    found = today.line(i);
    if (i + 1 < today.at.length) next = today.line(i + 1);
    else next = dayAt(shiftDay(day, 1))?.line(0);
  } else {
    const before = dayAt(shiftDay(day, -1));
    found = before && before.at.length > 0 ? before.line(before.at.length - 1) : null;
    next = today.at.length > 0 ? today.line(0) : null;
  }
  if (!found || !next) return null;
  if (
    next.seq !== found.seq + 1 ||
    next.previousFrameHash !== found.frame.frameHash ||
    Date.parse(found.at) > instant ||
    Date.parse(next.at) <= instant
  )
    return null;
  const parsed = BaselineFrame.safeParse(found.frame);
  return parsed.success && parsed.data.at === found.at ? { commit: found.commit, frame: parsed.data } : null;
}
