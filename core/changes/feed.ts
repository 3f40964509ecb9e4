/**
 * The changefeed's entries: the previous frame's feed, extended by the difference between the
 * previous frame's object manifest and this one's. Only an assembly whose inputs changed can add
 * entries; the feed keeps the newest CHANGEFEED_LIMIT, earlier ones stay in earlier frames.
 */
import type { z } from "zod";
import type { Publication } from "../inputs/publication.ts";
import type { BuildContext } from "../surfaces/types.ts";
import type { ChangeEntry } from "../surfaces/changes.ts";
import { POLICY_KINDS, diffManifests } from "./objects.ts";

/** How many entries the published feed keeps (newest first). */
export const CHANGEFEED_LIMIT = 200;

export interface Changefeed {
  entries: z.input<typeof ChangeEntry>[];
  /** Entries ever recorded: the `seq` of the newest. */
  total: number;
  /** The frame from which objects are tracked: changes before it are not in any feed. */
  since: { frameId: string; at: string };
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
  const feed = previous?.changes ?? null;
  if (!previous || !feed) return { entries: [], total: feed?.window.total ?? 0, since: here };
  const kept = { entries: feed.entries, total: feed.window.total, since: feed.tracking.since };
  // Same inputs, same objects: nothing to add (and the manifest was not even loaded).
  if (ctx.inputsUnchanged) return kept;
  // The previous frame recorded no manifest (an older tool): tracking starts here.
  const objects = ctx.objects?.() ?? null;
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
  return {
    entries: [...fresh.reverse(), ...kept.entries].slice(0, CHANGEFEED_LIMIT),
    total: kept.total + fresh.length,
    since: kept.since,
  };
}
