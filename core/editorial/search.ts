/**
 * The bilingual search index: minisearch over articles, guides, glossary entries, methodologies
 * and primary sources, in French and English. The same options build the index here and load it
 * in `risk-cli search` or a browser page; they are published with the index so that a page can
 * reproduce the term processing (lower case, accents folded).
 */
import MiniSearch, { type Options, type SearchResult } from "minisearch";
import { noMemo, type Memo } from "../ports.ts";

export interface SearchDocument {
  id: string;
  type: "article" | "guide" | "glossary" | "methodology" | "primary-source";
  lang: "fr" | "en";
  slug: string;
  title: string;
  url: string;
  description: string;
  date: string | null;
  /** Indexed, not stored: the words of the body. */
  text: string;
  tags: string;
}

/** Folds case and accents: `Élevé` and `eleve` are the same term. */
export function foldTerm(term: string): string {
  return term
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

// A corpus has a few thousand distinct words and hundreds of thousands of occurrences.
const folded = new Map<string, string>();
function foldCached(term: string): string {
  let f = folded.get(term);
  if (f === undefined) {
    f = foldTerm(term);
    if (folded.size > 200_000) folded.clear();
    folded.set(term, f);
  }
  return f;
}

export const SEARCH_FIELDS = ["title", "description", "text", "tags"] as const;
export const STORED_FIELDS = ["lang", "type"] as const;

export const INDEX_OPTIONS: Options<SearchDocument> = {
  idField: "id",
  fields: [...SEARCH_FIELDS],
  storeFields: [...STORED_FIELDS],
  processTerm: foldCached,
};

export const SEARCH_DEFAULTS = { boost: { title: 3, tags: 2, description: 1.5 }, prefix: true, fuzzy: 0.2 } as const;

/**
 * What indexing one document adds, per field in field order: its id, the number of distinct raw
 * tokens (minisearch's field length) and every processed term in order (one entry per occurrence).
 */
export type IndexedFields = [fieldId: number, distinctTokens: number, terms: string[]][];

const tokenize = MiniSearch.getDefault("tokenize") as (text: string, fieldName?: string) => string[];

/** Tokenises and folds a document's fields exactly as `MiniSearch.add` does with INDEX_OPTIONS. */
export function indexedFields(doc: SearchDocument): IndexedFields {
  const out: IndexedFields = [];
  SEARCH_FIELDS.forEach((field, fieldId) => {
    const value = doc[field];
    if (value == null) return;
    const tokens = tokenize(String(value), field);
    const terms: string[] = [];
    for (const token of tokens) {
      const term = foldCached(token);
      if (term) terms.push(term);
    }
    out.push([fieldId, new Set(tokens).size, terms]);
  });
  return out;
}

/** The part of minisearch that `add` drives; undocumented but stable in the pinned version (a test compares with `addAll`). */
interface MiniSearchInternals {
  addDocumentId(id: string): number;
  saveStoredFields(shortId: number, doc: SearchDocument): void;
  addFieldLength(shortId: number, fieldId: number, count: number, length: number): void;
  addTerm(fieldId: number, shortId: number, term: string): void;
  _documentCount: number;
}

/**
 * The index of `documents`, the same as `MiniSearch.addAll` with INDEX_OPTIONS would build, term
 * for term and byte for byte once serialised. Each document's tokens come from `memo`, keyed by
 * its indexed fields, so that only documents whose text changed are tokenised again.
 */
export function buildSearchIndex(
  documents: readonly SearchDocument[],
  memo: Memo = noMemo,
): MiniSearch<SearchDocument> {
  const index = new MiniSearch<SearchDocument>(INDEX_OPTIONS);
  const inner = index as unknown as MiniSearchInternals;
  for (const doc of documents) {
    const fields = memo.remember("search-terms", [doc.title, doc.description, doc.text, doc.tags], () =>
      indexedFields(doc),
    );
    if (index.has(doc.id)) throw new Error(`The search index has two documents with the id ${doc.id}`);
    const shortId = inner.addDocumentId(doc.id);
    inner.saveStoredFields(shortId, doc);
    for (const [fieldId, distinct, terms] of fields) {
      inner.addFieldLength(shortId, fieldId, inner._documentCount - 1, distinct);
      for (const term of terms) inner.addTerm(fieldId, shortId, term);
    }
  }
  return index;
}

export interface SearchHit {
  id: string;
  score: number;
  terms: string[];
}

/** Queries a serialised index (`JSON.stringify(index)`), optionally in one language; best first, ties by id. */
export function querySearchIndex(
  serialised: string,
  query: string,
  options: { lang?: "fr" | "en"; limit?: number } = {},
): SearchHit[] {
  const index = MiniSearch.loadJSON<SearchDocument>(serialised, INDEX_OPTIONS);
  const lang = options.lang;
  const results: SearchResult[] = index.search(query, {
    ...SEARCH_DEFAULTS,
    boost: { ...SEARCH_DEFAULTS.boost },
    ...(lang ? { filter: (r: SearchResult) => r.lang === lang } : {}),
  });
  return results
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, options.limit ?? 10)
    .map((r) => ({ id: String(r.id), score: Math.round(r.score * 1000) / 1000, terms: [...r.terms].sort() }));
}
