import { isRiskError, type ErrorCode } from "../core/errors.ts";

/** The one place where typed errors become exit statuses and text. Documented in the README. */
export const EXIT: Record<ErrorCode | "OK" | "INTERNAL", number> = {
  OK: 0,
  E_VERIFY: 1,
  E_REPLAY_MISMATCH: 1,
  E_USAGE: 2,
  E_INPUT: 3,
  E_SCHEMA: 4,
  E_CANONICAL: 4,
  E_LOCKED: 5,
  E_ARCHIVE: 6,
  E_IO: 6,
  E_NO_FRAME: 7,
  E_CLOCK: 8,
  E_REMOTE: 9,
  E_REMOTE_MOVED: 10,
  INTERNAL: 70,
};

export function report(error: unknown, json: boolean): number {
  if (isRiskError(error)) {
    if (json)
      process.stdout.write(
        `${JSON.stringify({ ok: false, code: error.code, message: error.message, ...error.data })}\n`,
      );
    process.stderr.write(`risk-cli: ${error.message} [${error.code}]\n`);
    return EXIT[error.code];
  }
  const e = error as Error;
  process.stderr.write(`risk-cli: internal error: ${e?.stack ?? String(error)}\n`);
  return EXIT.INTERNAL;
}
