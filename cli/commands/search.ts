import { resolve } from "node:path";
import { MAX_SURFACE_BYTES, readSiteFile } from "../../app/published.ts";
import { brokenLink } from "../../archive/regular-file.ts";
import { RiskError } from "../../core/errors.ts";
import { searchPublishedIndex } from "../../core/editorial/search.ts";
import { oneLine } from "../terminal.ts";

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
  const link = brokenLink(resolve(opts.site));
  if (link)
    throw new RiskError(
      "E_USAGE",
      `--site ${opts.site.slice(0, 200)} is ${link}: give the site folder itself, as --site ./site`,
    );
  // Only a regular file inside the site is read, and no larger than any site file can be: a link
  // to /dev/zero or a FIFO put in its place would otherwise fill the memory or hang.
  const bytes = readSiteFile(opts.site, "/api/v1/search-index.json", (size) => {
    if (size > MAX_SURFACE_BYTES)
      throw new RiskError(
        "E_INPUT",
        `The search index ${file} is ${size} bytes, more than any site file risk-cli publishes (${MAX_SURFACE_BYTES}): assemble the site again, or pass --site`,
        { file },
      );
  });
  if (bytes === null)
    throw new RiskError("E_INPUT", `No search index at ${file}; run risk-cli assemble first, or pass --site`, { file });
  let surface: unknown;
  try {
    surface = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new RiskError("E_INPUT", `Cannot read the search index ${file}: ${(e as Error).message}`, { file });
  }
  if (!opts.query.trim()) throw new RiskError("E_USAGE", "The query is empty; give one or more words");
  const hits = searchPublishedIndex(surface, file, opts.query, { lang: opts.lang, limit: opts.limit }).map(
    ({ hit: h, document: d }) => ({
      id: h.id,
      score: h.score,
      type: d.type,
      lang: d.lang,
      title: d.title,
      url: d.url,
      date: d.date,
      terms: h.terms,
    }),
  );
  if (!opts.json) {
    // The index is a file of the site folder, which anyone may have copied or edited: its texts
    // are shown one line each, controls escaped.
    if (hits.length === 0) process.stdout.write(`no result for "${oneLine(opts.query)}"\n`);
    for (const h of hits)
      process.stdout.write(
        `${h.score.toFixed(2).padStart(7)}  ${oneLine(h.lang)}  ${oneLine(h.type).padEnd(14)} ${oneLine(h.title)}\n${" ".repeat(26)}${oneLine(h.url)}\n`,
      );
  }
  return { ok: true, query: opts.query, lang: opts.lang ?? null, index: file, hits };
}
