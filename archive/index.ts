/**
 * The archive's one entry point: open an archive, then read its head, load what an assembly's
 * plan needs, commit a frame, find and replay the frame at an instant, verify every frame, diff
 * two frames. Each operation loads its own code when first called, so that a command loads only
 * what it uses (`replay` never loads the assembly's surfaces, `--version` nothing at all).
 */
import { resolve } from "node:path";
import type { Assembly } from "../core/assemble.ts";
import type { Hasher } from "../core/ports.ts";
import type { PreviousState } from "../core/surfaces/types.ts";
import type { CommitResult } from "./api/commit.ts";
import type { FrameDiff } from "./api/diff.ts";
import type { FoundFrame } from "./api/replay.ts";
import type { ArchiveNeeds, CopyRequest } from "./api/state.ts";
import type { PullResult, PushResult, Remote } from "./api/transport.ts";
import type { VerifyReport } from "./api/verify.ts";
import type { CheckpointCheck, InclusionProof } from "./api/proofs.ts";
import type { Checkpoint } from "../core/log/checkpoint.ts";
import type { ArchiveAbout } from "./models/readme.ts";
import { gitdirOf, refuseArchiveFile, type TreeCache } from "./git/objects.ts";
import { acquireLock, type Lock } from "./lock.ts";

export { refuseArchiveFile };

export type {
  CheckpointCheck,
  InclusionProof,
  ArchiveAbout,
  ArchiveNeeds,
  CommitResult,
  CopyRequest,
  FoundFrame,
  FrameDiff,
  Lock,
  PullResult,
  PushResult,
  Remote,
  TreeCache,
  VerifyReport,
};

export interface Archive {
  /** The Git directory: `dir` itself for a bare repository, `dir/.git` for a work tree. */
  readonly gitdir: string;
  /** One writer at a time (see lock.ts). */
  lock(now: Date, warn: (message: string) => void): Lock;
  /**
   * The head frame with the head copies of `copies`, or null for an empty archive. Refuses a
   * chain with a frame commit missing (`trustChainList`: check the commits listed by earlier
   * assemblies without reading them, archive/api/chain.ts).
   */
  head(
    copies: readonly CopyRequest[],
    options?: { cache?: TreeCache; trustedVersion?: string; trustChainList?: boolean },
  ): Promise<PreviousState | null>;
  /** Reads into `previous`, once each, what a plan needs of the archive. */
  load(
    previous: PreviousState,
    needs: ArchiveNeeds,
    options: { now: string; cache?: TreeCache; digests?: boolean },
  ): Promise<PreviousState>;
  /** Commits one assembly as the next frame. */
  commit(
    assembly: Assembly,
    previous: PreviousState | null,
    identity: { name: string; email: string },
    cache?: TreeCache,
    about?: ArchiveAbout,
    /** `trustWrittenHead` false: the blobs kept from the head are hashed even when this archive wrote it. */
    options?: { trustWrittenHead?: boolean },
  ): Promise<CommitResult>;
  /** The bytes of a blob of the archive. */
  blob(oid: string): Promise<Uint8Array>;
  /** The bytes `/api/v1/history.ndjson` had in the frame whose root tree is `tree`. */
  servedJournal(tree: string): Promise<Uint8Array>;
  /** The last frame at or before `instant` (epoch ms). */
  frameAt(instant: number): Promise<FoundFrame>;
  /** Writes every surface of `found` into `outDir`, each checked against the frame's fingerprints. */
  materialise(found: FoundFrame, outDir: string, hash: Hasher): Promise<{ files: number; bytes: number }>;
  /** The documents the upstreams sent at a frame (or why none), checked against its record. */
  upstreamDocuments(
    found: FoundFrame,
    hash: Hasher,
  ): Promise<{ instrument: string; bytes?: Uint8Array; reason?: string }[]>;
  /** Checks every frame, or every frame up to the one committed as `upTo`; names the first that fails. */
  verify(hash: Hasher, onFrame?: (n: number) => void, upTo?: string): Promise<VerifyReport>;
  /** What changed between the frames published at two instants (epoch ms). */
  diff(from: number, to: number): Promise<FrameDiff>;
  /** Proves that the archive extends a saved checkpoint (a consistency proof); names the frame when it does not. */
  checkCheckpoint(hash: Hasher, checkpoint: Checkpoint): Promise<CheckpointCheck>;
  /** An inclusion proof of a frame in the tree of the first `size` frames (default: all). */
  prove(hash: Hasher, frameId: string, size?: number): Promise<InclusionProof>;
  /** Whether `frameId` is one of this archive's frames that a pull replaced (kept under refs/risk-cli/unpushed/). */
  holdsUnpushed(frameId: string): Promise<boolean>;
  /** Fetches the remote branch (only what is new) and brings the local branch to it. */
  pull(remote: Remote): Promise<PullResult>;
  /** Fast-forwards the remote branch to the local one; never forced. */
  push(remote: Remote): Promise<PushResult>;
}

/**
 * The archive at `dir` (which need not exist yet: the first commit creates it). A file in its place
 * is refused at once (exit 2).
 */
export function openArchive(dir: string): Archive {
  refuseArchiveFile(dir);
  const gitdir = gitdirOf(resolve(dir));
  return {
    gitdir,
    lock: (now, warn) => acquireLock(gitdir, now, warn),
    head: async (copies, options) => (await import("./api/state.ts")).previousState(gitdir, copies, options),
    load: async (previous, needs, options) =>
      (await import("./api/state.ts")).loadNeeds(gitdir, previous, needs, options),
    commit: async (assembly, previous, identity, cache, about, options) =>
      (await import("./api/commit.ts")).commitFrame(gitdir, assembly, previous, identity, cache, about, options),
    blob: async (oid) => (await import("./git/objects.ts")).readBlob(gitdir, oid),
    servedJournal: async (tree) => (await import("./api/journal.ts")).servedJournal(gitdir, tree),
    frameAt: async (instant) => (await import("./api/replay.ts")).findFrameAt(gitdir, instant),
    materialise: async (found, outDir, hash) =>
      (await import("./api/replay.ts")).materialise(gitdir, found, outDir, hash),
    upstreamDocuments: async (found, hash) => (await import("./api/replay.ts")).upstreamDocuments(gitdir, found, hash),
    verify: async (hash, onFrame, upTo) => (await import("./api/verify.ts")).verifyArchive(gitdir, hash, onFrame, upTo),
    diff: async (from, to) => (await import("./api/diff.ts")).diffFrames(gitdir, from, to),
    checkCheckpoint: async (hash, checkpoint) =>
      (await import("./api/proofs.ts")).checkCheckpoint(gitdir, hash, checkpoint),
    prove: async (hash, frameId, size) => (await import("./api/proofs.ts")).proveFrame(gitdir, hash, frameId, { size }),
    holdsUnpushed: async (frameId) => (await import("./api/unpushed.ts")).holdsUnpushedFrame(gitdir, frameId),
    pull: async (remote) => (await import("./api/transport.ts")).pullArchive(gitdir, remote),
    push: async (remote) => (await import("./api/transport.ts")).pushArchive(gitdir, remote),
  };
}
