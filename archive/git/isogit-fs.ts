/**
 * The file system given to isomorphic-git. isomorphic-git reads objects only from the archive's
 * own `objects` folder, while Git (and ./pack.ts) also read the repositories named in
 * `objects/info/alternates` (`git clone --shared`, `--reference`): a push of such an archive
 * found no object to send, and a pull offered none of the local frames as already held. For such
 * an archive, reads of a loose object or a pack file that the own folder lacks fall through to
 * the alternates, and listing the pack folder lists theirs too; writes go to the archive alone.
 */
import * as fs from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { PromiseFsClient } from "isomorphic-git";
import { packStore } from "./pack.ts";

/** A loose object's folder or file, the pack folder or a file in it: what an alternate may hold. */
const BORROWABLE = /^(?:[0-9a-f]{2}|pack)(?:\/[^/]+)?$/;

export function isogitFs(gitdir: string): typeof fs | PromiseFsClient {
  const [own, ...others] = packStore(gitdir).objectDirs;
  if (own === undefined || others.length === 0) return fs;
  const p = fs.promises;
  const borrowed = (path: unknown): string | null => {
    const rel = relative(own, resolve(String(path)))
      .split(sep)
      .join("/");
    return BORROWABLE.test(rel) ? rel : null;
  };
  const notFound = (e: unknown) => (e as NodeJS.ErrnoException).code === "ENOENT";
  async function orAlternates<T>(path: unknown, op: (at: string) => Promise<T>): Promise<T> {
    try {
      return await op(String(path));
    } catch (e) {
      const rel = borrowed(path);
      if (rel === null || !notFound(e)) throw e;
      for (const dir of others) {
        try {
          return await op(join(dir, rel));
        } catch (again) {
          if (!notFound(again)) throw again;
        }
      }
      throw e;
    }
  }
  const promises = {
    ...p,
    readFile: (path: string, options?: unknown) =>
      orAlternates(path, (at) => p.readFile(at, options as fs.ObjectEncodingOptions)),
    stat: (path: string) => orAlternates(path, (at) => p.stat(at)),
    lstat: (path: string) => orAlternates(path, (at) => p.lstat(at)),
    readdir: async (path: string) => {
      const rel = borrowed(path);
      if (rel === null || rel.includes("/")) return p.readdir(path);
      // A folder's names here and in every alternate: pack names are content hashes, so a
      // name in two folders is the same file.
      const names = new Set<string>();
      let found = false;
      for (const at of [path, ...others.map((dir) => join(dir, rel))]) {
        try {
          for (const name of await p.readdir(at)) names.add(name);
          found = true;
        } catch (e) {
          if (!notFound(e)) throw e;
        }
      }
      if (!found) return p.readdir(path);
      return [...names];
    },
  };
  return { promises } as unknown as PromiseFsClient;
}
