/**
 * What an assembly publishes for each instrument: the fresh reading when its upstream answered,
 * otherwise the last good value of the archive's previous frame, flagged so that it never looks
 * fresh, otherwise nothing (missing). Nothing is ever made up. The README's "Risk signals" section
 * documents every status and timestamp set here.
 */
import type { FrameSignal } from "./frame.ts";
import { REASON_MAX, sourceLabel } from "./inputs/collect.ts";
import { instrumentsOf, type Publication } from "./inputs/publication.ts";
import type { DebtLatest, InstrumentConfig } from "./inputs/schemas.ts";
import {
  normalisedValue,
  publishableExcerpt,
  roundValue,
  type SourceStatus,
  type UpstreamState,
} from "./inputs/upstream.ts";
import { ageSeconds, durationSeconds } from "./durations.ts";
import { levelOf, type LevelLabel } from "./levels.ts";
import type { InstrumentKey, Tone } from "./schemas/primitives.ts";

/**
 * `nominal`, `official-delayed` and `unknown` come from the upstream; `stale` is a fresh reading whose
 * upstream publication is at least the instrument's `staleAfter` old, or a retained one as old;
 * `degraded` is a value retained from an earlier assembly because this attempt failed, not yet that old.
 */
export const QUALITY_STATUSES = ["nominal", "official-delayed", "unknown", "stale", "degraded"] as const;
export type QualityStatus = (typeof QUALITY_STATUSES)[number];

export interface PresentSignal {
  instrument: InstrumentKey;
  config: InstrumentConfig;
  present: true;
  value: number;
  scale: number;
  level: LevelLabel;
  tone: Tone;
  rawValue?: number;
  rawUnit?: string;
  observedAt?: string;
  sourceStatus: SourceStatus;
  qualityStatus: QualityStatus;
  fallbackUsed: boolean;
  /** When the upstream published the value shown; null when the upstream gives no publication time. */
  sourceUpdatedAt: string | null;
  /** When the aggregator last read the upstream successfully and got the value shown. */
  sourceCheckedAt: string;
  /** This collection attempt. */
  lastAttemptAt: string;
  /** The last attempt that succeeded (this one, unless fallbackUsed). */
  lastSuccessAt: string;
  /** Why this attempt failed, when it did. */
  reason: string | null;
  /** The debt source's latest file when collected by this attempt. */
  debt: DebtLatest | null;
}

export interface MissingSignal {
  instrument: InstrumentKey;
  config: InstrumentConfig;
  present: false;
  sourceStatus: Exclude<SourceStatus, "ok">;
  reason: string;
  lastAttemptAt: string;
}

export type Signal = PresentSignal | MissingSignal;

/**
 * Turns a reading published before the one the previous frame already showed (an upstream, or a
 * cache in front of it, serving an older copy) into an upstream error, as a reading from the future
 * is: it is no new data, and publishing it would move the signal back in time, with a level change
 * nobody announced. The document stays, so the frame keeps what the upstream sent.
 */
export function withoutOlderReadings(
  p: Publication,
  upstream: UpstreamState,
  previous: { signals: Partial<Record<InstrumentKey, FrameSignal>> } | null,
): UpstreamState {
  let instruments: UpstreamState["instruments"] | null = null;
  for (const [key, config] of instrumentsOf(p)) {
    const result = upstream.instruments[key];
    const shown = previous?.signals[key]?.sourceUpdatedAt;
    if (!result?.ok || !shown || result.reading.publishedAt === null) continue;
    const at = result.reading.publishedAt;
    if (Date.parse(at) >= Date.parse(shown)) continue;
    // Named as the upstream's own format names it: the debt snapshot says generatedAt.
    const field = result.reading.debt ? "generatedAt" : "publishedAt";
    instruments ??= { ...upstream.instruments };
    instruments[key] = {
      ok: false,
      source: result.source,
      status: "invalid-document",
      error: publishableExcerpt(
        `${sourceLabel(p.root, config.source)}: field ${field}: ${at} is before ${shown}, when the reading already published was; an older copy is never published as fresh`,
        REASON_MAX,
      ),
      ...(result.document !== undefined ? { document: result.document } : {}),
    };
  }
  return instruments ? { ...upstream, instruments } : upstream;
}

/** One signal per configured instrument, in the registry's order. */
export function resolveSignals(
  p: Publication,
  upstream: UpstreamState,
  previous: { signals: Partial<Record<InstrumentKey, FrameSignal>> } | null,
): Signal[] {
  const now = upstream.attemptedAt;
  return instrumentsOf(p).map(([key, config]): Signal => {
    const result = upstream.instruments[key] ?? {
      ok: false as const,
      source: config.source,
      status: "unreachable" as const,
      error: "not collected",
    };
    if (result.ok) {
      const r = result.reading;
      const value = normalisedValue(r, config.scale);
      // Without a publication time, the reading's age cannot be told: it is not called stale, and
      // the reason says so. Stale from the instant freshness.json's expiresAt names on, as it says.
      const stale = isStale(r.publishedAt, now, config);
      return {
        ...valueOf(key, config, value, r),
        sourceStatus: "ok",
        qualityStatus: stale ? "stale" : r.qualityStatus,
        fallbackUsed: false,
        sourceUpdatedAt: r.publishedAt,
        sourceCheckedAt: now,
        lastAttemptAt: now,
        lastSuccessAt: now,
        reason: stale
          ? `the upstream published this reading at ${r.publishedAt}, ${config.staleAfter} or more ago`
          : r.publishedAt === null
            ? "the upstream gives no publication time: the reading's age cannot be told"
            : null,
        debt: r.debt ?? null,
      };
    }
    const before = previous?.signals[key];
    if (!before || before.value === null || before.lastSuccessAt === null) {
      return {
        instrument: key,
        config,
        present: false,
        sourceStatus: result.status,
        reason: result.error,
        lastAttemptAt: now,
      };
    }
    // The scale may have changed in the configuration since; the value follows it.
    const value =
      before.scale === undefined || before.scale === config.scale
        ? before.value
        : roundValue((before.value / before.scale) * config.scale);
    // A retained value ages like a fresh one: past its expiry it is stale, as freshness.json says,
    // never made to look less stale because its upstream also failed.
    const stale = isStale(before.sourceUpdatedAt, now, config);
    return {
      ...valueOf(key, config, value, before),
      sourceStatus: result.status,
      qualityStatus: stale ? "stale" : "degraded",
      fallbackUsed: true,
      sourceUpdatedAt: before.sourceUpdatedAt,
      sourceCheckedAt: before.sourceCheckedAt ?? before.lastSuccessAt,
      lastAttemptAt: now,
      lastSuccessAt: before.lastSuccessAt,
      reason: stale
        ? `${result.error}; the value retained was published at ${before.sourceUpdatedAt}, ${config.staleAfter} or more ago`
        : result.error,
      debt: null,
    };
  });
}

/** True when a reading the upstream published at `publishedAt` is `staleAfter` old or more at `now`; false when its publication time is not known. */
function isStale(publishedAt: string | null | undefined, now: string, config: InstrumentConfig): boolean {
  return publishedAt != null && ageSeconds(publishedAt, now) >= durationSeconds(config.staleAfter);
}

/** The fields a present signal has whether its value is fresh or retained: value, level, raw value. */
function valueOf(
  instrument: InstrumentKey,
  config: InstrumentConfig,
  value: number,
  raw: { rawValue?: number | null; rawUnit?: string | null; observedAt?: string | null },
) {
  return {
    instrument,
    config,
    present: true as const,
    value,
    scale: config.scale,
    ...levelOf(value, config.thresholds),
    ...(raw.rawValue != null ? { rawValue: raw.rawValue } : {}),
    ...(raw.rawUnit != null ? { rawUnit: raw.rawUnit } : {}),
    ...(raw.observedAt != null ? { observedAt: raw.observedAt } : {}),
  };
}

/** What the frame records of a signal: enough for the next assembly to fall back on it. */
export function frameSignalOf(s: Signal): FrameSignal {
  if (!s.present) {
    return {
      value: null,
      level: null,
      tone: null,
      sourceStatus: s.sourceStatus,
      fallbackUsed: false,
      sourceUpdatedAt: null,
      lastSuccessAt: null,
      qualityStatus: null,
      lastAttemptAt: s.lastAttemptAt,
      reason: s.reason,
    };
  }
  return {
    value: s.value,
    scale: s.scale,
    level: s.level,
    tone: s.tone,
    ...(s.rawValue !== undefined ? { rawValue: s.rawValue } : {}),
    ...(s.rawUnit !== undefined ? { rawUnit: s.rawUnit } : {}),
    ...(s.observedAt !== undefined ? { observedAt: s.observedAt } : {}),
    ...freshnessFields(s),
    reason: s.reason,
  };
}

/**
 * The freshness fields of a present signal (source and quality status, fallback, update, check, attempt and success times), the same in the frame, risk.json and signals/current.json:
 * what the upstream published, when it was last checked, and this aggregator's own attempts.
 */
export function freshnessFields(s: PresentSignal) {
  return {
    sourceStatus: s.sourceStatus,
    qualityStatus: s.qualityStatus,
    fallbackUsed: s.fallbackUsed,
    sourceUpdatedAt: s.sourceUpdatedAt,
    sourceCheckedAt: s.sourceCheckedAt,
    lastAttemptAt: s.lastAttemptAt,
    lastSuccessAt: s.lastSuccessAt,
  };
}

// Kept importable from here, where they lived first.
export { ageSeconds, durationSeconds };
