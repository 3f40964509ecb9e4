import { RiskError } from "../core/errors.ts";

/**
 * The assembly instant, whole seconds in UTC: `--now` wins, then SOURCE_DATE_EPOCH (seconds
 * since the epoch, as in reproducible builds), then the system clock.
 */
export function resolveNow(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  system: () => Date,
): string {
  let ms: number;
  if (flag !== undefined) {
    if (
      !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(flag) ||
      Number.isNaN(Date.parse(flag))
    ) {
      throw new RiskError(
        "E_USAGE",
        `Cannot read --now "${flag}": give a date-time with a zone, such as 2026-11-21T09:30:00Z`,
      );
    }
    ms = Date.parse(flag);
  } else if (env.SOURCE_DATE_EPOCH !== undefined && env.SOURCE_DATE_EPOCH !== "") {
    if (!/^\d+$/.test(env.SOURCE_DATE_EPOCH)) {
      throw new RiskError(
        "E_USAGE",
        `Cannot read SOURCE_DATE_EPOCH "${env.SOURCE_DATE_EPOCH}": it must be whole seconds since 1970-01-01T00:00:00Z`,
      );
    }
    ms = Number(env.SOURCE_DATE_EPOCH) * 1000;
  } else {
    ms = system().getTime();
  }
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
