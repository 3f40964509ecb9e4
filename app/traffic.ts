/**
 * Reading the web server's access logs into counts per closed UTC day (core/traffic/), kept
 * beside the archive in `risk-cli-traffic.json` until a frame publishes them. Only counts are
 * kept: never an address, a user agent, a cookie, a referrer's path or any key per visitor. A log
 * file is known by the time, request and length of its first line (no address in it) and by how
 * many of its bytes were counted, so ingesting the same lines again, or a rotated or gzipped copy
 * of a file already read, counts nothing twice. Malformed lines and a gzip file cut short are
 * counted and reported, never fatal.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import picomatch from "picomatch";
import { constants, gunzipSync } from "node:zlib";
import { isbot } from "isbot";
import { classify, familyOf, languageOf, pageRead, parseLogLine, referrerDomain } from "../core/traffic/classify.ts";
import { emptyDay, type DayCounts } from "../core/traffic/counts.ts";
import { RiskError } from "../core/errors.ts";
import { readRegularFile } from "../archive/regular-file.ts";
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
  /** Files left out whole, with the reason: not a regular file, over the size cap, not gzip inside. */
  skipped: { file: string; reason: string }[];
}

/**
 * The most a log file may hold, as stored and once gunzipped: a file is read whole, and a gzip
 * bomb must not take the machine's memory. A day of a busy publication's log is far below it;
 * a larger file is left out and named, and logs rotated more often are read.
 */
export const MAX_LOG_BYTES = 1 << 30;

/** Where a human read of a path that is no page of the publication is counted. */
export const OTHER_PAGES = "(other pages)";

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
    const s = JSON.parse(fs.readFileSync(join(gitdir, TRAFFIC_STATE_FILE), "utf8")) as TrafficState;
    if (s.version === 1 && s.files && s.days) return s;
  } catch {
    // None yet, or unreadable: start empty (counts are rebuilt from the logs that remain).
  }
  return { version: 1, files: {}, days: {}, publishedThrough: null };
}

export function writeTrafficState(gitdir: string, state: TrafficState): void {
  const file = join(gitdir, TRAFFIC_STATE_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  fs.renameSync(tmp, file);
}

const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;

type LogRead = { bytes: Buffer; truncated: boolean } | { skipped: string };

/**
 * The bytes of a log file, gunzipped when it is gzip; a stream cut short gives what it holds.
 * Only a regular file is read (never a device, a FIFO or a folder), and never more than
 * MAX_LOG_BYTES, stored or gunzipped. A missing or unreadable file is an error; what is wrong
 * inside a file (not gzip after all, too large) leaves that file out and says why.
 */
function logBytes(path: string, max: number): LogRead {
  let raw: Buffer | "not-regular" | "refused";
  try {
    raw = readRegularFile(path, { followLink: true, admit: (size) => size <= max });
  } catch (e) {
    throw new RiskError(
      "E_IO",
      `Cannot read the access log ${path} (${(e as NodeJS.ErrnoException).code ?? "error"})`,
      {
        file: path,
      },
    );
  }
  if (raw === "not-regular") return { skipped: "not a regular file" };
  if (raw === "refused") return { skipped: `over ${mib(max)}; rotate the log more often` };
  if (raw[0] !== 0x1f || raw[1] !== 0x8b) return { bytes: raw, truncated: false };
  const options = { maxOutputLength: max };
  try {
    return { bytes: gunzipSync(raw, options), truncated: false };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return { skipped: `gunzips to over ${mib(max)}` };
  }
  try {
    // Cut in the middle: take what decompresses.
    return { bytes: gunzipSync(raw, { ...options, finishFlush: constants.Z_SYNC_FLUSH }), truncated: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return { skipped: `gunzips to over ${mib(max)}` };
    return { skipped: "named .gz or starting like gzip, but not a gzip stream that can be read" };
  }
}

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
 */
export function ingestLogs(
  files: readonly string[],
  state: TrafficState,
  options: { now: string; ownHost: string; pages: ReadonlySet<string>; maxBytes?: number },
): IngestReport {
  const report: IngestReport = {
    files: 0,
    lines: 0,
    counted: 0,
    malformed: 0,
    late: 0,
    truncated: [],
    alreadyCounted: 0,
    skipped: [],
  };
  const today = options.now.slice(0, 10);
  const oldest = dayOf(Date.parse(`${today}T00:00:00Z`) - WINDOW_DAYS * 86_400_000);
  const batches: { lines: Buffer; id: string; was: string; end: number }[] = [];
  // Bytes counted per identity, this batch's files included: the same content named twice in
  // one batch (a copy, a link, the .gz beside the plain file) is counted once.
  const pending = new Map<string, number>();
  const counted = (id: string) => pending.get(id) ?? state.files[id];
  for (const file of [...files].sort()) {
    const read = logBytes(file, options.maxBytes ?? MAX_LOG_BYTES);
    if ("skipped" in read) {
      report.skipped.push({ file, reason: read.skipped });
      continue;
    }
    const { bytes, truncated } = read;
    if (truncated) report.truncated.push(file);
    const lastEnd = bytes.lastIndexOf(0x0a);
    if (lastEnd < 0) continue;
    report.files++;
    // The first three complete lines (fewer in a short file).
    const head: string[] = [];
    for (let start = 0; head.length < 3 && start <= lastEnd; ) {
      const nl = bytes.indexOf(0x0a, start);
      head.push(bytes.toString("utf8", start, nl));
      start = nl + 1;
    }
    const known = knownAs(head, counted);
    const id = identityOf(head);
    const start = Math.min(known.counted, lastEnd + 1);
    const end = Math.max(lastEnd + 1, known.counted);
    batches.push({ lines: bytes.subarray(start, lastEnd + 1), id, was: known.id, end });
    pending.set(id, end);
    if (known.id !== id) pending.delete(known.id);
    report.alreadyCounted += countLines(bytes.subarray(0, start));
  }
  // A client with a burst of 404s in this batch is a scanner: known only while the batch is read.
  const notFound = new Map<string, number>();
  for (const b of batches)
    eachLine(b.lines, (line) => {
      // The status follows the request's closing quote: only those lines are parsed.
      if (!line.includes('" 404 ')) return;
      const l = parseLogLine(line);
      if (l?.status === 404) notFound.set(l.client, (notFound.get(l.client) ?? 0) + 1);
    });
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
  for (const b of batches) {
    eachLine(b.lines, (line) => {
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
      const kind = (notFound.get(l.client) ?? 0) >= BURST_404 ? "scan" : classify(l, isBot);
      if (kind === "human") {
        const read = pageRead(l.path);
        const page = options.pages.has(read) ? read : OTHER_PAGES;
        d.human++;
        d.pages[page] = (d.pages[page] ?? 0) + 1;
        const ref = referrerDomain(l.referrer, options.ownHost) ?? "";
        d.referrers[ref] = (d.referrers[ref] ?? 0) + 1;
        d.languages[languageOf(read)]++;
      } else if (kind === "machine") d.machine[familyOf(l.path)!]++;
      else if (kind === "preview") d.previews++;
      else if (kind === "robot") d.robots++;
      else if (kind === "scan") d.scans++;
    });
    // A file known by its first line or two is known by its three from now on.
    if (b.was !== b.id) delete state.files[b.was];
    state.files[b.id] = b.end;
  }
  notFound.clear();
  return report;
}

function eachLine(bytes: Buffer, visit: (line: string) => void): void {
  let start = 0;
  for (let nl = bytes.indexOf(0x0a, start); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
    const end = nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
    if (end > start) visit(bytes.toString("utf8", start, end));
    start = nl + 1;
  }
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
        if (e.isFile() && match(p)) found.add(p);
        else if (e.isDirectory() && deep && depth < 8) walk(p, depth + 1);
      }
    };
    walk(base, 0);
  }
  return [...found].sort();
}
