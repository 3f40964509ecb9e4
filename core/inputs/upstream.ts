import type { ReadOnlyFs } from "../ports.ts";
import type { InstrumentKey } from "../schemas/primitives.ts";
import { parseWithSchema } from "./locate.ts";
import { instrumentsOf, type Publication } from "./publication.ts";
import { ConfluenceFile, DashboardReading, DebtLatest, type ConfluenceFile as Confluence } from "./schemas.ts";
import type { z } from "zod";

/** A normalised upstream reading of one instrument. */
export interface Reading {
  value: number;
  scale: number;
  rawValue?: number;
  rawUnit?: string;
  observedAt?: string;
  publishedAt: string;
  qualityStatus: "nominal" | "official-delayed";
  debt?: z.infer<typeof DebtLatest>;
}

export type UpstreamResult =
  | { ok: true; source: string; reading: Reading }
  | { ok: false; source: string; error: string };

export interface UpstreamState {
  /** When collection was attempted (the assembly instant). */
  attemptedAt: string;
  instruments: Partial<Record<InstrumentKey, UpstreamResult>>;
  confluence: Confluence | null;
}

/**
 * Reads the upstream readings of the publication's instruments from files (a path relative to
 * the publication, or a file: URL). A failing upstream is recorded, never thrown: one upstream
 * never stops an assembly.
 */
export async function readUpstream(fs: ReadOnlyFs, p: Publication, attemptedAt: string): Promise<UpstreamState> {
  const instruments: UpstreamState["instruments"] = {};
  await Promise.all(
    instrumentsOf(p).map(async ([key, cfg]) => {
      const source = cfg.source;
      try {
        const file = resolveLocal(p.root, source);
        const text = await fs.readText(file);
        const reading = key === "debt" ? fromDebt(parseWithSchema(file, text, DebtLatest, { json: true })) : fromDashboard(file, key, parseWithSchema(file, text, DashboardReading, { json: true }));
        if (reading.value < 0 || reading.value > cfg.scale || !Number.isFinite(reading.value)) {
          throw new Error(`value ${reading.value} is outside 0..${cfg.scale}`);
        }
        instruments[key] = { ok: true, source, reading };
      } catch (e) {
        instruments[key] = { ok: false, source, error: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
  let confluence: Confluence | null = null;
  if (p.config.confluence) {
    const file = resolveLocal(p.root, p.config.confluence);
    confluence = parseWithSchema(file, await fs.readText(file), ConfluenceFile, { json: true });
  }
  return { attemptedAt, instruments, confluence };
}

function fromDashboard(file: string, key: InstrumentKey, r: z.infer<typeof DashboardReading>): Reading {
  if (r.instrument !== key) throw new Error(`${file} is a reading of "${r.instrument}", not "${key}"`);
  return {
    value: r.value,
    scale: r.scale,
    rawValue: r.rawValue,
    rawUnit: r.rawUnit,
    observedAt: r.observedAt,
    publishedAt: r.publishedAt,
    qualityStatus: r.qualityStatus,
  };
}

function fromDebt(d: z.infer<typeof DebtLatest>): Reading {
  return {
    value: roundValue(d.scoreRaw),
    scale: d.scale,
    rawValue: d.scoreRaw,
    observedAt: d.observedAt ? `${d.observedAt}T00:00:00Z` : undefined,
    publishedAt: d.generatedAt,
    qualityStatus: "nominal",
    debt: d,
  };
}

function resolveLocal(root: string, source: string): string {
  if (source.startsWith("file:")) return decodeURIComponent(new URL(source).pathname);
  if (/^[a-z][a-z0-9+.-]*:/i.test(source)) {
    throw new Error(`${source}: only local files and file: URLs are read by this version; network collection is not implemented yet`);
  }
  return source.startsWith("/") ? source : `${root}/${source}`;
}

/** The one rounding rule of the tool: published values have one decimal, half away from zero. */
export function roundValue(x: number): number {
  const r = Math.round(Math.abs(x) * 10 + 1e-9) / 10;
  return x < 0 ? -r : r;
}
