/**
 * What the archive keeps of the signal history, beside the frames: the last point of each closed
 * UTC day and every level change, each appended once to a monthly shard that never changes after
 * its month. Both are pure functions of two consecutive frames, so the assembly that builds the
 * surfaces and the commit that writes the shards (and `verify`, which checks them) agree.
 */
import { z } from "zod";
import type { Frame, FrameSignal } from "../frame.ts";
import { InstrumentKey, IsoDate, IsoDateTime, Level, Tone, SIGNAL_VALUE_FIELDS } from "../schemas/primitives.ts";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const ObservedAt = z.union([IsoDateTime, IsoDate]);

/** One instrument's published point, as the day's last frame recorded it. */
export const DailySignal = z.strictObject({
  ...SIGNAL_VALUE_FIELDS,
  observedAt: ObservedAt.nullable(),
  sourceStatus: z.string(),
  qualityStatus: z.string().nullable(),
  fallbackUsed: z.boolean(),
  sourceUpdatedAt: IsoDateTime.nullable(),
});
export type DailySignal = z.infer<typeof DailySignal>;

/** The last frame of a closed UTC day: one line of `history/daily/YYYY/MM.ndjson`. */
export const DailyPoint = z.strictObject({
  seriesDate: IsoDate,
  frameId: z.string(),
  frameHash: Sha256,
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  at: IsoDateTime,
  /**
   * Records of the whole journal up to and including that frame; the day's own count is the
   * difference with the previous daily point (records between two closes are that day's frames).
   */
  journal: z.strictObject({ through: z.int().nonnegative() }),
  signals: z.partialRecord(InstrumentKey, DailySignal),
});
export type DailyPoint = z.infer<typeof DailyPoint>;

/** A signal whose tone differs from the frame before: one line of `history/level-changes/YYYY/MM.ndjson`. */
export const LevelChange = z.strictObject({
  id: z.string(),
  instrument: InstrumentKey,
  frameId: z.string(),
  previousFrameId: z.string(),
  at: IsoDateTime,
  seriesDate: IsoDate,
  from: z.strictObject({ level: Level, tone: Tone, value: z.number() }),
  to: z.strictObject({
    level: Level,
    tone: Tone,
    value: z.number(),
    rawValue: z.number().nullable(),
    rawUnit: z.string().nullable(),
    observedAt: ObservedAt.nullable(),
    sourceStatus: z.string(),
    fallbackUsed: z.boolean(),
  }),
});
export type LevelChange = z.infer<typeof LevelChange>;

/** The signal history kept in the archive: every daily point and level change (read by archive/api/history.ts). */
export interface SignalHistory {
  daily: DailyPoint[];
  levelChanges: LevelChange[];
}

export const dayOf = (at: string) => at.slice(0, 10);

/**
 * The point of the UTC day that closes with this assembly: the previous frame, when this one is
 * the first of a later day. Null when no day closes (or there is no previous frame).
 */
export function closedDayPoint(previous: { frame: Frame; commit: string } | null, now: string): DailyPoint | null {
  if (!previous || dayOf(previous.frame.at) >= dayOf(now)) return null;
  const f = previous.frame;
  const signals: DailyPoint["signals"] = {};
  for (const [key, s] of Object.entries(f.signals) as [InstrumentKey, FrameSignal][]) {
    if (s.value === null || s.level === null || s.tone === null) continue;
    signals[key] = {
      value: s.value,
      scale: s.scale ?? 100,
      level: s.level as DailySignal["level"],
      tone: s.tone as DailySignal["tone"],
      rawValue: s.rawValue ?? null,
      rawUnit: s.rawUnit ?? null,
      observedAt: s.observedAt ?? null,
      sourceStatus: s.sourceStatus,
      qualityStatus: s.qualityStatus ?? null,
      fallbackUsed: s.fallbackUsed,
      sourceUpdatedAt: s.sourceUpdatedAt,
    };
  }
  return {
    seriesDate: dayOf(f.at),
    frameId: f.frameId,
    frameHash: f.frameHash,
    commit: previous.commit,
    at: f.at,
    journal: { through: f.journal?.records ?? 0 },
    signals,
  };
}

/**
 * Level changes between two consecutive frames: an instrument published in both whose tone
 * differs. An instrument missing in either frame has no baseline, so it changes no level.
 */
export function levelChangesBetween(
  before: Frame["signals"],
  after: Frame["signals"],
  ref: { frameId: string; previousFrameId: string; at: string },
): LevelChange[] {
  const out: LevelChange[] = [];
  for (const key of InstrumentKey.options) {
    const a = before[key];
    const b = after[key];
    if (!a || !b || a.value === null || b.value === null || !a.tone || !b.tone || !a.level || !b.level) continue;
    if (a.tone === b.tone) continue;
    out.push({
      id: `${ref.frameId}/${key}`,
      instrument: key,
      frameId: ref.frameId,
      previousFrameId: ref.previousFrameId,
      at: ref.at,
      seriesDate: dayOf(ref.at),
      from: {
        level: a.level as LevelChange["from"]["level"],
        tone: a.tone as LevelChange["from"]["tone"],
        value: a.value,
      },
      to: {
        level: b.level as LevelChange["to"]["level"],
        tone: b.tone as LevelChange["to"]["tone"],
        value: b.value,
        rawValue: b.rawValue ?? null,
        rawUnit: b.rawUnit ?? null,
        observedAt: b.observedAt ?? null,
        sourceStatus: b.sourceStatus,
        fallbackUsed: b.fallbackUsed,
      },
    });
  }
  return out;
}
