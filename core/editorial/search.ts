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
 * tokens (minisearch's field length), and its processed terms, each once in order of first
 * occurrence, with how many times it occurs.
 */
export type IndexedFields = [fieldId: number, distinctTokens: number, terms: string[], counts: number[]][];

const tokenize = MiniSearch.getDefault("tokenize") as (text: string, fieldName?: string) => string[];

/** Tokenises and folds a document's fields exactly as `MiniSearch.add` does with INDEX_OPTIONS. */
export function indexedFields(doc: SearchDocument): IndexedFields {
  const out: IndexedFields = [];
  SEARCH_FIELDS.forEach((field, fieldId) => {
    const value = doc[field];
    if (value == null) return;
    const tokens = tokenize(String(value), field);
    const counts = new Map<string, number>();
    for (const token of tokens) {
      const term = foldCached(token);
      if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    out.push([fieldId, new Set(tokens).size, [...counts.keys()], [...counts.values()]]);
  });
  return out;
}

type TermData = Map<number, Map<number, number>>;

/** The part of minisearch that `add` drives; undocumented but stable in the pinned version (a test compares with `addAll`). */
interface MiniSearchInternals {
  addDocumentId(id: string): number;
  saveStoredFields(shortId: number, doc: SearchDocument): void;
  addFieldLength(shortId: number, fieldId: number, count: number, length: number): void;
  _documentCount: number;
  /** The radix tree of terms: term -> field id -> short document id -> frequency. */
  _index: { set(term: string, data: TermData): void };
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
  // Each term's data gathered in a plain map first, then put in the radix tree once per term.
  // The tree's shape depends only on the order in which distinct terms first arrive, which the
  // map keeps, so it is the tree minisearch would build; a tree walk per occurrence costs about
  // three times a map lookup.
  const termData = new Map<string, TermData>();
  for (const doc of documents) {
    const fields = memo.remember("search-terms", [doc.title, doc.description, doc.text, doc.tags], () =>
      indexedFields(doc),
    );
    if (index.has(doc.id)) throw new Error(`The search index has two documents with the id ${doc.id}`);
    const shortId = inner.addDocumentId(doc.id);
    inner.saveStoredFields(shortId, doc);
    for (const [fieldId, distinct, terms, counts] of fields) {
      inner.addFieldLength(shortId, fieldId, inner._documentCount - 1, distinct);
      // What minisearch's addTerm does once per occurrence, once per distinct term with its count:
      // the terms reach the tree in the same order of first occurrence, so it is the same tree.
      for (let i = 0; i < terms.length; i++) {
        let data = termData.get(terms[i]!);
        if (data === undefined) termData.set(terms[i]!, (data = new Map()));
        let freqs = data.get(fieldId);
        if (freqs === undefined) data.set(fieldId, (freqs = new Map()));
        // A document's terms are distinct within a field, so this document has no count here yet.
        freqs.set(shortId, counts[i]!);
      }
    }
  }
  for (const [term, data] of termData) inner._index.set(term, data);
  return index;
}

/**
 * `JSON.stringify(index)`, byte for byte, written directly from the index's maps instead of
 * through `toJSON()`'s intermediate objects (half the time on a real corpus; a test compares
 * them). Object keys that are integers come out in ascending order, as JSON.stringify puts them.
 */
export function serialisedIndex(index: MiniSearch<SearchDocument>): string {
  const inner = index as unknown as {
    _documentCount: number;
    _nextId: number;
    _documentIds: Map<number, string>;
    _fieldIds: Record<string, number>;
    _fieldLength: Map<number, number[]>;
    _avgFieldLength: number[];
    _storedFields: Map<number, Record<string, unknown>>;
    _dirtCount: number;
    _index: Iterable<[string, TermData]>;
  };
  const ascending = (a: number, b: number) => a - b;
  const terms: string[] = [];
  for (const [term, fieldIndex] of inner._index) {
    const fields: string[] = [];
    for (const fieldId of [...fieldIndex.keys()].sort(ascending)) {
      const freqs = fieldIndex.get(fieldId)!;
      const docs: string[] = [];
      for (const docId of [...freqs.keys()].sort(ascending)) docs.push(`"${docId}":${freqs.get(docId)}`);
      fields.push(`"${fieldId}":{${docs.join(",")}}`);
    }
    terms.push(`[${JSON.stringify(term)},{${fields.join(",")}}]`);
  }
  return [
    `{"documentCount":${JSON.stringify(inner._documentCount)}`,
    `"nextId":${JSON.stringify(inner._nextId)}`,
    `"documentIds":${JSON.stringify(Object.fromEntries(inner._documentIds))}`,
    `"fieldIds":${JSON.stringify(inner._fieldIds)}`,
    `"fieldLength":${JSON.stringify(Object.fromEntries(inner._fieldLength))}`,
    `"averageFieldLength":${JSON.stringify(inner._avgFieldLength)}`,
    `"storedFields":${JSON.stringify(Object.fromEntries(inner._storedFields))}`,
    `"dirtCount":${JSON.stringify(inner._dirtCount)}`,
    `"index":[${terms.join(",")}]`,
    `"serializationVersion":2}`,
  ].join(",");
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
