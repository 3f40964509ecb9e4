import type { Assembly } from "../../core/assemble.ts";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import type { PreviousState } from "../../core/surfaces/types.ts";
import { initRepository, isRepository, oidAtPath, readBlob, readCommit, updateBranch, writeBlob, writeCommit } from "../git/objects.ts";
import { editTree } from "../git/tree-edit.ts";
import { IndexShard, shardPath, type IndexEntry } from "../models/date-index.ts";
import { frameMessage } from "../models/message.ts";
import { FRAME_FILE, SITE_PREFIX, frameBytes } from "./state.ts";

export interface CommitResult {
  commit: string;
  /** Blobs this frame had to write (unchanged surfaces reuse the previous blob). */
  blobsWritten: number;
}

/**
 * Commits one assembly as one frame: frame.json, every surface in its stored form under site/,
 * and the previous frame appended to its day's replay index. The branch moves last, so an error
 * before that leaves the archive's history exactly as it was.
 */
export async function commitFrame(
  gitdir: string,
  assembly: Assembly,
  previous: PreviousState | null,
  identity: { name: string; email: string },
): Promise<CommitResult> {
  if (!isRepository(gitdir)) await initRepository(gitdir);
  const { frame } = assembly;
  const edits = new Map<string, string | null>();
  let blobsWritten = 0;
  const put = async (path: string, bytes: Uint8Array, before: string | undefined) => {
    const oid = await writeBlob(gitdir, bytes);
    if (oid !== before) blobsWritten++;
    edits.set(path, oid);
  };
  const base = previous ? (await readCommit(gitdir, previous.commit)).tree : null;
  const oldSite = new Map<string, string>();
  if (previous && base) {
    for (const path of Object.keys(previous.frame.surfaces)) {
      const e = await oidAtPath(gitdir, base, `${SITE_PREFIX}${path}`);
      if (e) oldSite.set(path, e.oid);
    }
    for (const path of Object.keys(previous.frame.surfaces)) {
      if (!frame.surfaces[path]) edits.set(`${SITE_PREFIX}${path}`, null);
    }
  }
  await put(FRAME_FILE, frameBytes(frame), undefined);
  for (const f of assembly.files) await put(`${SITE_PREFIX}${f.path}`, f.stored, oldSite.get(f.path));
  if (previous && base) {
    const shard = shardPath(previous.frame.at);
    const existing = await oidAtPath(gitdir, base, shard);
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
    await put(shard, new TextEncoder().encode(canonicalJson(entries, shard)), undefined);
  }
  const tree = await editTree(gitdir, base, edits);
  const commit = await writeCommit(gitdir, {
    tree: tree!,
    parents: previous ? [previous.commit] : [],
    message: frameMessage(frame),
    time: Math.floor(Date.parse(frame.at) / 1000),
    name: identity.name,
    email: identity.email,
  });
  await updateBranch(gitdir, commit);
  return { commit, blobsWritten };
}
