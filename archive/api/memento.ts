/**
 * Time travel over HTTP (Memento, RFC 7089): for every surface, the frames at which its content
 * changed, so that `serve --archive` can answer "this surface as of that instant" (a TimeGate), list
 * its versions (a TimeMap) and give each version byte for byte (a memento).
 *
 * A version starts at the frame where the surface's stored content (its bytes less the stamped
 * `generated`, `storedSha256`) differs from the frame before; its memento is the surface as that
 * frame served it. The index is built once by walking the chain from the head (each frame.json
 * read once) and extended from the new head when the archive moves; a lookup is then a binary
 * search.
 */
import { leapSecondMs, utcMs } from "../../core/dates.ts";
import { RiskError } from "../../core/errors.ts";
import { headCommit, readCommit, requireArchive } from "../git/objects.ts";
import { readFrame, servedBytes } from "./frames.ts";
import { mementoUri, timemapUri } from "../models/memento-paths.ts";

export interface Version {
  frameId: string;
  commit: string;
  /** The frame's time, epoch ms. */
  at: number;
  /** The surface's served media type at that frame. */
  mediaType: string;
}

export class MementoIndex {
  private versions = new Map<string, Version[]>();
  private lastStored = new Map<string, string>();
  /** Every frame indexed, by identifier: its commit and time. */
  private frames = new Map<string, { commit: string; at: number }>();
  private head: string | null = null;

  constructor(readonly gitdir: string) {
    requireArchive(gitdir);
  }

  /** Brings the index up to the archive's head, reading only the frames added since. */
  async refresh(): Promise<void> {
    const head = await headCommit(this.gitdir);
    if (head === this.head) return;
    const added: string[] = [];
    let oid: string | undefined = head ?? undefined;
    while (oid && oid !== this.head) {
      added.push(oid);
      oid = (await readCommit(this.gitdir, oid)).parents[0];
    }
    // A head that does not descend from the one indexed (a rewritten branch): start again.
    if (this.head !== null && oid !== this.head) {
      this.versions.clear();
      this.lastStored.clear();
      this.frames.clear();
      this.head = null;
      return this.refresh();
    }
    for (const commit of added.reverse()) {
      const { frame } = await readFrame(this.gitdir, commit);
      this.frames.set(frame.frameId, { commit, at: Date.parse(frame.at) });
      for (const [path, s] of Object.entries(frame.surfaces)) {
        if (this.lastStored.get(path) === s.storedSha256) continue;
        this.lastStored.set(path, s.storedSha256);
        const list = this.versions.get(path) ?? [];
        list.push({ frameId: frame.frameId, commit, at: Date.parse(frame.at), mediaType: s.mediaType });
        this.versions.set(path, list);
      }
    }
    this.head = head;
  }

  /** The versions of `path`, oldest first; empty when the archive never published it. */
  list(path: string): readonly Version[] {
    return this.versions.get(path) ?? [];
  }

  /** The version of `path` published at `instant` (the last at or before it); null before the first. */
  at(path: string, instant: number): Version | null {
    const list = this.list(path);
    if (list.length === 0) return null;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.at <= instant) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? null : list[lo - 1]!;
  }

  /** The version of `path` that frame `frameId` started, or null. */
  byFrame(path: string, frameId: string): Version | null {
    return this.list(path).find((v) => v.frameId === frameId) ?? null;
  }

  /**
   * The version of `path` in force at frame `frameId`, whether that frame started it or published
   * it unchanged; null when the archive has no such frame or that frame did not publish `path`.
   */
  async inForceAt(path: string, frameId: string): Promise<Version | null> {
    const started = this.byFrame(path, frameId);
    if (started) return started;
    const known = this.frames.get(frameId);
    if (!known || this.list(path).length === 0) return null;
    const { frame } = await readFrame(this.gitdir, known.commit);
    // Frame times increase along the chain, so the version at its time is the one it served.
    return frame.surfaces[path] ? this.at(path, known.at) : null;
  }

  /** The bytes `path` was served with by the frame of `version`. */
  async bytes(path: string, version: Version): Promise<Uint8Array> {
    const { frame, tree } = await readFrame(this.gitdir, version.commit);
    if (!frame.surfaces[path])
      throw new RiskError("E_ARCHIVE", `Frame ${frame.frameId} does not hold ${path}`, { frame: frame.frameId, path });
    return servedBytes(this.gitdir, tree, frame, path);
  }
}

/** An HTTP-date (RFC 9110, IMF-fixdate), as Memento-Datetime and Accept-Datetime use it. */
export const httpDate = (ms: number) => new Date(ms).toUTCString();

/** Reads an Accept-Datetime value; NaN when it is not an HTTP-date. */
export function parseHttpDate(text: string, now = Date.now()): number {
  const t = text.trim();
  let m = IMF_FIXDATE.exec(t);
  if (m) return dateOf(m[1]!, Number(m[2]), m[3]!, Number(m[4]), m[5]!);
  m = RFC_850.exec(t);
  if (m) {
    // A two-digit year more than 50 years ahead is the latest past year with those digits.
    const nowYear = new Date(now).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    return dateOf(m[1]!.slice(0, 3), Number(m[2]), m[3]!, year, m[5]!);
  }
  m = ASCTIME.exec(t);
  if (m) return dateOf(m[1]!, Number(m[3]), m[2]!, Number(m[5]), m[4]!);
  return Number.NaN;
}

const DAY = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "(\\d{2}:\\d{2}:\\d{2})";
/** The three forms RFC 9110 (section 5.6.7) says a recipient must accept: IMF-fixdate, RFC 850, asctime. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(
  `^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`,
);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The instant, or NaN unless the day exists, the time is one of a day, and the day's name is its own. */
function dateOf(dayName: string, day: number, month: string, year: number, time: string): number {
  const [h, mi, sec] = time.split(":").map(Number) as [number, number, number];
  const monthIndex = MONTHS.indexOf(month);
  const minuteStart = utcMs(year, monthIndex, day, h, mi);
  const d = new Date(minuteStart);
  if (h > 23 || mi > 59 || sec > 60) return Number.NaN;
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== monthIndex || d.getUTCDate() !== day) return Number.NaN;
  if (DAYS[d.getUTCDay()] !== dayName) return Number.NaN;
  return sec === 60 ? (leapSecondMs(minuteStart) ?? Number.NaN) : minuteStart + sec * 1000;
}

/** Versions listed on one page of a TimeMap. */
export const TIMEMAP_PAGE = 1000;

/** The Link header of a memento or a TimeGate answer (RFC 7089, sections 2.2 and 4). */
export function mementoLinks(path: string, list: readonly Version[]): string {
  const first = list[0]!;
  const last = list[list.length - 1]!;
  const links = [
    `<${path}>; rel="original timegate"`,
    `<${timemapUri(path)}>; rel="timemap"; type="application/link-format"`,
    first === last
      ? `<${mementoUri(path, first.frameId)}>; rel="first last memento"; datetime="${httpDate(first.at)}"`
      : `<${mementoUri(path, first.frameId)}>; rel="first memento"; datetime="${httpDate(first.at)}"`,
  ];
  if (first !== last)
    links.push(`<${mementoUri(path, last.frameId)}>; rel="last memento"; datetime="${httpDate(last.at)}"`);
  return links.join(", ");
}

/** One page of the TimeMap of `path` in application/link-format (RFC 7089, section 5). */
export function timemap(path: string, list: readonly Version[], page: number): string | null {
  const pages = Math.max(1, Math.ceil(list.length / TIMEMAP_PAGE));
  if (!(page >= 1 && page <= pages) || list.length === 0) return null;
  const slice = list.slice((page - 1) * TIMEMAP_PAGE, page * TIMEMAP_PAGE);
  const lines = [
    `<${path}>; rel="original"`,
    `<${path}>; rel="timegate"`,
    `<${timemapUri(path, page)}>; rel="self"; type="application/link-format"; from="${httpDate(slice[0]!.at)}"; until="${httpDate(slice[slice.length - 1]!.at)}"`,
  ];
  if (page > 1) lines.push(`<${timemapUri(path, page - 1)}>; rel="prev"; type="application/link-format"`);
  if (page < pages) lines.push(`<${timemapUri(path, page + 1)}>; rel="next"; type="application/link-format"`);
  slice.forEach((v, i) => {
    const n = (page - 1) * TIMEMAP_PAGE + i;
    const rel = [n === 0 ? "first" : "", n === list.length - 1 ? "last" : "", "memento"].filter(Boolean).join(" ");
    lines.push(`<${mementoUri(path, v.frameId)}>; rel="${rel}"; datetime="${httpDate(v.at)}"`);
  });
  return `${lines.join(",\n")}\n`;
}
