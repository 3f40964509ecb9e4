import { createHash } from "node:crypto";
import { stamp } from "../../core/canonical/stamp.ts";
import type { Frame } from "../../core/frame.ts";
import { BlackBox } from "../../core/surfaces/black-box.ts";
import { DebtRiskSnapshot } from "../../core/surfaces/debt-risk.ts";
import { ChangefeedSurface } from "../../core/surfaces/changes.ts";
import { FreshnessSurface } from "../../core/surfaces/freshness.ts";
import { frameObjects, windowBaselines } from "./windows.ts";
import type { PreviousState } from "../../core/surfaces/types.ts";
import { headCommit, isRepository, type TreeCache } from "../git/objects.ts";
import { readFrame, storedBytes } from "./frames.ts";
import { loadHistory } from "./history.ts";

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

/**
 * What an assembly needs from the archive: the head frame, its black box and its debt snapshot
 * (for a retained debt value), or null when empty.
 * `cache` keeps the trees read, for the commit that follows.
 */
export async function previousState(gitdir: string, cache?: TreeCache, options: HistoryOptions = {}): Promise<PreviousState | null> {
  if (!isRepository(gitdir)) return null;
  const commit = await headCommit(gitdir);
  if (!commit) return null;
  const { frame, tree } = await readFrame(gitdir, commit, { cache });
  const head = { frame, tree };
  const blackBox = await headSurface(gitdir, head, "/api/v1/black-box.json", BlackBox, options.toolVersion, cache);
  const debtRisk = await headSurface(gitdir, head, "/api/v1/debt-risk.json", DebtRiskSnapshot, options.toolVersion, cache);
  const state: PreviousState = { frame, blackBox, debtRisk, commit, tree };
  await preloadHistory(gitdir, state, cache, options);
  // Daily points and level changes, O(days + changes). With history: false
  // they are left unloaded (undefined); an assembly that needs them throws E_HISTORY.
  if (options.history !== false) state.history = await loadHistory(gitdir, tree, cache);
  return state;
}

/**
 * What the assembly's `now` and input fingerprint decide to read for the history surfaces
 * (changefeed, risk diff, freshness). Without them, none of it is read.
 */
export interface HistoryOptions {
  /** The assembly instant: the risk-diff windows' baselines are read for it. */
  now?: string;
  /** The input fingerprint: the head's object manifest is read only when it or the tool version differs from the head frame's. */
  inputs?: string;
  /** This tool's version: the head's surfaces written by the same version are trusted on their recorded fingerprint (headSurface). */
  toolVersion?: string;
  /** False leaves the daily points and level changes unloaded (see PreviousState.history). */
  history?: boolean;
}

async function preloadHistory(gitdir: string, state: PreviousState, cache: TreeCache | undefined, options: HistoryOptions): Promise<void> {
  const { frame, tree } = state;
  state.changes = await headSurface(gitdir, state, "/api/v1/changes.json", ChangefeedSurface, options.toolVersion, cache);
  state.freshness = await headSurface(gitdir, state, "/api/v1/freshness.json", FreshnessSurface, options.toolVersion, cache);
  if (options.inputs !== undefined && (options.inputs !== frame.inputs || options.toolVersion !== frame.tool.version)) {
    state.objects = await frameObjects(gitdir, tree, frame.objects, cache);
  }
  if (options.now !== undefined) state.windows = await windowBaselines(gitdir, state, options.now, cache);
}
