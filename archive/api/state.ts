import type { z } from "zod";
import { createHash } from "node:crypto";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { stamp } from "../../core/canonical/stamp.ts";
import { RiskError } from "../../core/errors.ts";
import { Frame } from "../../core/frame.ts";
import { frameObjects, windowBaselines } from "./windows.ts";
import type { PreviousState } from "../../core/surfaces/types.ts";
import { headCommit, isRepository, oidAtPath, readBlob, readCommit, type CommitInfo, type TreeCache } from "../git/objects.ts";
import { JOURNAL_PATH, servedJournal } from "./journal.ts";
import { loadSignalHistory } from "./history.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

export const FRAME_FILE = "frame.json";
export const SITE_PREFIX = "site";

/**
 * The frame recorded by `commit`, schema-checked. A caller that has read the commit already
 * passes it, so that it is not read again.
 */
export async function readFrame(
  gitdir: string,
  commit: string,
  options: { cache?: TreeCache; read?: CommitInfo } = {},
): Promise<{ frame: Frame; tree: string }> {
  return readFrameAs(gitdir, commit, Frame, options);
}

/** The frame recorded by `commit`, checked against `schema` (the whole frame, or the part a caller reads). */
export async function readFrameAs<T>(
  gitdir: string,
  commit: string,
  schema: z.ZodType<T>,
  options: { cache?: TreeCache; read?: CommitInfo } = {},
): Promise<{ frame: T; tree: string }> {
  const c = options.read ?? (await readCommit(gitdir, commit));
  const entry = await oidAtPath(gitdir, c.tree, FRAME_FILE, options.cache);
  if (!entry) throw new RiskError("E_ARCHIVE", `Commit ${commit} has no ${FRAME_FILE}: it is not a frame`, { commit });
  const parsed = schema.safeParse(JSON.parse(decoder.decode(await readBlob(gitdir, entry.oid))));
  if (!parsed.success) {
    throw new RiskError("E_ARCHIVE", `Commit ${commit}: ${FRAME_FILE} does not match the frame schema (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`, { commit });
  }
  return { frame: parsed.data, tree: c.tree };
}

/** The served bytes of `path` as recorded in a frame: the stored blob, restamped when needed. */
export async function servedBytes(gitdir: string, tree: string, frame: Frame, path: string, cache?: TreeCache): Promise<Uint8Array> {
  // The journal is kept as day shards, served as their concatenation.
  if (path === JOURNAL_PATH && frame.journal) return servedJournal(gitdir, tree, cache);
  const stored = await storedBytes(gitdir, tree, frame, path, cache);
  if (!frame.surfaces[path]?.stamped) return stored;
  return new TextEncoder().encode(stamp(decoder.decode(stored), frame.at));
}

async function storedBytes(gitdir: string, tree: string, frame: Frame, path: string, cache?: TreeCache): Promise<Uint8Array> {
  const entry = await oidAtPath(gitdir, tree, `${SITE_PREFIX}${path}`, cache);
  if (!entry) throw new RiskError("E_ARCHIVE", `Frame ${frame.frameId} lacks the stored surface ${path}`, { frame: frame.frameId, path });
  return readBlob(gitdir, entry.oid);
}

type Schema<T> = { safeParse(x: unknown): { success: true; data: T } | { success: false } };

/**
 * A JSON surface of the head frame, as published; null when the frame has none or it does not
 * match `schema`. When the head was written by this very tool version (`trustedVersion`) and the
 * stored bytes hash to the fingerprint the schema-checked frame records, they are the bytes that
 * assembly validated against this same schema before writing them: they are parsed without being
 * checked a second time (a hash of a few kilobytes against a schema walk of every recent frame).
 * Any other case (another version, a damaged blob) goes through the schema.
 */
async function headSurface<T>(gitdir: string, state: { frame: Frame; tree: string }, path: string, schema: Schema<T>, trustedVersion: string | undefined, cache?: TreeCache): Promise<T | null> {
  const { frame, tree } = state;
  const recorded = frame.surfaces[path];
  if (!recorded) return null;
  const stored = await storedBytes(gitdir, tree, frame, path, cache);
  const text = decoder.decode(stored);
  const doc: unknown = JSON.parse(recorded.stamped ? stamp(text, frame.at) : text);
  if (trustedVersion === frame.tool.version && createHash("sha256").update(stored).digest("hex") === recorded.storedSha256) return doc as T;
  const parsed = schema.safeParse(doc);
  return parsed.success ? parsed.data : null;
}

/** A surface copy to read from the head frame: where it is published and the schema it must match. */
export interface CopyRequest {
  path: string;
  schema: Schema<unknown>;
}

/**
 * The archive's head as an assembly starts from it: the head frame and the copies of the
 * surfaces that builders read (`copies`), or null when the archive is empty. What else the plan
 * needs is read afterwards by `loadNeeds`. `cache` keeps the trees read, for the commit that follows.
 */
export async function previousState(gitdir: string, copies: readonly CopyRequest[], options: { cache?: TreeCache; trustedVersion?: string } = {}): Promise<PreviousState | null> {
  if (!isRepository(gitdir)) return null;
  const commit = await headCommit(gitdir);
  if (!commit) return null;
  const { frame, tree } = await readFrame(gitdir, commit, { cache: options.cache });
  const head = { frame, tree };
  const loaded = new Map<string, unknown>();
  for (const { path, schema } of copies) {
    const copy = await headSurface(gitdir, head, path, schema, options.trustedVersion, options.cache);
    if (copy !== null) loaded.set(path, copy);
  }
  return { frame, commit, tree, copies: loaded };
}

/** What an assembly's plan may ask of the archive besides the head (see core/plan.ts `Needs`). */
export interface ArchiveNeeds {
  signalHistory: boolean;
  /** Baseline frames this many days before `now`. */
  archiveWindows: readonly number[];
  objects: boolean;
}

/**
 * Reads, once each, what the plan needs of the archive into `previous`: the daily points and
 * level changes (O(days)), the baseline frames of the windows (O(1) through the frame digest
 * cache, else O(log n) through the day index), the head frame's object manifest (one blob).
 */
export async function loadNeeds(
  gitdir: string,
  previous: PreviousState,
  needs: ArchiveNeeds,
  options: { now: string; cache?: TreeCache; digests?: boolean },
): Promise<PreviousState> {
  const { frame, tree } = previous;
  if (needs.objects) previous.objects = await frameObjects(gitdir, tree, frame.objects, options.cache);
  if (needs.archiveWindows.length > 0) previous.windows = await windowBaselines(gitdir, previous, options.now, needs.archiveWindows, options);
  if (needs.signalHistory) previous.signalHistory = await loadSignalHistory(gitdir, tree, options.cache);
  return previous;
}

export function frameBytes(frame: Frame): Uint8Array {
  return new TextEncoder().encode(canonicalJson(frame, FRAME_FILE));
}
