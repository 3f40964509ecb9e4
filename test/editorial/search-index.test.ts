import MiniSearch from "minisearch";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generatePublication } from "../../bench/generate.ts";
import {
  INDEX_OPTIONS,
  indexOrder,
  rawTokens,
  serialisedSearchIndex,
  type SearchDocument,
} from "../../core/editorial/search.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import type { Memo } from "../../core/ports.ts";
import { searchDocuments } from "../../core/surfaces/search-index.ts";
import { demoPublication } from "../../cli/paths.ts";
import { nodeFs } from "../../cli/runtime/node.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A memo that keeps its values as JSON text, as the file-backed one does across processes. */
function jsonMemo(): Memo & { computed: number } {
  const kept = new Map<string, string>();
  const memo = {
    computed: 0,
    remember<T>(kind: string, parts: readonly string[], compute: () => T): T {
      const key = JSON.stringify([kind, ...parts]);
      const hit = kept.get(key);
      if (hit !== undefined) return JSON.parse(hit) as T;
      memo.computed++;
      const value = compute();
      kept.set(key, JSON.stringify(value));
      return value;
    },
  };
  return memo;
}

function withAddAll(docs: readonly SearchDocument[]): string {
  const index = new MiniSearch<SearchDocument>(INDEX_OPTIONS);
  index.addAll(docs as SearchDocument[]);
  return JSON.stringify(index);
}

describe("serialisedSearchIndex()", async () => {
  const url = (path: string) => `https://risques.example.org${path}`;
  const demo = searchDocuments(await loadPublication(nodeFs, demoPublication()), url);
  const generated = generatePublication({
    dir: `${tempDir("risk-search-")}/pub`,
    scale: { articlesPerLang: 20, guidesPerLang: 5, glossary: 40, primarySources: 5 },
  });
  const large = searchDocuments(await loadPublication(nodeFs, generated.dir), url);

  it("gives byte for byte JSON.stringify of MiniSearch.addAll's index, and its term count, for the demo and a generated corpus", () => {
    for (const docs of [demo, large]) {
      const index = new MiniSearch<SearchDocument>(INDEX_OPTIONS);
      index.addAll(docs as SearchDocument[]);
      const written = serialisedSearchIndex(docs);
      expect(written.json).toBe(JSON.stringify(index));
      expect(written.terms).toBe(index.termCount);
      expect(written.terms).toBeGreaterThan(100);
    }
  });

  it("keeps holes and averages as minisearch does when a field is missing", () => {
    const docs = demo.slice(0, 5).map((d, i) => (i === 2 ? { ...d, tags: undefined as unknown as string } : d));
    expect(serialisedSearchIndex(docs).json).toBe(withAddAll(docs));
  });

  it("tokenises only the documents whose source changed when given a memo, with the same bytes", () => {
    const memo = jsonMemo();
    expect(serialisedSearchIndex(large, memo).json).toBe(withAddAll(large));
    expect(memo.computed).toBe(large.length);
    const edited = large.map((d, i) =>
      i === 7 ? { ...d, source: `${d.source} inflation persistante`, text: `${d.text} inflation persistante` } : d,
    );
    const before = memo.computed;
    expect(serialisedSearchIndex(edited, memo).json).toBe(withAddAll(edited));
    expect(memo.computed - before).toBe(1);
  });

  it("works out an article's plain text only for a document it tokenises", () => {
    const memo = jsonMemo();
    serialisedSearchIndex(large, memo);
    const reads: string[] = [];
    const watched = large.map((d) => {
      const { text: _text, ...rest } = d;
      return Object.defineProperty(rest, "text", {
        enumerable: true,
        get: () => {
          reads.push(d.id);
          return d.text;
        },
      }) as SearchDocument;
    });
    serialisedSearchIndex(watched, memo);
    expect(reads).toEqual([]);
  });

  it("refuses two documents with the same id", () => {
    expect(() => serialisedSearchIndex([demo[0]!, demo[0]!])).toThrow(/two documents with the id/);
  });
});

describe("the order of the terms in an index", () => {
  /** The terms in the order minisearch's own radix tree gives them, fed in this order. */
  const minisearchOrder = (terms: readonly string[]) => {
    const tree = (
      new MiniSearch<SearchDocument>(INDEX_OPTIONS) as unknown as {
        _index: Iterable<[string, unknown]> & { set(term: string, value: unknown): void };
      }
    )._index;
    for (const term of terms) tree.set(term, []);
    return [...tree].map(([term]) => term);
  };
  // Few letters, so that terms share prefixes, split edges and end inside one another; accents
  // and a surrogate pair, so that edges are cut between UTF-16 units as minisearch cuts them.
  const letter = fc.constantFrom("a", "b", "ab", "é", "e\u0301", "\u{1F600}", "z");
  const term = fc.array(letter, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));

  it("is minisearch's for any terms in any order of arrival", () => {
    let split = 0;
    fc.assert(
      fc.property(fc.uniqueArray(term, { maxLength: 40 }), (terms) => {
        const ours = indexOrder(terms);
        expect(ours).toEqual(minisearchOrder(terms));
        if (terms.length > 1 && ours.join() !== [...terms].sort().join() && ours.join() !== terms.join()) split++;
      }),
      { numRuns: 2000 },
    );
    // Orders that are neither the order of arrival nor sorted: the tree's own order was tried.
    expect(split).toBeGreaterThan(500);
  });

  it("is minisearch's for the terms of the demo and a generated corpus", async () => {
    const generated = generatePublication({
      dir: `${tempDir("risk-order-")}/pub`,
      scale: { articlesPerLang: 10, guidesPerLang: 2, glossary: 20, primarySources: 3 },
    });
    const url = (path: string) => `https://risques.example.org${path}`;
    const docs = searchDocuments(await loadPublication(nodeFs, generated.dir), url);
    const terms = new Set<string>();
    for (const doc of docs) for (const t of rawTokens(`${doc.title} ${doc.text}`)) if (t) terms.add(t.toLowerCase());
    expect(terms.size).toBeGreaterThan(500);
    expect(indexOrder(terms)).toEqual(minisearchOrder([...terms]));
  });
});

describe("the raw tokens of a text", () => {
  const tokenize = MiniSearch.getDefault("tokenize") as (text: string) => string[];
  const distinct = (tokens: string[]) => [...new Set(tokens)];
  // Words, every kind of separator and punctuation, accents, lone and paired surrogates, and
  // punctuation and letters above the Basic Multilingual Plane.
  const piece = fc.constantFrom(
    "mot",
    "é",
    "e\u0301",
    " ",
    "\n",
    "\r\n",
    "\t",
    "\u00a0",
    "\u2028",
    "\u3000",
    "’",
    "«",
    "-",
    ".",
    "…",
    "_",
    "$",
    "\ud800",
    "\udc00",
    "\ud83d\ude00",
    "\ud800\udd00",
    "\ud801\udc00",
    "\u{1e95e}",
    "日本",
  );

  it("are the distinct pieces minisearch's default tokenizer cuts, empty ones included, in order", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (parts) => {
        const text = parts.join("");
        expect(rawTokens(text)).toEqual(distinct(tokenize(text)));
      }),
      { numRuns: 4000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        expect(rawTokens(text)).toEqual(distinct(tokenize(text)));
      }),
      { numRuns: 3000 },
    );
    expect(rawTokens("")).toEqual([""]);
    expect(rawTokens(" l’écart, l’écart ")).toEqual(["", "l", "écart"]);
  });

  it("are cut as minisearch cuts them at every unit of the Basic Multilingual Plane", () => {
    for (let unit = 0; unit < 0x10000; unit++) {
      const text = `a${String.fromCharCode(unit)}b`;
      const expected = distinct(tokenize(text));
      const got = rawTokens(text);
      if (got.length !== expected.length || got.some((t, i) => t !== expected[i]))
        expect({ unit, got }).toEqual({ unit, got: expected });
    }
  });
});
