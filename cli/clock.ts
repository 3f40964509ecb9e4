import { parseDateTime } from "../core/dates.ts";
import { RiskError } from "../core/errors.ts";

/** How far past the system clock a frame time may be without --allow-future (a typo guard). */
export const FUTURE_TOLERANCE_MS = 24 * 3600_000;

/**
 * The assembly instant, whole seconds in UTC: `--now` wins, then SOURCE_DATE_EPOCH (seconds
 * since the epoch, as in reproducible builds), then the system clock. A pinned instant more than
 * a day ahead of the system clock is refused unless `allowFuture`: frame times must increase, so
 * one typo far in the future would otherwise stop every later assembly.
 */
export function resolveNow(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  system: () => Date,
  options: { allowFuture?: boolean } = {},
): string {
  let ms: number;
  let given: string | null = null;
  if (flag !== undefined) {
    const parsed = parseDateTime(flag);
    if (parsed === null) {
      throw new RiskError(
        "E_USAGE",
        `Cannot read --now "${flag.slice(0, 40)}": give a real date-time with a zone, such as 2026-11-21T09:30:00Z`,
      );
    }
    ms = parsed;
    given = "--now";
  } else if (env.SOURCE_DATE_EPOCH !== undefined && env.SOURCE_DATE_EPOCH !== "") {
    const seconds = env.SOURCE_DATE_EPOCH;
    // Dates up to the year 9999: beyond that no ISO 8601 instant exists.
    if (!/^\d{1,12}$/.test(seconds) || Number(seconds) > 253402300799) {
      throw new RiskError(
        "E_USAGE",
        `Cannot read SOURCE_DATE_EPOCH "${seconds.slice(0, 24)}": it must be whole seconds since 1970-01-01T00:00:00Z, before the year 10000`,
      );
    }
    ms = Number(seconds) * 1000;
    given = "SOURCE_DATE_EPOCH";
  } else {
    ms = system().getTime();
  }
  if (given && !options.allowFuture && ms > system().getTime() + FUTURE_TOLERANCE_MS) {
    throw new RiskError(
      "E_USAGE",
      `${given} is ${new Date(Math.floor(ms / 1000) * 1000).toISOString()}, more than a day ahead of this machine's clock: a frame there would make every earlier time impossible for later assemblies. Check it, or pass --allow-future if it is meant.`,
    );
  }
  if (ms < 0) throw new RiskError("E_USAGE", `${given ?? "The clock"} gives a time before 1970-01-01T00:00:00Z`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
