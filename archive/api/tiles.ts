/**
 * The frame log's hashes stored in the archive as static tiles (the C2SP tlog-tiles layout), so
 * that proofs and checkpoint checks read a few small files instead of every frame:
 *
 *   tile/<L>/<N>            a full tile: 256 hashes of 32 bytes, concatenated
 *   tile/<L>/<N>.p/<W>      the partial last tile of level L: its first W hashes
 *
 * Level 0 holds the leaf hashes (one per frame, in frame order); level L + 1 holds the roots of
 * the full tiles of level L (subtrees of 256^(L+1) leaves). N is written in groups of three
 * digits, all but the last prefixed with "x" (1234067 -> x001/x234/067).
 *
 * Each commit appends the previous frame's leaf (the log a frame records holds the frames before
 * it), rewriting only the last tile of each level it touches.
 */
import { fromHex, leafHash, rootOf, type Sha256 } from "../../core/log/merkle.ts";
import { oidAtPath, readBlob, writeBlob, type TreeCache } from "../git/objects.ts";
import { TILE_PREFIX } from "../layout.ts";

export const TILE_WIDTH = 256;
const HASH = 32;

/** The path of tile N of level L, partial of width W when W < 256. */
export function tilePath(level: number, index: number, width = TILE_WIDTH): string {
  const digits = String(index).padStart(3, "0");
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3)
    groups.unshift(digits.slice(Math.max(0, end - 3), end).padStart(3, "0"));
  const n = groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
  return `${TILE_PREFIX}/${level}/${n}${width < TILE_WIDTH ? `.p/${width}` : ""}`;
}

/** How many hashes level L holds in a tree of `size` leaves. */
const countAt = (size: number, level: number) => Math.floor(size / TILE_WIDTH ** level);

/** The path of every tile of a log of `size` leaves: each level's full tiles, then its partial one. */
export function tilePaths(size: number): string[] {
  const paths: string[] = [];
  for (let level = 0; countAt(size, level) > 0; level++) {
    const count = countAt(size, level);
    const full = Math.floor(count / TILE_WIDTH);
    for (let i = 0; i < full; i++) paths.push(tilePath(level, i));
    if (count % TILE_WIDTH > 0) paths.push(tilePath(level, full, count % TILE_WIDTH));
  }
  return paths;
}

/**
 * The tiles of the log a frame records, as the site serves them beside its checkpoint: the
 * path in the frame's tree and the blob that holds it. Every path names bytes that never change
 * (a partial tile's path holds its width), so a site may keep a tile it already served.
 */
export async function logTiles(
  gitdir: string,
  tree: string,
  size: number,
  cache?: TreeCache,
): Promise<{ path: string; oid: string }[]> {
  const out: { path: string; oid: string }[] = [];
  for (const path of tilePaths(size)) {
    const entry = await oidAtPath(gitdir, tree, path, cache);
    if (entry) out.push({ path, oid: entry.oid });
  }
  return out;
}

async function readTile(
  gitdir: string,
  tree: string,
  level: number,
  index: number,
  width: number,
  cache?: TreeCache,
): Promise<Uint8Array | null> {
  const entry = await oidAtPath(gitdir, tree, tilePath(level, index, width), cache);
  if (!entry) return null;
  const bytes = await readBlob(gitdir, entry.oid);
  return bytes.byteLength === width * HASH ? bytes : null;
}

/**
 * The edits that append one leaf to the tiles of a tree of `size` leaves (`base`: the previous
 * frame's root tree). Returns null when the base's tiles are missing or short (an archive begun
 * before tiles existed): the caller then writes them all with `allTiles`.
 */
export async function appendLeafTiles(
  gitdir: string,
  base: string | null,
  size: number,
  leaf: Uint8Array,
  sha: Sha256,
  cache?: TreeCache,
): Promise<Map<string, string | null> | null> {
  const edits = new Map<string, string | null>();
  let add: Uint8Array | null = leaf;
  for (let level = 0; add; level++) {
    const before = countAt(size, level);
    const index = Math.floor(before / TILE_WIDTH);
    const width = before % TILE_WIDTH;
    let existing: Uint8Array = new Uint8Array(0);
    if (width > 0) {
      if (!base) return null;
      const tile = await readTile(gitdir, base, level, index, width, cache);
      if (!tile) return null;
      existing = tile;
      edits.set(tilePath(level, index, width), null);
    }
    const next = new Uint8Array(existing.byteLength + HASH);
    next.set(existing, 0);
    next.set(add, existing.byteLength);
    edits.set(tilePath(level, index, width + 1), await writeBlob(gitdir, next));
    // A tile that just filled up adds its root to the level above.
    add = width + 1 === TILE_WIDTH ? rootOf(sha, split(next)) : null;
  }
  return edits;
}

/** Every tile of a log whose leaves are `leaves` (leaf hashes): its path and bytes. */
export function tilesOf(leaves: readonly Uint8Array[], sha: Sha256): Map<string, Uint8Array> {
  const tiles = new Map<string, Uint8Array>();
  let level = 0;
  let hashes = leaves;
  while (hashes.length > 0) {
    const up: Uint8Array[] = [];
    for (let i = 0; i < hashes.length; i += TILE_WIDTH) {
      const part = hashes.slice(i, i + TILE_WIDTH);
      const bytes = new Uint8Array(part.length * HASH);
      part.forEach((h, j) => bytes.set(h, j * HASH));
      tiles.set(tilePath(level, i / TILE_WIDTH, part.length), bytes);
      if (part.length === TILE_WIDTH) up.push(rootOf(sha, part));
    }
    hashes = up;
    level++;
  }
  return tiles;
}

/** Every tile of a log whose leaves are `leaves` (leaf hashes), as edits of a tree without tiles. */
export async function allTiles(
  gitdir: string,
  leaves: readonly Uint8Array[],
  sha: Sha256,
): Promise<Map<string, string>> {
  const edits = new Map<string, string>();
  for (const [path, bytes] of tilesOf(leaves, sha)) edits.set(path, await writeBlob(gitdir, bytes));
  return edits;
}

const split = (bytes: Uint8Array): Uint8Array[] => {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.byteLength; i += HASH) out.push(bytes.slice(i, i + HASH));
  return out;
};

/** The first `size` leaf hashes, from the level-0 tiles of `tree`; null when a tile is missing. */
export async function readLeaves(
  gitdir: string,
  tree: string,
  size: number,
  cache?: TreeCache,
): Promise<Uint8Array[] | null> {
  const leaves: Uint8Array[] = [];
  for (let index = 0; index * TILE_WIDTH < size; index++) {
    const width = Math.min(TILE_WIDTH, size - index * TILE_WIDTH);
    const tile = await readTile(gitdir, tree, 0, index, width, cache);
    if (!tile) return null;
    leaves.push(...split(tile));
  }
  return leaves;
}

/** The leaf hash of a frame whose frameHash is `frameHash`. */
export const frameLeafHash = (sha: Sha256, frameHash: string) => leafHash(sha, fromHex(frameHash));
