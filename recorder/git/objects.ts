/**
 * The only code that touches Git objects. Blobs are written as loose objects through a temporary
 * file and a rename, so that a crash never leaves a truncated object that a later write would
 * trust; trees and commits go through isomorphic-git's low-level API (no index, no work tree).
 */
import * as fs from "node:fs";
import { createHash } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";
import git from "isomorphic-git";

export type TreeEntry = { mode: string; path: string; oid: string; type: "blob" | "tree" | "commit" };

export const BRANCH = "refs/heads/main";

export async function initRepository(gitdir: string): Promise<void> {
  await git.init({ fs, dir: gitdir, gitdir, bare: true, defaultBranch: "main" });
}

export function isRepository(gitdir: string): boolean {
  return fs.existsSync(`${gitdir}/HEAD`) && fs.existsSync(`${gitdir}/objects`);
}

export async function headCommit(gitdir: string): Promise<string | null> {
  try {
    return await git.resolveRef({ fs, gitdir, ref: BRANCH });
  } catch {
    return null;
  }
}

/** Writes a blob unless it exists; returns its oid. Level-1 deflate: ~3x faster than level 6. */
export async function writeBlob(gitdir: string, bytes: Uint8Array): Promise<string> {
  return writeLoose(gitdir, "blob", bytes);
}

/**
 * Writes a loose object through a temporary file and a rename, unless it exists; returns its oid.
 */
async function writeLoose(gitdir: string, type: "blob" | "tree", bytes: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`${type} ${bytes.byteLength}\0`);
  const wrapped = new Uint8Array(header.byteLength + bytes.byteLength);
  wrapped.set(header, 0);
  wrapped.set(bytes, header.byteLength);
  const oid = createHash("sha1").update(wrapped).digest("hex");
  const dir = `${gitdir}/objects/${oid.slice(0, 2)}`;
  const file = `${dir}/${oid.slice(2)}`;
  if (fs.existsSync(file)) return oid;
  await fs.promises.mkdir(dir, { recursive: true });
  const tmp = `${dir}/.tmp-${process.pid}-${oid.slice(2, 10)}`;
  await fs.promises.writeFile(tmp, deflateSync(wrapped, { level: 1 }));
  await fs.promises.rename(tmp, file);
  return oid;
}

/**
 * A loose object's type and body, or null when the object is not loose (a clone keeps objects in
 * packs, which isomorphic-git reads). Reading loose objects here costs ~0.1 ms against ~1 ms
 * through isomorphic-git's per-call set-up, and an assembly reads a dozen.
 */
function readLoose(gitdir: string, oid: string): { type: string; body: Uint8Array } | null {
  let raw: Buffer;
  try {
    raw = fs.readFileSync(`${gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  const wrapped = inflateSync(raw);
  const nul = wrapped.indexOf(0);
  const [type, size] = wrapped.subarray(0, nul).toString("latin1").split(" ");
  const body = wrapped.subarray(nul + 1);
  if (Number(size) !== body.byteLength) throw new Error(`object ${oid} is ${body.byteLength} bytes, its header says ${size}`);
  return { type: type!, body };
}

export async function readBlob(gitdir: string, oid: string): Promise<Uint8Array> {
  const loose = readLoose(gitdir, oid);
  if (loose) {
    if (loose.type !== "blob") throw new Error(`object ${oid} is a ${loose.type}, not a blob`);
    return loose.body;
  }
  const { blob } = await git.readBlob({ fs, gitdir, oid });
  return blob;
}

function parseTree(body: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let i = 0;
  while (i < buf.length) {
    const space = buf.indexOf(32, i);
    const nul = buf.indexOf(0, space);
    const mode = buf.toString("latin1", i, space);
    const path = buf.toString("utf8", space + 1, nul);
    const oid = buf.toString("hex", nul + 1, nul + 21);
    const type = mode === "40000" ? "tree" : mode === "160000" ? "commit" : "blob";
    entries.push({ mode: type === "tree" ? "040000" : mode, path, oid, type });
    i = nul + 21;
  }
  return entries;
}

/** Trees read during one operation, by oid (trees are immutable, so this never goes stale). */
export type TreeCache = Map<string, TreeEntry[]>;

export async function readTree(gitdir: string, oid: string, cache?: TreeCache): Promise<TreeEntry[]> {
  const hit = cache?.get(oid);
  if (hit) return hit;
  const loose = readLoose(gitdir, oid);
  if (loose && loose.type !== "tree") throw new Error(`object ${oid} is a ${loose.type}, not a tree`);
  const tree = loose ? parseTree(loose.body) : ((await git.readTree({ fs, gitdir, oid })).tree as TreeEntry[]);
  cache?.set(oid, tree);
  return tree;
}

/**
 * Writes a tree in Git's format: entries ordered by name, a folder's name compared as if it ended
 * with "/". Serialised here rather than through isomorphic-git's writeTree, which measured
 * 2.4 ms a tree against 0.9 ms for the same loose write (a frame writes seven trees).
 */
export async function writeTree(gitdir: string, entries: TreeEntry[]): Promise<string> {
  const key = (e: TreeEntry) => (e.type === "tree" ? `${e.path}/` : e.path);
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(key(a)), Buffer.from(key(b))));
  const parts: Uint8Array[] = [];
  for (const e of sorted) {
    const mode = e.type === "tree" ? "40000" : e.mode;
    parts.push(new TextEncoder().encode(`${mode} ${e.path}\0`), Buffer.from(e.oid, "hex"));
  }
  return writeLoose(gitdir, "tree", Buffer.concat(parts));
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  authorTime: number;
  committerTime: number;
}

export async function readCommit(gitdir: string, oid: string): Promise<CommitInfo> {
  const { commit } = await git.readCommit({ fs, gitdir, oid });
  return {
    oid,
    tree: commit.tree,
    parents: commit.parent,
    message: commit.message,
    authorTime: commit.author.timestamp,
    committerTime: commit.committer.timestamp,
  };
}

export async function writeCommit(
  gitdir: string,
  c: { tree: string; parents: string[]; message: string; time: number; name: string; email: string },
): Promise<string> {
  const who = { name: c.name, email: c.email, timestamp: c.time, timezoneOffset: 0 };
  return git.writeCommit({ fs, gitdir, commit: { tree: c.tree, parent: c.parents, message: c.message, author: who, committer: who } });
}

/** Moves the branch to `oid` with a rename, so that the ref is never half-written. */
export async function updateBranch(gitdir: string, oid: string): Promise<void> {
  const file = `${gitdir}/${BRANCH}`;
  await fs.promises.mkdir(`${gitdir}/refs/heads`, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await fs.promises.writeFile(tmp, `${oid}\n`);
  await fs.promises.rename(tmp, file);
}

/** The oid at `path` (a/b/c) inside the tree `root`, or null. */
export async function oidAtPath(gitdir: string, root: string, path: string, cache?: TreeCache): Promise<{ oid: string; type: string } | null> {
  let current = { oid: root, type: "tree" };
  for (const part of path.split("/")) {
    if (current.type !== "tree") return null;
    const entry = (await readTree(gitdir, current.oid, cache)).find((e) => e.path === part);
    if (!entry) return null;
    current = entry;
  }
  return current;
}

/** The Git directory of an archive: the folder itself (bare, as assemble makes it) or its .git (a clone). */
export function gitdirOf(dir: string): string {
  return fs.existsSync(`${dir}/.git/HEAD`) ? `${dir}/.git` : dir;
}
