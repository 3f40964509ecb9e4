/**
 * Where an assembly's site goes. The assembly reads the previous site through it (to reuse
 * unchanged files) and writes the new one in two steps, so that a failed run leaves the previous
 * site whole: `stage` prepares the new site beside the old, `swap` serves it, `abandon` drops it.
 * `folderSite` writes a folder atomically; `memorySite` keeps the files in memory (tests, the
 * year-of-frames benchmark).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { dirname } from "node:path";
import type { BuiltFile } from "../core/assemble.ts";
import { joinBytes } from "../core/bytes.ts";
import { RiskError } from "../core/errors.ts";
import type { Hasher } from "../core/ports.ts";
import type { PreviousState } from "../core/surfaces/types.ts";
import type { Archive } from "../archive/index.ts";
import { SITE_MARKER, SITE_MARKER_TEXT } from "../archive/layout.ts";
import { makeFolder } from "../archive/make-folder.ts";
import { processState } from "../archive/lock.ts";
import { namingPath } from "../archive/git/objects.ts";
import { HEADERS_FILE, hostHeaders } from "../core/render/headers.ts";
import { LOG_CHECKPOINT_PATH, siteTilePath } from "../core/log/site-log.ts";
import type { Caches } from "./caches.ts";
import { copyAppendOnly } from "./site-append.ts";
import { loadSiteStat, saveSiteStat } from "./site-stat.ts";

export interface SiteWriter {
  /** Where the site is served from, for messages and the summary. */
  readonly location: string;
  /** The bytes the current site serves at `path`, or null. */
  served(path: string): Uint8Array | null;
  /** True when the current file at `path` is known, without hashing it, to hash to `sha256`. */
  verified(path: string, sha256: string): boolean;
  /** Prepares the new site; what is served does not change yet. */
  stage(files: readonly BuiltFile[], previous: PreviousState | null): Promise<void>;
  /**
   * Adds the frame log to the staged site, once the frame is committed: its checkpoint and its
   * tiles (the C2SP tlog-tiles layout under /log/), each tile the bytes of the archive's blob.
   */
  stageLog(log: SiteLog): Promise<void>;
  /** Serves the staged site in place of the current one. */
  swap(files: readonly BuiltFile[]): void;
  /**
   * Once swapped: removes the previous site, which the swap put aside, and records what lets the
   * next assembly trust the files without hashing them (a cache, kept in the archive's Git
   * directory). Its failure changes nothing that is served.
   */
  settle?(files: readonly BuiltFile[]): void;
  /** Drops the staged site; the current one stays exactly as it was. */
  abandon(): void;
}

/** The frame log as the site serves it: a checkpoint, and tiles read from the archive. */
export interface SiteLog {
  checkpoint: string;
  tiles: readonly { path: string; oid: string }[];
  read(oid: string): Promise<Uint8Array>;
}

/** The Git blob id of `bytes`: what a tile file must hash to for its archive blob. */
function blobId(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.byteLength}\0`).update(bytes).digest("hex");
}

/**
 * Whether `dir` may be replaced by a new site: absent, empty, or a site risk-cli wrote (it holds
 * SITE_MARKER or, for a site written before the marker existed, risk-cli's integrity.json).
 */
export function replaceableSite(dir: string): boolean {
  let entries: string[];
  try {
    if (!fs.lstatSync(dir).isDirectory()) return false;
    entries = fs.readdirSync(dir);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT";
  }
  if (entries.length === 0) return true;
  if (entries.includes(SITE_MARKER)) return true;
  // A site written before the marker existed: it holds risk-cli's integrity.json and llms.txt.
  try {
    const integrity = JSON.parse(fs.readFileSync(`${dir}/api/v1/integrity.json`, "utf8")) as { frame?: unknown };
    return typeof integrity.frame === "object" && integrity.frame !== null && fs.existsSync(`${dir}/llms.txt`);
  } catch {
    return false;
  }
}

/**
 * Whether `dir` is a mount point (a Docker volume, a bind mount): on another device than its
 * parent, or listed in Linux's mount table (a bind mount of a folder of the same file system
 * keeps its device). `mountTable` is the text of /proc/self/mountinfo, read when not given.
 */
export function isMountPoint(dir: string, mountTable?: string): boolean {
  let real: string;
  try {
    real = fs.realpathSync(dir);
    const [here, parent] = [fs.statSync(real), fs.statSync(dirname(real))];
    if (here.dev !== parent.dev || here.ino === parent.ino) return true;
  } catch {
    return false;
  }
  let table = mountTable;
  try {
    table ??= fs.readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return false;
  }
  // The fifth field is the mount point, with space, tab, newline and backslash written in octal.
  const unescaped = (field: string) =>
    field.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(Number.parseInt(octal, 8)));
  return table.split("\n").some((line) => {
    const point = line.split(" ")[4];
    return point !== undefined && unescaped(point) === real;
  });
}

/**
 * Removes what killed runs left beside the site: `<site>.tmp-<pid>` and `<site>.old-<pid>`
 * folders whose process is gone. The live site is never among them. It runs under the archive's
 * lock, which every run that stages into the site holds until it has swapped or abandoned: a
 * folder of another process is a dead run's. Where the runtime may not ask whether a process runs
 * (Deno without --allow-run), it is therefore taken as gone, or the leftovers of every killed
 * run would pile up beside the site (a run of another archive naming the same site is refused
 * once it reads that site's frame). A process known to run is left alone.
 */
export function cleanLeftovers(siteDir: string): string[] {
  const gone = (pid: number) => pid === process.pid || processState(pid) !== "alive";
  const parent = dirname(siteDir);
  const base = siteDir.slice(parent.length + 1);
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return removed;
  }
  // A run killed between the swap's two renames left no live site, and the previous one aside:
  // it goes back in place first (it is exactly the previous frame's site).
  if (!fs.existsSync(siteDir)) {
    const changed = (name: string) => fs.statSync(`${parent}/${name}`, { throwIfNoEntry: false })?.ctimeMs ?? 0;
    // The one put aside last, when several were (the most recent frame's).
    const aside = names
      .map((name) => ({ name, m: /^(.*)\.old-(\d+)$/.exec(name) }))
      .filter((x) => x.m && x.m[1] === base && gone(Number(x.m[2])))
      .map((x) => x.name)
      .sort((a, b) => changed(a) - changed(b));
    if (aside.length) {
      fs.renameSync(`${parent}/${aside[aside.length - 1]}`, siteDir);
      names = fs.readdirSync(parent);
    }
  }
  for (const name of names) {
    const m = /^(.*)\.(tmp|old)-(\d+)$/.exec(name);
    if (!m || m[1] !== base) continue;
    if (!gone(Number(m[3]))) continue;
    try {
      fs.rmSync(`${parent}/${name}`, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Not this account's to remove (a read-only copy another account left): it stays aside,
      // out of the way of this run.
    }
  }
  return removed;
}

/**
 * A site folder. The new site is written into `<site>.tmp-<pid>` and renamed into place; the
 * append-only journal is copied from the old site and appended to. The live site is never
 * written before the swap, and the swap is two renames, so a run killed at any step leaves it
 * exactly one frame's; the next run removes what the killed one left. The stat data of the files
 * written are kept in the archive's Git directory for the next assembly.
 */
export function folderSite(siteDir: string, where: { archive: Archive; hash: Hasher; caches: Caches }): SiteWriter {
  const gitdir = where.archive.gitdir;
  const tmp = `${siteDir}.tmp-${process.pid}`;
  const trusted = where.caches.siteStat ? loadSiteStat(gitdir, siteDir) : () => false;
  cleanLeftovers(siteDir);
  if (isMountPoint(siteDir))
    throw new RiskError(
      "E_IO",
      `${siteDir} is a mount point: an assembly replaces the site folder whole by renaming it, which a mount point refuses (EBUSY). Nothing was written; mount the folder above it, and give --site a folder inside the mount.`,
      { site: siteDir },
    );
  if (fs.lstatSync(siteDir, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new RiskError(
      "E_USAGE",
      `${siteDir} is a symbolic link: an assembly replaces the site folder whole by renaming it, which would replace the link rather than the folder it leads to. Nothing was written; give --site the folder itself.`,
      { site: siteDir },
    );
  if (!replaceableSite(siteDir))
    throw new RiskError(
      "E_USAGE",
      `${siteDir} is not a site risk-cli wrote (it has no ${SITE_MARKER}), and assembling would replace it whole: give --site an empty or new folder`,
      { site: siteDir },
    );
  const locked = readOnlyFolder(siteDir);
  if (locked !== null)
    throw new RiskError(
      "E_IO",
      `The site folder ${siteDir} cannot be replaced: ${locked === siteDir ? "it" : `${locked} inside it`} is read-only for this account, and an assembly puts the new site in its place, then removes the previous one. Nothing was written: give this account write access to the site folder (chmod -R u+w), or choose another --site.`,
      { site: siteDir, errno: "EACCES" },
    );
  return {
    location: siteDir,
    served(path) {
      try {
        return fs.readFileSync(`${siteDir}${path}`);
      } catch {
        return null;
      }
    },
    verified: trusted,
    async stage(files, previous) {
      try {
        await stageFolder(files, previous);
      } catch (e) {
        throw namingPath(e, tmp);
      }
    },
    async stageLog(log) {
      try {
        await stageLogFolder(log);
      } catch (e) {
        throw namingPath(e, tmp);
      }
    },
    swap() {
      swapIn(tmp, siteDir);
    },
    settle(files) {
      fs.rmSync(`${siteDir}.old-${process.pid}`, { recursive: true, force: true });
      saveSiteStat(gitdir, siteDir, files);
    },
    abandon() {
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };

  async function stageFolder(files: readonly BuiltFile[], previous: PreviousState | null): Promise<void> {
    writeFolder(
      tmp,
      files.filter((f) => f.appendTo === undefined),
      where.caches.hardLinks ? siteDir : null,
      trusted,
    );
    await copyAppendOnly(files, {
      siteDir,
      tmpSite: tmp,
      journalAt: (tree) => where.archive.servedJournal(tree),
      previous,
      hash: where.hash,
      copy: where.caches.journalCopy,
      trusted,
    });
    fs.mkdirSync(tmp, { recursive: true });
    fs.writeFileSync(`${tmp}/${SITE_MARKER}`, SITE_MARKER_TEXT);
    // The headers static hosts (Netlify, Cloudflare Pages) send for each file.
    fs.writeFileSync(`${tmp}/${HEADERS_FILE}`, hostHeaders(files));
  }

  async function stageLogFolder(log: SiteLog): Promise<void> {
    fs.mkdirSync(dirname(`${tmp}${LOG_CHECKPOINT_PATH}`), { recursive: true });
    fs.writeFileSync(`${tmp}${LOG_CHECKPOINT_PATH}`, log.checkpoint);
    for (const { path, oid } of log.tiles) {
      const target = `${tmp}${siteTilePath(path)}`;
      fs.mkdirSync(dirname(target), { recursive: true });
      // A tile the live site already serves is linked when its bytes are still the archive's
      // blob (checked: never a file edited in place); otherwise it is written from the blob.
      const kept = `${siteDir}${siteTilePath(path)}`;
      if (where.caches.hardLinks) {
        let bytes: Buffer | null = null;
        try {
          bytes = fs.readFileSync(kept);
        } catch {}
        if (bytes && blobId(bytes) === oid) {
          try {
            fs.linkSync(kept, target);
            continue;
          } catch {}
        }
      }
      fs.writeFileSync(target, await log.read(oid));
    }
  }
}

/** A site kept in memory: `files` holds what is served, by path. */
export function memorySite(files = new Map<string, Uint8Array>()): SiteWriter & { files: Map<string, Uint8Array> } {
  let staged: Map<string, Uint8Array> | null = null;
  return {
    location: "(memory)",
    files,
    served: (path) => files.get(path) ?? null,
    verified: () => false,
    async stage(built) {
      staged = new Map();
      for (const f of built) {
        const before = f.appendTo !== undefined && f.appendTo > 0 ? files.get(f.path) : undefined;
        if (before !== undefined && before.byteLength !== f.appendTo) {
          throw new RiskError(
            "E_IO",
            `The in-memory site's ${f.path} is not the previous frame's; start from an empty site`,
            { path: f.path },
          );
        }
        staged.set(f.path, before ? joinBytes([before, f.served]) : f.served);
      }
    },
    async stageLog(log) {
      if (!staged) return;
      staged.set(LOG_CHECKPOINT_PATH, new TextEncoder().encode(log.checkpoint));
      for (const { path, oid } of log.tiles) {
        const at = siteTilePath(path);
        const kept = files.get(at);
        staged.set(at, kept && blobId(kept) === oid ? kept : await log.read(oid));
      }
    },
    swap() {
      if (!staged) return;
      files.clear();
      for (const [path, bytes] of staged) files.set(path, bytes);
      staged = null;
    },
    abandon() {
      staged = null;
    },
  };
}

/**
 * Writes the new site folder. A reused file served as stored (no `generated` to move) is the
 * previous site's file, unchanged: it is hard-linked rather than written again, which also keeps
 * the stat data that let the next assembly trust it without hashing (app/site-stat.ts).
 */
function writeFolder(
  dir: string,
  files: readonly BuiltFile[],
  previousSite: string | null,
  trusted: (path: string, sha256: string) => boolean,
): void {
  fs.rmSync(dir, { recursive: true, force: true });
  makeFolder(dir);
  for (const f of files) {
    const file = `${dir}${f.path}`;
    fs.mkdirSync(dirname(file), { recursive: true });
    // Linked only when the previous file is provably the bytes written for it (its stat data,
    // change time included, unchanged): an edited site file never reaches the new site.
    if (previousSite !== null && f.stored === null && !f.stamped && trusted(f.path, f.sha256)) {
      try {
        fs.linkSync(`${previousSite}${f.path}`, file);
        continue;
      } catch {
        // Another file system, or no previous file: write the bytes.
      }
    }
    fs.writeFileSync(file, f.served);
  }
}

/**
 * The first folder of the site `dir` (itself included) that this process may not write, or null:
 * one there would let the swap put the new site in place and then fail to remove the previous one.
 */
function readOnlyFolder(dir: string): string | null {
  const folders = [dir];
  for (let i = 0; i < folders.length; i++) {
    const folder = folders[i]!;
    try {
      fs.accessSync(folder, fs.constants.W_OK);
      for (const e of fs.readdirSync(folder, { withFileTypes: true }))
        if (e.isDirectory()) folders.push(`${folder}/${e.name}`);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === "ENOENT") continue;
      if (err.code === "EACCES" || err.code === "EPERM" || err.code === "EROFS") return folder;
      // Deno without --allow-sys=uid may not ask: the swap then finds out, and only warns.
      if (err.code === undefined && (err.name === "NotCapable" || err.name === "PermissionDenied")) return null;
      throw e;
    }
  }
  return null;
}

/**
 * Replaces `target` by `fresh` with two renames; the old folder stays aside, as
 * `<target>.old-<pid>`, until `settle` removes it.
 */
function swapIn(fresh: string, target: string): void {
  const old = `${target}.old-${process.pid}`;
  fs.mkdirSync(dirname(target), { recursive: true });
  const hadOld = fs.existsSync(target);
  if (hadOld) {
    if (!fs.statSync(target).isDirectory())
      throw new RiskError("E_IO", `${target} exists and is not a folder; choose another --site`);
    fs.renameSync(target, old);
  }
  try {
    fs.renameSync(fresh, target);
  } catch (e) {
    if (hadOld) fs.renameSync(old, target);
    throw e;
  }
}
