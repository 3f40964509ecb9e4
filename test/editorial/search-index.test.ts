import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { generatePublication } from "../../bench/generate.ts";
import { buildSearchIndex, INDEX_OPTIONS, serialisedIndex, type SearchDocument } from "../../core/editorial/search.ts";
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

describe("buildSearchIndex()", async () => {
  const url = (path: string) => `https://risques.example.org${path}`;
  const demo = searchDocuments(await loadPublication(nodeFs, demoPublication()), url);
  const generated = generatePublication({
    dir: `${tempDir("risk-search-")}/pub`,
    scale: { articlesPerLang: 20, guidesPerLang: 5, glossary: 40, primarySources: 5 },
  });
  const large = searchDocuments(await loadPublication(nodeFs, generated.dir), url);

  it("gives the same serialised index as MiniSearch.addAll, for the demo and a generated corpus", () => {
    expect(JSON.stringify(buildSearchIndex(demo))).toBe(withAddAll(demo));
    expect(JSON.stringify(buildSearchIndex(large))).toBe(withAddAll(large));
  });

  it("tokenises only the documents whose text changed when given a memo, with the same bytes", () => {
    const memo = jsonMemo();
    expect(JSON.stringify(buildSearchIndex(large, memo))).toBe(withAddAll(large));
    expect(memo.computed).toBe(large.length);
    const edited = large.map((d, i) => (i === 7 ? { ...d, text: `${d.text} inflation persistante` } : d));
    const before = memo.computed;
    expect(JSON.stringify(buildSearchIndex(edited, memo))).toBe(withAddAll(edited));
    expect(memo.computed - before).toBe(1);
  });

  it("serialises the index exactly as JSON.stringify does, for the demo and a generated corpus", () => {
    for (const docs of [demo, large]) {
      const index = buildSearchIndex(docs);
      expect(serialisedIndex(index)).toBe(JSON.stringify(index));
    }
  });

  it("refuses two documents with the same id", () => {
    expect(() => buildSearchIndex([demo[0]!, demo[0]!])).toThrow(/two documents with the id/);
  });
});
