import { SITE_MARKER, SITE_MARKER_TEXT, UPSTREAM_PREFIX } from "../layout.ts";
import { HEADERS_FILE, hostHeaders } from "../../core/render/headers.ts";
import { BLACK_BOX_PATH, LOG_CHECKPOINT_PATH, publishedCheckpoint, siteTilePath } from "../../core/log/site-log.ts";
import { logTiles, readLeaves, tilesOf } from "./tiles.ts";
import { rawSha } from "../../core/log/frames.ts";
import { rootOf, toHex } from "../../core/log/merkle.ts";
import * as fs from "node:fs";
import { dirname } from "node:path";
import { RiskError } from "../../core/errors.ts";
import type { Frame } from "../../core/frame.ts";
import type { Hasher } from "../../core/ports.ts";
import { headCommit, oidAtPath, readBlob, readTree, type TreeCache, requireArchive } from "../git/objects.ts";
import { IndexShard, type IndexEntry } from "../models/date-index.ts";
import { flattenTree } from "../git/tree-edit.ts";
import { indexShardPath } from "../layout.ts";
import { readFrame, servedBytes } from "./frames.ts";

export interface FoundFrame {
  commit: string;
  frame: Frame;
  tree: string;
}

/**
 * The last frame at or before `instant` (epoch ms), found through the head tree's day index:
 * one shard read, plus a month or year tree when that day had no frame.
 */
export async function findFrameAt(gitdir: string, instant: number): Promise<FoundFrame> {
  requireArchive(gitdir);
  const head = await headCommit(gitdir);
  if (!head)
    throw new RiskError("E_NO_FRAME", `The archive ${gitdir} has no frame yet; run risk-cli assemble first`, {
      archive: gitdir,
    });
  const top = await readFrame(gitdir, head);
  if (Date.parse(top.frame.at) <= instant) return { commit: head, ...top };
  const entry = await lastIndexedAtOrBefore(gitdir, top.tree, instant);
  if (!entry) {
    const first = await firstFrameAt(gitdir, top.tree, top.frame.at);
    throw new RiskError(
      "E_NO_FRAME",
      `Nothing was published at ${new Date(instant).toISOString()}: the archive's first frame is at ${first}`,
      { instant: new Date(instant).toISOString(), firstFrameAt: first },
    );
  }
  const found = await readFrame(gitdir, entry.commit).catch((e: unknown) => {
    // A damaged or missing object: the frame it belongs to is named, from the index.
    if (e instanceof RiskError && (e.data as { damaged?: boolean }).damaged)
      throw new RiskError("E_ARCHIVE", `frame ${entry.frameId} at ${entry.at} (commit ${entry.commit}): ${e.message}`, {
        ...e.data,
        frame: entry.frameId,
      });
    throw e;
  });
  // The index only points: the frame it points at must be the one it names, published at the
  // time it gives, at or before the instant. A backdated or look-ahead entry fails here.
  const { frame } = found;
  if (
    frame.frameHash !== entry.frameHash ||
    frame.frameId !== entry.frameId ||
    frame.at !== entry.at ||
    Date.parse(frame.at) > instant ||
    frame.seq >= top.frame.seq
  ) {
    throw new RiskError(
      "E_VERIFY",
      `The replay index names frame ${entry.frameId} at ${entry.at}, but its commit carries frame ${frame.frameId} at ${frame.at}: the index was rewritten; run risk-cli verify`,
      { frame: entry.frameId },
    );
  }
  // Nor may a frame between it and the instant be missing from the index (a dropped entry would
  // give the frame before it): the next frame is the head, or the index's next entry, after the instant.
  if (frame.seq + 1 !== top.frame.seq) {
    const next = await nextIndexed(gitdir, top.tree, entry);
    if (!next || next.seq !== frame.seq + 1 || Date.parse(next.at) <= instant)
      throw new RiskError(
        "E_VERIFY",
        `The replay index does not hold the frame after ${entry.frameId} (seq ${frame.seq + 1}) where it should: an entry was removed; run risk-cli verify`,
        { frame: entry.frameId },
      );
  }
  return { commit: entry.commit, ...found };
}

/** The index entry after `entry`: later in its day's shard, or first in the next day's shard. */
async function nextIndexed(gitdir: string, root: string, entry: IndexEntry): Promise<IndexEntry | null> {
  // Most often the next frame is the same day's: one shard, already read by the lookup.
  const shard = await oidAtPath(gitdir, root, indexShardPath(entry.at));
  if (shard) {
    const entries = await readShard(gitdir, shard.oid);
    const i = entries.findIndex((e) => e.commit === entry.commit);
    if (i >= 0 && i + 1 < entries.length) return entries[i + 1]!;
  }
  const index = await oidAtPath(gitdir, root, "index");
  if (!index) return null;
  const own = indexShardPath(entry.at).slice("index/".length);
  const later = [...(await flattenTree(gitdir, index.oid))]
    .filter(([rel]) => rel > own)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, oid] of later) {
    const entries = await readShard(gitdir, oid);
    if (entries.length > 0) return entries[0]!;
  }
  return null;
}

/** The last entry of the head tree's day index at or before `instant`: one shard, or a walk back over days without frames. */
export async function lastIndexedAtOrBefore(
  gitdir: string,
  root: string,
  instant: number,
  cache?: TreeCache,
): Promise<IndexEntry | null> {
  const iso = new Date(instant).toISOString();
  const [y, m, d] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
  const index = await oidAtPath(gitdir, root, "index", cache);
  if (!index) return null;
  const years = (await readTree(gitdir, index.oid, cache)).filter((e) => e.path <= y).sort(byPathDesc);
  for (const year of years) {
    const months = (await readTree(gitdir, year.oid, cache))
      .filter((e) => year.path < y || e.path <= m)
      .sort(byPathDesc);
    for (const month of months) {
      const sameMonth = year.path === y && month.path === m;
      const days = (await readTree(gitdir, month.oid, cache))
        .filter((e) => !sameMonth || e.path <= `${d}.json`)
        .sort(byPathDesc);
      for (const day of days) {
        const entries = await readShard(gitdir, day.oid);
        const hit = entries.filter((e) => Date.parse(e.at) <= instant).pop();
        if (hit) return hit;
      }
    }
  }
  return null;
}

async function firstFrameAt(gitdir: string, root: string, headAt: string): Promise<string> {
  const index = await oidAtPath(gitdir, root, "index");
  if (!index) return headAt;
  const year = (await readTree(gitdir, index.oid)).sort(byPathDesc).pop()!;
  const month = (await readTree(gitdir, year.oid)).sort(byPathDesc).pop()!;
  const day = (await readTree(gitdir, month.oid)).sort(byPathDesc).pop()!;
  return (await readShard(gitdir, day.oid))[0]?.at ?? headAt;
}

/**
 * A day shard of the replay index. Lookups (replay, the risk-diff baselines at every assembly)
 * check only the shape they use; `verify` checks every shard against the full schema.
 */
async function readShard(gitdir: string, oid: string): Promise<IndexEntry[]> {
  const damagedShard = (what: string) =>
    new RiskError(
      "E_VERIFY",
      `A replay index shard (object ${oid}) ${what}: the index was damaged; run risk-cli verify`,
      { object: oid },
    );
  let entries: unknown;
  try {
    entries = JSON.parse(new TextDecoder().decode(await readBlob(gitdir, oid)));
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw damagedShard("is not JSON");
  }
  const usable =
    Array.isArray(entries) &&
    entries.every(
      (e) =>
        typeof e === "object" &&
        e !== null &&
        typeof e.at === "string" &&
        typeof e.commit === "string" &&
        typeof e.frameHash === "string",
    );
  if (usable) return entries as IndexEntry[];
  const parsed = IndexShard.safeParse(entries);
  if (!parsed.success) throw damagedShard("does not match its schema");
  return parsed.data;
}

const byPathDesc = (a: { path: string }, b: { path: string }) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);

/**
 * Writes every surface of a frame to `outDir` exactly as it was served, after checking each
 * against the fingerprint the frame recorded. A mismatch writes nothing and names the path.
 */
export async function materialise(
  gitdir: string,
  found: FoundFrame,
  outDir: string,
  hash: Hasher,
): Promise<{ files: number; bytes: number }> {
  const { frame, tree } = found;
  const files: [string, Uint8Array][] = [];
  for (const [path, recorded] of Object.entries(frame.surfaces).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bytes = await servedBytes(gitdir, tree, frame, path);
    const sha = hash.sha256(bytes);
    if (sha !== recorded.sha256) {
      throw new RiskError(
        "E_REPLAY_MISMATCH",
        `Frame ${frame.frameId}, ${path}: the archived bytes hash to ${sha}, not the recorded ${recorded.sha256}; nothing was written. Run risk-cli verify.`,
        { frame: frame.frameId, path },
      );
    }
    files.push([path, bytes]);
  }
  let total = 0;
  for (const [path, bytes] of files) {
    const file = `${outDir}${path}`;
    await fs.promises.mkdir(dirname(file), { recursive: true });
    await fs.promises.writeFile(file, bytes);
    total += bytes.byteLength;
  }
  // The frame log as the site served it: the checkpoint black-box.json published, and the tiles.
  const box = files.find(([path]) => path === BLACK_BOX_PATH)?.[1];
  const checkpoint = box ? publishedCheckpoint(box) : null;
  if (frame.log && checkpoint !== null) {
    await fs.promises.mkdir(dirname(`${outDir}${LOG_CHECKPOINT_PATH}`), { recursive: true });
    await fs.promises.writeFile(`${outDir}${LOG_CHECKPOINT_PATH}`, checkpoint);
    // The tiles are checked as the rest: their leaves must make the log root frame.json records,
    // and every tile must be the one those leaves make.
    const leaves = frame.log.size > 0 ? await readLeaves(gitdir, tree, frame.log.size) : [];
    const sha = rawSha(hash);
    const expected = leaves ? tilesOf(leaves, sha) : new Map<string, Uint8Array>();
    const present = await logTiles(gitdir, tree, frame.log.size);
    if (
      frame.log.size > 0 &&
      (!leaves || toHex(rootOf(sha, leaves)) !== frame.log.root || present.length !== expected.size)
    )
      throw new RiskError(
        "E_REPLAY_MISMATCH",
        `Frame ${frame.frameId}: its log tiles are missing or do not make the log root frame.json records (${frame.log.root}); the replay is incomplete. Run risk-cli verify.`,
        { frame: frame.frameId, path: "/log/tile" },
      );
    for (const tile of present) {
      const bytes = await readBlob(gitdir, tile.oid);
      const want = expected.get(tile.path);
      if (!want || toHex(want) !== toHex(bytes))
        throw new RiskError(
          "E_REPLAY_MISMATCH",
          `Frame ${frame.frameId}, ${siteTilePath(tile.path)}: the log tile is not the one the frames make (its log root is ${frame.log.root}); the replay is incomplete. Run risk-cli verify.`,
          { frame: frame.frameId, path: siteTilePath(tile.path) },
        );
      const file = `${outDir}${siteTilePath(tile.path)}`;
      await fs.promises.mkdir(dirname(file), { recursive: true });
      await fs.promises.writeFile(file, bytes);
    }
  }
  await fs.promises.writeFile(`${outDir}/${SITE_MARKER}`, SITE_MARKER_TEXT);
  await fs.promises.writeFile(
    `${outDir}/${HEADERS_FILE}`,
    hostHeaders(Object.entries(frame.surfaces).map(([path, s]) => ({ path, mediaType: s.mediaType }))),
  );
  return { files: files.length, bytes: total };
}

/**
 * The documents the upstreams sent at `found`'s frame, by instrument, each checked against the
 * frame's record; for an instrument whose upstream sent none, the reason.
 */
export async function upstreamDocuments(
  gitdir: string,
  found: FoundFrame,
  hash: Hasher,
): Promise<{ instrument: string; bytes?: Uint8Array; reason?: string }[]> {
  const out: { instrument: string; bytes?: Uint8Array; reason?: string }[] = [];
  for (const [instrument, rec] of Object.entries(found.frame.upstream ?? {})) {
    if (!rec) continue;
    if (!("sha256" in rec)) {
      out.push({ instrument, reason: rec.reason });
      continue;
    }
    const entry = await oidAtPath(gitdir, found.tree, `${UPSTREAM_PREFIX}/${instrument}`);
    const bytes = entry ? await readBlob(gitdir, entry.oid) : null;
    if (!bytes || hash.sha256(bytes) !== rec.sha256)
      throw new RiskError(
        "E_REPLAY_MISMATCH",
        `Frame ${found.frame.frameId}, ${UPSTREAM_PREFIX}/${instrument}: the stored document does not match the frame's record; run risk-cli verify`,
        { frame: found.frame.frameId, path: `${UPSTREAM_PREFIX}/${instrument}` },
      );
    out.push({ instrument, bytes });
  }
  return out;
}
