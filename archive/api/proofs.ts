/**
 * Proofs over the frame log (core/log/): that today's archive extends a checkpoint a stranger
 * saved (a consistency proof), and that a frame is in the log (an inclusion proof). Both read the
 * head frame and the log's tiles (api/tiles.ts), never every frame: the full `verify` is what ties
 * every frame to the tiles.
 */
import { createHash } from "node:crypto";
import { RiskError } from "../../core/errors.ts";
import type { Checkpoint } from "../../core/log/checkpoint.ts";
import { checkpointOf, extendLog, frameLeaf, type LogHead } from "../../core/log/frames.ts";
import {
  consistencyProof,
  inclusionProof,
  rootOf,
  toHex,
  verifyConsistency,
  type RootMemo,
  type Sha256,
} from "../../core/log/merkle.ts";
import type { Frame } from "../../core/frame.ts";
import type { Hasher } from "../../core/ports.ts";
import { headCommit, oidAtPath, readBlob, readCommit, requireArchive } from "../git/objects.ts";
import { sitePath } from "../layout.ts";
import { parseFrameMessage } from "../models/message.ts";
import { readFrame } from "./frames.ts";
import { readLeaves } from "./tiles.ts";
import { lastIndexedAtOrBefore } from "./replay.ts";

/**
 * SHA-256 to bytes with Node's crypto directly: a check over a year of frames hashes about 70,000
 * nodes, and the Hasher port's hex round trip cost a third of it. The same digest.
 */
const nativeSha: Sha256 = (d) => createHash("sha256").update(d).digest();

interface LogState {
  head: { frame: Frame; commit: string; tree: string };
  /** The subtree roots computed so far, shared by every root and proof of this check. */
  memo: RootMemo;
  /** The log over every frame, head included. */
  log: LogHead;
  /** Every frame's leaf hash, in frame order. */
  leaves: Uint8Array[];
}

async function logState(gitdir: string, hash: Hasher): Promise<LogState> {
  requireArchive(gitdir);
  const commit = await headCommit(gitdir);
  if (!commit) throw new RiskError("E_NO_FRAME", `The archive ${gitdir} has no frame`, { archive: gitdir });
  const { frame, tree } = await readFrame(gitdir, commit);
  if (!frame.log)
    throw new RiskError(
      "E_ARCHIVE",
      `The archive's head frame ${frame.frameId} records no frame log (it was written before risk-cli kept one); assemble one frame with this version first.`,
      { frame: frame.frameId },
    );
  const sha = nativeSha;
  const memo: RootMemo = new Map();
  const tiled = await readLeaves(gitdir, tree, frame.log.size);
  const log = extendLog(hash, frame.log, frame.frameHash);
  const leaves = tiled ? [...tiled, frameLeaf(sha, frame.frameHash)] : null;
  if (!leaves || toHex(rootOf(sha, leaves, 0, leaves.length, memo)) !== log.root)
    throw new RiskError(
      "E_VERIFY",
      `Verification failed at frame ${frame.frameId} (commit ${commit.slice(0, 12)}), tile/: the frame log's tiles do not give the root the head frame records`,
      { frame: frame.frameId, commit, path: "tile/" },
    );
  return { head: { frame, commit, tree }, memo, log, leaves };
}

/** The log's origin as the head frame's black-box.json publishes it. */
async function originOf(gitdir: string, tree: string): Promise<string> {
  const entry = await oidAtPath(gitdir, tree, sitePath("/api/v1/black-box.json"));
  if (!entry) return "risk-cli/frames";
  const doc = JSON.parse(new TextDecoder().decode(await readBlob(gitdir, entry.oid))) as { log?: { origin?: unknown } };
  return typeof doc.log?.origin === "string" ? doc.log.origin : "risk-cli/frames";
}

/** The frame at `seq` (1-based), found by walking back from the head through commit messages only. */
async function frameAtSeq(
  gitdir: string,
  state: LogState,
  seq: number,
): Promise<{ frameId: string; frameHash: string }> {
  let commit: string | undefined = state.head.commit;
  for (let s = state.head.frame.seq; commit && s > seq; s--) commit = (await readCommit(gitdir, commit)).parents[0];
  if (!commit) throw new RiskError("E_VERIFY", `The archive has no frame ${seq}: its chain is broken`, { seq });
  const info = await readCommit(gitdir, commit);
  const trailers = parseFrameMessage(info.message, commit);
  return { frameId: trailers.frameId, frameHash: trailers.frameHash };
}

/**
 * The checkpoint's `frame <id> <hash>` line names the last frame its root holds: the hash must be
 * that frame's leaf and the id the frame the archive holds at that place (the head, or its replay
 * index entry). A line edited by hand would otherwise make every message repeat it.
 */
async function checkFrameLine(gitdir: string, state: LogState, m: number, frameId: string, frameHash: string) {
  const seq = Number(frameId.slice(0, 6));
  const at = /^\d{6}-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(frameId);
  let ours: { frameId: string; frameHash: string } | null = null;
  if (toHex(frameLeaf(nativeSha, frameHash)) === toHex(state.leaves[m - 1]!) && seq === m && at) {
    if (m === state.head.frame.seq) ours = state.head.frame;
    else {
      const instant = Date.parse(`${at[1]}-${at[2]}-${at[3]}T${at[4]}:${at[5]}:${at[6]}Z`);
      ours = await lastIndexedAtOrBefore(gitdir, state.head.tree, instant);
    }
  }
  if (ours?.frameId !== frameId || ours.frameHash !== frameHash)
    throw new RiskError(
      "E_INPUT",
      `The checkpoint's line "frame ${frameId} ${frameHash}" does not name the frame ${m} its root vouches for in this log: the line was altered. Save black-box.json's log.checkpoint text exactly.`,
      { checkpointSize: m, frame: frameId },
    );
}

export interface CheckpointCheck {
  origin: string;
  /** Frames the checkpoint vouches for, and frames the archive holds now. */
  checkpointSize: number;
  archiveSize: number;
  root: string;
  /** The consistency proof from the checkpoint's tree to today's (lowercase hex). */
  proof: string[];
  head: { frameId: string; frameHash: string };
}

/**
 * Proves that the archive extends `checkpoint`; throws E_VERIFY naming the frame the checkpoint
 * vouches for when it does not (a rollback removed it, or the frames up to it were rewritten or forked).
 */
export async function checkCheckpoint(gitdir: string, hash: Hasher, checkpoint: Checkpoint): Promise<CheckpointCheck> {
  const named = /^frame (\S+) ([0-9a-f]{64})$/.exec(checkpoint.extensions.find((e) => e.startsWith("frame ")) ?? "");
  const theirs = named ? `frame ${named[1]} (sha256:${named[2]})` : `frame ${checkpoint.size}`;
  requireArchive(gitdir);
  // A branch removed altogether is the ultimate rollback: every frame the checkpoint vouches for is gone.
  if (checkpoint.size > 0 && !(await headCommit(gitdir)))
    throw new RiskError(
      "E_VERIFY",
      `The checkpoint vouches for ${checkpoint.size} frames, up to ${theirs}; the archive holds none (its branch is gone): every frame was removed (a rollback)`,
      { checkpointSize: checkpoint.size, archiveSize: 0, frame: named?.[1] ?? null },
    );
  const state = await logState(gitdir, hash);
  // A checkpoint names the log it belongs to: one of another publication proves nothing here.
  const origin = await originOf(gitdir, state.head.tree);
  if (checkpoint.origin !== origin)
    throw new RiskError(
      "E_VERIFY",
      `The checkpoint belongs to the log ${JSON.stringify(checkpoint.origin.slice(0, 120))}, not to this archive's ${JSON.stringify(origin)}: it vouches for another publication's frames`,
      { checkpointOrigin: checkpoint.origin, origin },
    );
  const sha = nativeSha;
  const m = checkpoint.size;
  const n = state.log.size;
  if (m > n)
    throw new RiskError(
      "E_VERIFY",
      `The checkpoint vouches for ${m} frames, up to ${theirs}; the archive holds ${n}, up to frame ${state.head.frame.frameId}: frames were removed (a rollback)`,
      { checkpointSize: m, archiveSize: n, frame: named?.[1] ?? null },
    );
  const oldRoot = m === 0 ? sha(new Uint8Array(0)) : rootOf(sha, state.leaves, 0, m, state.memo);
  if (toHex(oldRoot) !== toHex(checkpoint.root)) {
    const ours = m > 0 ? await frameAtSeq(gitdir, state, m) : null;
    const differs =
      ours && named && (ours.frameId !== named[1] || ours.frameHash !== named[2])
        ? `; the archive's frame ${m} is ${ours.frameId} (sha256:${ours.frameHash}), not ${theirs}`
        : "";
    throw new RiskError(
      "E_VERIFY",
      `The archive's first ${m} frames do not hash to the checkpoint's root, which vouches for ${theirs}: frames up to it were rewritten, or the archive forked${differs}`,
      { checkpointSize: m, archiveSize: n, frame: named?.[1] ?? ours?.frameId ?? null },
    );
  }
  if (named) await checkFrameLine(gitdir, state, m, named[1]!, named[2]!);
  const proof = consistencyProof(sha, m, state.leaves, state.memo);
  // The proof a stranger can check against the two roots (a self-check here).
  const newRoot = rootOf(sha, state.leaves, 0, n, state.memo);
  if (m > 0 && !verifyConsistency(sha, m, n, proof, oldRoot, newRoot))
    throw new Error("a consistency proof computed from the archive does not verify");
  return {
    origin: checkpoint.origin,
    checkpointSize: m,
    archiveSize: n,
    root: state.log.root,
    proof: proof.map(toHex),
    head: { frameId: state.head.frame.frameId, frameHash: state.head.frame.frameHash },
  };
}

export interface InclusionProof {
  frameId: string;
  frameHash: string;
  /** The frame's leaf index (seq - 1) and the size of the tree the proof is for. */
  index: number;
  size: number;
  leafHash: string;
  proof: string[];
  root: string;
  /** The (unsigned) checkpoint of that tree, to compare with a saved one. */
  checkpoint: string;
}

/** An inclusion proof of frame `frameId` in the tree of the first `size` frames (default: all). */
export async function proveFrame(
  gitdir: string,
  hash: Hasher,
  frameId: string,
  options: { size?: number } = {},
): Promise<InclusionProof> {
  const state = await logState(gitdir, hash);
  const m = /^(\d{6,})-\d{8}T\d{6}Z$/.exec(frameId);
  const seq = m ? Number(m[1]) : Number.NaN;
  if (!(seq >= 1 && seq <= state.log.size))
    throw new RiskError("E_NO_FRAME", `The archive has no frame ${frameId.slice(0, 40)}`, { frame: frameId });
  const found = await frameAtSeq(gitdir, state, seq);
  if (found.frameId !== frameId)
    throw new RiskError("E_NO_FRAME", `The archive has no frame ${frameId}; its frame ${seq} is ${found.frameId}`, {
      frame: frameId,
    });
  const size = options.size ?? state.log.size;
  if (!(Number.isInteger(size) && size >= seq && size <= state.log.size))
    throw new RiskError(
      "E_USAGE",
      `--size must be between ${seq} (the frame's position) and ${state.log.size} (the frames in the archive)`,
    );
  const sha = nativeSha;
  const leaves = state.leaves.slice(0, size);
  const root = rootOf(sha, leaves);
  const last = await frameAtSeq(gitdir, state, size);
  return {
    frameId,
    frameHash: found.frameHash,
    index: seq - 1,
    size,
    leafHash: toHex(state.leaves[seq - 1]!),
    proof: inclusionProof(sha, seq - 1, leaves).map(toHex),
    root: toHex(root),
    checkpoint: checkpointOf(
      hash,
      await originOf(gitdir, state.head.tree),
      { size, root: toHex(root), edge: [] },
      last,
    ),
  };
}
