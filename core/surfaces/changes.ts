import {
  CHANGEFEED_LIMIT,
  CHANGES_PATH,
  ChangeEntry,
  ChangefeedSurface,
  changefeedOf,
  changefeedReads,
} from "../changes/feed.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";

export { ChangeEntry, ChangefeedSurface, CHANGES_PATH };

export const changes = defineSurface({ format: "json", schema: ChangefeedSurface })({
  path: CHANGES_PATH,
  mediaType: "application/json",
  // New entries come only from changed inputs: with the same inputs the feed is the same.
  reusable: true,
  reads: changefeedReads,
  previousCopies: [CHANGES_PATH],
  schemaName: "ChangefeedSurface",
  operationId: "changefeedSurface",
  summary:
    "Changefeed: publications, revisions and policy changes between frames, with version, hash, previous hash, diff status and whether the change is semantic",
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
        semantic:
          "semantic is false when only formatting changed: the same object with every string whitespace-collapsed and NFC-normalised hashes the same.",
        bound: `The newest ${CHANGEFEED_LIMIT} entries, newest first, and every entry of the assembly that published the feed when it found more; seq numbers every entry since tracking began, so a gap shows what a reader missed.`,
        replay:
          "Earlier entries are in earlier frames: risk-cli replay --date <date> --out <dir> gives changes.json as it was published then.",
      },
      tracking: { since: feed.since },
      window: {
        limit: CHANGEFEED_LIMIT,
        total: feed.total,
        oldestSeq: oldest?.seq ?? null,
        truncated: (oldest?.seq ?? 1) > 1,
      },
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

export const changesNdjson = defineSurface({ format: "ndjson", schema: ChangeEntry })({
  path: "/api/v1/changes.ndjson",
  mediaType: "application/x-ndjson",
  reusable: true,
  reads: changefeedReads,
  previousCopies: [CHANGES_PATH],
  schemaName: "ChangeEntry",
  summary:
    "One publication, revision or policy change per line, newest first, with version, hashes, diff status and semantic flag",
  build(ctx) {
    return changefeedOf(ctx).entries;
  },
});
