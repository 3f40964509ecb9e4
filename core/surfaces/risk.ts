import { z } from "zod";
import { levelOf } from "../levels.ts";
import { instrumentsOf } from "../inputs/publication.ts";
import { roundValue } from "../inputs/upstream.ts";
import { EditorialPrecisionGuard, InstrumentKey, IsoDateTime, Level, RiskBandScaleCaveat, Tone, Uri } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./_corpus.ts";

export const RiskIndex = z.strictObject({
  value: z.number(),
  scale: z.number(),
  level: Level,
  tone: Tone,
  label: z.string(),
  source: Uri,
  rawValue: z.number().optional(),
  rawUnit: z.string().optional(),
  observedAt: IsoDateTime.optional(),
  sourceStatus: z.string(),
  qualityStatus: z.string(),
  fallbackUsed: z.boolean(),
  sourceUpdatedAt: IsoDateTime.nullable(),
  sourceCheckedAt: IsoDateTime.nullable(),
  lastAttemptAt: IsoDateTime,
  lastSuccessAt: IsoDateTime.nullable(),
});

export const RiskSnapshot = z.strictObject({
  version: z.string(),
  generated: IsoDateTime,
  snapshot: IsoDateTime,
  status: z.enum(["nominal", "degraded"]),
  indices: z.partialRecord(InstrumentKey, RiskIndex),
  missing: z.array(z.strictObject({ instrument: InstrumentKey, reason: z.string() })),
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

export const risk = defineSurface({
  path: "/api/v1/risk.json",
  mediaType: "application/json",
  format: "json",
  schema: RiskSnapshot,
  schemaName: "RiskSnapshot",
  operationId: "riskSnapshot",
  summary: "Risk snapshot: one index per instrument measured by its own dashboard; no global aggregate",
  build({ publication: p, now, upstream }) {
    const indices: Record<string, z.input<typeof RiskIndex>> = {};
    const missing: { instrument: z.infer<typeof InstrumentKey>; reason: string }[] = [];
    let snapshot: string | null = null;
    for (const [key, cfg] of instrumentsOf(p)) {
      const result = upstream.instruments[key];
      if (!result || !result.ok) {
        missing.push({ instrument: key, reason: result ? result.error : "not collected" });
        continue;
      }
      const r = result.reading;
      const value = roundValue((r.value / r.scale) * cfg.scale);
      const { level, tone } = levelOf(value, cfg.thresholds);
      indices[key] = {
        value,
        scale: cfg.scale,
        level,
        tone,
        label: cfg.label.fr,
        source: cfg.dashboard,
        rawValue: r.rawValue,
        rawUnit: r.rawUnit,
        observedAt: r.observedAt,
        sourceStatus: "ok",
        qualityStatus: r.qualityStatus,
        fallbackUsed: false,
        sourceUpdatedAt: r.publishedAt,
        sourceCheckedAt: upstream.attemptedAt,
        lastAttemptAt: upstream.attemptedAt,
        lastSuccessAt: upstream.attemptedAt,
      };
      if (snapshot === null || r.publishedAt > snapshot) snapshot = r.publishedAt;
    }
    return {
      version: CONTRACT_VERSION,
      generated: now,
      snapshot: snapshot ?? now,
      status: missing.length === 0 ? "nominal" : "degraded",
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
