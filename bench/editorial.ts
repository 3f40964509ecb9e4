/**
 * The editorial part of an assembly at the real publication's scale: claim extraction, reviews,
 * evidence, and every corpus surface built, validated and serialised (catalog, claims, evidence
 * graph, sources, the search index with minisearch, llms.txt and both corpora). Each run uses a
 * new instant, so nothing is served from the analysis memo.
 *
 * The baseline is the floor of what those surfaces must cost anyway: JSON.stringify of the same
 * documents plus SHA-256 of their bytes.
 */
import { createHash } from "node:crypto";
import { assemble } from "../core/assemble.ts";
import { loadPublication } from "../core/inputs/publication.ts";
import { editorialOf } from "../core/editorial/analysis.ts";
import { SURFACES } from "../core/surfaces/index.ts";
import { nodeFs, nodeHasher } from "../cli/runtime/node.ts";

export interface EditorialResult {
  articlesFr: number;
  claims: number;
  references: number;
  searchDocuments: number;
  surfaces: string[];
  bytes: number;
  searchIndexBytes: number;
  /** Medians, ms. */
  analysisMs: number;
  totalMs: number;
  floorMs: number;
  ratio: number;
  targetMs: number;
  underTarget: boolean;
}

export const EDITORIAL_TARGET_MS = 1500;
const EDITORIAL_PATHS = new Set([
  "/api/v1/catalog.json",
  "/api/v1/catalog.ndjson",
  "/api/v1/claims.json",
  "/api/v1/claims.ndjson",
  "/api/v1/evidence-graph.json",
  "/api/v1/evidence-graph.ndjson",
  "/api/v1/sources.json",
  "/api/v1/search-index.json",
  "/llms.txt",
  "/llms-full.txt",
  "/llms-full-en.txt",
]);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round1 = (x: number) => Math.round(x * 10) / 10;

export async function measureEditorial(dir: string, runs: number): Promise<EditorialResult> {
  const publication = await loadPublication(nodeFs, dir);
  const surfaces = SURFACES.filter((s) => EDITORIAL_PATHS.has(s.path));
  const upstream = { attemptedAt: "2026-11-21T00:00:00Z", instruments: {}, confluence: null };
  const totals: number[] = [];
  const analyses: number[] = [];
  const floors: number[] = [];
  let last: ReturnType<typeof assemble> | null = null;
  for (let i = 0; i <= runs; i++) {
    const now = new Date(Date.UTC(2026, 10, 21, 0, 15 * i)).toISOString().replace(".000Z", "Z");
    const url = (path: string) => `${publication.config.baseUrl}${path}`;
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    editorialOf(publication, now, url);
    const t1 = performance.now();
    const a = assemble(
      { publication, upstream, previous: null, now, toolVersion: "bench", inputs: "bench" },
      nodeHasher,
      { surfaces },
    );
    const t2 = performance.now();
    // The floor: the same documents, parsed back, then JSON.stringify and SHA-256.
    const docs = a.files.map((f) => new TextDecoder().decode(f.served));
    const parsed = docs.map((d, j) => (surfaces[j]!.format === "json" ? JSON.parse(d) : d));
    const t3 = performance.now();
    for (const p of parsed)
      createHash("sha256")
        .update(typeof p === "string" ? p : JSON.stringify(p))
        .digest("hex");
    const t4 = performance.now();
    if (i === 0) continue; // warm-up
    analyses.push(t1 - t0);
    totals.push(t2 - t0);
    floors.push(t4 - t3);
    last = a;
  }
  const editorial = editorialOf(publication, last!.frame.at, (path) => `${publication.config.baseUrl}${path}`);
  const search = last!.files.find((f) => f.path === "/api/v1/search-index.json")!;
  const totalMs = round1(median(totals));
  const floorMs = round1(median(floors));
  return {
    articlesFr: editorial.articles.length,
    claims: editorial.claims.length,
    references: editorial.articles.reduce((n, a) => n + a.evidence.references.length, 0),
    searchDocuments: JSON.parse(new TextDecoder().decode(search.served)).counts.documents,
    surfaces: surfaces.map((s) => s.path),
    bytes: last!.files.reduce((n, f) => n + f.served.byteLength, 0),
    searchIndexBytes: search.served.byteLength,
    analysisMs: round1(median(analyses)),
    totalMs,
    floorMs,
    ratio: round1(totalMs / floorMs),
    targetMs: EDITORIAL_TARGET_MS,
    underTarget: totalMs < EDITORIAL_TARGET_MS,
  };
}

export function editorialReport(r: EditorialResult): string {
  return [
    `Editorial part at real scale (${r.articlesFr} French articles, ${r.claims} claims, ${r.references} links, ${r.searchDocuments} search documents):`,
    `  claim extraction and evidence ${r.analysisMs} ms; with the ${r.surfaces.length} corpus surfaces built, validated and serialised ${r.totalMs} ms`,
    `  (${r.bytes} bytes, search index ${r.searchIndexBytes} bytes); floor (JSON.stringify + SHA-256 of the same documents) ${r.floorMs} ms, ratio ${r.ratio}x;`,
    `  target under ${r.targetMs} ms: ${r.underTarget ? "met" : "NOT met"}`,
  ].join("\n");
}
