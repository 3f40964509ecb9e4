import { Catalog } from "../schemas/contract.ts";
import { editorialOf } from "../editorial/analysis.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION, byCodeUnits, slugify, sortDocs } from "./common.ts";
import {
  contentSummary,
  editorialChangelog,
  editorialProtocol,
  glossaryEntries,
  methodologySummaries,
  primarySources,
} from "./records.ts";

export const catalog = defineSurface({ format: "json", schema: Catalog })({
  path: "/api/v1/catalog.json",
  mediaType: "application/json",
  reusable: true,
  reads: { corpus: true },
  schemaName: "Catalog",
  operationId: "catalog",
  summary:
    "Full catalog: articles, guides, topics, methodologies, glossary, primary sources, editorial protocol and changelog",
  build({ publication: p, now, indexedAt, url, memo }) {
    const editorial = editorialOf(p, indexedAt, url, memo);
    const glossary = glossaryEntries(p, url);
    const categories = new Map<string, number>();
    for (const g of glossary) categories.set(g.category, (categories.get(g.category) ?? 0) + 1);
    const changelog = editorialChangelog(p, url);
    const methodologies = methodologySummaries(p, url);
    const sources = primarySources(p, url);
    return {
      schema: url("/openapi.json#/components/schemas/Catalog"),
      version: CONTRACT_VERSION,
      generated: now,
      note: "Best-effort publication; not investment advice. Content licence CC BY 4.0 with attribution.",
      license: p.config.license,
      attribution: p.config.attribution,
      counts: {
        articles: p.articles.length,
        guides: p.guides.length,
        topics: p.topics.length,
        methodologies: methodologies.length,
        glossary: glossary.length,
        primarySources: sources.length,
        editorialChangelog: changelog.length,
      },
      articles: sortDocs(p.articles).map((d) => contentSummary(d, url, editorial, p.pages)),
      guides: sortDocs(p.guides).map((d) => contentSummary(d, url, editorial, p.pages)),
      topics: p.topics,
      methodologies,
      glossary,
      glossaryCategories: [...categories]
        .sort(([a], [b]) => byCodeUnits(slugify(a), slugify(b)))
        .map(([title, count]) => ({ slug: slugify(title), title, count })),
      primarySources: sources,
      editorial: { protocol: editorialProtocol(p, url), changelog },
      riskBandScaleCaveat: p.config.riskBandScaleCaveat,
    };
  },
});
