/**
 * The changefeed's entries: the previous frame's feed, extended by the difference between the
 * previous frame's object manifest and this one's. Only an assembly whose inputs changed can add
 * entries; the feed keeps the newest CHANGEFEED_LIMIT (every entry of its own assembly, when that
 * found more), earlier ones stay in earlier frames.
 */
import { z } from "zod";
import type { Publication } from "../inputs/publication.ts";
import { IsoDateTime } from "../schemas/primitives.ts";
import { previousCopy, type BuildContext, type Reads } from "../surfaces/types.ts";
import { ObjectKind, POLICY_KINDS, diffManifests } from "./objects.ts";

/** How many entries the published feed keeps (newest first). */
export const CHANGEFEED_LIMIT = 200;

/** Where the changefeed is published; the next assembly extends the head frame's copy. */
export const CHANGES_PATH = "/api/v1/changes.json";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** One publication, revision or policy change, as the difference between two frames found it. */
export const ChangeEntry = z.strictObject({
  /** Position in the feed since tracking began: a reader who saw seq n missed nothing if n+1 is listed. */
  seq: z.int().positive(),
  id: z.string(),
  kind: ObjectKind,
  category: z.enum(["publication", "revision", "policy"]),
  status: z.enum(["added", "modified", "removed"]),
  /** False when only formatting changed: the whitespace-collapsed, NFC form hashes the same. */
  semantic: z.boolean(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  language: z.enum(["fr", "en"]).nullable(),
  version: z.string().nullable(),
  previousVersion: z.string().nullable(),
  versionChanged: z.boolean(),
  hash: Sha256.nullable(),
  previousHash: Sha256.nullable(),
  /** The frame that published the change, and its time. */
  frameId: z.string(),
  at: IsoDateTime,
});
export type ChangeEntry = z.infer<typeof ChangeEntry>;

export const ChangefeedSurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  policy: z.strictObject({
    derivation: z.string(),
    hash: z.string(),
    semantic: z.string(),
    bound: z.string(),
    replay: z.string(),
  }),
  tracking: z.strictObject({ since: z.strictObject({ frameId: z.string(), at: IsoDateTime }) }),
  window: z.strictObject({
    limit: z.int().positive(),
    total: z.int().nonnegative(),
    oldestSeq: z.int().positive().nullable(),
    truncated: z.boolean(),
  }),
  counts: z.strictObject({
    added: z.int().nonnegative(),
    modified: z.int().nonnegative(),
    removed: z.int().nonnegative(),
    semantic: z.int().nonnegative(),
    formatting: z.int().nonnegative(),
  }),
  /** The newest CHANGEFEED_LIMIT, or more when one assembly found more: all of that assembly's. */
  entries: z.array(ChangeEntry),
  license: z.string(),
  attribution: z.string(),
});
export type ChangefeedSurface = z.infer<typeof ChangefeedSurface>;

export interface Changefeed {
  entries: z.input<typeof ChangeEntry>[];
  /** Entries ever recorded: the `seq` of the newest. */
  total: number;
  /** The frame from which objects are tracked: changes before it are not in any feed. */
  since: { frameId: string; at: string };
}

/**
 * What a surface that publishes the changefeed reads: the head frame's feed (its previousCopies),
 * and, when the inputs changed, the corpus and the head frame's object manifest to diff.
 */
export function changefeedReads({ inputsUnchanged }: { inputsUnchanged: boolean }): Reads {
  return inputsUnchanged ? {} : { corpus: true, objects: true };
}

const memo = new WeakMap<Publication, { key: string; value: Changefeed }>();

/** The feed of this assembly; computed once for the changefeed and the risk diff. */
export function changefeedOf(ctx: BuildContext): Changefeed {
  const key = `${ctx.frame.frameId} ${ctx.previous?.commit ?? ""}`;
  const hit = memo.get(ctx.publication);
  if (hit && hit.key === key) return hit.value;
  const value = build(ctx);
  memo.set(ctx.publication, { key, value });
  return value;
}

function build(ctx: BuildContext): Changefeed {
  const here = { frameId: ctx.frame.frameId, at: ctx.now };
  const previous = ctx.previous;
  const feed = previousCopy(ctx, CHANGES_PATH, ChangefeedSurface);
  if (!previous || !feed) return { entries: [], total: feed?.window.total ?? 0, since: here };
  const kept = { entries: feed.entries, total: feed.window.total, since: feed.tracking.since };
  // Same inputs, same objects: nothing to add (and the manifest was not even loaded).
  if (ctx.inputsUnchanged) return kept;
  // The previous frame recorded no manifest (an older tool): tracking starts here.
  const objects = ctx.objects();
  if (!previous.objects || !objects) return { ...kept, since: here };
  const fresh = diffManifests(previous.objects, objects).map((c, i): z.input<typeof ChangeEntry> => {
    const o = (c.after ?? c.before)!;
    return {
      seq: kept.total + i + 1,
      id: o.id,
      kind: o.kind,
      category: POLICY_KINDS.has(o.kind) ? "policy" : c.status === "added" ? "publication" : "revision",
      status: c.status,
      semantic: c.semantic,
      title: o.title,
      url: o.url,
      language: o.language,
      version: c.after?.version ?? null,
      previousVersion: c.before?.version ?? null,
      versionChanged: c.status === "modified" && c.before!.version !== c.after!.version,
      hash: c.after?.sha256 ?? null,
      previousHash: c.before?.sha256 ?? null,
      frameId: ctx.frame.frameId,
      at: ctx.now,
    };
  });
  // The bound drops earlier frames' entries, never this frame's: an entry cut here would be in no
  // frame at all (200 articles added at once would never be announced).
  return {
    entries: [...fresh.reverse(), ...kept.entries].slice(0, Math.max(CHANGEFEED_LIMIT, fresh.length)),
    total: kept.total + fresh.length,
    since: kept.since,
  };
}
