import * as fs from "node:fs";
import { resolve } from "node:path";
import { RiskError } from "../../core/errors.ts";
import { querySearchIndex } from "../../core/editorial/search.ts";
import type { SearchIndexSurface } from "../../core/surfaces/search-index.ts";
import type { z } from "zod";

export interface SearchReport {
  ok: true;
  query: string;
  lang: "fr" | "en" | null;
  index: string;
  hits: {
    id: string;
    score: number;
    type: string;
    lang: string;
    title: string;
    url: string;
    date: string | null;
    terms: string[];
  }[];
}

/** Queries the search index the last assembly published in the site folder. */
export function runSearch(opts: {
  query: string;
  lang?: "fr" | "en";
  limit: number;
  site: string;
  json: boolean;
}): SearchReport {
  const file = resolve(opts.site, "api/v1/search-index.json");
  let surface: z.infer<typeof SearchIndexSurface>;
  try {
    surface = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    throw new RiskError(
      "E_INPUT",
      missing
        ? `No search index at ${file}; run risk-cli assemble first, or pass --site`
        : `Cannot read the search index ${file}: ${(e as Error).message}`,
      { file },
    );
  }
  if (!opts.query.trim()) throw new RiskError("E_USAGE", "The query is empty; give one or more words");
  const documents = new Map(surface.documents.map((d) => [d.id, d]));
  const hits = querySearchIndex(surface.index, opts.query, { lang: opts.lang, limit: opts.limit }).map((h) => {
    const d = documents.get(h.id)!;
    return {
      id: h.id,
      score: h.score,
      type: d.type,
      lang: d.lang,
      title: d.title,
      url: d.url,
      date: d.date,
      terms: h.terms,
    };
  });
  if (!opts.json) {
    if (hits.length === 0) process.stdout.write(`no result for "${opts.query}"\n`);
    for (const h of hits)
      process.stdout.write(
        `${h.score.toFixed(2).padStart(7)}  ${h.lang}  ${h.type.padEnd(14)} ${h.title}\n${" ".repeat(26)}${h.url}\n`,
      );
  }
  return { ok: true, query: opts.query, lang: opts.lang ?? null, index: file, hits };
}
