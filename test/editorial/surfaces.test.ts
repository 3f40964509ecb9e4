import { describe, expect, it } from "vitest";
import MiniSearch from "minisearch";
import { assemble } from "../../core/assemble.ts";
import { loadPublication, type Publication } from "../../core/inputs/publication.ts";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { editorialOf } from "../../core/editorial/analysis.ts";
import { primarySourceOf as ownerOf } from "../../core/claims/references.ts";
import { foldTerm, querySearchIndex } from "../../core/editorial/search.ts";
import { markdownToPlain } from "../../core/editorial/plain.ts";
import { LLMS_MAX_BYTES, llmsTxt } from "../../core/surfaces/llms.ts";
import { SURFACES } from "../../core/surfaces/index.ts";
import { nodeFs, nodeHasher } from "../../cli/runtime/node.ts";
import { ROOT } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";

const NOW = "2026-11-21T10:00:00Z";
const url = (p: Publication) => (path: string) => `${p.config.baseUrl}${path}`;

async function demoSite(root = `${ROOT}demo`) {
  const publication = await loadPublication(nodeFs, root);
  const upstream = await collectUpstream(publication, { fs: nodeFs }, { attemptedAt: NOW });
  const a = assemble(
    { publication, upstream, previous: null, now: NOW, toolVersion: "test", inputs: "test" },
    nodeHasher,
  );
  const text = (path: string) => new TextDecoder().decode(a.files.find((f) => f.path === path)!.served);
  const json = <T = any>(path: string): T => JSON.parse(text(path));
  const ndjson = (path: string) =>
    text(path)
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { publication, text, json, ndjson };
}

describe("the claims surfaces", () => {
  it("claims.json counts what it lists, and its NDJSON twin carries the same claims", async () => {
    const site = await demoSite();
    const claims = site.json("/api/v1/claims.json");
    expect(claims.counts.claims).toBe(claims.claims.length);
    expect(claims.counts.articles).toBe(7);
    expect(claims.counts.references).toBe(claims.references.length);
    expect(claims.counts.reviewedClaims).toBe(3);
    expect(site.ndjson("/api/v1/claims.ndjson")).toEqual(claims.claims);
    for (const r of claims.references) expect(claims.claims.some((c: { id: string }) => c.id === r.claimId)).toBe(true);
  });

  it("keeps at most three claims per article and unique ids", async () => {
    const site = await demoSite();
    const claims = site.json("/api/v1/claims.json").claims as { id: string; articleSlug: string }[];
    const per = new Map<string, number>();
    for (const c of claims) per.set(c.articleSlug, (per.get(c.articleSlug) ?? 0) + 1);
    for (const n of per.values()) expect(n).toBeLessThanOrEqual(3);
    expect(new Set(claims.map((c) => c.id)).size).toBe(claims.length);
  });

  it("publishes every reference href as an absolute URI", async () => {
    const site = await demoSite();
    const claims = site.json("/api/v1/claims.json");
    const hrefs = [
      ...claims.references.map((r: { href: string }) => r.href),
      ...site
        .ndjson("/api/v1/evidence-graph.ndjson")
        .filter((l) => l.type === "reference")
        .map((l) => l.url),
    ];
    expect(hrefs.length).toBeGreaterThan(10);
    for (const href of hrefs) expect(() => new URL(href), href).not.toThrow();
    for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
  });
});

describe("the evidence graph", () => {
  it("has edges that point only to existing nodes, nodes first in the NDJSON", async () => {
    const site = await demoSite();
    const graph = site.json("/api/v1/evidence-graph.json");
    const ids = new Set(graph.nodes.map((n: { id: string }) => n.id));
    expect(ids.size).toBe(graph.nodes.length);
    for (const e of graph.edges) {
      expect(ids.has(e.from), `${e.id} from`).toBe(true);
      expect(ids.has(e.to), `${e.id} to`).toBe(true);
    }
    const lines = site.ndjson("/api/v1/evidence-graph.ndjson");
    const firstEdge = lines.findIndex((l) => l.recordType === "edge");
    expect(lines.slice(0, firstEdge).every((l) => l.recordType === "node")).toBe(true);
    expect(lines.slice(firstEdge).every((l) => l.recordType === "edge")).toBe(true);
    expect(lines.length).toBe(graph.nodes.length + graph.edges.length);
  });

  it("links every kind of node the contract names and a claim to its article", async () => {
    const graph = (await demoSite()).json("/api/v1/evidence-graph.json");
    expect(Object.keys(graph.counts.nodeTypes).sort()).toEqual([
      "article",
      "claim",
      "dataset",
      "host",
      "institution",
      "primary-source",
      "reference",
    ]);
    for (const [type, n] of Object.entries(graph.counts.nodeTypes)) expect(n, type).toBeGreaterThan(0);
    for (const [type, n] of Object.entries(graph.counts.edgeTypes)) expect(n, type).toBeGreaterThan(0);
    const claim = graph.nodes.find((n: { id: string }) => n.id === "claim:carry-trade-yen-boj#hausse-taux-boj");
    expect(claim?.kind).toBe("fait");
    expect(graph.edges).toContainEqual(
      expect.objectContaining({ type: "asserts", from: "article:carry-trade-yen-boj", to: claim.id }),
    );
    expect(graph.edges).toContainEqual(
      expect.objectContaining({ type: "operated-by", from: "host:www.boj.or.jp", to: "institution:banque-du-japon" }),
    );
  });
});

describe("primary-source hosts", () => {
  const hosts = [
    { host: "www.boj.or.jp", slug: "banque-du-japon" },
    { host: "fiscaldata.treasury.gov", slug: "us-treasury" },
  ];
  it("match the same host and its subdomains, not look-alikes", () => {
    expect(ownerOf("www.boj.or.jp", hosts)).toBe("banque-du-japon");
    expect(ownerOf("boj.or.jp", hosts)).toBe("banque-du-japon");
    expect(ownerOf("www.stat-search.boj.or.jp", hosts)).toBe("banque-du-japon");
    expect(ownerOf("notboj.or.jp", hosts)).toBeNull();
    expect(ownerOf("api.fiscaldata.treasury.gov", hosts)).toBe("us-treasury");
    expect(ownerOf("treasury.gov.evil.example", hosts)).toBeNull();
  });
});

describe("the sources registry", () => {
  it("lists the primary sources with their hosts and counts the cited hosts", async () => {
    const sources = (await demoSite()).json("/api/v1/sources.json");
    expect(sources.counts.primarySources).toBe(8);
    expect(sources.primarySources.find((s: { slug: string }) => s.slug === "banque-du-japon").hosts).toContain(
      "www.boj.or.jp",
    );
    const boj = sources.referenceHosts.find((h: { host: string }) => h.host === "www.boj.or.jp");
    expect(boj).toMatchObject({ kind: "primary-source", primarySource: "banque-du-japon" });
    expect(sources.counts.referenceHosts).toBe(sources.referenceHosts.length);
    expect(sources.counts.references).toBe(
      sources.referenceHosts.reduce((n: number, h: { references: number }) => n + h.references, 0),
    );
  });
});

describe("translations in the catalog", () => {
  it("link each English item to its French original, with current and stale told apart", async () => {
    const catalog = (await demoSite()).json("/api/v1/catalog.json");
    const en = catalog.articles.filter((a: { language: string }) => a.language === "en");
    expect(en).toHaveLength(6);
    for (const a of en) {
      expect(a.evidence).toBeUndefined();
      expect(a.canonicalId).toBe(`article:${a.translationOf}`);
      expect(a.alternateUrl).toMatch(/\/articles\/[a-z0-9-]+\/$/);
    }
    expect(en.find((a: { slug: string }) => a.slug === "btp-bund-spread-2026").translationStatus).toBe("stale");
    expect(en.find((a: { slug: string }) => a.slug === "yen-carry-trade-boj").translationStatus).toBe("current");
    const fr = catalog.articles.find((a: { slug: string }) => a.slug === "liquidite-bancaire-repo");
    expect(fr).toMatchObject({ language: "fr", canonicalId: "article:liquidite-bancaire-repo", alternateUrl: null });
    expect(fr.evidence.depth.score).toBeGreaterThanOrEqual(1);
  });

  it("publishes a translation whose original is gone as missing-source instead of failing", async () => {
    const dir = demoCopy();
    editFile(`${dir}/content/articles/en/yen-carry-trade-boj.md`, (t) =>
      t.replace(/^translationOf: .*$/m, "translationOf: nowhere"),
    );
    const catalog = (await demoSite(dir)).json("/api/v1/catalog.json");
    const item = catalog.articles.find((a: { slug: string }) => a.slug === "yen-carry-trade-boj");
    expect(item).toMatchObject({ translationStatus: "missing-source", translationOf: "nowhere", alternateUrl: null });
  });
});

describe("evidence depth", () => {
  it("reaches direct-proof or reproduction only through a review with a locator", async () => {
    const catalog = (await demoSite()).json("/api/v1/catalog.json");
    const depth = (slug: string) =>
      catalog.articles.find((a: { slug: string; language: string }) => a.slug === slug && a.language === "fr").evidence
        .depth;
    expect(depth("spread-btp-bund-2026")).toMatchObject({ id: "reproduction", score: 5, automated: false });
    expect(depth("carry-trade-yen-boj")).toMatchObject({ id: "direct-proof", score: 4, automated: false });
    expect(depth("prix-gaz-europe-hiver-2026").score).toBeLessThanOrEqual(3);
    expect(depth("prix-gaz-europe-hiver-2026").automated).toBe(true);
  });
});

describe("the search index", () => {
  it("loads in minisearch as a browser page would, and finds both languages with accents folded", async () => {
    const surface = (await demoSite()).json("/api/v1/search-index.json");
    const index = MiniSearch.loadJSON(surface.index, {
      idField: surface.engine.idField,
      fields: surface.engine.fields,
      storeFields: surface.engine.storeFields,
      processTerm: foldTerm,
    });
    expect(index.documentCount).toBe(surface.counts.documents);
    expect(surface.counts.fr + surface.counts.en).toBe(surface.counts.documents);
    const hits = querySearchIndex(surface.index, "eleve", { lang: "fr" });
    expect(hits.length).toBeGreaterThan(0);
    const fr = querySearchIndex(surface.index, "dette américaine plafond", { lang: "fr" });
    expect(fr[0]!.id).toBe("article:fr:dette-americaine-plafond-2026");
    const en = querySearchIndex(surface.index, "debt ceiling", { lang: "en" });
    expect(en[0]!.id).toBe("article:en:us-debt-ceiling-2026");
    expect(querySearchIndex(surface.index, "debt ceiling", { lang: "fr" }).every((h) => h.id.includes(":fr:"))).toBe(
      true,
    );
  });

  it("folds case and accents the same way for indexing and querying", () => {
    expect(foldTerm("Élevé")).toBe("eleve");
    expect(foldTerm("ÉCART")).toBe(foldTerm("ecart"));
  });

  it("indexes the words of Markdown without its markup", () => {
    const plain = markdownToPlain(
      "## Titre\n\n<!-- claim-id: x -->\nUn [lien vers la BoJ](https://www.boj.or.jp/2026/) et **gras** et `code`.\n\n- item",
    );
    expect(plain).toBe("Titre Un lien vers la BoJ et gras et code. item");
  });
});

describe("llms.txt and the corpora", () => {
  it("follows the llmstxt.org shape: H1, blockquote, H2 sections of links, an Optional section", async () => {
    const text = (await demoSite()).text("/llms.txt");
    expect(text).toMatch(/^# .+\n\n> .+\n/);
    const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections.at(-1)).toBe("Optional");
    expect(sections).toContain("Articles");
    for (const line of text.split("\n").filter((l) => l.startsWith("- ")))
      expect(line).toMatch(/^- \[[^\]]+\]\(https?:\/\/[^)\s]+\)(: .+)?$/);
    expect(text).not.toMatch(/^### /m);
  });

  it("keeps llms.txt under 64 KB at ten times the demo's scale, pointing to what it leaves out", async () => {
    const publication = await loadPublication(nodeFs, `${ROOT}demo`);
    const many = {
      ...publication,
      articles: Array.from({ length: 600 }, (_, i) => ({
        ...publication.articles[i % publication.articles.length]!,
        slug: `a-${i}`,
      })),
    };
    const text = llmsTxt(many, { registry: SURFACES, url: url(publication) });
    expect(new TextEncoder().encode(text).byteLength).toBeLessThan(LLMS_MAX_BYTES);
    expect(text).toMatch(/article\(s\) plus ancien\(s\)/);
  });

  it("keeps the French and English corpora apart", async () => {
    const site = await demoSite();
    const fr = site.text("/llms-full.txt");
    const en = site.text("/llms-full-en.txt");
    expect(fr).toContain("Carry trade sur le yen");
    expect(fr).not.toContain("The BTP-Bund spread, a thermometer");
    expect(en).toContain("The BTP-Bund spread, a thermometer");
    expect(en).not.toContain("Carry trade sur le yen : la Banque du Japon");
    expect(en).toContain("(stale)");
    expect(fr).not.toContain("<!-- claim-id");
  });
});

describe("the editorial analysis", () => {
  it("is computed once per publication and instant", async () => {
    const publication = await loadPublication(nodeFs, `${ROOT}demo`);
    expect(editorialOf(publication, NOW, url(publication))).toBe(editorialOf(publication, NOW, url(publication)));
    expect(editorialOf(publication, "2026-11-21T10:15:00Z", url(publication))).not.toBe(
      editorialOf(publication, NOW, url(publication)),
    );
  });
});
