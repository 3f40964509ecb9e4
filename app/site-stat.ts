import * as fs from "node:fs";
import type { BuiltFile } from "../core/assemble.ts";
import { readKeptFile, writeKeptFile } from "../archive/kept-file.ts";

/**
 * What the CLI knows of the site files it wrote: size, modification and change times and inode,
 * with the SHA-256 of the bytes written. A file whose stat data are unchanged since then still
 * holds those bytes (Git trusts its index the same way), so reusing it needs no new hash. An
 * edited, replaced or touched file no longer matches and is hashed in full. The change time is
 * what makes this safe against an edit whose modification time was put back (`touch -d`): no
 * user call can set it, every write and every `utimes` moves it.
 */
interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  sha256: string;
}

interface StatFile {
  site: string;
  files: Record<string, Entry>;
}

const fileOf = (gitdir: string) => `${gitdir}/risk-cli-site-stat.json`;

export function loadSiteStat(gitdir: string, site: string): (path: string, sha256: string) => boolean {
  let known: StatFile | null = null;
  try {
    known = JSON.parse(readKeptFile(fileOf(gitdir)) ?? "null") as StatFile | null;
  } catch {
    known = null;
  }
  if (!known || known.site !== site || typeof known.files !== "object" || known.files === null) return () => false;
  const files = known.files;
  return (path, sha256) => {
    const entry = files[path];
    if (!entry || entry.sha256 !== sha256) return false;
    try {
      const st = fs.statSync(`${site}${path}`);
      return (
        st.size === entry.size && st.mtimeMs === entry.mtimeMs && st.ctimeMs === entry.ctimeMs && st.ino === entry.ino
      );
    } catch {
      return false;
    }
  };
}

/** Records the stat data of the site files just swapped in (after the swap: inodes and times are final). */
export function saveSiteStat(gitdir: string, site: string, files: readonly BuiltFile[]): void {
  const out: StatFile = { site, files: {} };
  for (const f of files) {
    try {
      const st = fs.statSync(`${site}${f.path}`);
      // On a file system with whole-second times, an edit in the same second as the write would
      // keep the stat data: such a recent file is not trusted (it is hashed next time).
      if (Number.isInteger(st.mtimeMs / 1000) && Date.now() - st.mtimeMs < 2000) continue;
      out.files[f.path] = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, sha256: f.sha256 };
    } catch {
      // Not written (e.g. an append-only file handled elsewhere): nothing to remember.
    }
  }
  writeKeptFile(gitdir, fileOf(gitdir), JSON.stringify(out));
}
