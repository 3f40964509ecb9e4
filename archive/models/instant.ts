import { parseDateOrDateTime } from "../../core/dates.ts";
import { RiskError } from "../../core/errors.ts";

/**
 * A replay date: `YYYY-MM-DD` means the end of that UTC day; a date-time (with `Z` or an offset)
 * is exact. Returns epoch milliseconds.
 */
export function parseInstant(text: string): number {
  const ms = parseDateOrDateTime(text);
  if (ms === null) throw bad(text);
  return ms;
}

/** What an instant given on the command line or to the MCP server may be, to say it in an error. */
export const INSTANT_RULE =
  "a real calendar date (2026-11-21, the end of that UTC day) or a date-time with a zone (2026-11-21T09:30:00Z)";

function bad(text: string): RiskError {
  return new RiskError("E_USAGE", `Cannot read the date "${text.slice(0, 40)}": give ${INSTANT_RULE}`, { date: text });
}
