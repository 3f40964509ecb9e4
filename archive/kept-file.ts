/**
 * The files risk-cli keeps in the archive's Git directory besides Git's own (the lock, the caches
 * listed in app/caches.ts, the traffic counts): written whole through a temporary file and a
 * rename, or appended to, and given the permissions Git gives its own files when the repository
 * is shared (`core.sharedRepository`), so that the group's other accounts read and extend them.
 */
import * as fs from "node:fs";
import { shareKeptFile } from "./git/objects.ts";

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

/** Appends to `file`, creating it when absent. */
export function appendKeptFile(gitdir: string, file: string, data: string | Uint8Array): void {
  // mode: Deno's node:fs creates an appended file 0666 whatever the umask; Node applies the umask to it.
  fs.appendFileSync(file, data, { mode: 0o644 });
  shareKeptFile(gitdir, file);
}

/** Creates the folder `dir` (and its parents) when absent. */
export function makeKeptFolder(gitdir: string, dir: string): void {
  if (fs.mkdirSync(dir, { recursive: true }) !== undefined) shareKeptFile(gitdir, dir);
}
