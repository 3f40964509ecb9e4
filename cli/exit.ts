import { dirname } from "node:path";
import { denoPermissionError, isRiskError, type ErrorCode } from "../core/errors.ts";
import { withoutSecret } from "../archive/api/secret-text.ts";
import { jsonText, oneLine } from "./terminal.ts";

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

export function report(thrown: unknown, json: boolean): number {
  // A permission Deno refused is the command line's to fix, wherever it was hit.
  const error = denoPermissionError(thrown) ?? thrown;
  const stdout = (text: string) => process.stdout.write(withoutTokens(text));
  const stderr = (text: string) => process.stderr.write(withoutTokens(text));
  if (isRiskError(error)) {
    if (json) stdout(`${jsonText({ ok: false, code: error.code, message: error.message, ...error.data })}\n`);
    stderr(`risk-cli: ${oneLine(error.message)} [${error.code}]\n`);
    return EXIT[error.code];
  }
  const io = fileSystemFailure(error);
  if (io) {
    if (json)
      stdout(`${jsonText({ ok: false, code: "E_IO", message: io, errno: (error as { code: string }).code })}\n`);
    stderr(`risk-cli: ${oneLine(io)} [E_IO]\n`);
    return EXIT.E_IO;
  }
  const e = error as Error;
  // The message on one line (it may quote an input), then the stack's frames as they are.
  const frames = (e?.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  stderr(
    `risk-cli: internal error: ${oneLine(e instanceof Error ? `${e.name}: ${e.message}` : String(error))}\n${frames.map((f) => `${oneLine(f)}\n`).join("")}`,
  );
  return EXIT.INTERNAL;
}

/**
 * Text without a trace of the archive token (RISK_ARCHIVE_TOKEN, GITHUB_TOKEN): the last guard
 * of every error message, whatever quoted it (a remote echoing the request back).
 */
export function withoutTokens(text: string, env: Record<string, string | undefined> = process.env): string {
  return withoutSecret(withoutSecret(text, readable(env, "RISK_ARCHIVE_TOKEN")), readable(env, "GITHUB_TOKEN"));
}

/**
 * A variable of the environment, or undefined where Deno refuses to read it (a run without
 * --allow-env): a token this process cannot read was never read into a message either.
 */
function readable(env: Record<string, string | undefined>, name: string): string | undefined {
  try {
    return env[name];
  } catch {
    return undefined;
  }
}

/** What the system says of a file operation a user's machine can refuse, in words. */
const SYSTEM_REFUSALS: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is exceeded",
  EFBIG: "the file is over the file system's size limit",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  EIO: "the disk reported an input/output error",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder, not a file",
  ELOOP: "a symbolic link on the path loops (it leads back to itself through links)",
  ENAMETOOLONG: "the path is too long",
  EEXIST: "a file stands where a folder is needed",
  EBUSY: "the file or folder is busy (a mount point, or open in another program)",
  EXDEV: "it would move a file to another file system",
  ETXTBSY: "the file is busy",
};

/** What the system says in words for a refusal code (ENOSPC: the disk is full), when it is one. */
export function systemRefusal(code: string): string | undefined {
  return Object.hasOwn(SYSTEM_REFUSALS, code) ? `${SYSTEM_REFUSALS[code]}, ${code}` : undefined;
}

/**
 * Operations named in words where the runtimes name them apart: listing a folder is Node's
 * `scandir` and Deno's `readdir`, and a message must not tell the runtime.
 */
const OPERATIONS: Record<string, string> = { scandir: "list", readdir: "list" };

/**
 * A file operation the machine refused (a read-only file system, a full disk, a forbidden
 * folder) that no command turned into its own error: an I/O error (exit 6) naming the path and
 * the cause, never an internal error. Undefined for anything else.
 */
export function fileSystemFailure(error: unknown): string | undefined {
  const { code, syscall: call, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== "string" || typeof call !== "string" || !(code in SYSTEM_REFUSALS)) return undefined;
  const syscall = Object.hasOwn(OPERATIONS, call) ? OPERATIONS[call] : call;
  if (typeof path !== "string")
    return `Cannot ${syscall}: ${SYSTEM_REFUSALS[code]} (${code}). Check the folders given on the command line (free space, permissions), then run again.`;
  // A link that loops is the path's fault, not the disk's: free space and permissions would not help.
  if (code === "ELOOP")
    return `Cannot ${syscall} ${path}: ${SYSTEM_REFUSALS[code]} (${code}). Replace the link with the folder or file itself, or give another path.`;
  return `Cannot ${syscall} ${path}: ${SYSTEM_REFUSALS[code]} (${code}). Check the folder ${dirname(path)} (free space, permissions), then run again.`;
}
