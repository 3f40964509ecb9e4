import { z } from "zod";
import {
  ContentSummary,
  EditorialProtocol,
  GlossaryEntry,
  MethodologySummary,
  PrimarySource,
} from "../schemas/contract.ts";
import { editorialOf } from "../editorial/analysis.ts";
import { defineSurface } from "./types.ts";
import {
  contentSummary,
  editorialProtocol,
  glossaryEntries,
  methodologySummaries,
  primarySources,
  sortDocs,
} from "./_corpus.ts";

/** One line of the catalog stream: the catalog record, tagged with `recordType`. */
export const CatalogLine = z.discriminatedUnion("recordType", [
  ContentSummary.extend({ recordType: z.literal("article") }),
  ContentSummary.extend({ recordType: z.literal("guide") }),
  MethodologySummary.extend({ recordType: z.literal("methodology") }),
  GlossaryEntry.extend({ recordType: z.literal("glossary") }),
  PrimarySource.extend({ recordType: z.literal("primary-source") }),
  EditorialProtocol.extend({ recordType: z.literal("protocol") }),
]);

export const catalogNdjson = defineSurface({
  path: "/api/v1/catalog.ndjson",
  mediaType: "application/x-ndjson",
  format: "ndjson",
  reusable: true,
  schema: CatalogLine,
  schemaName: "CatalogLine",
  summary: "The catalog as one JSON object per line: articles, guides, methodologies, glossary, primary sources, protocol",
  build({ publication: p, indexedAt, url }) {
    const editorial = editorialOf(p, indexedAt, url);
    return [
      ...sortDocs(p.articles).map((d) => ({ recordType: "article", ...contentSummary(d, url, editorial) })),
      ...sortDocs(p.guides).map((d) => ({ recordType: "guide", ...contentSummary(d, url, editorial) })),
      ...methodologySummaries(p, url).map((m) => ({ recordType: "methodology", ...m })),
      ...glossaryEntries(p, url).map((g) => ({ recordType: "glossary", ...g })),
      ...primarySources(p, url).map((s) => ({ recordType: "primary-source", ...s })),
      { recordType: "protocol", ...editorialProtocol(p, url) },
    ];
  },
});
