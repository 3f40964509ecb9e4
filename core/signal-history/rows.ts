/**
 * The fused signal history as rows: one observation per instrument and closed UTC day (the last
 * point of that day), and every level change. Shared by the JSON, NDJSON and CSV surfaces.
 */
import { z } from "zod";
import { instrumentsOf, type Publication } from "../inputs/publication.ts";
import { InstrumentKey, IsoDate, IsoDateTime, Level, Tone, SIGNAL_VALUE_FIELDS } from "../schemas/primitives.ts";
import { frameSignalOf } from "../signals.ts";
import type { Frame } from "../frame.ts";
import type { BuildContext } from "../surfaces/types.ts";
import {
  closedDayPoint,
  dayOf,
  levelChangesBetween,
  type DailyPoint,
  type SignalHistory,
  type LevelChange,
} from "./model.ts";

export const EVIDENCE_TIERS = ["operational-archive", "attested-archive", "current-snapshot"] as const;
export const EvidenceTier = z.enum(EVIDENCE_TIERS);

export const EVIDENCE_TIER_MEANINGS: Record<(typeof EVIDENCE_TIERS)[number], string> = {
  "attested-archive":
    "The last point of a closed UTC day, collected from its upstream by the frame that published it (sourceStatus ok); that frame is chained in the archive (see attestedFrames: frameHash and commit), so risk-cli verify checks it and risk-cli replay --date <seriesDate> reproduces it.",
  "operational-archive":
    "The last point of a closed UTC day that its frame published as a value retained from an earlier collection (fallbackUsed true, the upstream having failed): the archive attests that it was published that day, not a fresh upstream reading; the reading is the one recorded at sourceCheckedAt in the operational journal.",
  "current-snapshot":
    "A point of the current, still open UTC day (signals/current.json): it may change at the next assembly and joins the history as the day's last point when the day closes.",
};

export const ObservationRow = z.strictObject({
  recordType: z.literal("observation"),
  seriesId: z.string(),
  instrument: InstrumentKey,
  /** The UTC day this service published the point: the date a backtest uses. */
  seriesDate: IsoDate,
  /** The upstream's economic observation, when it gives one. */
  observedAt: z.union([IsoDateTime, IsoDate]).nullable(),
  ...SIGNAL_VALUE_FIELDS,
  sourceStatus: z.string(),
  qualityStatus: z.string().nullable(),
  fallbackUsed: z.boolean(),
  sourceUpdatedAt: IsoDateTime.nullable(),
  /** The frame that published the point (the day's last) and its time. */
  frameId: z.string(),
  publishedAt: IsoDateTime,
  evidenceTier: EvidenceTier.exclude(["current-snapshot"]),
  backtestable: z.literal(true),
});
export type ObservationRow = z.infer<typeof ObservationRow>;

export const LevelChangeRow = z.strictObject({
  recordType: z.literal("level-change"),
  /** Stable: the frame that found the change and the instrument. */
  id: z.string(),
  seriesId: z.string(),
  instrument: InstrumentKey,
  seriesDate: IsoDate,
  at: IsoDateTime,
  frameId: z.string(),
  previousFrameId: z.string(),
  fromLevel: Level,
  fromTone: Tone,
  fromValue: z.number(),
  toLevel: Level,
  toTone: Tone,
  toValue: z.number(),
  observedAt: z.union([IsoDateTime, IsoDate]).nullable(),
  fallbackUsed: z.boolean(),
  /** Level changes are audit and alerting events, never inputs of a performance computation. */
  backtestable: z.literal(false),
});
export type LevelChangeRow = z.infer<typeof LevelChangeRow>;

/** The history after this assembly: the archive's, plus the day that closes now and the level changes found now. */
export function signalHistoryAfter(ctx: BuildContext): SignalHistory {
  const { previous, now } = ctx;
  const kept = signalHistoryOf(ctx);
  const closed = closedDayPoint(previous, now);
  return {
    daily: closed ? [...kept.daily, closed] : kept.daily,
    levelChanges: [...kept.levelChanges, ...newLevelChanges(ctx)],
  };
}

/**
 * The archive's signal history as the plan loaded it for a surface that reads it (an empty one in
 * an empty archive). Reaching here without it loaded is a planner bug, never a condition to retry.
 */
export function signalHistoryOf(ctx: Pick<BuildContext, "previous">): SignalHistory {
  if (!ctx.previous) return { daily: [], levelChanges: [] };
  if (ctx.previous.signalHistory === undefined)
    throw new Error(
      "The assembly plan did not load the signal history that a surface reads: declare reads.signalHistory on that surface",
    );
  return ctx.previous.signalHistory ?? { daily: [], levelChanges: [] };
}

export function newLevelChanges(ctx: BuildContext): LevelChange[] {
  const { previous, now, signals, frame } = ctx;
  if (!previous) return [];
  const current: Frame["signals"] = {};
  for (const s of signals) current[s.instrument] = frameSignalOf(s);
  return levelChangesBetween(previous.frame.signals, current, {
    frameId: frame.frameId,
    previousFrameId: previous.frame.frameId,
    at: now,
  });
}

/** The surface whose recorded key carries the last level change forward from frame to frame. */
export const SIGNAL_HISTORY_KEY_PATH = "/api/v1/signals/history.json";

/**
 * Everything the signal-history surfaces depend on besides the clock, computed without reading the
 * history: the tool, the input files, the open day (daily points change only when a day closes)
 * and the last frame that found a level change (carried forward in the previous frame's key).
 * Equal keys mean equal bytes, so an assembly within the same day and without a level change
 * reuses them: O(1), not O(days).
 */
export function signalHistoryKey(ctx: BuildContext): string {
  const before = ctx.previous?.frame.surfaces[SIGNAL_HISTORY_KEY_PATH]?.reuseKey?.split(" ")[4];
  const lastChange = newLevelChanges(ctx).length > 0 ? ctx.frame.frameId : (before ?? "-");
  return `history/2 ${ctx.toolVersion ?? "?"} ${ctx.inputs ?? "?"} ${dayOf(ctx.now)} ${lastChange}`;
}

function seriesIds(p: Publication): Map<string, string> {
  return new Map(instrumentsOf(p).map(([key, config]) => [key, config.seriesId]));
}

export function observationRows(p: Publication, daily: readonly DailyPoint[]): ObservationRow[] {
  const ids = seriesIds(p);
  const rows: ObservationRow[] = [];
  for (const day of daily) {
    for (const key of InstrumentKey.options) {
      const s = day.signals[key];
      const seriesId = ids.get(key);
      if (!s || !seriesId) continue;
      rows.push({
        recordType: "observation",
        seriesId,
        instrument: key,
        seriesDate: day.seriesDate,
        observedAt: s.observedAt,
        value: s.value,
        scale: s.scale,
        level: s.level,
        tone: s.tone,
        rawValue: s.rawValue,
        rawUnit: s.rawUnit,
        sourceStatus: s.sourceStatus,
        qualityStatus: s.qualityStatus,
        fallbackUsed: s.fallbackUsed,
        sourceUpdatedAt: s.sourceUpdatedAt,
        frameId: day.frameId,
        publishedAt: day.at,
        evidenceTier: s.fallbackUsed || s.sourceStatus !== "ok" ? "operational-archive" : "attested-archive",
        backtestable: true,
      });
    }
  }
  return rows;
}

export function levelChangeRows(p: Publication, changes: readonly LevelChange[]): LevelChangeRow[] {
  const ids = seriesIds(p);
  return changes.map((c) => ({
    recordType: "level-change",
    id: c.id,
    seriesId: ids.get(c.instrument) ?? c.instrument,
    instrument: c.instrument,
    seriesDate: c.seriesDate,
    at: c.at,
    frameId: c.frameId,
    previousFrameId: c.previousFrameId,
    fromLevel: c.from.level,
    fromTone: c.from.tone,
    fromValue: c.from.value,
    toLevel: c.to.level,
    toTone: c.to.tone,
    toValue: c.to.value,
    observedAt: c.to.observedAt,
    fallbackUsed: c.to.fallbackUsed,
    backtestable: false,
  }));
}
