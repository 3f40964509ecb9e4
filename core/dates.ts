/**
 * Strict reading of dates and date-times given by people (flags, environment): a value that is
 * not a real calendar instant is refused, never rolled over (`2026-02-30` is not March 2nd).
 */
// RFC 3339 (section 5.6) lets the T and the Z be written in lowercase, and its note lets a space
// stand for the T, the form pandas and SQL print (`2026-11-22 03:15:00+00:00`).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) => (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

/**
 * Date.UTC for every year from 0000 to 9999: Date.UTC itself reads the years 0 to 99 as 1900 to
 * 1999. `monthIndex` counts from 0, as in Date.UTC.
 */
export function utcMs(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const d = new Date(Date.UTC(2000, monthIndex, day, hour, minute, second, ms));
  d.setUTCFullYear(year, monthIndex, day);
  return d.getTime();
}

/**
 * A leap second (second 60, RFC 3339 and RFC 9110 allow it) is read as the last millisecond of
 * the minute it ends, which is 23:59 UTC: never as the next day, whose frames it must not reach.
 * RFC 3339 allows second 60 only in the last minute of a month (UTC), where a leap second may be
 * inserted (so far always at the end of June or of December): null at any other minute.
 */
export function leapSecondMs(minuteStartMs: number): number | null {
  const d = new Date(minuteStartMs);
  const lastMinuteOfMonth = new Date(minuteStartMs + 60_000).getUTCDate() === 1;
  return lastMinuteOfMonth && d.getUTCHours() === 23 && d.getUTCMinutes() === 59 ? minuteStartMs + 59_999 : null;
}

/** The epoch milliseconds of a date-time with a zone (`Z` or `±hh:mm`), or null when it is not a real instant. */
export function parseDateTime(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return null;
  if (hour! > 23 || minute! > 59 || second > 60) return null;
  let offset = 0;
  if (m[8]!.toUpperCase() !== "Z") {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const minuteStart = utcMs(year!, month! - 1, day!, hour!, minute!) - offset * 60_000;
  const ms = second === 60 ? leapSecondMs(minuteStart) : minuteStart + second * 1000 + fraction;
  return ms !== null && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : null;
}

/** The epoch milliseconds of the end of a UTC day `YYYY-MM-DD`, or null when it is not a real date. */
export function parseDateEnd(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [year, month, day] = [1, 2, 3].map((i) => Number(m[i]));
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return null;
  return utcMs(year!, month! - 1, day!, 23, 59, 59, 999);
}

/**
 * An instant given by a person (`replay --date`, `diff`, an MCP tool's `asOf`): a date means the
 * end of that UTC day, a date-time with its zone is exact. Null when it is neither.
 */
export function parseDateOrDateTime(text: string): number | null {
  return parseDateEnd(text) ?? parseDateTime(text);
}

/** Whether `zone` is a time zone the runtime knows by its IANA name (`Europe/Paris`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return /^[A-Za-z]/.test(zone);
  } catch {
    return false;
  }
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** How far the wall clock of `zone` is ahead of UTC at the instant `ms`, in milliseconds. */
function zoneOffset(zone: string, ms: number): number {
  let format = zoneFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    zoneFormats.set(zone, format);
  }
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(ms)) if (p.type !== "literal") part[p.type] = Number(p.value);
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The instant at which the wall clock of `zone` reads `wall` (the epoch milliseconds of the same
 * reading in UTC). Around a change of offset, as RFC 5545 and Temporal's "compatible" rule do: a
 * reading that happens twice (clocks set back) is the earlier instant; one that never happens
 * (clocks set forward) is read with the offset in force before the change, so a little later.
 */
export function instantInZone(wall: number, zone: string): number {
  const DAY = 86_400_000;
  const before = zoneOffset(zone, wall - DAY);
  const after = zoneOffset(zone, wall + DAY);
  const reads = (t: number) => t + zoneOffset(zone, t) === wall;
  const candidates = [wall - before, wall - after].filter(reads);
  return candidates.length > 0 ? Math.min(...candidates) : wall - before;
}
