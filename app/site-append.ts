/**
 * Writing an append-only surface (the journal) into the new site folder
 * without copying it. The previous site's file is moved into the temporary folder and the new
 * records appended; if the run fails before the swap, `restore` truncates it and moves it back.
 * When the previous file is missing or does not look like the previous frame's (a fresh clone,
 * an edited site), it is rebuilt from the archive's shards and checked against that frame's
 * fingerprint: O(journal), but only then.
 */
import * as fs from "node:fs";
import { dirname } from "node:path";
import type { BuiltFile } from "../core/assemble.ts";
import { RiskError } from "../core/errors.ts";
import { decodeSha256State } from "../core/journal/sha256.ts";
import type { Hasher } from "../core/ports.ts";
import type { PreviousState } from "../core/surfaces/types.ts";

export interface Moved {
  restore(): void;
}

export async function moveAppendOnly(
  files: readonly BuiltFile[],
  where: {
    siteDir: string;
    tmpSite: string;
    journalAt: (tree: string) => Promise<Uint8Array>;
    previous: PreviousState | null;
    hash: Hasher;
    move: boolean;
  },
): Promise<Moved[]> {
  const moved: Moved[] = [];
  for (const f of files) {
    if (f.appendTo === undefined) continue;
    const target = `${where.tmpSite}${f.path}`;
    const old = `${where.siteDir}${f.path}`;
    fs.mkdirSync(dirname(target), { recursive: true });
    if (f.appendTo > 0 && where.move && looksLikePrevious(old, f.appendTo, where.previous)) {
      fs.renameSync(old, target);
      const size = f.appendTo;
      moved.push({
        restore: () => {
          fs.truncateSync(target, size);
          fs.mkdirSync(dirname(old), { recursive: true });
          fs.renameSync(target, old);
        },
      });
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
    fs.appendFileSync(target, f.served);
  }
  return moved;
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
