/**
 * Counts of reads per closed UTC day, and what of them may be published with k=5: no published
 * figure, stated or derivable by subtraction, stands for fewer than five reads.
 *
 * In each breakdown (pages within a language, referrer domains, languages), a cell under k is
 * not named: it goes into the breakdown's `other` bucket with the number of cells it holds. When
 * that bucket would be under k (and would then be recoverable as the total minus the named
 * cells), the smallest named cells join it until it reaches k. The pages are broken down within
 * each published language, so that a language's total minus its named pages is that language's
 * `other` bucket, never a smaller figure; when a language is under k, both languages go into
 * `other` and the pages are broken down over the day's total. Totals without a published
 * complement (machine reads per family, previews, robots, scans, late lines) are shown when they
 * reach k and marked suppressed otherwise. A day, once published, never changes.
 */
import type { MachineFamily } from "./classify.ts";

export const K = 5;

/** Where a human read of a path that is no page of the publication is counted, and published. */
export const OTHER_PAGES = "(other pages)";
/**
 * Where such a read under /en/ is counted: apart from the French ones, so that each language's
 * pages add up to its total (a language's total minus its named pages is never a figure under k).
 * Published as OTHER_PAGES within the English pages.
 */
export const OTHER_PAGES_EN = "/en/(other pages)";

export interface DayCounts {
  human: number;
  pages: Record<string, number>;
  /** Referrer domains; "" for reads with no referrer or one from the site itself. */
  referrers: Record<string, number>;
  languages: { fr: number; en: number };
  machine: Record<MachineFamily, number>;
  previews: number;
  robots: number;
  scans: number;
  /** Lines that arrived for a day already published: dropped from its counts, counted here (the day they arrived). */
  late: number;
}

export const emptyDay = (): DayCounts => ({
  human: 0,
  pages: {},
  referrers: {},
  languages: { fr: 0, en: 0 },
  machine: { api: 0, mcp: 0, feed: 0, text: 0, download: 0 },
  previews: 0,
  robots: 0,
  scans: 0,
  late: 0,
});

/** A published count: the number, or null and `suppressed` when it is under k. */
export interface Count {
  reads: number | null;
  suppressed: boolean;
}

export interface Breakdown {
  cells: { key: string; reads: number }[];
  /** The cells not named: how many, and their reads together (0 or at least k). */
  other: { cells: number; reads: number };
}

export interface PublishedDay {
  date: string;
  human: {
    total: Count;
    languages: Breakdown | null;
    /** Pages within each published language, or over the whole day when languages are not published. */
    pages: Record<string, Breakdown> | null;
    referrers: Breakdown | null;
  };
  machine: Record<MachineFamily, Count>;
  previews: Count;
  robots: Count;
  scans: Count;
  late: Count;
}

const count = (n: number): Count => (n >= K ? { reads: n, suppressed: false } : { reads: null, suppressed: n > 0 });

/** Names the cells of at least k and merges the rest, growing the bucket to k when it is not empty. */
export function breakdown(cells: Record<string, number>): Breakdown {
  const entries = Object.entries(cells)
    .filter(([, n]) => n > 0)
    .sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const named = entries.filter(([, n]) => n >= K);
  const merged = entries.filter(([, n]) => n < K);
  let otherReads = merged.reduce((s, [, n]) => s + n, 0);
  let otherCells = merged.length;
  // A bucket under k would be recovered by subtraction: the smallest named cells join it.
  while (otherReads > 0 && otherReads < K && named.length > 0) {
    const [, n] = named.pop()!;
    otherReads += n;
    otherCells++;
  }
  return { cells: named.map(([key, reads]) => ({ key, reads })), other: { cells: otherCells, reads: otherReads } };
}

export function publishDay(date: string, d: DayCounts): PublishedDay {
  const tiny = d.human < K;
  let languages: Breakdown | null = null;
  let pages: Record<string, Breakdown> | null = null;
  let referrers: Breakdown | null = null;
  if (!tiny) {
    languages = breakdown(d.languages);
    referrers = breakdown(Object.fromEntries(Object.entries(d.referrers).map(([k, n]) => [k || "(none)", n])));
    const lang = (p: string) => (p === "/en/" || p.startsWith("/en/") ? "en" : "fr");
    // The English reads of other paths are published under the same name as the French ones.
    const shown = (cells: [string, number][]) => {
      const out: Record<string, number> = {};
      for (const [p, n] of cells) {
        const key = p === OTHER_PAGES_EN ? OTHER_PAGES : p;
        out[key] = (out[key] ?? 0) + n;
      }
      return out;
    };
    const namedLanguages = new Set(languages.cells.map((c) => c.key));
    if (namedLanguages.size === 2) {
      pages = {};
      for (const l of ["fr", "en"] as const)
        pages[l] = breakdown(shown(Object.entries(d.pages).filter(([p]) => lang(p) === l)));
    } else pages = { all: breakdown(shown(Object.entries(d.pages))) };
  }
  return {
    date,
    human: { total: count(d.human), languages, pages, referrers },
    machine: Object.fromEntries(Object.entries(d.machine).map(([k, n]) => [k, count(n)])) as Record<
      MachineFamily,
      Count
    >,
    previews: count(d.previews),
    robots: count(d.robots),
    scans: count(d.scans),
    late: count(d.late),
  };
}
