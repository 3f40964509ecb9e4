/**
 * The editorial analysis of a publication: claims, references and evidence per French article,
 * reviews applied, orphan reviews, and the links between translations and their originals.
 * Several surfaces read it (catalog, claims, evidence graph, sources, search, llms), so it is
 * computed once per publication and assembly instant.
 */
import { pageOf } from "../inputs/pages.ts";
import { extractArticleEvidence, type ArticleEvidence } from "../claims/extract.ts";
import type { ClaimRecord } from "../schemas/contract.ts";
import { applyReviews, type OrphanReview } from "../claims/reviews.ts";
import { primaryHostsOf, type PrimaryHost } from "../claims/references.ts";
import type { Doc, Publication } from "../inputs/publication.ts";
import { reviewWaits } from "../inputs/publication.ts";
import { noMemo, type Memo } from "../ports.ts";
import type { ArticleEvidenceSummary } from "../schemas/contract.ts";
import { docPath, sortDocs, type UrlOf } from "../surfaces/common.ts";

export type TranslationStatus = "current" | "stale" | "missing-source";

/** Where a document stands among the languages: its translation fields. */
export interface TranslationLink {
  language: "fr" | "en";
  /** The id shared by an original and its translations: `article:<French slug>`. */
  canonicalId: string;
  /** The French original's slug, as the translation declares it. */
  translationOf: string | null;
  alternateUrl: string | null;
  translationStatus: TranslationStatus | null;
}

export interface ArticleAnalysis {
  doc: Doc;
  url: string;
  evidence: ArticleEvidence;
  /** The article's claims with their reviews applied. */
  claims: ClaimRecord[];
  summary: ArticleEvidenceSummary;
}

export interface Editorial {
  /** French articles, in catalog order (newest first). */
  articles: ArticleAnalysis[];
  bySlug: Map<string, ArticleAnalysis>;
  /** Every claim of the publication, in article order then document order. */
  claims: ClaimRecord[];
  orphans: OrphanReview[];
  primaryHosts: PrimaryHost[];
  translation(doc: Doc): TranslationLink;
}

const memo = new WeakMap<Publication, { key: string; value: Editorial }>();

/**
 * The editorial analysis of `p` at `now`, computed once for both. Each article's extraction comes
 * from `kept` when an earlier assembly extracted the same article (the first caller's `kept` is
 * the one used).
 */
export function editorialOf(p: Publication, now: string, url: UrlOf, kept: Memo = noMemo): Editorial {
  const key = `${now} ${url("/")}`;
  const hit = memo.get(p);
  if (hit && hit.key === key) return hit.value;
  const value = analyse(p, now, url, kept);
  memo.set(p, { key, value });
  return value;
}

/** The instant an extraction is computed at before it is kept: `now` only feeds each reference's `indexedAt`. */
const KEPT_AT = "1970-01-01T00:00:00Z";

function analyse(p: Publication, now: string, url: UrlOf, kept: Memo): Editorial {
  const baseUrl = p.config.baseUrl;
  const primaryHosts = primaryHostsOf(p.primarySources);
  const hosts = JSON.stringify(primaryHosts);
  const extracted = sortDocs(p.articles.filter((d) => d.lang === "fr")).map((doc) => {
    const pageUrl = url(docPath(doc));
    const input = {
      slug: doc.slug,
      title: doc.meta.title,
      url: pageUrl,
      date: doc.meta.date,
      body: doc.body,
      bodyLine: doc.bodyLine,
      file: doc.file,
    };
    const parts = [
      input.slug,
      input.title,
      input.url,
      input.date,
      // The body by the key of the text it was read from, when there is one: hashing that is cheaper.
      doc.bodyKey ? `key:${doc.bodyKey}` : input.body,
      String(input.bodyLine),
      input.file,
      baseUrl,
      hosts,
    ];
    const evidence = indexedAt(
      kept.remember(doc.bodyKey ? "article-evidence-by-key" : "article-evidence", parts, () =>
        extractArticleEvidence(input, { now: KEPT_AT, baseUrl, primaryHosts }),
      ),
      now,
    );
    return { doc, url: pageUrl, evidence };
  });
  const reviewed = applyReviews(
    extracted.flatMap((a) => a.evidence.claims),
    p.claimReviews.entries,
    (claimId) => reviewWaits(p, claimId),
  );
  const claimsBySlug = new Map<string, ClaimRecord[]>();
  for (const c of reviewed.claims) {
    const list = claimsBySlug.get(c.articleSlug) ?? [];
    list.push(c);
    claimsBySlug.set(c.articleSlug, list);
  }
  const sources = new Map(p.primarySources.map((s) => [s.slug, s]));
  const depthLevels = new Map(p.protocol.proofDepthLevels.map((l) => [l.id, l]));
  // The addresses of every primary source's datasets, once for all the articles.
  const datasetHrefs = new Set([...sources.values()].flatMap((s) => (s.datasets ?? []).map((d) => d.url)));
  const articles = extracted.map(({ doc, url: pageUrl, evidence }) => {
    const claims = claimsBySlug.get(doc.slug) ?? [];
    return {
      doc,
      url: pageUrl,
      evidence,
      claims,
      summary: summaryOf(evidence, claims, { sources, depthLevels, datasetHrefs, url, pages: p.pages }),
    };
  });
  return {
    articles,
    bySlug: new Map(articles.map((a) => [a.doc.slug, a])),
    claims: articles.flatMap((a) => a.claims),
    orphans: reviewed.orphans,
    primaryHosts,
    translation: translationsOf(p, url),
  };
}

/** An extraction made at KEPT_AT, moved to `now`: every reference's `indexedAt`, in the claims too. */
function indexedAt(evidence: ArticleEvidence, now: string): ArticleEvidence {
  const at = <R extends { indexedAt: string | null }>(r: R): R => ({ ...r, indexedAt: now });
  return {
    ...evidence,
    references: evidence.references.map(at),
    claims: evidence.claims.map((c) => ({ ...c, references: c.references.map(at) })),
  };
}

interface SummaryContext {
  sources: Map<string, Publication["primarySources"][number]>;
  depthLevels: Map<string, Publication["protocol"]["proofDepthLevels"][number]>;
  /** The addresses of the primary sources' datasets. */
  datasetHrefs: ReadonlySet<string>;
  url: UrlOf;
  pages: Publication["pages"];
}

const DEPTH_SCORES = { mention: 1, reference: 2, "linked-source": 3, "direct-proof": 4, reproduction: 5 } as const;
type DepthId = keyof typeof DEPTH_SCORES;

/**
 * The evidence depth of an article. Levels 1 to 3 are measured from its links; 4 and 5 need a
 * review: `direct-proof` a review that locates the value in the source, `reproduction` one that
 * also publishes an artifact that recomputes it. Nothing automatic ever reaches 4.
 */
export function depthOf(evidence: ArticleEvidence, claims: readonly ClaimRecord[]): { id: DepthId; detail: string } {
  const located = claims.filter((c) => c.reviewStatus === "reviewed" && c.evidenceLocator);
  const reproduced = located.filter((c) => c.reviewedProofDepth === "reproduction" && c.reproductionArtifact);
  if (reproduced.length > 0) {
    return {
      id: "reproduction",
      detail: `${reproduced.length} affirmation(s) revue(s) avec localisation et artefact de reproduction publié.`,
    };
  }
  const direct = located.filter(
    (c) => c.reviewedProofDepth === "direct-proof" || c.reviewedProofDepth === "reproduction",
  );
  if (direct.length > 0) {
    return {
      id: "direct-proof",
      detail: `${direct.length} affirmation(s) revue(s) dont la valeur est localisée dans la source.`,
    };
  }
  if (evidence.counts.primarySources > 0) {
    return {
      id: "linked-source",
      detail: `${evidence.counts.primarySources} lien(s) vers des sources primaires répertoriées.`,
    };
  }
  if (evidence.counts.externalLinks > 0) {
    return {
      id: "reference",
      detail: `${evidence.counts.externalLinks} lien(s) externe(s), aucun vers une source primaire répertoriée.`,
    };
  }
  return { id: "mention", detail: "Aucun lien externe vérifiable." };
}

function summaryOf(evidence: ArticleEvidence, claims: ClaimRecord[], ctx: SummaryContext): ArticleEvidenceSummary {
  const depth = depthOf(evidence, claims);
  const level = ctx.depthLevels.get(depth.id);
  const badges: ArticleEvidenceSummary["badges"] = [];
  const external = evidence.references.filter((r) => r.kind !== "internal");
  if (evidence.counts.primarySources > 0) {
    badges.push({
      id: "primary-source",
      label: "Source primaire",
      detail: `${evidence.counts.primarySources} lien(s) vers des institutions répertoriées.`,
    });
  }
  const dataLinks = external.filter(
    (r) => ctx.datasetHrefs.has(r.href) || /\/(data|statistics|series|datasets?)\//i.test(new URL(r.href).pathname),
  );
  if (dataLinks.length > 0) {
    badges.push({
      id: "public-data",
      label: "Données publiques",
      detail: `${dataLinks.length} lien(s) vers des jeux de données publics.`,
    });
  }
  const secondary = external.filter((r) => r.kind !== "primary-source");
  if (secondary.length > 0) {
    badges.push({
      id: "secondary-source",
      label: "Source secondaire",
      detail: `${secondary.length} lien(s) vers des sources non répertoriées comme primaires.`,
    });
  }
  if (claims.some((c) => c.kind === "scénario")) {
    badges.push({
      id: "scenario",
      label: "Scénario",
      detail: "L’article contient au moins une affirmation conditionnelle (scénario).",
    });
  }
  if (evidence.counts.internalLinks > 0) {
    badges.push({
      id: "internal-context",
      label: "Contexte interne",
      detail: `${evidence.counts.internalLinks} lien(s) vers des pages de la publication.`,
    });
  }
  return {
    claims,
    depth: {
      id: depth.id,
      label: level?.label ?? depth.id,
      detail: depth.detail,
      score: DEPTH_SCORES[depth.id],
      automated: DEPTH_SCORES[depth.id] <= 3,
    },
    badges,
    primarySources: evidence.primarySourceSlugs.flatMap((slug) => {
      const s = ctx.sources.get(slug);
      return s
        ? [{ slug, name: s.name, url: ctx.url(pageOf(ctx.pages.source, slug)), reason: "source-liée" as const }]
        : [];
    }),
    counts: {
      externalLinks: evidence.counts.externalLinks,
      internalLinks: evidence.counts.internalLinks,
      primarySources: evidence.counts.primarySources,
      claimRelations: claims.reduce((n, c) => n + c.references.length, 0),
    },
  };
}

/**
 * Translation links. An English document names its French original (`translationOf`) and
 * the date of the original it translates (`translatedFrom`): it is `current` when that date is
 * not older than the original's last update, `stale` when it is, and `missing-source` when the
 * original is not in the publication.
 */
function translationsOf(p: Publication, url: UrlOf): (doc: Doc) => TranslationLink {
  const french = new Map<string, Doc>();
  const english = new Map<string, Doc>();
  for (const d of [...p.articles, ...p.guides]) {
    if (d.lang === "fr") french.set(`${d.kind}:${d.slug}`, d);
    else if (d.meta.translationOf) english.set(`${d.kind}:${d.meta.translationOf}`, d);
  }
  return (doc) => {
    if (doc.lang === "fr") {
      const en = english.get(`${doc.kind}:${doc.slug}`);
      return {
        language: "fr",
        canonicalId: `${doc.kind}:${doc.slug}`,
        translationOf: null,
        alternateUrl: en ? url(docPath(en)) : null,
        translationStatus: null,
      };
    }
    const originalSlug = doc.meta.translationOf ?? null;
    const original = originalSlug ? french.get(`${doc.kind}:${originalSlug}`) : undefined;
    let status: TranslationStatus = "missing-source";
    if (original) {
      const sourceDate = original.meta.updated ?? original.meta.date;
      // Without translatedFrom, a translation revised on or after its original's last revision follows it.
      const follows = doc.meta.translatedFrom ?? doc.meta.updated ?? doc.meta.date;
      status = follows >= sourceDate ? "current" : "stale";
    }
    return {
      language: "en",
      canonicalId: `${doc.kind}:${originalSlug ?? `en/${doc.slug}`}`,
      translationOf: originalSlug,
      alternateUrl: original ? url(docPath(original)) : null,
      translationStatus: status,
    };
  };
}
