import { z } from "zod";
import { SOURCE_STATUSES } from "../inputs/upstream.ts";
import { QUALITY_STATUSES, freshnessFields, type PresentSignal, type Signal } from "../signals.ts";
import {
  EditorialPrecisionGuard,
  InstrumentKey,
  IsoDate,
  IsoDateTime,
  Level,
  RiskBandScaleCaveat,
  Tone,
  Uri,
} from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";

/** `sourceStatus` values: README, "Risk signals". */
export const SourceStatusSchema = z.enum(SOURCE_STATUSES);
export const QualityStatusSchema = z.enum(QUALITY_STATUSES);
/** An upstream observation: a date-time in UTC, or a full date when that is all the upstream gives. */
export const ObservedAt = z.union([IsoDateTime, IsoDate]);

/** The freshness fields (source and quality status, fallback, the four times), as risk.json and signals/current.json publish them (see `freshnessFields`). */
export const FRESHNESS_FIELDS = {
  sourceStatus: SourceStatusSchema,
  qualityStatus: QualityStatusSchema,
  fallbackUsed: z.boolean(),
  sourceUpdatedAt: IsoDateTime.nullable(),
  sourceCheckedAt: IsoDateTime,
  lastAttemptAt: IsoDateTime,
  lastSuccessAt: IsoDateTime,
};

export const RiskIndex = z.strictObject({
  value: z.number(),
  scale: z.number(),
  level: Level,
  tone: Tone,
  label: z.string(),
  source: Uri,
  rawValue: z.number().optional(),
  rawUnit: z.string().optional(),
  observedAt: ObservedAt.optional(),
  ...FRESHNESS_FIELDS,
});

/** An instrument with no value to publish: its upstream failed and no earlier frame had a value. */
export const MissingInstrument = z.strictObject({
  instrument: InstrumentKey,
  sourceStatus: SourceStatusSchema.exclude(["ok"]),
  reason: z.string(),
  lastAttemptAt: IsoDateTime,
});

export const RiskSnapshot = z.strictObject({
  version: z.string(),
  generated: IsoDateTime,
  snapshot: IsoDateTime,
  status: z.enum(["nominal", "degraded"]),
  indices: z.partialRecord(InstrumentKey, RiskIndex),
  missing: z.array(MissingInstrument),
  scaleCaveat: RiskBandScaleCaveat,
  precisionGuard: EditorialPrecisionGuard,
  confluence: z
    .strictObject({
      updated: IsoDateTime,
      count: z.int(),
      conviction: z.string(),
      top: z.strictObject({ ticker: z.string(), score: z.number(), quadrant: z.string() }),
    })
    .nullable(),
  license: z.string(),
  attribution: z.string(),
});

/** The fields of a present signal that risk.json publishes, in the contract's names. */
export function indexOf(s: PresentSignal): z.input<typeof RiskIndex> {
  return {
    value: s.value,
    scale: s.scale,
    level: s.level,
    tone: s.tone,
    label: s.config.label.fr,
    source: s.config.dashboard,
    ...(s.rawValue !== undefined ? { rawValue: s.rawValue } : {}),
    ...(s.rawUnit !== undefined ? { rawUnit: s.rawUnit } : {}),
    ...(s.observedAt !== undefined ? { observedAt: s.observedAt } : {}),
    ...freshnessFields(s),
  };
}

/** Nominal when every instrument was collected fresh, in time and at full quality. */
export function overallStatus(signals: readonly Signal[]): "nominal" | "degraded" {
  return signals.every(
    (s) =>
      s.present && s.sourceStatus === "ok" && (s.qualityStatus === "nominal" || s.qualityStatus === "official-delayed"),
  )
    ? "nominal"
    : "degraded";
}

export const risk = defineSurface({ format: "json", schema: RiskSnapshot })({
  path: "/api/v1/risk.json",
  mediaType: "application/json",
  schemaName: "RiskSnapshot",
  operationId: "riskSnapshot",
  summary: "Risk snapshot: one index per instrument measured by its own dashboard; no global aggregate",
  build({ publication: p, now, upstream, signals }) {
    const indices: Record<string, z.input<typeof RiskIndex>> = {};
    const missing: z.input<typeof MissingInstrument>[] = [];
    let snapshot: string | null = null;
    for (const s of signals) {
      if (!s.present) {
        missing.push({
          instrument: s.instrument,
          sourceStatus: s.sourceStatus,
          reason: s.reason,
          lastAttemptAt: s.lastAttemptAt,
        });
        continue;
      }
      indices[s.instrument] = indexOf(s);
      if (s.sourceUpdatedAt !== null && (snapshot === null || s.sourceUpdatedAt > snapshot))
        snapshot = s.sourceUpdatedAt;
    }
    return {
      version: CONTRACT_VERSION,
      generated: now,
      // The time of the data: the latest upstream publication among the values shown.
      snapshot: snapshot ?? now,
      status: overallStatus(signals),
      indices,
      missing,
      scaleCaveat: p.config.riskBandScaleCaveat,
      precisionGuard: p.protocol.precisionGuard,
      confluence: upstream.confluence,
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});
