import { z } from "zod";

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

export function shardPath(at: string): string {
  return `index/${at.slice(0, 4)}/${at.slice(5, 7)}/${at.slice(8, 10)}.json`;
}
