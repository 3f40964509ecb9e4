/**
 * The bilingual search index: minisearch over articles, guides, glossary entries, methodologies
 * and primary sources, in French and English. The same options build the index here and load it
 * in `risk-cli search` or a browser page; they are published with the index so that a page can
 * reproduce the term processing (lower case, accents folded).
 */
import MiniSearch, { type Options, type SearchResult } from "minisearch";
import { z } from "zod";
import { inputError } from "../errors.ts";
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
  /**
   * Where the indexed words of the body come from: the Markdown of an article or guide, the text
   * itself for other documents. It keys the memo of tokens, so `text` is read only on a miss.
   */
  source: string;
  /**
   * A short stand-in for `source` in that key, when there is one: the key of the text an article
   * or guide was read from (Doc.bodyKey) with its summary. Hashing it is cheaper than the Markdown.
   */
  sourceKey?: string;
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

/**
 * What minisearch's default tokenizer cuts on, one code point: a line break, a separator (\p{Z})
 * or a punctuation mark (\p{P}). Its tokenizer is `text.split(/[\n\r\p{Z}\p{P}]+/u)`.
 */
const SEPARATOR = /^[\n\r\p{Z}\p{P}]$/u;

/** Each UTF-16 unit of the Basic Multilingual Plane, once met: 1 a separator, 2 not; 0 not met yet. */
const unitKinds = new Uint8Array(0x10000);
/** The same for code points above it, which come as surrogate pairs. */
const astralSeparators = new Map<number, boolean>();

function isSeparatorUnit(unit: number): boolean {
  let kind = unitKinds[unit]!;
  if (kind === 0) unitKinds[unit] = kind = SEPARATOR.test(String.fromCharCode(unit)) ? 1 : 2;
  return kind === 1;
}

function isSeparatorPair(text: string, at: number): boolean {
  const point = text.codePointAt(at)!;
  let separator = astralSeparators.get(point);
  if (separator === undefined) {
    separator = SEPARATOR.test(String.fromCodePoint(point));
    astralSeparators.set(point, separator);
  }
  return separator;
}

/**
 * Adds to `counts` each raw token of `text` with how many times it occurs: the pieces minisearch's
 * default tokenizer gives, the empty ones included (a text that starts or ends with a separator
 * gives an empty first or last piece; minisearch counts it in the field's length, and folding
 * drops it). One pass over the text with a table of the units met, and no array of tokens: on
 * the real-scale corpus (1.5 MB of plain text), split and counted in 72 ms, here in 43 ms, of
 * which most is the counting. A test holds it to `split` on any text and every unit.
 */
function countTokens(text: string, counts: Map<string, number>): void {
  const add = (token: string) => counts.set(token, (counts.get(token) ?? 0) + 1);
  const n = text.length;
  // Where the piece being read starts, and whether a run of separators is being read.
  let start = 0;
  let inRun = false;
  for (let i = 0; i < n; ) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const separator = pair ? isSeparatorPair(text, i) : isSeparatorUnit(unit);
    if (separator && !inRun) add(text.slice(start, i));
    else if (!separator && inRun) start = i;
    inRun = separator;
    i += pair ? 2 : 1;
  }
  // After a closing run of separators, the last piece is empty.
  add(inRun ? "" : text.slice(start));
}

/** The raw tokens of `text` as minisearch's default tokenizer gives them, in order (for tests). */
export function rawTokens(text: string): string[] {
  const counts = new Map<string, number>();
  countTokens(text, counts);
  return [...counts.keys()];
}

/** Tokenises and folds a document's fields exactly as `MiniSearch.add` does with INDEX_OPTIONS. */
export function indexedFields(doc: SearchDocument): IndexedFields {
  const out: IndexedFields = [];
  for (let fieldId = 0; fieldId < SEARCH_FIELDS.length; fieldId++) {
    const value = doc[SEARCH_FIELDS[fieldId]!];
    if (value == null) continue;
    // Raw tokens counted first, then each distinct one folded: a term's first occurrence is its
    // first raw token's, so the terms keep their order, and a text is looked up once per token.
    const raw = new Map<string, number>();
    countTokens(String(value), raw);
    const counts = new Map<string, number>();
    for (const [token, n] of raw) {
      const term = foldCached(token);
      if (term) counts.set(term, (counts.get(term) ?? 0) + n);
    }
    out.push([fieldId, raw.size, [...counts.keys()], [...counts.values()]]);
  }
  return out;
}

/**
 * The index of `documents`, serialised: byte for byte `JSON.stringify` of a MiniSearch index to
 * which `addAll(documents)` added them with INDEX_OPTIONS (a test compares the two), and its
 * number of distinct terms.
 *
 * Written directly rather than through a MiniSearch instance: each term's postings are appended
 * to a plain list while the documents are taken in order, so short ids come out ascending without
 * a sort, and no map is made per term and field. Only the order of the terms is minisearch's:
 * that of its radix tree fed the terms in the order they first arrive, as `add` does (indexOrder).
 * Measured on the real-scale corpus with its tokens remembered: 41 ms, against 60 ms to build the
 * instance and serialise it.
 *
 * Each document's tokens come from `memo`, keyed by the sources of its indexed fields, so that
 * only documents whose text changed are reduced to plain text and tokenised again.
 */
export function serialisedSearchIndex(
  documents: readonly SearchDocument[],
  memo: Memo = noMemo,
): { json: string; terms: number } {
  const seen = new Set<string>();
  // term -> field id -> the field's postings: short id, count, short id, count...
  const postings = new Map<string, (number[] | undefined)[]>();
  const documentIds: string[] = [];
  const fieldLengths: string[] = [];
  const storedFields: string[] = [];
  const averageFieldLength: number[] = [];
  documents.forEach((doc, shortId) => {
    if (seen.has(doc.id)) throw new Error(`The search index has two documents with the id ${doc.id}`);
    seen.add(doc.id);
    const fields =
      doc.sourceKey === undefined
        ? memo.remember("search-terms", [doc.title, doc.description, doc.source, doc.tags], () => indexedFields(doc))
        : memo.remember("search-terms-by-key", [doc.title, doc.description, doc.sourceKey, doc.tags], () =>
            indexedFields(doc),
          );
    documentIds.push(`"${shortId}":${JSON.stringify(doc.id)}`);
    const stored: Record<string, unknown> = {};
    for (const name of STORED_FIELDS) if (doc[name] !== undefined) stored[name] = doc[name];
    storedFields.push(`"${shortId}":${JSON.stringify(stored)}`);
    const lengths: number[] = [];
    for (const [fieldId, distinct, terms, counts] of fields) {
      lengths[fieldId] = distinct;
      // minisearch's running average, the same operations in the same order, so the same double.
      const average = averageFieldLength[fieldId] || 0;
      averageFieldLength[fieldId] = (average * shortId + distinct) / (shortId + 1);
      for (let i = 0; i < terms.length; i++) {
        let byField = postings.get(terms[i]!);
        if (byField === undefined) postings.set(terms[i]!, (byField = []));
        const list = byField[fieldId];
        if (list === undefined) byField[fieldId] = [shortId, counts[i]!];
        else list.push(shortId, counts[i]!);
      }
    }
    fieldLengths.push(`"${shortId}":${JSON.stringify(lengths)}`);
  });
  // One string appended to: V8 keeps the pieces until it is read, a third faster than arrays joined.
  // Each document's `"id":` is written once and reused by its postings (about 190,000 at real
  // scale): 64 to 70 ms against 85 to 98 for an index whose tokens are remembered, the same bytes.
  const idKeys = documents.map((_, shortId) => `"${shortId}":`);
  const nextIdKeys = idKeys.map((key) => `,${key}`);
  let index = "";
  for (const term of indexOrder(postings.keys())) {
    const byField = postings.get(term)!;
    index += `${index === "" ? "" : ","}[${JSON.stringify(term)},{`;
    let separator = "";
    for (let fieldId = 0; fieldId < byField.length; fieldId++) {
      const list = byField[fieldId];
      if (list === undefined) continue;
      index += `${separator}"${fieldId}":{${idKeys[list[0]!]}${list[1]}`;
      for (let k = 2; k < list.length; k += 2) index += nextIdKeys[list[k]!] + list[k + 1];
      index += "}";
      separator = ",";
    }
    index += "}]";
  }
  const count = documents.length;
  const json = [
    `{"documentCount":${count}`,
    `"nextId":${count}`,
    `"documentIds":{${documentIds.join(",")}}`,
    `"fieldIds":${JSON.stringify(Object.fromEntries(SEARCH_FIELDS.map((f, i) => [f, i])))}`,
    `"fieldLength":{${fieldLengths.join(",")}}`,
    `"averageFieldLength":${JSON.stringify(averageFieldLength)}`,
    `"storedFields":{${storedFields.join(",")}}`,
    `"dirtCount":0`,
    `"index":[${index}]`,
    `"serializationVersion":2}`,
  ].join(",");
  return { json, terms: postings.size };
}

/**
 * A node of a radix tree shaped as minisearch's (its SearchableMap): each edge a string, the
 * empty edge marking a term that ends here. Only the order of the edges matters: it is what
 * decides the order of the terms in a serialised index.
 */
type RadixNode = Map<string, RadixNode>;
const END: RadixNode = new Map();

/**
 * Adds `term` as minisearch's radix tree does: an edge that shares only its first characters
 * with the term is replaced by an edge of the shared part, added last, leading to the rest.
 */
function insertTerm(root: RadixNode, term: string): void {
  let node = root;
  let pos = 0;
  outer: while (pos < term.length) {
    for (const [edge, child] of node) {
      if (edge === "" || edge.charCodeAt(0) !== term.charCodeAt(pos)) continue;
      const length = Math.min(term.length - pos, edge.length);
      let shared = 1;
      while (shared < length && term.charCodeAt(pos + shared) === edge.charCodeAt(shared)) shared++;
      if (shared === edge.length) {
        node = child;
      } else {
        const middle: RadixNode = new Map([[edge.slice(shared), child]]);
        node.set(term.slice(pos, pos + shared), middle);
        node.delete(edge);
        node = middle;
      }
      pos += shared;
      continue outer;
    }
    const leaf: RadixNode = new Map();
    node.set(term.slice(pos), leaf);
    node = leaf;
    break;
  }
  node.set("", END);
}

/**
 * Distinct terms in the order a minisearch index serialises them when they are added in this
 * order: the order its radix tree's iterator gives, each node's edges from the last added to the
 * first. Written here rather than through minisearch's tree: V8 compiled that tree's iterator
 * again at every assembly of a long-lived process, and a first frame at real scale took about 3%
 * less CPU without it (medians of 16 frames, 1,596 against 1,546 ms).
 */
export function indexOrder(terms: Iterable<string>): string[] {
  const root: RadixNode = new Map();
  for (const term of terms) insertTerm(root, term);
  const out: string[] = [];
  walkTerms(root, "", out);
  return out;
}

function walkTerms(node: RadixNode, prefix: string, out: string[]): void {
  const edges = [...node.keys()];
  for (let i = edges.length - 1; i >= 0; i--) {
    const edge = edges[i]!;
    if (edge === "") out.push(prefix);
    else walkTerms(node.get(edge)!, prefix + edge, out);
  }
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

/**
 * What a reader of a published index relies on: each document's fields shown with a hit, and the
 * serialised index. Other members (and other fields of a document) are let through, so that a
 * site published by another version of risk-cli still reads.
 */
const PublishedIndex = z.object({
  documents: z.array(
    z.looseObject({
      id: z.string(),
      type: z.string(),
      lang: z.string(),
      title: z.string(),
      url: z.string(),
      date: z.string().nullable(),
    }),
  ),
  index: z.string(),
});

/** A document of a published index, as it is listed there. */
export type PublishedDocument = z.infer<typeof PublishedIndex>["documents"][number];

/**
 * The hits of `query` in a published search index (the parsed /api/v1/search-index.json), each
 * with the document it names. A value that is not such an index (another JSON document, an index
 * cut short or edited by hand) is an input error that names `where` and the field, never a crash.
 */
export function searchPublishedIndex(
  value: unknown,
  where: string,
  query: string,
  options: { lang?: "fr" | "en"; limit?: number } = {},
): { hit: SearchHit; document: PublishedDocument }[] {
  const again = "assemble the site again, or point at a site risk-cli published";
  const parsed = PublishedIndex.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : undefined;
    throw inputError(where, undefined, field, `not a published search index (${issue.message}): ${again}`);
  }
  // The documents as listed, not as parsed: parsing would put their other fields last.
  const documents = new Map((value as z.infer<typeof PublishedIndex>).documents.map((d) => [d.id, d]));
  let hits: SearchHit[];
  try {
    hits = querySearchIndex(parsed.data.index, query, options);
  } catch (e) {
    throw inputError(
      where,
      undefined,
      "index",
      `not a minisearch index (${(e as Error).message.slice(0, 200)}): ${again}`,
    );
  }
  return hits.map((hit) => {
    const document = documents.get(hit.id);
    if (!document)
      throw inputError(
        where,
        undefined,
        "documents",
        `the index finds document ${JSON.stringify(hit.id.slice(0, 200))}, which documents does not list: ${again}`,
      );
    return { hit, document };
  });
}
