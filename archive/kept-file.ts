/**
 * The files risk-cli keeps in the archive's Git directory besides Git's own (the lock, the caches
 * listed in app/caches.ts, the traffic counts): written whole through a temporary file and a
 * rename, or appended to, and given the permissions Git gives its own files when the repository
 * is shared (`core.sharedRepository`), so that the group's other accounts read and extend them.
 */
import * as fs from "node:fs";
import { shareKeptFile } from "./git/objects.ts";
import { readRegularFile } from "./regular-file.ts";

/**
 * The largest kept file read. None that risk-cli writes comes near it (a real-scale memo is about
 * 5 MB, the chain list of ten years of frames about 25 MB); a larger one is not risk-cli's, and
 * is not read into memory.
 */
export const MAX_KEPT_BYTES = 256 * 1024 * 1024;

/**
 * The text of a kept file, or null when there is none to use: missing, unreadable, over
 * MAX_KEPT_BYTES, or not a regular file. It is read through one descriptor opened without
 * blocking and without following a link, so that a FIFO in its place never hangs the assembly
 * (not even SIGTERM stops a blocked open) and a link to /dev/zero is never read without end. Every
 * kept file is a cache or a count kept for the next run: null only means computing it again.
 */
export function readKeptFile(file: string, encoding: "utf8" | "latin1" = "utf8"): string | null {
  try {
    const bytes = readRegularFile(file, { followLink: false, admit: (size) => size <= MAX_KEPT_BYTES });
    return typeof bytes === "string" ? null : bytes.toString(encoding);
  } catch {
    return null;
  }
}

/** Writes `file` whole through `<file>.tmp-<pid>` and a rename; the temporary file never stays behind. */
export function writeKeptFile(gitdir: string, file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, data);
    shareKeptFile(gitdir, tmp);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Appends to `file`, creating it when absent. Only a regular file is appended to: the file is
 * opened without blocking and without following a link, so that a FIFO in its place throws
 * (ENXIO, or ENOTREG once opened) instead of hanging, and a link throws (ELOOP) instead of
 * writing where it leads.
 */
export function appendKeptFile(gitdir: string, file: string, data: string | Uint8Array): void {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  // mode: Deno's node:fs creates an appended file 0666 whatever the umask; Node applies the umask to it.
  const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0), 0o644);
  try {
    if (!fs.fstatSync(fd).isFile())
      throw Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREG", path: file });
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
  shareKeptFile(gitdir, file);
}

/** Creates the folder `dir` (and its parents) when absent. */
export function makeKeptFolder(gitdir: string, dir: string): void {
  if (fs.mkdirSync(dir, { recursive: true }) !== undefined) shareKeptFile(gitdir, dir);
}
