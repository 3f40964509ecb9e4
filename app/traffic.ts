/**
 * Reading the web server's access logs into counts per closed UTC day (core/traffic/), kept
 * beside the archive in `risk-cli-traffic.json` until a frame publishes them. Only counts are
 * kept: never an address, a user agent, a cookie, a referrer's path or any key per visitor. A log
 * file is known by the time, request and length of its first line (no address in it) and by how
 * many of its bytes were counted, so ingesting the same lines again, or a rotated or gzipped copy
 * of a file already read, counts nothing twice. A log is read as a stream, never whole, so its
 * size costs time and not memory. Malformed lines and a gzip file cut short are counted and
 * reported, never fatal.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import picomatch from "picomatch";
import { createGunzip } from "node:zlib";
import { isbot } from "isbot";
import { classify, familyOf, languageOf, pageRead, parseLogLine, referrerDomain } from "../core/traffic/classify.ts";
import { emptyDay, OTHER_PAGES, OTHER_PAGES_EN, type DayCounts } from "../core/traffic/counts.ts";
import { RiskError } from "../core/errors.ts";
import { readKeptFile, writeKeptFile } from "../archive/kept-file.ts";
import { loopingLinkRefusal } from "../archive/regular-file.ts";
import { instrumentsOf, type Publication } from "../core/inputs/publication.ts";
import { publisherPages } from "../core/editorial/dead-links.ts";
import { AGENTS_PAGE, AGENTS_PAGE_EN, PRESS_PAGE, SERIES_PAGE, seriesPage } from "../core/surfaces/pages.ts";

export const TRAFFIC_STATE_FILE = "risk-cli-traffic.json";

export interface TrafficState {
  version: 1;
  /** Per log file (by the fingerprint of its first line): the bytes counted. */
  files: Record<string, number>;
  /** The counts of days no frame has published yet. */
  days: Record<string, DayCounts>;
  /** The last day a frame published: lines for it or an earlier day are late. */
  publishedThrough: string | null;
  /**
   * The latest UTC day of a line counted. A day is whole in the logs read once a line of a later
   * day is read: only then is it published (see core/surfaces/human-traffic.ts).
   */
  seenThrough?: string | null;
  /**
   * Gzip logs read to their end, by a fingerprint of their compressed bytes (their size, first and
   * last 64 KiB): the identity of what they hold, where it ends and how many lines it has. A
   * rotated log does not change, so while its lines stay counted it is not gunzipped again (an
   * assembly reading the live log and two weeks of rotated ones would otherwise gunzip them all,
   * about 3 s of CPU for each 80 MB).
   */
  sealed?: Record<string, { id: string; end: number; lines: number }>;
}

export interface IngestReport {
  files: number;
  lines: number;
  counted: number;
  malformed: number;
  late: number;
  /** Files whose gzip stream was cut short: their complete lines were counted. */
  truncated: string[];
  /** Lines already counted by an earlier ingestion (the same file, or a rotated copy of it). */
  alreadyCounted: number;
  /**
   * Lines counted in the Common Log Format: without a user agent, a reader cannot be told from a
   * robot, so they count as robots, never as human reads.
   */
  common: number;
  /** Files left out whole, with the reason: not a regular file, over the size cap, not gzip inside. */
  skipped: { file: string; reason: string }[];
}

/**
 * The most a log file may hold, as stored and once gunzipped. A log is read as a stream, a
 * megabyte at a time, so its size costs time, not memory; the cap stops a gzip bomb, which would
 * otherwise be gunzipped for hours. A day of a busy publication's log is far below it; a larger
 * file is left out and named, and logs rotated more often are read.
 */
export const MAX_LOG_BYTES = 16 * 2 ** 30;

/** A line longer than this (a megabyte) is malformed: it is never held whole in memory. */
const MAX_LINE_BYTES = 1 << 20;
const CHUNK_BYTES = 1 << 20;
/** Compressed bytes given to gunzip at a time: a gzip bomb's output waiting is at most ~1,000 times this. */
const GZIP_INPUT_BYTES = 1 << 16;

/** What `traffic ingest` and `assemble` say when lines in the Common Log Format were counted. */
export const commonLogWarning = (lines: number) =>
  `${lines} line(s) in the Common Log Format, which has no user agent: none counts as a human read (a page read is a robot's); log in the Combined format (nginx's default \`combined\`, Apache's \`combined\` LogFormat) to count the people who read the pages`;

/**
 * The pages of the publication a human read may name: the publisher's pages (home, articles,
 * guides, methodologies, glossary entries, sources, protocol, changelog) and the pages this site
 * serves. Any other path a client asks for is counted under OTHER_PAGES: a request's path is the
 * client's to choose, and is never published as it came.
 */
export function knownPages(p: Publication): Set<string> {
  const pages = publisherPages(p);
  for (const path of ["/", "/en/", AGENTS_PAGE, AGENTS_PAGE_EN, SERIES_PAGE, PRESS_PAGE]) pages.add(path);
  for (const [, config] of instrumentsOf(p)) pages.add(seriesPage(config.seriesId));
  return pages;
}

const WINDOW_DAYS = 91;
const BURST_404 = 10;

export function readTrafficState(gitdir: string): TrafficState {
  try {
    const s = JSON.parse(readKeptFile(join(gitdir, TRAFFIC_STATE_FILE)) ?? "null") as TrafficState | null;
    if (s?.version === 1 && s.files && s.days) return s;
  } catch {
    // None yet, or unreadable: start empty (counts are rebuilt from the logs that remain).
  }
  return { version: 1, files: {}, days: {}, publishedThrough: null };
}

export function writeTrafficState(gitdir: string, state: TrafficState): void {
  writeKeptFile(gitdir, join(gitdir, TRAFFIC_STATE_FILE), `${JSON.stringify(state)}\n`);
}

const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;

/** A log file open for reading: its descriptor, its size when opened, whether it is gzip. */
interface OpenLog {
  fd: number;
  size: number;
  gzip: boolean;
  /** A gzip log's fingerprint (TrafficState.sealed). */
  seal?: string;
}

/** The bytes read at each end of a gzip log for its fingerprint. */
const SEAL_BYTES = 1 << 16;

/** Why a file is left out whole. */
class LeftOut extends Error {}

/**
 * Opens a log file: only a regular file (never a device, a FIFO or a folder; opened without
 * blocking, so a FIFO never hangs), of at most `max` bytes. Only the bytes it holds when opened
 * are read, so that a log being written to is read up to a point and the rest left for the next
 * ingestion. A missing or unreadable file is an error; a file left out gives the reason.
 */
function openLog(path: string, max: number): OpenLog | { skipped: string } {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    // A Unix socket cannot be opened at all: like a FIFO or a device, it is no log, left out by name.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENXIO" || code === "EOPNOTSUPP") return { skipped: "not a regular file" };
    throw (
      loopingLinkRefusal(e, "access log", path) ??
      new RiskError("E_IO", `Cannot read the access log ${path} (${code ?? "error"})`, {
        file: path,
      })
    );
  }
  const st = fs.fstatSync(fd);
  const skip = (skipped: string) => {
    fs.closeSync(fd);
    return { skipped };
  };
  if (!st.isFile()) return skip("not a regular file");
  if (st.size > max) return skip(`over ${mib(max)}; rotate the log more often`);
  const magic = Buffer.alloc(2);
  const n = st.size >= 2 ? fs.readSync(fd, magic, 0, 2, 0) : 0;
  const gzip = n === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  if (!gzip) return { fd, size: st.size, gzip };
  const hash = createHash("sha256").update(`gzip ${st.size}\n`);
  for (const at of [0, Math.max(0, st.size - SEAL_BYTES)]) {
    const part = Buffer.alloc(Math.min(SEAL_BYTES, st.size));
    hash.update(part.subarray(0, fs.readSync(fd, part, 0, part.length, at)));
  }
  return { fd, size: st.size, gzip, seal: hash.digest("hex").slice(0, 32) };
}

/**
 * The bytes of an open log, a chunk at a time, gunzipped when it is gzip. A gzip stream cut short
 * gives what it holds and sets `seen.truncated`; one that is no gzip stream, or gunzips to over
 * `max`, throws LeftOut.
 */
async function* bytesOf(log: OpenLog, max: number, seen: { truncated: boolean }): AsyncGenerator<Buffer> {
  function* raw(size: number) {
    for (let pos = 0; pos < log.size; ) {
      const chunk = Buffer.allocUnsafe(Math.min(size, log.size - pos));
      const n = fs.readSync(log.fd, chunk, 0, chunk.length, pos);
      if (n === 0) return;
      pos += n;
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
    }
  }
  if (!log.gzip) {
    yield* raw(CHUNK_BYTES);
    return;
  }
  // The compressed bytes go in a little at a time, the next only once the last is gunzipped and
  // what it gave taken: a gzip bomb never has more than one small input's output waiting. The
  // output is taken from the stream's events, not its async iterator, which on Deno drops what
  // was gunzipped before the error of a stream cut short.
  const gunzip = createGunzip({ chunkSize: GZIP_INPUT_BYTES * 4 });
  const out: Buffer[] = [];
  let failed: NodeJS.ErrnoException | null = null;
  let ended = false;
  let ready = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  gunzip.on("data", (chunk: Buffer) => {
    out.push(chunk);
    poke();
  });
  gunzip.on("error", (e: NodeJS.ErrnoException) => {
    failed = e;
    poke();
  });
  gunzip.on("end", () => {
    ended = true;
    poke();
  });
  const input = raw(GZIP_INPUT_BYTES);
  let total = 0;
  try {
    for (;;) {
      while (out.length > 0) {
        const chunk = out.shift()!;
        total += chunk.length;
        if (total > max) throw new LeftOut(`gunzips to over ${mib(max)}`);
        yield chunk;
      }
      if (failed !== null) {
        // Cut in the middle: what was gunzipped is kept.
        if ((failed as NodeJS.ErrnoException).code === "Z_BUF_ERROR") {
          seen.truncated = true;
          return;
        }
        throw new LeftOut("named .gz or starting like gzip, but not a gzip stream that can be read");
      }
      if (ended) return;
      if (ready) {
        const next = input.next();
        ready = false;
        if (next.done) gunzip.end();
        else {
          gunzip.write(next.value, () => {
            ready = true;
            poke();
          });
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    gunzip.destroy();
  }
}

/**
 * What a log holds, in pieces of whole lines: a block of complete lines (each ending with a line
 * feed) and the offset of its first byte in the (gunzipped) log, or the end offset of a line over
 * MAX_LINE_BYTES, which is never held whole. A last line without a line feed is left out: it is
 * being written, and is read whole next time.
 */
type Piece = { block: Buffer; offset: number } | { longEnd: number };

async function* piecesOf(log: OpenLog, max: number, seen: { truncated: boolean }): AsyncGenerator<Piece> {
  let carry: Buffer[] = [];
  let carried = 0;
  let long = false;
  let offset = 0;
  for await (const chunk of bytesOf(log, max, seen)) {
    const at = offset;
    offset += chunk.length;
    let from = 0;
    if (long || carried > 0) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        if (!long) carry.push(chunk);
        carried += chunk.length;
        if (carried > MAX_LINE_BYTES) [long, carry] = [true, []];
        continue;
      }
      if (long || carried + nl + 1 > MAX_LINE_BYTES) yield { longEnd: at + nl + 1 };
      else yield { block: Buffer.concat([...carry, chunk.subarray(0, nl + 1)]), offset: at - carried };
      [long, carry, carried, from] = [false, [], 0, nl + 1];
    }
    const last = chunk.lastIndexOf(0x0a);
    if (last >= from) {
      yield { block: chunk.subarray(from, last + 1), offset: at + from };
      from = last + 1;
    }
    if (from < chunk.length) {
      carry = [chunk.subarray(from)];
      carried = chunk.length - from;
    }
  }
}

/** Each line of a block of complete lines, without its line end, and the offset of its end in the log. */
function eachLine(block: Buffer, offset: number, visit: (line: string, end: number) => void): void {
  let start = 0;
  for (let nl = block.indexOf(0x0a); nl >= 0; nl = block.indexOf(0x0a, start)) {
    const end = nl > start && block[nl - 1] === 0x0d ? nl - 1 : nl;
    visit(block.toString("utf8", start, end), offset + nl + 1);
    start = nl + 1;
  }
}

/** Stands for a line over MAX_LINE_BYTES among a file's first lines: it is never parsed. */
const LONG_LINE = `(a line over ${MAX_LINE_BYTES} bytes, ending at byte `;
const longLine = (end: number) => `${LONG_LINE}${end})`;

/**
 * A file's identity: the time, request, status and length of its first lines (three, or as many
 * as it has), never an address or an agent. A rotated or gzipped copy has the same; another
 * server's log differs in its times. Two files whose first three lines agree in all of these are
 * taken for one. The number of lines used is part of the key, so that a file first read with one
 * or two lines is found again once it has three (see `knownAs`).
 */
function identityOf(lines: readonly string[]): string {
  const key = lines
    .map((l) => {
      // A line too long to read stands as itself: where it ends tells two such files apart.
      if (l.startsWith(LONG_LINE)) return l;
      const parsed = parseLogLine(l);
      return parsed
        ? `${parsed.at} ${parsed.method} ${parsed.path} ${parsed.status} ${l.length}`
        : `unparsed ${l.length} ${l.slice(l.indexOf("["), l.indexOf("]") + 1)}`;
    })
    .join("\n");
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 32);
  return lines.length >= 3 ? hash : `${lines.length}:${hash}`;
}

/**
 * The identity `head` (a file's first lines) is known by, with the bytes counted of it: its own,
 * or that of its first one or two lines when it was read while it had no more.
 */
function knownAs(
  head: readonly string[],
  counted: (id: string) => number | undefined,
): { id: string; counted: number } {
  const own = identityOf(head);
  for (let n = head.length; n >= 1; n--) {
    const id = n === head.length ? own : identityOf(head.slice(0, n));
    const bytes = counted(id);
    if (bytes !== undefined) return { id, counted: bytes };
  }
  return { id: own, counted: 0 };
}

/** The UTC day of an instant; a log holds few days, each formatted once. */
const days = new Map<number, string>();
const dayOf = (ms: number) => {
  const n = Math.floor(ms / 86_400_000);
  let day = days.get(n);
  if (day === undefined) {
    day = new Date(n * 86_400_000).toISOString().slice(0, 10);
    if (days.size > 10_000) days.clear();
    days.set(n, day);
  }
  return day;
};

/**
 * Counts the new lines of `files` into `state` (changed in place). `now` decides which days are
 * too old (over 91 days) and where late lines are counted; `ownHost` tells internal referrers.
 * Each file is read twice as a stream, never whole: once for its first lines (its identity) and
 * the clients with a burst of 404s, once to count its new lines.
 */
export async function ingestLogs(
  files: readonly string[],
  state: TrafficState,
  options: { now: string; ownHost: string; pages: ReadonlySet<string>; maxBytes?: number },
): Promise<IngestReport> {
  const report: IngestReport = {
    files: 0,
    lines: 0,
    counted: 0,
    malformed: 0,
    late: 0,
    truncated: [],
    alreadyCounted: 0,
    common: 0,
    skipped: [],
  };
  const max = options.maxBytes ?? MAX_LOG_BYTES;
  const today = options.now.slice(0, 10);
  const oldest = dayOf(Date.parse(`${today}T00:00:00Z`) - WINDOW_DAYS * 86_400_000);
  /** The files to count: from byte `start` to `lastEnd` (the end of their last complete line). */
  const batches: { log: OpenLog; id: string; was: string; start: number; lastEnd: number; end: number }[] = [];
  // Bytes counted per identity, this batch's files included: the same content named twice in
  // one batch (a copy, a link, the .gz beside the plain file) is counted once.
  const pending = new Map<string, number>();
  const counted = (id: string) => pending.get(id) ?? state.files[id];
  // A client with a burst of 404s in this batch is a scanner: known only while the batch is read.
  const notFound = new Map<string, number>();
  const opened: OpenLog[] = [];
  const seals = new Map<string, { id: string; end: number; lines: number }>();
  try {
    for (const file of [...files].sort()) {
      const log = openLog(file, max);
      if ("skipped" in log) {
        report.skipped.push({ file, reason: log.skipped });
        continue;
      }
      opened.push(log);
      // A gzip log read to its end before, whose lines are all still counted: not gunzipped again.
      const sealed = log.seal === undefined ? undefined : state.sealed?.[log.seal];
      if (sealed && (counted(sealed.id) ?? -1) >= sealed.end) {
        report.files++;
        report.alreadyCounted += sealed.lines;
        continue;
      }
      // The first three complete lines (fewer in a short file) give the identity, hence where
      // the new lines start; the 404s of the new lines are counted per client.
      const seen = { truncated: false };
      const head: { line: string; end: number }[] = [];
      const own = new Map<string, number>();
      let start = -1;
      let lines = 0;
      let lastEnd = 0;
      const found404 = (line: string, end: number) => {
        if (end <= start || !line.includes('" 404 ')) return;
        const l = parseLogLine(line);
        if (l?.status === 404) own.set(l.client, (own.get(l.client) ?? 0) + 1);
      };
      let known = { id: "", counted: 0 };
      const identify = () => {
        known = knownAs(
          head.map((h) => h.line),
          counted,
        );
        start = known.counted;
        for (const h of head) found404(h.line, h.end);
      };
      try {
        for await (const piece of piecesOf(log, max, seen)) {
          if ("longEnd" in piece) {
            lines++;
            lastEnd = piece.longEnd;
            if (head.length < 3) head.push({ line: longLine(piece.longEnd), end: piece.longEnd });
            if (start < 0 && head.length === 3) identify();
            continue;
          }
          const { block, offset } = piece;
          // The status follows the request's closing quote: only lines holding `" 404 ` are parsed.
          eachLine(block, offset, (line, end) => {
            lines++;
            if (head.length < 3) {
              head.push({ line, end });
              if (head.length === 3) identify();
            } else if (start >= 0) found404(line, end);
          });
          lastEnd = offset + block.length;
        }
      } catch (e) {
        if (!(e instanceof LeftOut)) throw e;
        report.skipped.push({ file, reason: e.message });
        continue;
      }
      if (seen.truncated) report.truncated.push(file);
      if (head.length === 0) continue;
      if (start < 0) identify();
      report.files++;
      for (const [client, n] of own) notFound.set(client, (notFound.get(client) ?? 0) + n);
      const id = identityOf(head.map((h) => h.line));
      // Whole and unchanging: known by its fingerprint once its lines are counted below.
      if (log.seal !== undefined && !seen.truncated) seals.set(log.seal, { id, end: lastEnd, lines });
      const from = Math.min(known.counted, lastEnd);
      const end = Math.max(lastEnd, known.counted);
      if (from >= lastEnd) report.alreadyCounted += lines;
      else batches.push({ log, id, was: known.id, start: from, lastEnd, end });
      pending.set(id, end);
      if (known.id !== id) pending.delete(known.id);
      if (from >= lastEnd && known.id !== id) {
        // Nothing new, but known by its three lines from now on.
        delete state.files[known.id];
        state.files[id] = end;
      }
    }
    // A log holds few distinct user agents: each is looked up in the robot list once.
    const robots = new Map<string, boolean>();
    const isBot = (agent: string) => {
      let known = robots.get(agent);
      if (known === undefined) {
        known = isbot(agent);
        if (robots.size > 50_000) robots.clear();
        robots.set(agent, known);
      }
      return known;
    };
    const count = (line: string) => {
      report.lines++;
      const l = parseLogLine(line);
      if (!l) {
        report.malformed++;
        return;
      }
      const day = dayOf(l.at);
      if (day > today) {
        report.malformed++;
        return;
      }
      if ((state.publishedThrough !== null && day <= state.publishedThrough) || day < oldest) {
        report.late++;
        (state.days[today] ??= emptyDay()).late++;
        return;
      }
      const d = (state.days[day] ??= emptyDay());
      report.counted++;
      if (!state.seenThrough || day > state.seenThrough) state.seenThrough = day;
      if (l.common) report.common++;
      const kind = (notFound.get(l.client) ?? 0) >= BURST_404 ? "scan" : classify(l, isBot);
      if (kind === "human") {
        const read = pageRead(l.path);
        const page = options.pages.has(read) ? read : languageOf(read) === "en" ? OTHER_PAGES_EN : OTHER_PAGES;
        d.human++;
        d.pages[page] = (d.pages[page] ?? 0) + 1;
        const ref = referrerDomain(l.referrer, options.ownHost) ?? "";
        d.referrers[ref] = (d.referrers[ref] ?? 0) + 1;
        d.languages[languageOf(read)]++;
      } else if (kind === "machine") d.machine[familyOf(l.path)!]++;
      else if (kind === "preview") d.previews++;
      else if (kind === "robot") d.robots++;
      else if (kind === "scan") d.scans++;
    };
    for (const b of batches) {
      const visit = (line: string, end: number) => {
        if (end <= b.start) report.alreadyCounted++;
        else if (end <= b.lastEnd) count(line);
      };
      try {
        for await (const piece of piecesOf(b.log, max, { truncated: false })) {
          if ("longEnd" in piece) {
            if (piece.longEnd <= b.start) report.alreadyCounted++;
            else if (piece.longEnd <= b.lastEnd) {
              report.lines++;
              report.malformed++;
            }
          } else if (piece.offset + piece.block.length > b.start) eachLine(piece.block, piece.offset, visit);
          else report.alreadyCounted += countLines(piece.block);
          if ("offset" in piece && piece.offset + piece.block.length >= b.lastEnd) break;
        }
      } catch (e) {
        // Read whole a moment ago: a file that changed since is counted as far as it reads.
        if (!(e instanceof LeftOut)) throw e;
      }
      // A file known by its first line or two is known by its three from now on.
      if (b.was !== b.id) delete state.files[b.was];
      state.files[b.id] = b.end;
    }
    // Every batch counted: the gzip logs read whole are sealed, and seals whose lines are no
    // longer known as counted are dropped.
    const sealed: NonNullable<TrafficState["sealed"]> = {};
    for (const [seal, entry] of Object.entries({ ...state.sealed, ...Object.fromEntries(seals) }))
      if ((state.files[entry.id] ?? -1) >= entry.end) sealed[seal] = entry;
    if (Object.keys(sealed).length > 0) state.sealed = sealed;
    else delete state.sealed;
  } finally {
    for (const log of opened) fs.closeSync(log.fd);
  }
  return report;
}

function countLines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** After a frame published the days up to `through`: they leave the state, and later lines for them are late. */
export function markPublished(state: TrafficState, through: string | null): void {
  if (through === null) return;
  for (const day of Object.keys(state.days)) if (day <= through) delete state.days[day];
  if (state.publishedThrough === null || through > state.publishedThrough) state.publishedThrough = through;
}

/**
 * The files the config's globs name: each absolute or relative to the publication, its pattern
 * in the file name (access.log*) or below a folder (logs/**\/*.gz). A glob that matches nothing
 * is not an error: a fresh server has no rotated file yet.
 */
export async function logFiles(root: string, globs: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const glob of globs) {
    const full = isAbsolute(glob) ? glob : resolve(root, glob);
    const parts = full.split("/");
    const firstPattern = parts.findIndex((p) => /[*?{}[\]]/.test(p));
    if (firstPattern < 0) {
      if (fs.existsSync(full) && fs.statSync(full).isFile()) found.add(full);
      continue;
    }
    const base = parts.slice(0, firstPattern).join("/") || "/";
    const match = picomatch(full, { dot: true });
    const deep = parts.slice(firstPattern).some((p) => p === "**") || firstPattern < parts.length - 1;
    const walk = (dir: string, depth: number) => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = join(dir, e.name);
        // A link to a log (a rotation scheme's current file) is read as the log it leads to.
        if ((e.isFile() || (e.isSymbolicLink() && fs.statSync(p, { throwIfNoEntry: false })?.isFile())) && match(p))
          found.add(p);
        else if (e.isDirectory() && deep && depth < 8) walk(p, depth + 1);
      }
    };
    walk(base, 0);
  }
  return [...found].sort();
}
