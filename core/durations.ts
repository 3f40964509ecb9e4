/**
 * Ages and ISO 8601 durations, apart from signals.ts so that printing a frame (replay, diff) does
 * not load the publication reader that the signals need.
 */

/** True when two ISO 8601 UTC instants fall on the same day. */
export const sameDay = (a: string, b: string): boolean => a.slice(0, 10) === b.slice(0, 10);

/** Seconds from `from` to `to`, two ISO 8601 instants. */
export function ageSeconds(from: string, to: string): number {
  return (Date.parse(to) - Date.parse(from)) / 1000;
}

/** Seconds of an ISO 8601 duration in weeks, days, hours, minutes and seconds (PT6H, P2D, P1W). */
export function durationSeconds(d: string): number {
  const m =
    /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      d,
    );
  if (!m) throw new Error(`Cannot read the duration "${d}": use weeks, days, hours, minutes or seconds (PT6H, P2D)`);
  const [w, days, h, min, s] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  return (((w! * 7 + days!) * 24 + h!) * 60 + min!) * 60 + s!;
}
