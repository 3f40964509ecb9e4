/**
 * The archive's head as an assembly starts from it, and what its plan loads afterwards. Reading
 * single frames and their bytes (what replay and verify need) is frames.ts.
 */
import { createHash } from "node:crypto";
import { stamp } from "../../core/canonical/stamp.ts";
import type { Frame } from "../../core/frame.ts";
import type { PreviousState } from "../../core/surfaces/types.ts";
import { headCommit, isRepository, readCommit, type TreeCache } from "../git/objects.ts";
import { readFrame, storedBytes } from "./frames.ts";
import { loadSignalHistory } from "./signal-history.ts";
import { frameObjects, windowBaselines } from "./windows.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

type Schema<T> = { safeParse(x: unknown): { success: true; data: T } | { success: false } };

/**
 * A JSON surface of the head frame, as published; null when the frame has none or it does not
 * match `schema`. When the head was written by this very tool version (`trustedVersion`) and the
 * stored bytes hash to the fingerprint the schema-checked frame records, they are the bytes that
 * assembly validated against this same schema before writing them: they are parsed without being
 * checked a second time (a hash of a few kilobytes against a schema walk of every recent frame).
 * Any other case (another version, a damaged blob) goes through the schema.
 */
async function headSurface<T>(
  gitdir: string,
  state: { frame: Frame; tree: string },
  path: string,
  schema: Schema<T>,
  trustedVersion: string | undefined,
  cache?: TreeCache,
): Promise<T | null> {
  const { frame, tree } = state;
  const recorded = frame.surfaces[path];
  if (!recorded) return null;
  const stored = await storedBytes(gitdir, tree, frame, path, cache);
  const text = decoder.decode(stored);
  const doc: unknown = JSON.parse(recorded.stamped ? stamp(text, frame.at) : text);
  if (
    trustedVersion === frame.tool.version &&
    createHash("sha256").update(stored).digest("hex") === recorded.storedSha256
  )
    return doc as T;
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
export async function previousState(
  gitdir: string,
  copies: readonly CopyRequest[],
  options: { cache?: TreeCache; trustedVersion?: string; trustChainList?: boolean } = {},
): Promise<PreviousState | null> {
  if (!isRepository(gitdir)) return null;
  const commit = await headCommit(gitdir);
  if (!commit) return null;
  const info = await readCommit(gitdir, commit);
  const { frame, tree } = await readFrame(gitdir, commit, { cache: options.cache, read: info });
  // A frame is never appended to a broken chain: every frame commit down to the first is there.
  await (await import("./chain.ts")).checkChain(gitdir, commit, options.trustChainList ?? false);
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
  if (needs.archiveWindows.length > 0)
    previous.windows = await windowBaselines(gitdir, previous, options.now, needs.archiveWindows, options);
  if (needs.signalHistory) previous.signalHistory = await loadSignalHistory(gitdir, tree, options.cache);
  return previous;
}
