/** The contract's records of the corpus, shared by the catalog, its NDJSON twin, the sources and the agent manifest. */
import { pageOf } from "../inputs/pages.ts";
import type { Doc, Publication } from "../inputs/publication.ts";
import type { Editorial } from "../editorial/analysis.ts";
import type { ContentSummary, GlossaryEntry, MethodologySummary, PrimarySource } from "../schemas/contract.ts";
import { byCodeUnits, bySlug, docPath, resolveHref, type UrlOf } from "./common.ts";

/**
 * The catalog record of an article or guide. French articles carry their evidence (claims,
 * depth, badges); English translations carry none of their own and point to their original.
 */
export function contentSummary(
  doc: Doc,
  url: UrlOf,
  editorial: Editorial,
  pages: Publication["pages"],
): ContentSummary {
  const m = doc.meta;
  const evidence = doc.kind === "article" && doc.lang === "fr" ? editorial.bySlug.get(doc.slug)?.summary : undefined;
  const t = editorial.translation(doc);
  return {
    slug: doc.slug,
    url: url(docPath(doc)),
    title: m.title,
    date: m.date,
    updated: m.updated ?? null,
    description: m.description,
    summary: m.summary ?? null,
    tags: m.tags ?? [],
    topics: m.topics ?? [],
    revisions: {
      published: m.date,
      updated: m.updated ?? null,
      policy: `${url(pages.protocol)}#corrections`,
      changelog: url(pages.changelog),
    },
    ...(evidence ? { evidence } : {}),
    language: t.language,
    canonicalId: t.canonicalId,
    ...(doc.lang === "en" ? { translationOf: t.translationOf, translationStatus: t.translationStatus } : {}),
    alternateUrl: t.alternateUrl,
  };
}

export function methodologySummaries(p: Publication, url: UrlOf): MethodologySummary[] {
  return [...p.methodologies].sort(bySlug).map((m) => ({
    slug: m.slug,
    url: url(pageOf(p.pages.methodology, m.slug)),
    title: m.title,
    label: m.label,
    description: m.description,
    question: m.question,
    updated: m.updated,
    dashboard: m.dashboard ?? null,
    repo: m.repo ?? null,
    scaleCaveat: m.scaleCaveat ?? null,
    sources: m.sources ?? [],
  }));
}

export function glossaryEntries(p: Publication, url: UrlOf): GlossaryEntry[] {
  return [...p.glossary].sort(bySlug).map((g) => ({
    slug: g.slug,
    url: url(pageOf(p.pages.glossaryEntry, g.slug)),
    sigle: g.sigle ?? null,
    name: g.name,
    definition: g.definition,
    category: g.category,
    guide: g.guide ?? null,
    atlas: g.atlas
      ? {
          intuition: g.atlas.intuition,
          formula: g.atlas.formula,
          whyNow: g.atlas.whyNow,
          related: g.atlas.related,
          articles: g.atlas.articles.map((l) => ({ ...l, href: resolveHref(l.href, url) })),
          guides: g.atlas.guides.map((l) => ({ ...l, href: resolveHref(l.href, url) })),
          datasets: g.atlas.datasets.map((l) => ({ ...l, href: resolveHref(l.href, url) })),
          signals: g.atlas.signals.map((l) => ({ ...l, href: resolveHref(l.href, url) })),
          sources: g.atlas.sources.map((l) => ({ ...l, href: resolveHref(l.href, url) })),
        }
      : null,
  }));
}

export function primarySources(p: Publication, url: UrlOf): PrimarySource[] {
  return [...p.primarySources].sort(bySlug).map((s) => ({ ...s, url: url(pageOf(p.pages.source, s.slug)) }));
}

export function editorialProtocol(p: Publication, url: UrlOf) {
  return { url: url(p.pages.protocol), ...p.protocol };
}

export function editorialChangelog(p: Publication, url: UrlOf) {
  return [...p.changelog]
    .sort((a, b) => byCodeUnits(b.date, a.date) || byCodeUnits(a.id, b.id))
    .map((c) => ({
      date: c.date,
      title: c.title,
      kind: c.kind,
      summary: c.summary,
      links: c.links.map((l) => ({ label: l.label, href: resolveHref(l.href, url) })),
      url: `${url(p.pages.changelog)}#${c.id}`,
    }));
}
