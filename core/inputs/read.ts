/**
 * What every runtime's file reader enforces on an input file (a publication file or a local
 * upstream reading) before anything parses it: a regular file (not a FIFO that never ends, not
 * /dev/zero), at most MAX_INPUT_BYTES for a publication file (a 50 MB article would otherwise
 * need gigabytes of memory downstream) or the collection's cap for a local upstream reading, and
 * valid UTF-8 (bad bytes are never silently replaced by U+FFFD).
 */
import { RiskError } from "../errors.ts";

export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/** The refusal of one input file; `reason` says why without quoting the file. */
export function inputReadError(path: string, reason: string): RiskError {
  return new RiskError("E_INPUT", `Cannot read ${path}: ${reason}`, { file: path, reason });
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The refusal of a file over the cap it is read under: a publication's own input file (split it),
 * or another cap given by the caller (a local upstream document under `collection.maxBytes`).
 */
export function tooLargeError(path: string, maxBytes?: number): RiskError {
  return inputReadError(
    path,
    maxBytes === undefined
      ? `it is over the ${MAX_INPUT_BYTES}-byte limit of an input file; split it`
      : `it is over the ${maxBytes}-byte limit`,
  );
}

/**
 * The text of an input file's bytes (at most `maxBytes`, by default MAX_INPUT_BYTES); refuses
 * invalid UTF-8, naming the line of the first bad byte.
 */
export function decodeInput(path: string, bytes: Uint8Array, maxBytes?: number): string {
  if (bytes.byteLength > (maxBytes ?? MAX_INPUT_BYTES)) throw tooLargeError(path, maxBytes);
  try {
    return decoder.decode(bytes);
  } catch {
    let line = 1;
    let good = 0;
    // The longest valid prefix locates the first bad byte.
    for (let lo = 0, hi = bytes.byteLength; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      try {
        decoder.decode(bytes.subarray(0, mid));
        good = mid;
        lo = mid + 1;
      } catch {
        hi = mid - 1;
      }
    }
    for (let i = 0; i < good; i++) if (bytes[i] === 10) line++;
    throw new RiskError("E_INPUT", `Cannot read ${path}:${line}: it is not valid UTF-8; save it as UTF-8`, {
      file: path,
      line,
      reason: "it is not valid UTF-8; save it as UTF-8",
    });
  }
}
