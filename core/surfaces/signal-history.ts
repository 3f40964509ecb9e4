import { z } from "zod";
import { instrumentsOf, type Publication } from "../inputs/publication.ts";
import { InstrumentKey, IsoDate, IsoDateTime, Uri } from "../schemas/primitives.ts";
import {
  EVIDENCE_TIER_MEANINGS,
  EVIDENCE_TIERS,
  EvidenceTier,
  LevelChangeRow,
  ObservationRow,
  signalHistoryKey,
  signalHistoryAfter,
  levelChangeRows,
  observationRows,
  type ObservationRow as Observation,
} from "../signal-history/rows.ts";
import { dayOf, type SignalHistory } from "../signal-history/model.ts";
import { CONTRACT_VERSION } from "./common.ts";
import { defineSurface, type BuildContext } from "./types.ts";

export const HistoryCoverage = z.strictObject({
  firstSeriesDate: IsoDate.nullable(),
  lastSeriesDate: IsoDate.nullable(),
  /** The current UTC day: still open, so not in observations yet. */
  openDay: IsoDate,
  days: z.int().nonnegative(),
  observations: z.int().nonnegative(),
  levelChanges: z.int().nonnegative(),
  series: z.array(
    z.strictObject({
      seriesId: z.string(),
      instrument: InstrumentKey,
      observations: z.int().nonnegative(),
      firstSeriesDate: IsoDate.nullable(),
      lastSeriesDate: IsoDate.nullable(),
      csv: Uri,
    }),
  ),
});

export const HistoryPolicy = z.strictObject({
  seriesDate: z.string(),
  observedAt: z.string(),
  sampling: z.string(),
  interpolation: z.string(),
  fusion: z.string(),
  levelChanges: z.string(),
});

export const HistoryCurrent = z.strictObject({
  seriesDate: IsoDate,
  evidenceTier: z.literal("current-snapshot"),
  href: Uri,
  rule: z.string(),
});

export const BacktestPolicy = z.strictObject({
  backtestable: z.array(z.literal("observation")),
  notBacktestable: z.array(z.literal("level-change")),
  publicationDate: z.literal("seriesDate"),
  economicDate: z.literal("observedAt"),
  rule: z.string(),
});

export const EvidenceTierDoc = z.strictObject({ id: EvidenceTier, meaning: z.string() });

/**
 * No `generated`: the document changes only with its content (a day closes, a level change), so
 * it is byte-identical across a day's frames and the archive and `verify` handle it once a day.
 * `coverage.openDay` dates it.
 */
export const SignalHistorySurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  coverage: HistoryCoverage,
  policy: HistoryPolicy,
  current: HistoryCurrent,
  observations: z.array(ObservationRow),
  levelChanges: z.array(LevelChangeRow),
  /** Per closed UTC day: how many assemblies the operational journal recorded, and the day's last frame. */
  dailyJournal: z.array(
    z.strictObject({ seriesDate: IsoDate, records: z.int().nonnegative(), lastFrameId: z.string(), journal: Uri }),
  ),
  /** The frames whose points the history holds, with what proves them. */
  attestedFrames: z.array(
    z.strictObject({
      seriesDate: IsoDate,
      frameId: z.string(),
      frameHash: z.string().regex(/^[0-9a-f]{64}$/),
      commit: z.string().regex(/^[0-9a-f]{40}$/),
      at: IsoDateTime,
    }),
  ),
  evidenceTiers: z.array(EvidenceTierDoc),
  backtestPolicy: BacktestPolicy,
  license: z.string(),
  attribution: z.string(),
});

export const HISTORY_POLICY = {
  seriesDate:
    "seriesDate is the UTC day on which this service published the point (the day of the frame that published it): backtests use it as the publication date.",
  observedAt:
    "observedAt is the upstream's own economic observation, when it gives one: use it only as the economic date, never as a publication date.",
  sampling:
    "The canonical history keeps the last point of each closed UTC day: the last frame of that day. The raw journal (/api/v1/history.ndjson) keeps every assembly.",
  interpolation: "None: a day without a frame, or an instrument without a value in the day's last frame, has no row.",
  fusion:
    "Observations come from the archive's frames (the day's last frame, chained and replayable); the daily journal counts the operational records of each day.",
  levelChanges:
    "A level change is found by comparing an assembly's signals with the archive's previous frame; it is an audit and alerting event, not a backtestable observation.",
};

const BACKTEST_POLICY = {
  backtestable: ["observation" as const],
  notBacktestable: ["level-change" as const],
  publicationDate: "seriesDate" as const,
  economicDate: "observedAt" as const,
  rule: "Backtest on observation rows indexed by seriesDate: a row is known from the end of its seriesDate, never earlier. Level-change rows serve audit and alerting only.",
};

/** The CSV path of one series. */
export const seriesCsvPath = (seriesId: string) => `/api/v1/signals/${seriesId}/history.csv`;

function coverageOf(
  p: Publication,
  now: string,
  h: SignalHistory,
  rows: readonly Observation[],
  url: (p: string) => string,
): z.input<typeof HistoryCoverage> {
  return {
    firstSeriesDate: h.daily[0]?.seriesDate ?? null,
    lastSeriesDate: h.daily.at(-1)?.seriesDate ?? null,
    openDay: dayOf(now),
    days: h.daily.length,
    observations: rows.length,
    levelChanges: h.levelChanges.length,
    series: instrumentsOf(p).map(([key, config]) => {
      const own = rows.filter((r) => r.instrument === key);
      return {
        seriesId: config.seriesId,
        instrument: key,
        observations: own.length,
        firstSeriesDate: own[0]?.seriesDate ?? null,
        lastSeriesDate: own.at(-1)?.seriesDate ?? null,
        csv: url(seriesCsvPath(config.seriesId)),
      };
    }),
  };
}

function currentOf(now: string, url: (p: string) => string): z.input<typeof HistoryCurrent> {
  return {
    seriesDate: dayOf(now),
    evidenceTier: "current-snapshot",
    href: url("/api/v1/signals/current.json"),
    rule: "The open day's points are published in signals/current.json (evidenceTier current-snapshot); each joins observations as the day's last point once the UTC day closes, so the history never holds a value that may still change.",
  };
}

const evidenceTiers = () => EVIDENCE_TIERS.map((id) => ({ id, meaning: EVIDENCE_TIER_MEANINGS[id] }));

export const signalHistory = defineSurface({ format: "json", schema: SignalHistorySurface })({
  path: "/api/v1/signals/history.json",
  mediaType: "application/json",
  schemaName: "SignalHistorySurface",
  operationId: "signalHistorySurface",
  summary:
    "Fused canonical signal history: the last point of each UTC day per series, level changes, daily journal, attested frames, evidence tiers and backtest policy",
  reuseKey: signalHistoryKey,
  reads: { signalHistory: true },
  build(ctx: BuildContext) {
    const { publication: p, now, url } = ctx;
    const h = signalHistoryAfter(ctx);
    const observations = observationRows(p, h.daily);
    return {
      schema: url("/openapi.json#/components/schemas/SignalHistorySurface"),
      version: CONTRACT_VERSION,
      coverage: coverageOf(p, now, h, observations, url),
      policy: HISTORY_POLICY,
      current: currentOf(now, url),
      observations,
      levelChanges: levelChangeRows(p, h.levelChanges),
      dailyJournal: h.daily.map((d, i) => ({
        seriesDate: d.seriesDate,
        records: Math.max(0, d.journal.through - (h.daily[i - 1]?.journal.through ?? 0)),
        lastFrameId: d.frameId,
        journal: url("/api/v1/history.ndjson"),
      })),
      attestedFrames: h.daily.map((d) => ({
        seriesDate: d.seriesDate,
        frameId: d.frameId,
        frameHash: d.frameHash,
        commit: d.commit,
        at: d.at,
      })),
      evidenceTiers: evidenceTiers(),
      backtestPolicy: BACKTEST_POLICY,
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});

/** The first line of the history stream. It has no `generated`, so the stream changes only with the history. */
export const HistoryMetaLine = z.strictObject({
  recordType: z.literal("meta"),
  schema: Uri,
  version: z.string(),
  coverage: HistoryCoverage,
  policy: HistoryPolicy,
  current: HistoryCurrent,
  evidenceTiers: z.array(EvidenceTierDoc),
  backtestPolicy: BacktestPolicy,
  license: z.string(),
  attribution: z.string(),
});

/** One line of /api/v1/signals/history.ndjson, tagged with `recordType`. */
export const SignalHistoryLine = z.discriminatedUnion("recordType", [HistoryMetaLine, ObservationRow, LevelChangeRow]);

export const signalHistoryNdjson = defineSurface({ format: "ndjson", schema: SignalHistoryLine })({
  path: "/api/v1/signals/history.ndjson",
  mediaType: "application/x-ndjson",
  schemaName: "SignalHistoryLine",
  summary: "The fused signal history as lines: one meta line, then observation lines, then level-change lines",
  reuseKey: signalHistoryKey,
  reads: { signalHistory: true },
  build(ctx: BuildContext) {
    const { publication: p, now, url } = ctx;
    const h = signalHistoryAfter(ctx);
    const observations = observationRows(p, h.daily);
    return [
      {
        recordType: "meta",
        schema: url("/api/v1/signals/schema.json"),
        version: CONTRACT_VERSION,
        coverage: coverageOf(p, now, h, observations, url),
        policy: HISTORY_POLICY,
        current: currentOf(now, url),
        evidenceTiers: evidenceTiers(),
        backtestPolicy: BACKTEST_POLICY,
        license: p.config.license,
        attribution: p.config.attribution,
      },
      ...observations,
      ...levelChangeRows(p, h.levelChanges),
    ];
  },
});
