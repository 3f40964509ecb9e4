/**
 * Writing an append-only surface (the journal) into the new site folder without rebuilding it.
 * The previous site's file is copied into the temporary folder (a reflink where the file system
 * has them) and the new records appended: the live site is never touched before the swap, so a
 * run killed at any point leaves it exactly the previous frame's. The copy is taken only when the
 * file is provably the one written for the previous frame (its stat data, change time included,
 * unchanged since: app/site-stat.ts); otherwise (a fresh clone, an edited site) the file is
 * rebuilt from the archive's shards and checked against that frame's fingerprint: O(journal),
 * but only then.
 */
import * as fs from "node:fs";
import { dirname } from "node:path";
import type { BuiltFile } from "../core/assemble.ts";
import { RiskError } from "../core/errors.ts";
import { decodeSha256State } from "../core/journal/sha256.ts";
import type { Hasher } from "../core/ports.ts";
import type { PreviousState } from "../core/surfaces/types.ts";

export async function copyAppendOnly(
  files: readonly BuiltFile[],
  where: {
    siteDir: string;
    tmpSite: string;
    journalAt: (tree: string) => Promise<Uint8Array>;
    previous: PreviousState | null;
    hash: Hasher;
    copy: boolean;
    /** True when the site file at a path is known to hash to the sha256 given (app/site-stat.ts). */
    trusted: (path: string, sha256: string) => boolean;
  },
): Promise<void> {
  for (const f of files) {
    if (f.appendTo === undefined) continue;
    const target = `${where.tmpSite}${f.path}`;
    const old = `${where.siteDir}${f.path}`;
    fs.mkdirSync(dirname(target), { recursive: true });
    const previousSha = where.previous?.frame.surfaces[f.path]?.sha256;
    if (
      f.appendTo > 0 &&
      where.copy &&
      previousSha !== undefined &&
      where.trusted(f.path, previousSha) &&
      looksLikePrevious(old, f.appendTo, where.previous)
    ) {
      fs.copyFileSync(old, target, fs.constants.COPYFILE_FICLONE);
    } else if (f.appendTo > 0) {
      const rec = where.previous?.frame.surfaces[f.path];
      const bytes = where.previous ? await where.journalAt(where.previous.tree) : new Uint8Array(0);
      if (!rec || bytes.byteLength !== f.appendTo || where.hash.sha256(bytes) !== rec.sha256) {
        throw new RiskError(
          "E_ARCHIVE",
          `Cannot rebuild ${f.path} from the archive: its shards do not give the previous frame's fingerprint; run risk-cli verify`,
          { path: f.path },
        );
      }
      fs.writeFileSync(target, bytes);
    }
    // mode: Deno's node:fs creates an appended file 0666 whatever the umask; Node applies the umask to it.
    fs.appendFileSync(target, f.served, { mode: 0o644 });
  }
}

/**
 * The previous served file, as far as can be told without reading it: its size, and its last
 * bytes against the pending tail of the SHA-256 state the previous frame recorded.
 */
function looksLikePrevious(file: string, size: number, previous: PreviousState | null): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return false;
  }
  if (!stat.isFile() || stat.size !== size || !previous?.frame.journal) return false;
  const tail = decodeSha256State(previous.frame.journal.state).tail;
  if (tail.byteLength === 0) return true;
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(tail.byteLength);
    fs.readSync(fd, buf, 0, tail.byteLength, size - tail.byteLength);
    return buf.equals(tail);
  } finally {
    fs.closeSync(fd);
  }
}
