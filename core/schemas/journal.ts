/**
 * The operational journal's record schema, apart from its surface builder so that reading the
 * journal back (replay, verify) does not load the signal code the builder needs.
 */
import { z } from "zod";
import { InstrumentKey, IsoDate, IsoDateTime, Level, Tone } from "./primitives.ts";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const JournalSignal = z.strictObject({
  value: z.number().nullable(),
  level: Level.nullable(),
  tone: Tone.nullable(),
  sourceStatus: z.string(),
  qualityStatus: z.string().nullable(),
  fallbackUsed: z.boolean(),
  observedAt: z.union([IsoDateTime, IsoDate]).nullable(),
  lastSuccessAt: IsoDateTime.nullable(),
});

/** One assembly, as the raw operational journal records it. */
export const JournalRecord = z.strictObject({
  recordType: z.literal("assembly"),
  frameId: z.string(),
  seq: z.int().positive(),
  at: IsoDateTime,
  previousFrameId: z.string().nullable(),
  previousFrameHash: Sha256.nullable(),
  tool: z.string(),
  inputs: z.string(),
  signals: z.partialRecord(InstrumentKey, JournalSignal),
  /** Surfaces added or whose content changed since the previous frame: the frame's `changes.added` and `changes.changed`. */
  changed: z.array(z.string()),
  /** Ids of the level changes this assembly found against the previous frame. */
  levelChanges: z.array(z.string()),
});
export type JournalRecord = z.infer<typeof JournalRecord>;
