import { pageOf } from "../inputs/pages.ts";
import { z } from "zod";
import { markdownToPlain } from "../editorial/plain.ts";
import {
  serialisedSearchIndex,
  SEARCH_DEFAULTS,
  SEARCH_FIELDS,
  STORED_FIELDS,
  type SearchDocument,
} from "../editorial/search.ts";
import type { Publication } from "../inputs/publication.ts";
import { IsoDate, IsoDateTime, Uri } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION, byId, docPath, type UrlOf } from "./common.ts";

const MINISEARCH_VERSION = "7.2.0";

const DocumentType = z.enum(["article", "guide", "glossary", "methodology", "primary-source"]);

export const SearchIndexDocument = z.strictObject({
  id: z.string(),
  type: DocumentType,
  lang: z.enum(["fr", "en"]),
  slug: z.string(),
  title: z.string(),
  url: Uri,
  description: z.string(),
  date: IsoDate.nullable(),
});

export const SearchIndexSurface = z.strictObject({
  schema: Uri,
  version: z.string(),
  generated: IsoDateTime,
  counts: z.strictObject({ documents: z.int(), fr: z.int(), en: z.int(), terms: z.int() }),
  engine: z.strictObject({
    name: z.literal("minisearch"),
    version: z.string(),
    idField: z.literal("id"),
    fields: z.array(z.string()),
    storeFields: z.array(z.string()),
    processTerm: z.string(),
    searchOptions: z.strictObject({
      boost: z.record(z.string(), z.number()),
      prefix: z.boolean(),
      fuzzy: z.number(),
    }),
    loading: z.string(),
  }),
  documents: z.array(SearchIndexDocument),
  index: z
    .string()
    .refine((s) => s.startsWith('{"documentCount":') && s.endsWith("}"), {
      message: "a serialised minisearch index (JSON text)",
    })
    .describe(
      "The minisearch index as JSON text (JSON.stringify of MiniSearch#toJSON()): load it with MiniSearch.loadJSON(index, options).",
    ),
});

/**
 * Every searchable document of the publication, in a stable order (type, language, slug). The
 * plain text of an article or guide is worked out from its Markdown only when it is read, which
 * the index does only for a document whose tokens it does not already have.
 */
export function searchDocuments(p: Publication, url: UrlOf): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (const d of [...p.articles, ...p.guides]) {
    const source = `${d.meta.summary ?? ""}\n${d.body}`;
    let text: string | undefined;
    docs.push({
      id: `${d.kind}:${d.lang}:${d.slug}`,
      type: d.kind,
      lang: d.lang,
      slug: d.slug,
      title: d.meta.title,
      url: url(docPath(d)),
      description: d.meta.description,
      date: d.meta.date,
      source,
      ...(d.bodyKey ? { sourceKey: JSON.stringify([d.file, d.bodyKey, d.meta.summary ?? ""]) } : {}),
      get text() {
        text ??= markdownToPlain(source);
        return text;
      },
      tags: [...(d.meta.tags ?? []), ...(d.meta.topics ?? [])].join(" "),
    });
  }
  for (const g of p.glossary) {
    docs.push({
      id: `glossary:fr:${g.slug}`,
      type: "glossary",
      lang: "fr",
      slug: g.slug,
      title: g.sigle ? `${g.name} (${g.sigle})` : g.name,
      url: url(pageOf(p.pages.glossaryEntry, g.slug)),
      description: g.definition,
      date: null,
      ...textAsIs(g.atlas ? [g.atlas.intuition, g.atlas.formula, g.atlas.whyNow].filter(Boolean).join(" ") : ""),
      tags: g.category,
    });
  }
  for (const m of p.methodologies) {
    docs.push({
      id: `methodology:fr:${m.slug}`,
      type: "methodology",
      lang: "fr",
      slug: m.slug,
      title: m.title,
      url: url(pageOf(p.pages.methodology, m.slug)),
      description: m.description,
      date: m.updated,
      ...textAsIs(`${m.question} ${(m.sources ?? []).map((s) => `${s.name} ${s.role}`).join(" ")}`),
      tags: `${m.label} ${m.instrument ?? ""}`.trim(),
    });
  }
  for (const s of p.primarySources) {
    docs.push({
      id: `primary-source:fr:${s.slug}`,
      type: "primary-source",
      lang: "fr",
      slug: s.slug,
      title: s.name,
      url: url(pageOf(p.pages.source, s.slug)),
      description: s.description,
      date: null,
      ...textAsIs((s.datasets ?? []).map((d) => `${d.name} ${d.role}`).join(" ")),
      tags: `${s.shortName ?? ""} ${s.category}`,
    });
  }
  return docs.sort(byId);
}

/** The body of a document that is plain text already: its own source. */
const textAsIs = (text: string) => ({ source: text, text });

/**
 * A document as the index lists it, field by field: a spread would read `text`, working out every
 * plain text again. A function of the module, as byId in ./common.ts says why.
 */
const listedDocument = (d: SearchDocument) => ({
  id: d.id,
  type: d.type,
  lang: d.lang,
  slug: d.slug,
  title: d.title,
  url: d.url,
  description: d.description,
  date: d.date,
});

export const searchIndex = defineSurface({ format: "json", schema: SearchIndexSurface })({
  path: "/api/v1/search-index.json",
  mediaType: "application/json",
  reusable: true,
  reads: { corpus: true },
  schemaName: "SearchIndexSurface",
  summary:
    "Bilingual search index (French and English): the documents and a serialised minisearch index a browser page can load",
  build({ publication: p, now, url, memo }) {
    const docs = searchDocuments(p, url);
    const index = serialisedSearchIndex(docs, memo);
    return {
      schema: url("/openapi.json#/components/schemas/SearchIndexSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      counts: {
        documents: docs.length,
        fr: docs.filter((d) => d.lang === "fr").length,
        en: docs.filter((d) => d.lang === "en").length,
        terms: index.terms,
      },
      engine: {
        name: "minisearch",
        version: MINISEARCH_VERSION,
        idField: "id",
        fields: [...SEARCH_FIELDS],
        storeFields: [...STORED_FIELDS],
        processTerm: "term.normalize('NFD').replace(/\\p{M}+/gu, '').toLowerCase()",
        searchOptions: {
          boost: { ...SEARCH_DEFAULTS.boost },
          prefix: SEARCH_DEFAULTS.prefix,
          fuzzy: SEARCH_DEFAULTS.fuzzy,
        },
        loading:
          "MiniSearch.loadJSON(body.index, { idField: 'id', fields: body.engine.fields, storeFields: body.engine.storeFields, processTerm: (term) => term.normalize('NFD').replace(/\\p{M}+/gu, '').toLowerCase() }); filter results on the stored `lang` to search one language; join hits to `documents` by id.",
      },
      documents: docs.map(listedDocument),
      // JSON text rather than an object: the browser hands it to MiniSearch.loadJSON as is, and
      // the surface is validated and serialised as one string instead of ~100,000 small values.
      index: index.json,
    };
  },
});
