import { z } from "zod";
import { canonicalJson } from "./canonical/jcs.ts";
import type { Hasher } from "./ports.ts";
import { InstrumentKey, IsoDate, IsoDateTime } from "./schemas/primitives.ts";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const FrameSurface = z.strictObject({
  mediaType: z.string(),
  sha256: Sha256,
  bytes: z.int().nonnegative(),
  /** The archive stores this JSON surface without its top-level `generated`, which equals `at`. */
  stamped: z.boolean(),
  /** SHA-256 of the stored form; it changes only when the content does. */
  storedSha256: Sha256,
  /** The key under which a later assembly may reuse these bytes. */
  reuseKey: z.string().optional(),
});

/**
 * A signal as the frame records it: what was published, and what the next assembly needs to fall
 * back on it when its upstream fails (the value, its scale, raw value and dates). The fields after
 * `lastSuccessAt` are optional so that frames written before they existed still read.
 */
export const FrameSignal = z.strictObject({
  value: z.number().nullable(),
  level: z.string().nullable(),
  tone: z.string().nullable(),
  sourceStatus: z.string(),
  fallbackUsed: z.boolean(),
  sourceUpdatedAt: IsoDateTime.nullable(),
  lastSuccessAt: IsoDateTime.nullable(),
  scale: z.number().positive().optional(),
  rawValue: z.number().optional(),
  rawUnit: z.string().optional(),
  /** The upstream's observation: a date-time, or a full date when that is all the upstream gives. */
  observedAt: z.union([IsoDateTime, IsoDate]).optional(),
  qualityStatus: z.string().nullable().optional(),
  sourceCheckedAt: IsoDateTime.nullable().optional(),
  lastAttemptAt: IsoDateTime.optional(),
  /** Why the last attempt failed, or why the reading is stale; null when nothing is wrong. */
  reason: z.string().nullable().optional(),
});
export type FrameSignal = z.infer<typeof FrameSignal>;

/**
 * The point-in-time record of one assembly. `frameHash` is the SHA-256 of the canonical frame
 * without `frameHash`; `previousFrameHash` chains it to the frame before.
 */
export const Frame = z.strictObject({
  format: z.literal("risk-cli-frame/1"),
  frameId: z.string(),
  seq: z.int().positive(),
  at: IsoDateTime,
  previousFrameId: z.string().nullable(),
  previousFrameHash: Sha256.nullable(),
  tool: z.strictObject({ name: z.literal("risk-cli"), version: z.string() }),
  /** SHA-256 of every input file's path and text (see fingerprintInputs). */
  inputs: Sha256,
  /**
   * When the corpus in these inputs was indexed: this frame's `at`, or the earlier frame's
   * `indexedAt` when the inputs and the tool are the same. References carry it as `indexedAt`,
   * so rebuilding unchanged inputs gives the same bytes.
   */
  indexedAt: IsoDateTime.optional(),
  surfaces: z.record(z.string(), FrameSurface),
  signals: z.partialRecord(InstrumentKey, FrameSignal),
  models: z.record(z.string(), z.string()),
  changes: z.strictObject({ added: z.array(z.string()), changed: z.array(z.string()), removed: z.array(z.string()) }),
  /**
   * The object manifest stored beside the frame (objects.json: per-object content hashes, for the
   * changefeed): its SHA-256 and how many objects. Absent in frames written before it existed.
   */
  objects: z.strictObject({ sha256: Sha256, count: z.int().nonnegative() }).optional(),
  /**
   * The operational journal /api/v1/history.ndjson after this frame: how many
   * records it holds and the SHA-256 state after its last byte (core/history/sha256.ts), from
   * which the next frame hashes only the record it appends. The archive stores the journal as
   * day shards (journal/YYYY/MM/DD.ndjson), never as one blob.
   */
  journal: z.strictObject({ records: z.int().nonnegative(), state: z.string() }).optional(),
  /**
   * The Merkle log of the frames before this one (core/log/frames.ts): its size (seq - 1), root
   * and right edge. Absent in frames written before it existed.
   */
  log: z.strictObject({ size: z.int().nonnegative(), root: Sha256, edge: z.array(Sha256).max(64) }).optional(),
  /**
   * Where this frame's time came from: the system clock, or pinned by --now or
   * SOURCE_DATE_EPOCH (reproducible builds and tests). Absent in frames written before it existed.
   */
  clock: z.enum(["system", "pinned"]).optional(),
  /**
   * What each instrument's upstream sent at this frame: the SHA-256 and size of the exact
   * document (stored at upstream/<instrument> in the frame's tree), or why there is none. Absent in
   * frames written before it existed.
   */
  upstream: z
    .partialRecord(
      InstrumentKey,
      z.union([
        z.strictObject({ sha256: Sha256, bytes: z.int().nonnegative() }),
        z.strictObject({ reason: z.string() }),
      ]),
    )
    .optional(),
  /**
   * What the archive stores beside the frame that no surface fingerprints: the SHA-256 of its
   * README.md and LICENSE, and the commit's author and committer (`name <email>`). Absent in
   * frames written before it existed.
   */
  about: z.strictObject({ readme: Sha256, license: Sha256, author: z.string() }).optional(),
  frameHash: Sha256,
});
export type Frame = z.infer<typeof Frame>;

/**
 * What a risk-diff window reads of its baseline frame (core/surfaces/risk-diff.ts): the ids, the
 * signals and the models. Three baselines are read at every assembly, and checking only these
 * fields costs a quarter of the whole frame schema; the frame's other fields are ignored, never
 * trusted. `verify` still checks every frame against `Frame`.
 */
export const BaselineFrame = z.object({
  frameId: Frame.shape.frameId,
  at: Frame.shape.at,
  frameHash: Frame.shape.frameHash,
  signals: Frame.shape.signals,
  models: Frame.shape.models,
});
export type BaselineFrame = z.infer<typeof BaselineFrame>;
export type FrameBody = Omit<Frame, "frameHash">;

export function frameHashOf(body: FrameBody, hash: Hasher): string {
  const { frameHash: _ignored, ...rest } = body as Frame;
  return hash.sha256(new TextEncoder().encode(canonicalJson(rest, "frame")));
}

/** `000042-20261121T154500Z`: sortable, unique while frame times strictly increase. */
export function frameIdOf(seq: number, at: string): string {
  return `${String(seq).padStart(6, "0")}-${at.replace(/[-:]/g, "").replace(/\.\d+/, "")}`;
}
