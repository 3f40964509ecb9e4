import { pageOf } from "../inputs/pages.ts";
import { z } from "zod";
import { DebtLatest } from "../inputs/schemas.ts";
import type { PresentSignal } from "../signals.ts";
import { IsoDate, IsoDateTime, Uri } from "../schemas/primitives.ts";
import { defineSurface, previousCopy } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";
import { MissingInstrument, RiskIndex, indexOf } from "./risk.ts";

const Coverage = z.strictObject({
  /** Share of the families observed before the neutral imputation, 0..1. */
  observed: z.number().min(0).max(1),
  families: z.int().nonnegative(),
  familiesObserved: z.int().nonnegative(),
  imputation: z.string(),
});

export const DebtProvenance = z.strictObject({
  /** The debt source's address ({debt_source_url}). */
  url: Uri,
  format: z.literal("debt-risk-latest/1"),
  generatedAt: IsoDateTime,
  observedAt: IsoDate.nullable(),
  /** The source's score before rounding; `signal.value` is it rounded by the one rule. */
  scoreRaw: z.number(),
  scale: z.number().positive(),
  rounding: z.string(),
  coverage: Coverage,
});

export const DebtRiskSnapshot = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  status: z.enum(["nominal", "degraded", "missing"]),
  /** The debt index exactly as risk.json publishes it; null when there is no value to publish. */
  signal: RiskIndex.nullable(),
  missing: MissingInstrument.nullable(),
  currentStress: z.strictObject({ excludesBudgetOfficeProjections: z.literal(true), rule: z.string() }),
  methodology: z.strictObject({ slug: z.string(), version: z.string(), url: Uri }).nullable(),
  provenance: DebtProvenance.nullable(),
  buckets: DebtLatest.shape.buckets,
  sources: z.array(z.strictObject({ name: z.string(), url: Uri, retrievedAt: IsoDateTime.optional() })),
  topSignals: DebtLatest.shape.topSignals,
  license: z.string(),
  attribution: z.string(),
});
export type DebtRiskSnapshot = z.infer<typeof DebtRiskSnapshot>;

const ROUNDING =
  "signal.value = provenance.scoreRaw on the published scale, rounded to one decimal, half away from zero: the value every surface publishes for this instrument, and the one its level and tone are read from";

export const DEBT_RISK_PATH = "/api/v1/debt-risk.json";

export const debtRisk = defineSurface({ format: "json", schema: DebtRiskSnapshot })({
  path: DEBT_RISK_PATH,
  mediaType: "application/json",
  schemaName: "DebtRiskSnapshot",
  operationId: "debtRiskSnapshot",
  summary:
    "Canonical US debt-risk snapshot: current stress excluding the budget office's projections, coverage before imputation, provenance, buckets, sources, top signals",
  previousCopies: [DEBT_RISK_PATH],
  build(ctx) {
    const { publication: p, now, signals, url } = ctx;
    const s = signals.find((x) => x.instrument === "debt");
    const m = s ? p.methodologies.find((x) => x.slug === s.config.methodology) : undefined;
    const detail = s?.present
      ? details(s, p.config.debtSource.url, previousCopy(ctx, DEBT_RISK_PATH, DebtRiskSnapshot))
      : EMPTY;
    return {
      schema: url("/openapi.json#/components/schemas/DebtRiskSnapshot"),
      version: CONTRACT_VERSION,
      generated: now,
      status: !s?.present
        ? "missing"
        : s.sourceStatus === "ok" && s.qualityStatus === "nominal"
          ? "nominal"
          : "degraded",
      // The instrument's one published value, level and tone, exactly as risk.json has them.
      signal: s?.present ? indexOf(s) : null,
      missing:
        s && !s.present
          ? { instrument: "debt", sourceStatus: s.sourceStatus, reason: s.reason, lastAttemptAt: s.lastAttemptAt }
          : null,
      currentStress: {
        excludesBudgetOfficeProjections: true,
        rule: "The current stress excludes the federal budget office's projections and stabilises missing families by neutral imputation; provenance.coverage gives the coverage observed before imputation.",
      },
      methodology: m ? { slug: m.slug, version: m.version, url: url(pageOf(p.pages.methodology, m.slug)) } : null,
      ...detail,
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});

type Detail = Pick<DebtRiskSnapshot, "provenance" | "buckets" | "sources" | "topSignals">;
const EMPTY: Detail = { provenance: null, buckets: [], sources: [], topSignals: [] };

/**
 * The fresh debt file's details, or, for a retained value, those the previous frame published with
 * it (never re-derived, so provenance always matches the value shown).
 */
function details(s: PresentSignal, sourceUrl: string, before: DebtRiskSnapshot | null): Detail {
  if (s.debt) {
    const d = s.debt;
    return {
      provenance: {
        url: sourceUrl,
        format: d.format,
        generatedAt: d.generatedAt,
        observedAt: d.observedAt ?? null,
        scoreRaw: d.scoreRaw,
        scale: d.scale,
        rounding: ROUNDING,
        coverage: d.coverage,
      },
      buckets: d.buckets,
      sources: d.sources,
      topSignals: d.topSignals,
    };
  }
  if (s.fallbackUsed && before?.provenance && before.provenance.scoreRaw === s.rawValue) {
    return {
      provenance: before.provenance,
      buckets: before.buckets,
      sources: before.sources,
      topSignals: before.topSignals,
    };
  }
  return EMPTY;
}
