/**
 * The plan of one assembly, decided before anything is built: which surfaces are reused from the
 * previous frame's bytes, which are built, and what the built ones read (the corpus, the signal
 * history, the archive windows, the head frame's object manifest), so that each input is loaded
 * once, up front, and nothing is built twice.
 */
import type { DayCounts } from "./traffic/counts.ts";
import { restamp } from "./canonical/stamp.ts";
import { noMemo, type Hasher, type Memo } from "./ports.ts";
import type { Publication } from "./inputs/publication.ts";
import type { UpstreamState } from "./inputs/upstream.ts";
import { frameIdOf } from "./frame.ts";
import { EMPTY_LOG, extendLog, type LogHead } from "./log/frames.ts";
import type { NoteSigner } from "./log/checkpoint.ts";
import { resolveSignals } from "./signals.ts";
import { RiskError } from "./errors.ts";
import { sameDay } from "./durations.ts";
import type { BuildContext, PlanFacts, PreviousState, Reads, Surface } from "./surfaces/types.ts";

/** A surface's bytes carried over from the previous frame (see `BuiltFile` in assemble.ts). */
export interface ReusedFile {
  path: string;
  mediaType: string;
  served: Uint8Array;
  stored: null;
  sha256: string;
  storedSha256: string;
  stamped: boolean;
  reuseKey?: string;
}

export type Step =
  | { surface: Surface; action: "reuse"; file: ReusedFile }
  | { surface: Surface; action: "build"; reuseKey?: string }
  | { surface: Surface; action: "append" };

/** What the surfaces to build read, beyond the configuration, the signals and the head frame. */
export interface Needs {
  corpus: boolean;
  signalHistory: boolean;
  /** Window lengths in days, sorted, without duplicates. */
  archiveWindows: number[];
  objects: boolean;
}

export interface Plan {
  steps: Step[];
  needs: Needs;
  /** The previous frame was built by this tool version from the same input files. */
  inputsUnchanged: boolean;
}

/** What is known before planning: the head frame (with the copies surfaces read) and the inputs' fingerprint. */
export interface PlanInput {
  /** The configuration, protocol and methodologies at least (the corpus is not needed to plan). */
  publication: Publication;
  upstream: UpstreamState;
  previous: PreviousState | null;
  /** ISO 8601 UTC instant with a Z, whole seconds. */
  now: string;
  toolVersion: string;
  /** The fingerprint of the publication's input files. */
  inputs: string;
  /** The bytes the previous frame served at a path, when the caller still has them. */
  previousServed?: (path: string) => Uint8Array | null;
  /**
   * True when the caller already knows that the bytes `previousServed` gives for `path` hash to
   * `sha256` (it keeps the stat data of the files it wrote, as Git's index does), so they are not
   * hashed again. Absent or false: they are hashed.
   */
  previousVerified?: (path: string, sha256: string) => boolean;
  /** False turns off every reuse of the previous frame's bytes: each surface is built. */
  reuse?: boolean;
  /** Per-document results kept from earlier assemblies; none by default. */
  memo?: Memo;
  /** Where `now` came from: the system clock (default) or pinned by --now or SOURCE_DATE_EPOCH. */
  clock?: "system" | "pinned";
  /** Signs the frame log's checkpoint in black-box.json, when the publisher configured a key. */
  signer?: NoteSigner;
  /** The counts of reads of the days no frame has published yet, from the access logs (core/traffic/). */
  traffic?: { days: Readonly<Record<string, DayCounts>>; seenThrough?: string | null };
}

/** True when the previous frame was built by this tool version from the same input files. */
function inputsUnchanged(previous: PreviousState | null, inputs: string, toolVersion: string): boolean {
  return previous !== null && previous.frame.inputs === inputs && previous.frame.tool.version === toolVersion;
}

/**
 * Decides every surface's step. A reusable surface (inputs unchanged) or a keyed one (same reuse
 * key as the head frame recorded) is reused when the previous frame's bytes are at hand and hash
 * to what that frame recorded; any other is built, and what it reads is added to the needs.
 */
export function planAssembly(input: PlanInput, surfaces: readonly Surface[], hash: Hasher): Plan {
  const { previous, now } = input;
  checkClock(previous, now);
  const sameInputs = inputsUnchanged(previous, input.inputs, input.toolVersion);
  const facts: PlanFacts = {
    inputsUnchanged: sameInputs,
    hasCopy: (path) => previous?.copies.has(path) ?? false,
    sameDay: previous !== null && sameDay(previous.frame.at, now),
  };
  const keyContext = buildContext(input, surfaces, sameInputs, () => null, hash);
  const needs: Needs = { corpus: false, signalHistory: false, archiveWindows: [], objects: false };
  const windows = new Set<number>();
  const steps: Step[] = surfaces.map((surface): Step => {
    if (surface.appendOnly) return { surface, action: "append" };
    const reuseKey = surface.reuseKey?.(keyContext);
    if (previous && input.reuse !== false) {
      const keyed = reuseKey !== undefined && previous.frame.surfaces[surface.path]?.reuseKey === reuseKey;
      const file = (sameInputs && surface.reusable) || keyed ? reuse(surface, previous, input, hash) : null;
      if (file) return { surface, action: "reuse", file: reuseKey === undefined ? file : { ...file, reuseKey } };
    }
    const reads: Reads = typeof surface.reads === "function" ? surface.reads(facts) : (surface.reads ?? {});
    needs.corpus ||= reads.corpus === true;
    needs.signalHistory ||= reads.signalHistory === true;
    needs.objects ||= reads.objects === true && !sameInputs;
    for (const days of reads.archiveWindows ?? []) windows.add(days);
    return reuseKey === undefined ? { surface, action: "build" } : { surface, action: "build", reuseKey };
  });
  needs.archiveWindows = [...windows].sort((a, b) => a - b);
  // An empty archive has no signal history, windows or manifest to read.
  if (!previous) Object.assign(needs, { signalHistory: false, archiveWindows: [], objects: false });
  return { steps, needs, inputsUnchanged: sameInputs };
}

/** Every path whose head-frame copy some surface reads, in registry order, without duplicates. */
export function copiesRead(surfaces: readonly Surface[]): string[] {
  return [...new Set(surfaces.flatMap((s) => s.previousCopies ?? []))];
}

function checkClock(previous: PreviousState | null, now: string): void {
  if (previous && now <= previous.frame.at) {
    throw new RiskError(
      "E_CLOCK",
      `Cannot assemble at ${now}: the archive's last frame ${previous.frame.frameId} is at ${previous.frame.at}, and frame times must increase. Wait, or pass a later --now.`,
      { now, previous: previous.frame.at },
    );
  }
}

/**
 * The log over every frame before the one being assembled: the head frame's own log extended by
 * the head frame, or the archive's computation for a head written before frames recorded one.
 */
function logBefore(previous: PreviousState | null, hash: Hasher): LogHead {
  if (!previous) return EMPTY_LOG(hash);
  const head = previous.frame;
  if (head.log) return extendLog(hash, head.log, head.frameHash);
  if (previous.log) return previous.log;
  if (head.seq === 1) return extendLog(hash, EMPTY_LOG(hash), head.frameHash);
  throw new Error(`the archive did not give the frame log for head frame ${head.frameId}`);
}

/**
 * The context every builder of one assembly sees. `produced` is filled as surfaces are built, in
 * registry order; `objects` computes the inputs' object manifest on first call.
 */
export function buildContext(
  input: Pick<
    PlanInput,
    "publication" | "upstream" | "previous" | "now" | "toolVersion" | "inputs" | "memo" | "clock" | "signer" | "traffic"
  >,
  registry: readonly Surface[],
  sameInputs: boolean,
  objects: BuildContext["objects"],
  hash: Hasher,
  produced: BuildContext["produced"] = [],
): BuildContext {
  const { publication, previous, now } = input;
  const seq = (previous?.frame.seq ?? 0) + 1;
  const base = publication.config.baseUrl;
  return {
    publication,
    now,
    indexedAt: sameInputs ? (previous!.frame.indexedAt ?? previous!.frame.at) : now,
    upstream: input.upstream,
    signals: resolveSignals(publication, input.upstream, previous?.frame ?? null),
    previous,
    frame: {
      frameId: frameIdOf(seq, now),
      seq,
      previousFrameHash: previous?.frame.frameHash ?? null,
      log: logBefore(previous, hash),
      clock: input.clock ?? "system",
    },
    ...(input.signer ? { signer: input.signer } : {}),
    traffic: input.traffic ?? null,
    hash,
    inputsUnchanged: sameInputs,
    objects,
    produced,
    registry,
    url: (path) => `${base}${path}`,
    inputs: input.inputs,
    toolVersion: input.toolVersion,
    memo: input.memo ?? noMemo,
  };
}

/**
 * The previous frame's bytes of a surface, moved to this instant. They are used only if they
 * still hash to what that frame recorded; otherwise the surface is built again, so a damaged or
 * edited site folder never leaks into a frame.
 */
function reuse(surface: Surface, previous: PreviousState, input: PlanInput, hash: Hasher): ReusedFile | null {
  const before = previous.frame.surfaces[surface.path];
  const bytes = before ? input.previousServed?.(surface.path) : null;
  if (!before || !bytes || bytes.byteLength !== before.bytes) return null;
  if (!input.previousVerified?.(surface.path, before.sha256) && hash.sha256(bytes) !== before.sha256) return null;
  const served = before.stamped ? restamp(bytes, previous.frame.at, input.now) : bytes;
  return {
    path: surface.path,
    mediaType: surface.mediaType,
    served,
    stored: null,
    sha256: before.stamped ? hash.sha256(served) : before.sha256,
    storedSha256: before.storedSha256,
    stamped: before.stamped,
  };
}
