import { readTree, writeTree, type TreeCache, type TreeEntry } from "./objects.ts";

/**
 * Applies edits (path -> blob oid, or null to delete) to a base tree and writes only the
 * directories the edits touch; every other subtree keeps its oid. Empty directories vanish.
 */
export async function editTree(
  gitdir: string,
  base: string | null,
  edits: Map<string, string | null>,
  cache?: TreeCache,
): Promise<string | null> {
  const entries = new Map<string, TreeEntry>();
  if (base) for (const e of await readTree(gitdir, base, cache)) entries.set(e.path, e);
  const nested = new Map<string, Map<string, string | null>>();
  for (const [path, oid] of edits) {
    const slash = path.indexOf("/");
    if (slash < 0) {
      if (oid === null) entries.delete(path);
      else entries.set(path, { mode: "100644", path, oid, type: "blob" });
      continue;
    }
    const head = path.slice(0, slash);
    if (!nested.has(head)) nested.set(head, new Map());
    nested.get(head)!.set(path.slice(slash + 1), oid);
  }
  for (const [dir, sub] of nested) {
    const existing = entries.get(dir);
    const oid = await editTree(gitdir, existing?.type === "tree" ? existing.oid : null, sub, cache);
    if (oid === null) entries.delete(dir);
    else entries.set(dir, { mode: "040000", path: dir, oid, type: "tree" });
  }
  if (entries.size === 0) return null;
  return writeTree(gitdir, [...entries.values()]);
}

/** Every blob below `root`, as path -> oid. */
export async function flattenTree(
  gitdir: string,
  root: string,
  prefix = "",
  cache?: TreeCache,
  /** Told of each entry that is not a plain file (100644) or a folder: risk-cli writes no other. */
  unusual?: (path: string, mode: string) => void,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readTree(gitdir, root, cache)) {
    const path = prefix ? `${prefix}/${e.path}` : e.path;
    if (e.type === "tree") {
      for (const [p, o] of await flattenTree(gitdir, e.oid, path, cache, unusual)) out.set(p, o);
    } else {
      if (e.mode !== "100644") unusual?.(path, e.mode);
      out.set(path, e.oid);
    }
  }
  return out;
}
