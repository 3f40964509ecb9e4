import { z } from "zod";
import { indexShardPath } from "../layout.ts";

/**
 * The replay index lives in every head tree: `index/YYYY/MM/DD.json` lists the frames of that
 * UTC day committed before the head, with their commits. Finding the frame at a date reads one
 * shard (and, for a day with no frame, a month and a year tree): never a walk over history.
 */
export const IndexEntry = z.strictObject({
  frameId: z.string(),
  seq: z.int().positive(),
  at: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  frameHash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type IndexEntry = z.infer<typeof IndexEntry>;
export const IndexShard = z.array(IndexEntry);

/** The replay-index shard of the UTC day of `at` (archive/layout.ts). */
export const shardPath = indexShardPath;
