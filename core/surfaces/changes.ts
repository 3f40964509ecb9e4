import { z } from "zod";
import { CHANGEFEED_LIMIT, changefeedOf } from "../changes/feed.ts";
import { ObjectKind } from "../changes/objects.ts";
import { IsoDateTime } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./_corpus.ts";

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
  policy: z.strictObject({ derivation: z.string(), hash: z.string(), semantic: z.string(), bound: z.string(), replay: z.string() }),
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
  entries: z.array(ChangeEntry).max(CHANGEFEED_LIMIT),
  license: z.string(),
  attribution: z.string(),
});
export type ChangefeedSurface = z.infer<typeof ChangefeedSurface>;

export const changes = defineSurface({
  path: "/api/v1/changes.json",
  mediaType: "application/json",
  format: "json",
  // New entries come only from changed inputs: with the same inputs the feed is the same.
  reusable: true,
  schema: ChangefeedSurface,
  schemaName: "ChangefeedSurface",
  operationId: "changefeedSurface",
  summary: "Changefeed: publications, revisions and policy changes between frames, with version, hash, previous hash, diff status and whether the change is semantic",
  build(ctx) {
    const { publication: p, now, url } = ctx;
    const feed = changefeedOf(ctx);
    const count = (f: (e: (typeof feed.entries)[number]) => boolean) => feed.entries.filter(f).length;
    const oldest = feed.entries.at(-1);
    return {
      schema: url("/openapi.json#/components/schemas/ChangefeedSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      policy: {
        derivation:
          "Each assembly whose input files changed compares the content hash of every published object (articles, guides, methodologies, protocol, changelog, claim reviews, claims, glossary, primary sources, topics, instrument settings) with the previous frame's; an assembly with unchanged inputs adds nothing.",
        hash: "hash and previousHash are SHA-256 of the RFC 8785 canonical JSON of the object as published (front matter and Markdown body for articles and guides); null when the object is added or removed.",
        semantic: "semantic is false when only formatting changed: the same object with every string whitespace-collapsed and NFC-normalised hashes the same.",
        bound: `The newest ${CHANGEFEED_LIMIT} entries, newest first; seq numbers every entry since tracking began, so a gap shows what a reader missed.`,
        replay: "Earlier entries are in earlier frames: risk-cli replay --date <date> --out <dir> gives changes.json as it was published then.",
      },
      tracking: { since: feed.since },
      window: { limit: CHANGEFEED_LIMIT, total: feed.total, oldestSeq: oldest?.seq ?? null, truncated: (oldest?.seq ?? 1) > 1 },
      counts: {
        added: count((e) => e.status === "added"),
        modified: count((e) => e.status === "modified"),
        removed: count((e) => e.status === "removed"),
        semantic: count((e) => e.semantic),
        formatting: count((e) => !e.semantic),
      },
      entries: feed.entries,
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});

export const changesNdjson = defineSurface({
  path: "/api/v1/changes.ndjson",
  mediaType: "application/x-ndjson",
  format: "ndjson",
  reusable: true,
  schema: ChangeEntry,
  schemaName: "ChangeEntry",
  summary: "One publication, revision or policy change per line, newest first, with version, hashes, diff status and semantic flag",
  build(ctx) {
    return changefeedOf(ctx).entries;
  },
});
