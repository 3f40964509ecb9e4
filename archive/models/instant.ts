import { RiskError } from "../../core/errors.ts";

/**
 * A replay date: `YYYY-MM-DD` means the end of that UTC day; a date-time (with `Z` or an offset)
 * is exact. Returns epoch milliseconds.
 */
export function parseInstant(text: string): number {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]), 23, 59, 59, 999);
    if (new Date(ms).toISOString().slice(0, 10) !== text) throw bad(text);
    return ms;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) throw bad(text);
    return ms;
  }
  throw bad(text);
}

function bad(text: string): RiskError {
  return new RiskError(
    "E_USAGE",
    `Cannot read the date "${text}": give a date (2026-11-21, the end of that UTC day) or a date-time with a zone (2026-11-21T09:30:00Z)`,
    { date: text },
  );
}
