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

/** The permissions the README's Deno command gives (deno.json's `risk-cli` task), by kind. */
const DENO_FLAGS: Record<string, string> = {
  read: "--allow-read",
  write: "--allow-write",
  env: "--allow-env",
  net: "--allow-net",
  sys: "--allow-sys=hostname,ca",
};
export const DENO_COMMAND = `deno run ${Object.values(DENO_FLAGS).join(" ")} cli/main.ts`;

/**
 * A permission Deno's sandbox refused this process (a `deno run` with fewer flags than the
 * README's), as a usage error naming the flag to add; undefined for any other error. The
 * system's own refusals (EACCES on a file) carry a code and are not this. What was asked is
 * named for a variable, a system value or a host, never for a file: its path stays unprinted.
 */
export function denoPermissionError(e: unknown): RiskError | undefined {
  if (e instanceof RiskError) return e.data.denoPermission === undefined ? undefined : e;
  const { name, message, code } = (e ?? {}) as { name?: unknown; message?: unknown; code?: unknown };
  if (code !== undefined || typeof message !== "string") return undefined;
  const asked = /^Requires (\w+) access(?: to "([^"]*)")?/.exec(message);
  if (!(name === "NotCapable" || (name === "PermissionDenied" && asked))) return undefined;
  return denoRefused(asked?.[1], asked?.[2], message);
}

/** The usage error for a permission of `kind` Deno refused, naming what was asked unless a file. */
export function denoRefused(kind: string | undefined, asked?: string, message = ""): RiskError {
  const flag = (kind && DENO_FLAGS[kind]) ?? /--allow-[a-z]+/.exec(message)?.[0] ?? "the permission it names";
  const what = asked && kind !== "read" && kind !== "write" ? ` to ${asked}` : "";
  return new RiskError(
    "E_USAGE",
    `Deno refused ${kind ? `${kind} access` : "a permission"}${what}: run risk-cli with ${flag}, as the README's command does, which gives every permission it needs: ${DENO_COMMAND}`,
    { denoPermission: kind ?? "unknown", flag },
  );
}
