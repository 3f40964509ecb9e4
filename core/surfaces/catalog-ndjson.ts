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
import { sortDocs } from "./common.ts";
import { contentSummary, editorialProtocol, glossaryEntries, methodologySummaries, primarySources } from "./records.ts";

/** One line of the catalog stream: the catalog record, tagged with `recordType`. */
export const CatalogLine = z.discriminatedUnion("recordType", [
  ContentSummary.extend({ recordType: z.literal("article") }),
  ContentSummary.extend({ recordType: z.literal("guide") }),
  MethodologySummary.extend({ recordType: z.literal("methodology") }),
  GlossaryEntry.extend({ recordType: z.literal("glossary") }),
  PrimarySource.extend({ recordType: z.literal("primary-source") }),
  EditorialProtocol.extend({ recordType: z.literal("protocol") }),
]);

export const catalogNdjson = defineSurface({ format: "ndjson", schema: CatalogLine })({
  path: "/api/v1/catalog.ndjson",
  mediaType: "application/x-ndjson",
  reusable: true,
  reads: { corpus: true },
  schemaName: "CatalogLine",
  linesFrom: {
    path: "/api/v1/catalog.json",
    records: [
      { at: "articles", recordType: "article" },
      { at: "guides", recordType: "guide" },
      { at: "methodologies", recordType: "methodology" },
      { at: "glossary", recordType: "glossary" },
      { at: "primarySources", recordType: "primary-source" },
      { at: "editorial/protocol", recordType: "protocol" },
    ],
  },
  summary:
    "The catalog as one JSON object per line: articles, guides, methodologies, glossary, primary sources, protocol",
  build({ publication: p, indexedAt, url, memo }) {
    const editorial = editorialOf(p, indexedAt, url, memo);
    return [
      ...sortDocs(p.articles).map((d) => ({
        recordType: "article" as const,
        ...contentSummary(d, url, editorial, p.pages),
      })),
      ...sortDocs(p.guides).map((d) => ({
        recordType: "guide" as const,
        ...contentSummary(d, url, editorial, p.pages),
      })),
      ...methodologySummaries(p, url).map((m) => ({ recordType: "methodology" as const, ...m })),
      ...glossaryEntries(p, url).map((g) => ({ recordType: "glossary" as const, ...g })),
      ...primarySources(p, url).map((s) => ({ recordType: "primary-source" as const, ...s })),
      { recordType: "protocol", ...editorialProtocol(p, url) },
    ];
  },
});
