import type { InstrumentConfig } from "./inputs/schemas.ts";

export type Tone = "calm" | "moderate" | "elevated" | "crisis";
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
