/**
 * The only code that touches Git objects. Blobs, trees and commits are written as loose objects
 * through a temporary file and a rename, so that a crash never leaves a truncated object that a
 * later write would trust; the branch moves with a rename too. isomorphic-git creates the
 * repository and resolves the branch (packed-refs included). Objects are read here, loose ones
 * directly and packed ones through ./pack.ts; isomorphic-git reads only what those do not
 * understand.
 */
import { brokenLink, readRegularFile } from "../regular-file.ts";
import * as fs from "node:fs";
import { dirname } from "node:path";
import { createHash } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";
import { RiskError } from "../../core/errors.ts";
import { isogitFs } from "./isogit-fs.ts";
import { PackCorruptError, PackUnsupportedError, packStore, type GitObject } from "./pack.ts";

export type TreeEntry = { mode: string; path: string; oid: string; type: "blob" | "tree" | "commit" };

export const BRANCH = "refs/heads/main";

/**
 * A Git object that is missing, cannot be inflated, or does not hash to its name: the archive is
 * damaged (exit 6). `verify` turns it into a verification failure naming the frame (exit 1).
 */
export function damaged(oid: string, problem: string): RiskError {
  return new RiskError(
    "E_ARCHIVE",
    `The archive is damaged: Git object ${oid} ${problem}. Run risk-cli verify to find the frame; restore the archive from another copy (the published remote, a backup).`,
    { oid, damaged: true },
  );
}

/**
 * Why the archive lacks objects by design, or null: a shallow clone (`git clone --depth`, which
 * leaves a `shallow` file) or a partial one (`--filter`, which marks its packs `.promisor` and its
 * remote a promisor). Asked only once an object is found missing, since a partial clone completed
 * later keeps its marks.
 */
export function incompleteClone(gitdir: string): "shallow" | "partial" | null {
  if (fs.existsSync(`${gitdir}/shallow`)) return "shallow";
  let config = "";
  try {
    config = fs.readFileSync(`${gitdir}/config`, "utf8");
  } catch {
    // No config: not a clone.
  }
  if (/^\s*(partialclone\s*=|promisor\s*=\s*true\b)/im.test(config)) return "partial";
  try {
    if (fs.readdirSync(`${gitdir}/objects/pack`).some((name) => name.endsWith(".promisor"))) return "partial";
  } catch {
    // No pack folder.
  }
  return null;
}

/**
 * An object missing from an archive that is a shallow or partial clone, or whose alternates are
 * gone: not damage, but a copy that lacks what risk-cli reads (exit 6), with the command that
 * fetches it or the way back. Null for any other.
 */
export function notFetched(gitdir: string, oid: string): RiskError | null {
  const kind = incompleteClone(gitdir);
  if (!kind) return lostAlternate(gitdir, oid);
  const fix =
    kind === "shallow"
      ? "Fetch the frames below it with `git --git-dir <archive> fetch --unshallow`, or clone the archive again without --depth."
      : "Fetch every object with `git --git-dir <archive> config --unset remote.origin.partialclonefilter` then `git --git-dir <archive> fetch --refetch origin` (Git 2.36 or later), or clone the archive again without --filter.";
  return new RiskError(
    "E_ARCHIVE",
    `The archive is a ${kind} clone (cloned with ${kind === "shallow" ? "--depth" : "--filter"}): Git object ${oid} was not fetched, and risk-cli reads every frame's objects. Nothing was checked or written. ${fix}`,
    { oid, incomplete: kind },
  );
}

/**
 * An object missing from an archive that borrows objects from another repository
 * (`objects/info/alternates`, left by `git clone --shared` or `--reference`) whose folder is gone:
 * the lender was moved or deleted, or a relative line no longer leads to it after a copy. Not
 * damage to the archive's own objects (exit 6), and said so, with the ways back. Null otherwise.
 */
function lostAlternate(gitdir: string, oid: string): RiskError | null {
  const lost = packStore(gitdir).missingAlternates.length;
  if (lost === 0) return null;
  return new RiskError(
    "E_ARCHIVE",
    `The archive borrows objects from another repository through objects/info/alternates, and ${lost === 1 ? "the folder it names does" : `${lost} folders it names do`} not exist (moved or deleted, or a relative line read from another place): Git object ${oid} is in none of the folders left. Nothing was checked or written. Put that repository back where the line says, or correct the line; then, to make the archive hold its own objects, run \`git --git-dir <archive> repack -a -d\` and remove objects/info/alternates.`,
    { oid, incomplete: "alternates" },
  );
}

/** isomorphic-git's reading errors (a truncated pack, a missing object) as archive damage. */
async function viaIsogit<T>(gitdir: string, oid: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "NotFoundError") throw notFetched(gitdir, oid) ?? damaged(oid, "is missing");
    throw damaged(oid, "cannot be read from its pack (the pack is damaged or truncated)");
  }
}

/**
 * isomorphic-git, loaded on first use: it is needed only to create a repository, resolve a packed
 * branch ref and read a pack ./pack.ts does not understand, and loading it costs a CLI process
 * more than most commands' own work.
 */
async function isogit(): Promise<typeof import("isomorphic-git").default> {
  return (await import("isomorphic-git")).default;
}

export async function initRepository(gitdir: string): Promise<void> {
  await (await isogit()).init({ fs, dir: gitdir, gitdir, bare: true, defaultBranch: "main" });
}

export function isRepository(gitdir: string): boolean {
  return fs.existsSync(`${gitdir}/HEAD`) && fs.existsSync(`${gitdir}/objects`);
}

/**
 * For the commands that only read an archive: a folder that does not exist is an I/O error (6)
 * and one that is not a Git repository an archive error (6), each named; an empty repository is
 * left to the caller (no frame, 7).
 */
export function requireArchive(gitdir: string): void {
  if (isRepository(gitdir)) return;
  if (!fs.existsSync(gitdir))
    throw new RiskError("E_IO", `The archive ${gitdir} does not exist: check --archive (it defaults to archive.git)`, {
      archive: gitdir,
    });
  throw new RiskError("E_ARCHIVE", `${gitdir} is not a Git repository, so not an archive: check --archive`, {
    archive: gitdir,
  });
}

/**
 * What makes native Git read other objects than the ones their names give: replace refs
 * (`refs/replace/<oid>`, loose or packed) and an `info/grafts` file. risk-cli reads objects by
 * name and never follows them, so `git show` and `git log` would then disagree with it. Empty
 * when there are none.
 */
export function gitSubstitutions(gitdir: string): string[] {
  // packed-refs is read here before any ref: a FIFO or a link to /dev/zero there is damage first.
  checkGitFiles(gitdir);
  const found: string[] = [];
  const walk = (dir: string, prefix: string) => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names)
      if (d.isDirectory()) walk(`${dir}/${d.name}`, `${prefix}${d.name}/`);
      else found.push(`${prefix}${d.name}`);
  };
  walk(`${gitdir}/refs/replace`, "refs/replace/");
  try {
    for (const line of fs.readFileSync(`${gitdir}/packed-refs`, "utf8").split("\n")) {
      const ref = /^[0-9a-f]{40} (refs\/replace\/\S+)$/.exec(line)?.[1];
      if (ref && !found.includes(ref)) found.push(ref);
    }
  } catch {
    // No packed refs.
  }
  const grafts = fs.statSync(`${gitdir}/info/grafts`, { throwIfNoEntry: false });
  if (grafts && grafts.size > 0) found.push("info/grafts");
  return found.sort();
}

/**
 * The branch's commit. The loose ref file that every assembly writes is read directly (one small
 * synchronous read); a packed ref (a fresh clone, after `git gc`) or anything unusual is left to
 * isomorphic-git. Without a main branch, HEAD's branch (a clone of the archive branch).
 */
export async function headCommit(gitdir: string): Promise<string | null> {
  checkRepositoryFormat(gitdir);
  const other = otherHeadBranch(gitdir, checkGitFiles(gitdir));
  if (other) {
    // An auditor's `git clone --bare --branch risk-archive` copies every branch and points HEAD
    // at the one cloned: that branch holds the frames, whatever a `main` beside it holds.
    try {
      return await (await isogit()).resolveRef({ fs, gitdir, ref: other });
    } catch {
      throw damaged(other, "(the branch the archive's HEAD names) holds no commit");
    }
  }
  let loose: string | null = null;
  try {
    loose = fs.readFileSync(`${gitdir}/${BRANCH}`, "latin1");
  } catch {
    // no loose ref: packed, or no branch yet
  }
  if (loose !== null && /^[0-9a-f]{40}\n?$/.test(loose)) return loose.slice(0, 40);
  if (loose !== null) throw damaged(BRANCH, "(the branch ref) holds no commit id: the ref file was overwritten");
  const git = await isogit();
  try {
    return await git.resolveRef({ fs, gitdir, ref: BRANCH });
  } catch {
    // A stranger's `git clone --branch risk-archive` of a published archive has no main branch:
    // its HEAD names the branch it cloned, which holds the frames.
    if (fs.existsSync(`${gitdir}/${BRANCH}`)) return null;
    try {
      return await git.resolveRef({ fs, gitdir, ref: "HEAD" });
    } catch {
      return null;
    }
  }
}

/** Writes a blob unless it exists; returns its oid. Level-1 deflate: ~3x faster than level 6. */
export async function writeBlob(gitdir: string, bytes: Uint8Array): Promise<string> {
  return writeLoose(gitdir, "blob", bytes);
}

/**
 * Writes a loose object through a temporary file and a rename, unless it exists; returns its oid.
 * The file calls are synchronous: a frame writes about twenty small objects one after the
 * other, and each asynchronous call's round trip through libuv's thread pool cost more than the
 * write itself (0.5 ms against 0.25 ms an object, measured).
 */
async function writeLoose(gitdir: string, type: "blob" | "tree" | "commit", bytes: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`${type} ${bytes.byteLength}\0`);
  const wrapped = new Uint8Array(header.byteLength + bytes.byteLength);
  wrapped.set(header, 0);
  wrapped.set(bytes, header.byteLength);
  const oid = createHash("sha1").update(wrapped).digest("hex");
  const dir = `${gitdir}/objects/${oid.slice(0, 2)}`;
  const file = `${dir}/${oid.slice(2)}`;
  if (fs.existsSync(file)) return oid;
  if (fs.mkdirSync(dir, { recursive: true }) !== undefined) shareAsGit(gitdir, dir);
  // Named as Git names its own (tmp_obj_*): one that a killed run leaves is removed by `git gc`
  // (git prune, once older than gc.pruneExpire) without a warning, where any other name is
  // reported as a bad object file and "garbage found" at every gc, and never removed.
  const tmp = `${dir}/tmp_obj_${process.pid}_${oid.slice(2, 10)}`;
  try {
    fs.writeFileSync(tmp, deflateSync(wrapped, { level: 1 }));
    shareAsGit(gitdir, tmp);
    fs.renameSync(tmp, file);
  } catch (e) {
    // A full disk leaves no empty or partial temporary object behind.
    fs.rmSync(tmp, { force: true });
    throw namingPath(e, tmp);
  }
  return oid;
}

/** The largest object risk-cli reads: far above any surface (a site file is at most 256 MiB). */
const MAX_OBJECT_BYTES = 1024 * 1024 * 1024;

/**
 * A loose object's type and body, or null when the object is not loose. Reading loose objects
 * here costs ~0.1 ms against ~1 ms through isomorphic-git's per-call set-up, and an assembly
 * reads a dozen. The objects folder and its alternates are searched.
 */
function readLoose(gitdir: string, oid: string): GitObject | null {
  for (const dir of packStore(gitdir).objectDirs) {
    const file = `${dir}/${oid.slice(0, 2)}/${oid.slice(2)}`;
    // In a packed archive most objects are not loose: a stat that returns undefined is far
    // cheaper than the ENOENT error a failed read would build.
    if (!fs.statSync(file, { throwIfNoEntry: false })) continue;
    let raw: Buffer | "not-regular" | "refused";
    try {
      // Git writes loose objects as regular files: a link to /dev/zero or a FIFO planted in their
      // place is damage, never read (it would grow without end, or hang).
      raw = readRegularFile(file, { followLink: false, admit: (size) => size <= MAX_OBJECT_BYTES });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") continue; // packed by a concurrent gc since the stat
      if (code === "ELOOP") throw damaged(oid, "is a symbolic link where Git keeps a file");
      throw e;
    }
    if (raw === "not-regular") throw damaged(oid, "is not a regular file");
    if (raw === "refused")
      throw damaged(oid, `is over ${MAX_OBJECT_BYTES} bytes, more than any object risk-cli writes`);
    let wrapped: Buffer;
    try {
      wrapped = inflateSync(raw, { maxOutputLength: MAX_OBJECT_BYTES });
    } catch {
      throw damaged(
        oid,
        "cannot be inflated (a flipped bit, a truncated file, or more than any object risk-cli writes)",
      );
    }
    // A loose object is named by the SHA-1 of its content: a changed bit shows here.
    if (createHash("sha1").update(wrapped).digest("hex") !== oid) throw damaged(oid, "does not hash to its name");
    const nul = wrapped.indexOf(0);
    const [type, size] = wrapped.subarray(0, nul).toString("latin1").split(" ");
    const body = wrapped.subarray(nul + 1);
    if (Number(size) !== body.byteLength)
      throw damaged(oid, `is ${body.byteLength} bytes where its header says ${size}`);
    return { type: type as GitObject["type"], body };
  }
  return null;
}

/**
 * An object, loose or from a pack (a clone keeps its objects in packs), read without
 * isomorphic-git; or "fallback" when a pack is one this reader does not understand or fails to
 * read, so that isomorphic-git, which loads and checks the whole pack, decides. An object that is
 * neither loose nor in any pack is an error naming it.
 */
function readObject(gitdir: string, oid: string): GitObject | "fallback" {
  const loose = readLoose(gitdir, oid);
  if (loose) return loose;
  const store = packStore(gitdir);
  let packed: GitObject | null;
  try {
    packed = store.read(oid, (base) => readLoose(gitdir, base));
  } catch (e) {
    if (!(e instanceof PackUnsupportedError || e instanceof PackCorruptError)) throw e;
    return "fallback";
  }
  if (packed) return packed;
  // A concurrent `git gc` may have moved it from loose to a new pack since the first look.
  const late = readLoose(gitdir, oid);
  if (late) return late;
  throw (
    notFetched(gitdir, oid) ??
    damaged(oid, `is missing: it is not a loose object, and none of the archive's ${store.size} pack(s) holds it`)
  );
}

/**
 * The first of `oids` that the archive does not hold, loose or packed, or undefined when it
 * holds them all; no object is read (pack index lookups, then a stat for each one not packed).
 */
export function firstMissing(gitdir: string, oids: readonly string[]): string | undefined {
  const store = packStore(gitdir);
  const packed = store.holding(oids);
  for (const oid of oids) {
    if (packed.has(oid)) continue;
    const loose = store.objectDirs.some((dir) =>
      fs.statSync(`${dir}/${oid.slice(0, 2)}/${oid.slice(2)}`, { throwIfNoEntry: false }),
    );
    if (!loose) return oid;
  }
  return undefined;
}

/** Reads an object of a known type; a type that differs is an error, as for a loose object. */
function readTyped(gitdir: string, oid: string, type: GitObject["type"]): Buffer | null {
  const obj = readObject(gitdir, oid);
  if (obj === "fallback") return null;
  if (obj.type !== type) throw damaged(oid, `is a ${obj.type} where a ${type} belongs`);
  return obj.body;
}

export async function readBlob(gitdir: string, oid: string): Promise<Uint8Array> {
  const body = readTyped(gitdir, oid, "blob");
  if (body) return body;
  const { blob } = await viaIsogit(gitdir, oid, async () =>
    (await isogit()).readBlob({ fs: isogitFs(gitdir), gitdir, oid }),
  );
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
  const body = readTyped(gitdir, oid, "tree");
  const tree = body
    ? parseTree(body)
    : ((await viaIsogit(gitdir, oid, async () => (await isogit()).readTree({ fs: isogitFs(gitdir), gitdir, oid })))
        .tree as TreeEntry[]);
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
  /** The message exactly as stored (the message above is normalised as isomorphic-git does). */
  rawMessage: string;
  authorTime: number;
  committerTime: number;
  /** The UTC offsets written after those times (`+0000`, `-0500`). */
  authorZone: string;
  committerZone: string;
  /** `name <email>` of the author and of the committer. */
  author: string;
  committer: string;
}

/**
 * A commit's headers and message, read as isomorphic-git reads them: `tree` first, the `parent`
 * lines that follow it directly, the first `author` and `committer`, and the message after the
 * first blank line with carriage returns dropped and exactly one final newline. Null when the
 * commit is not in that shape, for isomorphic-git to read (and reject) instead.
 */
function parseCommit(oid: string, body: Uint8Array): CommitInfo | null {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  const blank = text.indexOf("\n\n");
  if (blank < 0) return null;
  const lines: string[] = [];
  for (const line of text.slice(0, blank).split("\n")) {
    if (line.startsWith(" ") && lines.length > 0) lines[lines.length - 1] += `\n${line.slice(1)}`;
    else lines.push(line);
  }
  const keyOf = (h: string) => h.slice(0, h.indexOf(" "));
  const valueOf = (h: string) => h.slice(h.indexOf(" ") + 1);
  if (lines.length === 0 || keyOf(lines[0]!) !== "tree") return null;
  const parents: string[] = [];
  let i = 1;
  for (; i < lines.length && keyOf(lines[i]!) === "parent"; i++) parents.push(valueOf(lines[i]!));
  const headers = new Map<string, string>();
  for (; i < lines.length; i++) if (!headers.has(keyOf(lines[i]!))) headers.set(keyOf(lines[i]!), valueOf(lines[i]!));
  const person = (who: string | undefined) => (who === undefined ? null : /^(.*) <(.*)> (.*) (.*)$/.exec(who));
  const authorLine = person(headers.get("author"));
  const committerLine = person(headers.get("committer"));
  const author = authorLine?.[3];
  const committer = committerLine?.[3];
  if (author == null || committer == null) return null;
  const message =
    text
      .slice(blank + 2)
      .replace(/\r/g, "")
      .replace(/^\n+/, "")
      .replace(/\n+$/, "") + "\n";
  return {
    oid,
    tree: valueOf(lines[0]!),
    parents,
    message,
    rawMessage: text.slice(blank + 2),
    authorTime: Number(author),
    committerTime: Number(committer),
    authorZone: authorLine![4]!,
    committerZone: committerLine![4]!,
    author: `${authorLine![1]} <${authorLine![2]}>`,
    committer: `${committerLine![1]} <${committerLine![2]}>`,
  };
}

/** isomorphic-git's offset (minutes west of UTC, as Date's; -0 for `-0000`) as Git writes it. */
function zoneOf(minutesWest: number): string {
  if (minutesWest === 0) return Object.is(minutesWest, -0) ? "-0000" : "+0000";
  const sign = minutesWest < 0 ? "+" : "-";
  const m = Math.abs(minutesWest);
  return `${sign}${String(Math.floor(m / 60)).padStart(2, "0")}${String(m % 60).padStart(2, "0")}`;
}

export async function readCommit(gitdir: string, oid: string): Promise<CommitInfo> {
  const obj = readObject(gitdir, oid);
  // A tag is peeled to its commit by isomorphic-git; any other type is its error to report.
  if (obj !== "fallback" && (obj.type === "tree" || obj.type === "blob"))
    throw damaged(oid, `is a ${obj.type} where a commit belongs`);
  const parsed = obj !== "fallback" && obj.type === "commit" ? parseCommit(oid, obj.body) : null;
  if (parsed) return parsed;
  const { commit } = await viaIsogit(gitdir, oid, async () =>
    (await isogit()).readCommit({ fs: isogitFs(gitdir), gitdir, oid }),
  );
  return {
    oid,
    tree: commit.tree,
    parents: commit.parent,
    message: commit.message,
    rawMessage: commit.message,
    authorTime: commit.author.timestamp,
    committerTime: commit.committer.timestamp,
    authorZone: zoneOf(commit.author.timezoneOffset),
    committerZone: zoneOf(commit.committer.timezoneOffset),
    author: `${commit.author.name} <${commit.author.email}>`,
    committer: `${commit.committer.name} <${commit.committer.email}>`,
  };
}

/**
 * Writes a commit object as isomorphic-git's writeCommit would (the same bytes, so the same oid:
 * tested against it), with author and committer at UTC, through the same loose write as blobs.
 */
export async function writeCommit(
  gitdir: string,
  c: { tree: string; parents: string[]; message: string; time: number; name: string; email: string },
): Promise<string> {
  const who = `${c.name} <${c.email}> ${c.time} +0000`;
  const message = c.message.replace(/\r/g, "").replace(/^\n+/, "").replace(/\n+$/, "") + "\n";
  const text = `tree ${c.tree}\n${c.parents.map((p) => `parent ${p}\n`).join("")}author ${who}\ncommitter ${who}\n\n${message}`;
  return writeLoose(gitdir, "commit", new TextEncoder().encode(text));
}

/**
 * The archive's Git config as `section.key` (lower case, subsections left out) to its last value:
 * only the few settings risk-cli honours are read from it.
 */
function gitConfig(gitdir: string): Map<string, string> {
  const out = new Map<string, string>();
  const st = fs.lstatSync(`${gitdir}/config`, { throwIfNoEntry: false });
  if (!st) return out;
  if (!st.isFile() || st.size > 1024 * 1024) throw damaged("config", "is not a regular file of a size Git writes");
  let section = "";
  for (const raw of fs.readFileSync(`${gitdir}/config`, "utf8").split("\n")) {
    const line = raw.replace(/^\s+/, "");
    const head = /^\[([A-Za-z0-9.-]+)(\s+"[^"]*")?\]/.exec(line);
    if (head) {
      section = head[2] ? "" : head[1]!.toLowerCase();
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*([^#;]*))?/.exec(line);
    if (!entry || !section) continue;
    out.set(`${section}.${entry[1]!.toLowerCase()}`, (entry[2] ?? "true").trim().replace(/^"(.*)"$/, "$1"));
  }
  return out;
}

const sharedPerms = new Map<string, number>();

/**
 * `core.sharedRepository` as Git reads it: the bits to add (group 0660, all 0664), an exact mode
 * (an octal value, kept negative as Git does), or 0 (the umask alone).
 */
function sharedPerm(gitdir: string): number {
  let perm = sharedPerms.get(gitdir);
  if (perm === undefined) {
    const value = (gitConfig(gitdir).get("core.sharedrepository") ?? "umask").toLowerCase();
    perm = ["group", "true", "1"].includes(value)
      ? 0o660
      : ["all", "world", "everybody", "2"].includes(value)
        ? 0o664
        : /^0[0-7]{3}$/.test(value)
          ? -Number.parseInt(value, 8)
          : 0;
    // Not remembered before the repository has its config (the lock is taken before `git init`).
    if (fs.existsSync(`${gitdir}/config`)) sharedPerms.set(gitdir, perm);
  }
  return perm;
}

/**
 * Gives a file or folder just written the permissions Git gives it in a shared repository
 * (Git's `adjust_shared_perm`), so that the group's other accounts can read the new frames
 * whatever the writer's umask. Nothing when the repository is not shared. The lock and cache
 * files risk-cli keeps in the Git directory go through it too: another account of the group
 * reads them, and appends to them, as it does to Git's own files.
 */
export function shareAsGit(gitdir: string, path: string): void {
  const shared = sharedPerm(gitdir);
  if (shared === 0) return;
  const st = fs.statSync(path);
  let tweak = Math.abs(shared);
  if (!(st.mode & 0o200)) tweak &= ~0o222;
  if (st.mode & 0o100) tweak |= (tweak & 0o444) >> 2;
  let mode = shared < 0 ? (st.mode & ~0o777) | tweak : st.mode | tweak;
  if (st.isDirectory()) mode |= 0o2000;
  if ((mode & 0o7777) !== (st.mode & 0o7777)) fs.chmodSync(path, mode & 0o7777);
}

/** A file-system error that names no file (a write to an open file) given the file it was writing. */
export function namingPath(e: unknown, path: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err === "object" && typeof err.code === "string" && err.path === undefined) err.path = path;
  return e;
}

/**
 * `shareAsGit` for a lock or cache file risk-cli keeps in the Git directory, which another account
 * of the group may have created: that account's file keeps its mode (only its owner may change it).
 */
export function shareKeptFile(gitdir: string, path: string): void {
  try {
    shareAsGit(gitdir, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") throw e;
  }
}

/** The Git extensions that change nothing risk-cli reads or writes (a partial clone is named when an object is missing). */
const HARMLESS_EXTENSIONS = new Set(["noop", "partialclone", "preciousobjects", "worktreeconfig"]);

/**
 * Refuses a repository whose objects or refs risk-cli cannot read and write as Git would: SHA-256
 * object names (`git init --object-format=sha256`), reftable refs, or any extension it does not
 * know (Git refuses those too). risk-cli writes SHA-1 loose objects and loose refs: in such a
 * repository its frames were committed with exit 0 and Git then called the branch broken.
 */
function checkRepositoryFormat(gitdir: string): void {
  const config = gitConfig(gitdir);
  const version = Number(config.get("core.repositoryformatversion") ?? "0");
  const extensions = [...config].flatMap(([name, value]) =>
    name.startsWith("extensions.") ? [[name.slice("extensions.".length), value.toLowerCase()] as const] : [],
  );
  const refuse = (what: string) =>
    new RiskError(
      "E_ARCHIVE",
      `The archive is a Git repository ${what}, which risk-cli does not read or write: it reads and writes SHA-1 objects and loose refs only, as Git's default repository holds them. Nothing was read or written. Give an archive made by risk-cli assemble or \`git init --bare\` (a clone of this one keeps its format).`,
      { archive: "format" },
    );
  if (!(version === 0 || version === 1)) throw refuse(`of format version ${version} (core.repositoryformatversion)`);
  for (const [key, value] of extensions) {
    if (key === "objectformat" && value !== "sha1")
      throw refuse(`whose objects are named by ${value} (extensions.objectFormat)`);
    if (key === "refstorage" && value !== "files")
      throw refuse(`whose refs are kept in ${value} (extensions.refStorage)`);
    if (version === 1 && key !== "objectformat" && key !== "refstorage" && !HARMLESS_EXTENSIONS.has(key))
      throw refuse(`that uses the Git extension extensions.${key}`);
  }
}

/**
 * The files Git keeps at fixed places, which every command reads before any object: HEAD, the
 * branch refs, packed-refs, the packs and their indexes, the alternates list. Each must be a
 * regular file (a FIFO there would hang a read, a link to /dev/zero would grow without end) of a
 * size Git could have written; anything else is damage, named before it is read. Returns the
 * branch HEAD names when it is another than main.
 */
function checkGitFiles(gitdir: string): string | null {
  const check = (rel: string, maxBytes: number) => {
    const st = fs.lstatSync(`${gitdir}/${rel}`, { throwIfNoEntry: false });
    if (!st) return;
    if (!st.isFile())
      throw damaged(rel, "is not a regular file (a link, a FIFO or a device stands where Git keeps a file)");
    if (st.size > maxBytes) throw damaged(rel, `is ${st.size} bytes, more than Git writes there`);
  };
  const SMALL = 64 * 1024;
  check("HEAD", SMALL);
  check(BRANCH, SMALL);
  const head = otherHeadBranchName(gitdir);
  if (head) check(head, SMALL);
  check("packed-refs", 256 * 1024 * 1024);
  check("objects/info/alternates", SMALL);
  let packs: string[] = [];
  try {
    packs = fs.readdirSync(`${gitdir}/objects/pack`);
  } catch {
    // no pack folder: every object is loose
  }
  for (const name of packs) if (/\.(pack|idx)$/.test(name)) check(`objects/pack/${name}`, 64 * 1024 * 1024 * 1024);
  checkRefFiles(gitdir);
  return head;
}

/**
 * HEAD and packed-refs as Git reads them before anything else: HEAD names a ref (`ref: refs/...`)
 * or a commit, and each line of packed-refs is one Git writes (its header, `<oid> <ref>`,
 * `^<oid>`), ended by a line feed. Git fails every command on anything else ("not a git
 * repository", "unterminated line in packed-refs"), so no one could clone or audit the archive
 * with Git while risk-cli, which reads the branch's own ref, still verified and extended it.
 * Both files were checked to be small regular files first.
 */
function checkRefFiles(gitdir: string): void {
  const unreadable = (file: string, what: string, fix: string) =>
    new RiskError(
      "E_ARCHIVE",
      `The archive's ${file} file ${what}, so Git cannot read the archive at all (git log, git clone and git fsck fail on it). Nothing was read or written. ${fix}`,
      { file, damaged: true },
    );
  let head: string | null = null;
  try {
    head = fs.readFileSync(`${gitdir}/HEAD`, "latin1");
  } catch {
    // No HEAD: not a repository, which the caller names.
  }
  if (head !== null && !/^(ref: refs\/[^\s]+|[0-9a-f]{40})\n?$/.test(head))
    throw unreadable(
      "HEAD",
      `holds ${JSON.stringify(head.slice(0, 40))}, neither a branch (ref: ${BRANCH}) nor a commit id`,
      `Write the branch of the frames back into it: \`git --git-dir <archive> symbolic-ref HEAD ${BRANCH}\` (or \`printf 'ref: ${BRANCH}\\n' > <archive>/HEAD\`).`,
    );
  let packed: string | null = null;
  try {
    packed = fs.readFileSync(`${gitdir}/packed-refs`, "latin1");
  } catch {
    // No packed refs: every ref is loose.
  }
  if (packed === null || packed === "") return;
  const lines = packed.split("\n");
  // The last line is cut short when no line feed ends the file.
  const cut = lines.pop() !== "";
  const written = (line: string, i: number) =>
    /^[0-9a-f]{40} refs\/\S+$/.test(line) ||
    /^\^[0-9a-f]{40}$/.test(line) ||
    (i === 0 && line.startsWith("# pack-refs with:"));
  let bad = lines.findIndex((line, i) => !written(line, i));
  if (bad < 0 && cut) bad = lines.length;
  if (bad >= 0)
    throw unreadable(
      "packed-refs",
      `has a line ${bad === lines.length ? "cut short (no line feed ends the file)" : "that Git does not write"} (line ${bad + 1})`,
      "Restore packed-refs from another copy of the archive (the published remote, a backup), or remove that line if the ref it names is of no use.",
    );
}

/** The branch HEAD names when it is another than main, existing or not (HEAD itself checked first). */
function otherHeadBranchName(gitdir: string): string | null {
  const st = fs.lstatSync(`${gitdir}/HEAD`, { throwIfNoEntry: false });
  if (!st?.isFile() || st.size > 64 * 1024) return null;
  const ref = /^ref: (refs\/heads\/[^\s]+)\s*$/.exec(fs.readFileSync(`${gitdir}/HEAD`, "latin1"))?.[1];
  return ref && ref !== BRANCH && !ref.includes("..") ? ref : null;
}

/** The branch the archive's HEAD names when it is another than main (a clone of one branch), else null. */
function otherHeadBranch(gitdir: string, ref = otherHeadBranchName(gitdir)): string | null {
  if (!ref) return null;
  // Only a branch that exists: `git init --bare` names master (or whatever init.defaultBranch
  // says) before any commit, and risk-cli's first frame then goes on main as usual.
  if (fs.existsSync(`${gitdir}/${ref}`)) return ref;
  try {
    return fs
      .readFileSync(`${gitdir}/packed-refs`, "latin1")
      .split("\n")
      .some((l) => l.endsWith(` ${ref}`))
      ? ref
      : null;
  } catch {
    return null;
  }
}

/**
 * Moves the branch to `oid` with a rename, so that the ref is never half-written. With
 * `expected` (the commit the new one was built on, or null for the first), it is a
 * compare-and-swap as Git's own ref update: under `<ref>.lock`, created exclusively, the branch
 * moves only if it still points at `expected`; otherwise another writer committed meanwhile and
 * nothing changes (E_LOCKED).
 */
/**
 * Points the loose ref `file` (a path inside the Git directory) at `oid`, through `<file>.lock`
 * and a rename, as Git writes its own refs: a run killed in between leaves a lock file that Git
 * ignores and the next write replaces, never a stray `<file>.tmp-<pid>` that Git would list as a
 * ref, or fsck report as an invalid pointer. For the refs only risk-cli moves, under the
 * archive's lock; the branch itself goes through `updateBranch`, which waits for Git's own lock.
 */
export function writeLooseRef(gitdir: string, file: string, oid: string): void {
  fs.mkdirSync(dirname(file), { recursive: true });
  const lock = `${file}.lock`;
  try {
    fs.writeFileSync(lock, `${oid}\n`);
    shareAsGit(gitdir, lock);
    fs.renameSync(lock, file);
  } catch (e) {
    fs.rmSync(lock, { force: true });
    throw namingPath(e, lock);
  }
}

export async function updateBranch(gitdir: string, oid: string, expected?: string | null): Promise<void> {
  const named = otherHeadBranchName(gitdir);
  const other = otherHeadBranch(gitdir, named);
  if (other)
    throw new RiskError(
      "E_ARCHIVE",
      `The archive ${gitdir} is a clone whose HEAD names ${other}: risk-cli reads its frames there but writes frames on ${BRANCH}. No frame was added; assemble or pull into the publisher's own archive.`,
      { archive: gitdir, branch: other },
    );
  const file = `${gitdir}/${BRANCH}`;
  fs.mkdirSync(`${gitdir}/refs/heads`, { recursive: true });
  // `git init --bare` points HEAD at master (or init.defaultBranch) before any commit (a branch
  // that does not exist, or the clone check above would have refused): the frames go on main, so
  // HEAD names main, and a plain `git clone` of the archive checks it out.
  if (named) fs.writeFileSync(`${gitdir}/HEAD`, `ref: ${BRANCH}\n`);
  // The new ref is written as `<ref>.lock`, as Git writes its own, and renamed into place: a run
  // killed in between leaves a lock Git ignores and the next run removes, never a stray branch
  // (`refs/heads/main.tmp-<pid>`) that Git lists, or fsck reports as an invalid pointer.
  const lock = `${file}.lock`;
  const take = () => {
    let fd: number;
    try {
      fd = fs.openSync(lock, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      return false;
    }
    try {
      try {
        fs.writeFileSync(fd, `${oid}\n`);
      } finally {
        fs.closeSync(fd);
      }
      shareAsGit(gitdir, lock);
    } catch (e) {
      // A full disk: the lock this call created goes, or it would hold off the next run.
      fs.rmSync(lock, { force: true });
      throw namingPath(e, lock);
    }
    return true;
  };
  if (!take()) {
    // A ref lock left by a killed run is older than any update takes (milliseconds). risk-cli
    // moves the branch only under the archive's lock, which an assembly holds from its start: a
    // ref lock older than that lock was left by a run that died holding it, not taken by a
    // writer at work, and need not wait its ten seconds.
    // Only a file: anything else there (a folder) is not a lock a run left, and is never removed.
    const st = fs.lstatSync(lock);
    const held = fs.statSync(`${gitdir}/risk-cli.lock`, { throwIfNoEntry: false });
    const left =
      st.isFile() && (Date.now() - st.mtimeMs >= 10_000 || (held !== undefined && st.mtimeMs < held.mtimeMs));
    if (!left || (fs.rmSync(lock, { force: true }), !take()))
      throw new RiskError("E_LOCKED", `Another writer is moving the archive's branch (${lock} exists); run again`, {
        file: lock,
      });
  }
  try {
    const current = expected === undefined ? expected : await headCommit(gitdir);
    if (current !== expected)
      throw new RiskError(
        "E_LOCKED",
        `Another writer committed a frame to the archive while this run was at work (the branch is at ${current?.slice(0, 12) ?? "nothing"}, not ${expected?.slice(0, 12) ?? "nothing"}); nothing was published: run again`,
        { current, expected },
      );
    fs.renameSync(lock, file);
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** The oid at `path` (a/b/c) inside the tree `root`, or null. */
export async function oidAtPath(
  gitdir: string,
  root: string,
  path: string,
  cache?: TreeCache,
): Promise<{ oid: string; type: string } | null> {
  let current = { oid: root, type: "tree" };
  for (const part of path.split("/")) {
    if (current.type !== "tree") return null;
    const entry = (await readTree(gitdir, current.oid, cache)).find((e) => e.path === part);
    if (!entry) return null;
    current = entry;
  }
  return current;
}

/**
 * An archive is a folder: a bare Git repository, a work tree's `.git`, or (for a first frame) one
 * that does not exist yet. A file (or a device, a FIFO) given as `--archive` is a usage error
 * (exit 2) for every command, the ones that read an archive and the ones that write it alike.
 */
export function refuseArchiveFile(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    // A symbolic link that loops, or that leads to nothing, is neither an archive nor a place
    // for one: said so, before Git or isomorphic-git reads through it.
    const link = brokenLink(dir);
    if (link)
      throw new RiskError(
        "E_USAGE",
        `Refusing --archive ${dir}: it is ${link}, not an archive; give the archive's folder itself, or remove the link where a new archive should be made. Nothing was changed.`,
        { archive: dir },
      );
    // Missing (a new archive, or an error the command names), or unreadable: reported where used.
    return;
  }
  if (!st.isDirectory())
    throw new RiskError(
      "E_USAGE",
      `Refusing --archive ${dir}: it is ${st.isFile() ? "a file" : "not a folder (a device, a FIFO or a socket)"}, not an archive; give the archive's folder (a bare Git repository, which assemble creates where no folder exists yet). Nothing was changed.`,
      { archive: dir },
    );
}

/** The Git directory of an archive: the folder itself (bare, as assemble makes it) or its .git (a clone). */
export function gitdirOf(dir: string): string {
  return fs.existsSync(`${dir}/.git/HEAD`) ? `${dir}/.git` : dir;
}
