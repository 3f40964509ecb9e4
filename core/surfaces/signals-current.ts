import { z } from "zod";
import { freshnessFields, type PresentSignal } from "../signals.ts";
import { InstrumentKey, IsoDate, IsoDateTime, Uri, SIGNAL_VALUE_FIELDS } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";
import { FRESHNESS_FIELDS, MissingInstrument, ObservedAt } from "./risk.ts";

export const SignalCurrent = z.strictObject({
  instrument: InstrumentKey,
  seriesId: z.string(),
  slug: z.string(),
  label: z.strictObject({ fr: z.string(), en: z.string() }),
  methodology: z.strictObject({ slug: z.string(), version: z.string() }),
  source: Uri,
  ...SIGNAL_VALUE_FIELDS,
  /** The UTC day of the assembly that published this point: the date a backtest may use. */
  seriesDate: IsoDate,
  /** The upstream's economic observation, when it gives one; never a publication date. */
  observedAt: ObservedAt.nullable(),
  ...FRESHNESS_FIELDS,
  staleAfter: z.string(),
  /** Why this attempt failed (the value is then retained) or why the reading is stale; null otherwise. */
  reason: z.string().nullable(),
  evidenceTier: z.literal("current-snapshot"),
});

export const SignalCurrentSurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  seriesDate: IsoDate,
  policy: z.strictObject({
    seriesDate: z.string(),
    observedAt: z.string(),
    fallback: z.string(),
    rounding: z.string(),
  }),
  signals: z.array(SignalCurrent),
  missing: z.array(MissingInstrument),
  license: z.string(),
  attribution: z.string(),
});

export const signalsCurrent = defineSurface({ format: "json", schema: SignalCurrentSurface })({
  path: "/api/v1/signals/current.json",
  mediaType: "application/json",
  schemaName: "SignalCurrentSurface",
  operationId: "signalCurrentSurface",
  summary:
    "Current signals: the latest point-in-time observation per instrument, with its publication date and its upstream observation date",
  build({ publication: p, now, signals, url }) {
    const seriesDate = now.slice(0, 10);
    const version = (slug: string) => p.methodologies.find((m) => m.slug === slug)?.version ?? "unknown";
    const point = (s: PresentSignal): z.input<typeof SignalCurrent> => ({
      instrument: s.instrument,
      seriesId: s.config.seriesId,
      slug: s.config.slug,
      label: s.config.label,
      methodology: { slug: s.config.methodology, version: version(s.config.methodology) },
      source: s.config.dashboard,
      value: s.value,
      scale: s.scale,
      level: s.level,
      tone: s.tone,
      rawValue: s.rawValue ?? null,
      rawUnit: s.rawUnit ?? null,
      seriesDate,
      observedAt: s.observedAt ?? null,
      ...freshnessFields(s),
      staleAfter: s.config.staleAfter,
      reason: s.reason,
      evidenceTier: "current-snapshot",
    });
    return {
      schema: url("/openapi.json#/components/schemas/SignalCurrentSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      seriesDate,
      policy: {
        seriesDate:
          "seriesDate is the UTC day on which this service published the point; backtests use it as the publication date.",
        observedAt:
          "observedAt is the upstream's own economic observation date, when it gives one; use it only as the economic date, never as a publication date.",
        fallback:
          "fallbackUsed true means the upstream failed at lastAttemptAt and the value is the last good one, collected at lastSuccessAt and published upstream at sourceUpdatedAt: it is not fresh.",
        rounding:
          "value is normalised to the instrument's scale and rounded to one decimal, half away from zero; rawValue keeps the upstream's native unit.",
      },
      signals: signals.flatMap((s) => (s.present ? [point(s)] : [])),
      missing: signals.flatMap((s) =>
        s.present
          ? []
          : [
              {
                instrument: s.instrument,
                sourceStatus: s.sourceStatus,
                reason: s.reason,
                lastAttemptAt: s.lastAttemptAt,
              },
            ],
      ),
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});
