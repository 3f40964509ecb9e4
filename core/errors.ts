/**
 * Typed errors. Every failure the tool can report has a stable `code` and a `data` object;
 * `cli/exit.ts` is the one place that turns them into exit statuses and text.
 */
export type ErrorCode =
  | "E_USAGE"
  | "E_INPUT"
  | "E_SCHEMA"
  | "E_CANONICAL"
  | "E_CLOCK"
  | "E_LOCKED"
  | "E_ARCHIVE"
  | "E_NO_FRAME"
  | "E_VERIFY"
  | "E_REPLAY_MISMATCH"
  | "E_IO"
  | "E_REMOTE"
  | "E_REMOTE_MOVED";

export class RiskError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = "RiskError";
    this.code = code;
    this.data = data;
  }
}

/** A bad input file: names the file, the line and the field, and says what to do. */
export function inputError(
  file: string,
  line: number | undefined,
  field: string | undefined,
  problem: string,
): RiskError {
  const where = `${file}${line !== undefined ? `:${line}` : ""}${field ? ` (field ${field})` : ""}`;
  return new RiskError("E_INPUT", `Cannot read ${where}: ${problem}`, { file, line, field });
}

export function isRiskError(e: unknown): e is RiskError {
  return e instanceof RiskError;
}
