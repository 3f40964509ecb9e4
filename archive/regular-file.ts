/**
 * Reading a file that must be a regular file, through one descriptor: opened without blocking (a
 * FIFO neither hangs nor is read) and, when asked, without following a final symbolic link; the
 * type and size checked on that descriptor, so nothing can be swapped in between the check and
 * the read. Used for the archive's loose objects, a saved checkpoint, and by serve and the MCP
 * server's site reader. An error opening the file is thrown as it is,
 * for the caller to name.
 */
import * as fs from "node:fs";
import { RiskError } from "../core/errors.ts";

/**
 * The file's bytes; "not-regular" for a device, a FIFO or a folder; "refused" when `admit`, which
 * sees the size (and the descriptor's whole stat, in nanoseconds) before any byte is read, returns
 * false (or throws, which closes the file first). `afterRead`, when given, sees the descriptor's
 * stat again once the bytes are read, so that a caller can tell whether the file changed meanwhile.
 */
export function readRegularFile(
  path: string,
  options: {
    followLink: boolean;
    admit: (size: number, stat: fs.BigIntStats) => boolean;
    afterRead?: (stat: fs.BigIntStats) => void;
  },
): Buffer | "not-regular" | "refused" {
  const flags =
    fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (options.followLink ? 0 : (fs.constants.O_NOFOLLOW ?? 0));
  const fd = fs.openSync(path, flags);
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    if (!st.isFile()) return "not-regular";
    const size = Number(st.size);
    if (!options.admit(size, st)) return "refused";
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = fs.readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    options.afterRead?.(fs.fstatSync(fd, { bigint: true }));
    return read === size ? bytes : bytes.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What a path that cannot be reached is, when it is a symbolic link: one that loops (leads back to
 * itself through links) or one to nothing; null when it is no such link (absent, or reachable).
 * Said to the user in place of "does not exist", which would send them looking for a folder.
 */
export function brokenLink(path: string): string | null {
  try {
    fs.statSync(path);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return "a symbolic link that loops (it leads back to itself through links)";
    if (code === "ENOENT" && fs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink())
      return "a symbolic link to nothing (its target does not exist)";
    return null;
  }
}

/**
 * The refusal of a file the user gave (a checkpoint, a bundle, a trusted root, an access log)
 * that could not be opened because a symbolic link loops: bad input naming the file, saying it is
 * a link that loops, or lies behind one, and to give the file itself. Null for any other error,
 * which the caller names as it did.
 */
export function loopingLinkRefusal(error: unknown, what: string, path: string): RiskError | null {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "ELOOP") return null;
  let itself = false;
  try {
    itself = fs.lstatSync(path).isSymbolicLink();
  } catch {
    // A folder on its path loops: the file is behind the link.
  }
  return new RiskError(
    "E_INPUT",
    `The ${what} ${path} is ${itself ? "a symbolic link that loops" : "behind a symbolic link that loops"} (it leads back to itself through links): give the ${what} file itself, or a link that ends at it`,
    { file: path },
  );
}
