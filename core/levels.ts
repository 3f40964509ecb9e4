import type { InstrumentConfig } from "./inputs/schemas.ts";

import type { Tone } from "./schemas/primitives.ts";
export type LevelLabel = "Détendu" | "Modéré" | "Élevé/Tendu" | "Crise";

const LABELS: Record<Tone, LevelLabel> = {
  calm: "Détendu",
  moderate: "Modéré",
  elevated: "Élevé/Tendu",
  crisis: "Crise",
};

/** The level of a value: each threshold is the lower bound (inclusive) of its level. */
export function levelOf(value: number, thresholds: InstrumentConfig["thresholds"]): { tone: Tone; level: LevelLabel } {
  const tone: Tone =
    value >= thresholds.crisis
      ? "crisis"
      : value >= thresholds.elevated
        ? "elevated"
        : value >= thresholds.moderate
          ? "moderate"
          : "calm";
  return { tone, level: LABELS[tone] };
}

/**
 * The debt signal's value as debt-risk.json published it before it took the one-decimal value
 * every surface publishes: the source's raw score on the published scale, rounded to an integer,
 * half away from zero (52.47 gives 52, 52.5 gives 53); without provenance, the value rounded the
 * same way. `verify` still reads older frames by it.
 */
export function publishedInteger(
  value: number,
  scale: number,
  provenance: { scoreRaw: number; scale: number } | null | undefined,
): number {
  const raw = provenance ? (provenance.scoreRaw / provenance.scale) * scale : value;
  return Math.sign(raw) * Math.floor(Math.abs(raw) + 0.5 + 1e-9);
}
