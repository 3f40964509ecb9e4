import type { Assembly } from "../../core/assemble.ts";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { RiskError } from "../../core/errors.ts";
import type { PreviousState } from "../../core/surfaces/types.ts";
import {
  initRepository,
  isRepository,
  oidAtPath,
  readBlob,
  readCommit,
  updateBranch,
  writeBlob,
  writeCommit,
  type TreeCache,
} from "../git/objects.ts";
import { editTree, flattenTree } from "../git/tree-edit.ts";
import { IndexShard, shardPath, type IndexEntry } from "../models/date-index.ts";
import { frameMessage } from "../models/message.ts";
import { recordChain } from "./chain.ts";
import { archiveLicense, archiveReadme, type ArchiveAbout } from "../models/readme.ts";
import { OBJECTS_FILE } from "../layout.ts";
import { frameBytes, readFrame } from "./frames.ts";
import { allTiles, appendLeafTiles, frameLeafHash, logTiles } from "./tiles.ts";
import { createHash } from "node:crypto";
import { FRAME_FILE, LICENSE_FILE, README_FILE, SITE_PREFIX, UPSTREAM_PREFIX } from "../layout.ts";
import { journalShard } from "./journal.ts";
import { signalHistoryShards } from "./signal-history.ts";
import { recordDigest, wroteHead } from "./digests.ts";

const sha = (d: Uint8Array) => new Uint8Array(createHash("sha256").update(d).digest());

/**
 * The tile edits for a log of `size` frames whose last is the previous frame: one leaf appended,
 * or, for an archive begun before tiles existed, every tile written from the frames' hashes.
 */
async function tileEdits(
  gitdir: string,
  base: string | null,
  previous: PreviousState,
  size: number,
  cache: TreeCache,
): Promise<Map<string, string | null>> {
  const leaf = frameLeafHash(sha, previous.frame.frameHash);
  const appended = await appendLeafTiles(gitdir, base, size - 1, leaf, sha, cache);
  if (appended) return appended;
  const hashes: string[] = [];
  for (let commit: string | undefined = previous.commit; commit; ) {
    const info = await readCommit(gitdir, commit);
    const { frame } = await readFrame(gitdir, commit, { cache, read: info });
    hashes.push(frame.frameHash);
    commit = info.parents[0];
  }
  return allTiles(
    gitdir,
    hashes.reverse().map((h) => frameLeafHash(sha, h)),
    sha,
  );
}

/**
 * The blobs a frame keeps from the head's tree hold the bytes the head frame records. The caller
 * skips this for a head this archive's own assembly wrote (checked as it was written); any other
 * (pulled, restored, or a commit rewritten in place) has each kept blob hashed once, so that a
 * rewritten blob is never carried into a new frame under the honest fingerprint.
 */
async function checkKept(
  gitdir: string,
  previous: PreviousState,
  kept: readonly { path: string; oid: string; sha256: string }[],
): Promise<void> {
  for (const { path, oid, sha256 } of kept) {
    const got = createHash("sha256")
      .update(await readBlob(gitdir, oid))
      .digest("hex");
    if (got !== sha256)
      throw new RiskError(
        "E_ARCHIVE",
        `The archive's head frame ${previous.frame.frameId} (commit ${previous.commit}) stores ${SITE_PREFIX}${path} with bytes that hash to ${got}, not the ${sha256} its frame.json records: the head was rewritten or damaged. Nothing was assembled; run risk-cli verify and restore the archive from another copy (the published remote, a backup).`,
        { frame: previous.frame.frameId, commit: previous.commit, path },
      );
  }
}

export interface CommitResult {
  commit: string;
  /** Blobs this frame had to write (unchanged surfaces keep the previous blob). */
  blobsWritten: number;
  /** The tiles of the log the frame records, for the site to serve (archive/api/tiles.ts). */
  tiles: { path: string; oid: string }[];
}

/**
 * Commits one assembly as one frame: frame.json, every surface in its stored form under site/,
 * and the previous frame appended to its day's replay index. A surface whose stored fingerprint
 * did not change keeps its blob without being hashed or written again. The branch moves last, so
 * an error before that leaves the archive's history exactly as it was.
 */
export async function commitFrame(
  gitdir: string,
  assembly: Assembly,
  previous: PreviousState | null,
  identity: { name: string; email: string },
  cache: TreeCache = new Map(),
  about?: ArchiveAbout,
  options: { trustWrittenHead?: boolean } = {},
): Promise<CommitResult> {
  if (!isRepository(gitdir)) await initRepository(gitdir);
  const { frame } = assembly;
  const edits = new Map<string, string | null>();
  let blobsWritten = 0;
  const write = async (path: string, bytes: Uint8Array) => {
    edits.set(path, await writeBlob(gitdir, bytes));
    blobsWritten++;
  };
  const base = previous?.tree ?? null;
  let oldSite = new Map<string, string>();
  if (previous && base) {
    const site = await oidAtPath(gitdir, base, SITE_PREFIX, cache);
    if (site) oldSite = await flattenTree(gitdir, site.oid, "", cache);
    for (const path of Object.keys(previous.frame.surfaces)) {
      if (!frame.surfaces[path]) edits.set(`${SITE_PREFIX}${path}`, null);
    }
  }
  await write(FRAME_FILE, frameBytes(frame));
  // What the archive is and its licence, for whoever clones it; unchanged from frame to frame.
  if (about) {
    for (const [path, text] of [
      [README_FILE, archiveReadme(about)],
      [LICENSE_FILE, archiveLicense(about)],
    ] as const) {
      const oid = await writeBlob(gitdir, new TextEncoder().encode(text));
      const was = base ? await oidAtPath(gitdir, base, path, cache) : null;
      edits.set(path, oid);
      if (was?.oid !== oid) blobsWritten++;
    }
  }
  const keptBlobs: { path: string; oid: string; sha256: string }[] = [];
  // The object manifest changes only with the inputs; otherwise the base tree keeps the previous one.
  if (assembly.objects) await write(OBJECTS_FILE, assembly.objects.bytes);
  for (const f of assembly.files) {
    // An append-only surface is stored as day shards, not under site/.
    if (f.appendTo !== undefined) {
      const shard = await journalShard(gitdir, base, f, frame.at, cache);
      await write(shard.path, shard.bytes);
      if (oldSite.has(f.path.slice(1))) edits.set(`${SITE_PREFIX}${f.path}`, null);
      continue;
    }
    const kept = oldSite.get(f.path.slice(1));
    if (kept && previous?.frame.surfaces[f.path]?.storedSha256 === f.storedSha256) {
      keptBlobs.push({ path: f.path, oid: kept, sha256: f.storedSha256 });
      edits.set(`${SITE_PREFIX}${f.path}`, kept);
    } else if (f.stored) {
      await write(`${SITE_PREFIX}${f.path}`, f.stored);
    } else {
      throw new RiskError(
        "E_ARCHIVE",
        `Cannot reuse ${f.path}: the archive's last frame does not hold it; run risk-cli verify`,
        { path: f.path },
      );
    }
  }
  if (previous && !(options.trustWrittenHead !== false && wroteHead(gitdir, previous.commit)))
    await checkKept(gitdir, previous, keptBlobs);
  if (previous && base) {
    const shard = shardPath(previous.frame.at);
    const existing = await oidAtPath(gitdir, base, shard, cache);
    const entries: IndexEntry[] = existing
      ? IndexShard.parse(JSON.parse(new TextDecoder().decode(await readBlob(gitdir, existing.oid))))
      : [];
    entries.push({
      frameId: previous.frame.frameId,
      seq: previous.frame.seq,
      at: previous.frame.at,
      commit: previous.commit,
      frameHash: previous.frame.frameHash,
    });
    await write(shard, new TextEncoder().encode(canonicalJson(entries, shard)));
  }
  // The day that closes and the level changes found, appended to their shards.
  for (const shard of await signalHistoryShards(gitdir, base, previous, frame, cache))
    await write(shard.path, shard.bytes);
  // The documents the upstreams sent at this frame, by instrument: one blob each, shared by every
  // frame in which the upstream sent the same bytes. An instrument that sent none has no file.
  const sent = new Set<string>();
  for (const d of assembly.upstreamDocuments) {
    sent.add(d.instrument);
    const oid = await writeBlob(gitdir, d.bytes);
    const path = `${UPSTREAM_PREFIX}/${d.instrument}`;
    const was = base ? await oidAtPath(gitdir, base, path, cache) : null;
    edits.set(path, oid);
    if (was?.oid !== oid) blobsWritten++;
  }
  for (const key of Object.keys(previous?.frame.upstream ?? {}))
    if (!sent.has(key)) edits.set(`${UPSTREAM_PREFIX}/${key}`, null);
  // The frame log's tiles gain the previous frame's leaf (this frame's log holds the frames before it).
  if (previous && frame.log)
    for (const [path, oid] of await tileEdits(gitdir, base, previous, frame.log.size, cache)) {
      edits.set(path, oid);
      // A new partial tile (tile/0/000.p/N) is a blob of its own at every frame.
      if (oid !== null) blobsWritten++;
    }
  const tree = await editTree(gitdir, base, edits, cache);
  const commit = await writeCommit(gitdir, {
    tree: tree!,
    parents: previous ? [previous.commit] : [],
    message: frameMessage(frame),
    time: Math.floor(Date.parse(frame.at) / 1000),
    name: identity.name,
    email: identity.email,
  });
  // Compare-and-swap: the branch moves only if no other writer committed since the head was read.
  await updateBranch(gitdir, commit, previous?.commit ?? null);
  recordDigest(gitdir, previous?.commit ?? null, commit, frame);
  recordChain(gitdir, previous?.commit ?? null, commit, frame.frameId);
  const tiles = frame.log ? await logTiles(gitdir, tree!, frame.log.size, cache) : [];
  return { commit, blobsWritten, tiles };
}
