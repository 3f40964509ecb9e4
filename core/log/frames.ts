/**
 * The frame log as frames record it. Frame n (seq n) records the tree over the hashes of every
 * frame before it (size n - 1): a frame cannot hold a tree that includes its own hash, which
 * depends on everything in it. The tree's right edge travels with the frame, so the next frame
 * extends it without reading the earlier ones.
 */
import type { Hasher } from "../ports.ts";
import { checkpointText, signNote, type NoteSigner } from "./checkpoint.ts";
import { appendToEdge, fromHex, leafHash, rootOfEdge, toHex, type Sha256 } from "./merkle.ts";

export interface LogHead {
  /** How many frames the tree holds: every frame before the one that records it. */
  size: number;
  /** The tree's root hash, lowercase hex. */
  root: string;
  /** The right edge (roots of the perfect subtrees, largest first), lowercase hex. */
  edge: string[];
}

export const rawSha =
  (hash: Hasher): Sha256 =>
  (d) =>
    fromHex(hash.sha256(d));

/** The leaf of a frame: its frameHash's 32 bytes. */
export const frameLeaf = (sha: Sha256, frameHash: string) => leafHash(sha, fromHex(frameHash));

export const EMPTY_LOG = (hash: Hasher): LogHead => ({ size: 0, root: hash.sha256(new Uint8Array(0)), edge: [] });

/** The log after appending `frameHash` to the log `before`. */
export function extendLog(hash: Hasher, before: LogHead, frameHash: string): LogHead {
  const sha = rawSha(hash);
  const edge = appendToEdge(sha, before.edge.map(fromHex), before.size, frameLeaf(sha, frameHash));
  return { size: before.size + 1, root: toHex(rootOfEdge(sha, edge)), edge: edge.map(toHex) };
}

/** The log's permanent name in checkpoints: the publication's host and `/risk-cli/frames`. */
export function logOrigin(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.host}${u.pathname.replace(/\/+$/, "")}/risk-cli/frames`;
}

/**
 * The checkpoint of `log`, signed when a signer is given; its one extension line names the last
 * frame the tree holds, so that a saved checkpoint says which frame it vouches for.
 */
export function checkpointOf(
  hash: Hasher,
  origin: string,
  log: LogHead,
  last: { frameId: string; frameHash: string } | null,
  signer?: NoteSigner,
): string {
  const text = checkpointText({
    origin,
    size: log.size,
    root: fromHex(log.root),
    extensions: last ? [`frame ${last.frameId} ${last.frameHash}`] : [],
  });
  return signer ? signNote(text, [signer]) : text;
}
