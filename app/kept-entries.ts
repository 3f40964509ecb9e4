/**
 * A cache file of keyed entries, grouped by kind, that each assembly reads whole and changes a
 * little: the memo of per-document results and the parsed input files. It is two files in the
 * archive's Git directory:
 *
 * - `<name>.json`: every entry at the last rewrite, with the tool version and a generation id;
 * - `<name>.added.ndjson`: a header line naming that generation, then one `[kind, key, value]` line
 *   per entry added or replaced since, applied in order.
 *
 * After one article is edited, a few entries change out of thousands: appending them costs well
 * under a millisecond, where writing the whole 5 MB memo again cost about 35 ms of CPU. Entries no
 * assembly uses any more stay until they are worth a rewrite (more than an eighth of the live
 * ones, or a log as large as the base), so the files stay near one entry per document.
 *
 * Crash safety: the base is replaced by a rename, and a log whose header names another generation
 * (or that is missing or emptied) is ignored and rewritten at the next save; a torn last line (a
 * killed append) ends the log there. Either only costs computing those entries again. Assemblies
 * hold the archive lock, so there is one writer at a time.
 */
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";
import { appendKeptFile, readKeptFile, writeKeptFile } from "../archive/kept-file.ts";

export type Groups = Record<string, Record<string, unknown>>;

export interface KeptEntries {
  /** Base and log together; an unreadable, missing or other-version store is empty. */
  groups: Groups;
  /** Entries read that the log had replaced or that nobody can reach any more: not counted here. */
  count: number;
  /** The generation the log may extend, or null when the next save must rewrite. */
  generation: string | null;
  baseBytes: number;
  logBytes: number;
}

const logOf = (file: string) => file.replace(/\.json$/, ".added.ndjson");

/** Reads a store written by `tool`; anything else reads as empty. */
export function readKept(file: string, tool: string): KeptEntries {
  const empty: KeptEntries = { groups: {}, count: 0, generation: null, baseBytes: 0, logBytes: 0 };
  const text = readKeptFile(file);
  if (text === null) return empty;
  let base: { tool?: unknown; generation?: unknown; entries?: unknown };
  try {
    base = JSON.parse(text) as typeof base;
  } catch {
    return empty;
  }
  if (base.tool !== tool || !isGroups(base.entries)) return empty;
  const groups = base.entries;
  let count = 0;
  for (const entries of Object.values(groups)) count += Object.keys(entries).length;
  const kept: KeptEntries = {
    groups,
    count,
    generation: typeof base.generation === "string" ? base.generation : null,
    baseBytes: text.length,
    logBytes: 0,
  };
  if (kept.generation === null) return kept;
  const log = readKeptFile(logOf(file));
  const lines = log?.split("\n") ?? [];
  if (log === null || !headerMatches(lines[0], tool, kept.generation)) {
    // A log that is missing, emptied, not a file, or of another generation (a run killed between
    // writing the base and starting its log) is never read: appending to it would only grow a
    // file no run reads. The next save rewrites both.
    kept.generation = null;
    return kept;
  }
  kept.logBytes = log.length;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      // A torn line from a killed append: what follows it is not trusted, and the next save rewrites.
      kept.generation = null;
      break;
    }
    if (!Array.isArray(entry) || entry.length !== 3 || typeof entry[0] !== "string" || typeof entry[1] !== "string") {
      kept.generation = null;
      break;
    }
    const group = (groups[entry[0]] ??= {});
    if (!(entry[1] in group)) count++;
    group[entry[1]] = entry[2];
  }
  kept.count = count;
  return kept;
}

/**
 * Saves `live` (every entry still in use) given what was read: appends `added` to the log when
 * the store on disk is this generation and the entries it holds beyond `live` are few, or
 * rewrites the base with `live` alone and starts a new log.
 */
export function saveKept(
  file: string,
  tool: string,
  read: KeptEntries,
  live: Groups,
  added: readonly [kind: string, key: string, value: unknown][],
): void {
  const gitdir = dirname(file);
  let liveCount = 0;
  for (const entries of Object.values(live)) liveCount += Object.keys(entries).length;
  const unused = read.count + added.length - liveCount;
  const appendable =
    read.generation !== null &&
    unused <= Math.max(64, liveCount / 8) &&
    read.logBytes <= Math.max(read.baseBytes, 1 << 16);
  if (appendable) {
    if (added.length === 0) return;
    appendKeptFile(gitdir, logOf(file), added.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
    return;
  }
  const generation = randomBytes(8).toString("hex");
  writeKeptFile(gitdir, file, JSON.stringify({ tool, generation, entries: live }));
  // The log starts again for this generation; a crash before this line leaves a log the header
  // check ignores.
  writeKeptFile(gitdir, logOf(file), `${JSON.stringify({ tool, generation })}\n`);
}

function headerMatches(line: string | undefined, tool: string, generation: string): boolean {
  if (!line) return false;
  try {
    const header = JSON.parse(line) as { tool?: unknown; generation?: unknown };
    return header.tool === tool && header.generation === generation;
  } catch {
    return false;
  }
}

function isGroups(value: unknown): value is Groups {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.values(value).every((g) => g !== null && typeof g === "object" && !Array.isArray(g));
}
