/**
 * Where the publisher's pages are: every surface that links a page (catalog, llms.txt, claims, the
 * evidence graph, the Atom feed, agents.json, the search index) takes its path from here. risk-cli
 * builds none of these pages; the publisher's site does, under the patterns its config gives
 * (`urls:` in risk.config.yaml), and these defaults are the demo's.
 */

export const PAGE_DEFAULTS = {
  article: { fr: "/articles/{slug}/", en: "/en/articles/{slug}/" },
  guide: { fr: "/guides/{slug}/", en: "/en/guides/{slug}/" },
  methodology: "/methodologies/{slug}/",
  glossary: "/glossaire/",
  glossaryEntry: "/glossaire/{slug}/",
  sources: "/sources/",
  source: "/sources/{slug}/",
  protocol: "/protocole-editorial/",
  changelog: "/journal-editorial/",
  agents: "/donnees/agents/",
  home: "/",
} as const;

/** The page patterns a config may set, each optional (the defaults above fill the rest). */
export interface PagePatterns {
  article?: { fr?: string; en?: string };
  guide?: { fr?: string; en?: string };
  methodology?: string;
  glossary?: string;
  glossaryEntry?: string;
  sources?: string;
  source?: string;
  protocol?: string;
  changelog?: string;
  agents?: string;
  home?: string;
}

/** Every page pattern, defaults filled in: plain data, so that a cached publication keeps it. */
export interface Pages {
  article: { fr: string; en: string };
  guide: { fr: string; en: string };
  methodology: string;
  glossary: string;
  glossaryEntry: string;
  sources: string;
  source: string;
  protocol: string;
  changelog: string;
  agents: string;
  home: string;
}

/** The path of the page a pattern with {slug} gives for `slug`. */
export const pageOf = (pattern: string, slug: string) => pattern.replaceAll("{slug}", slug);

export function pagesOf(patterns: PagePatterns | undefined): Pages {
  const p = patterns ?? {};
  return {
    ...PAGE_DEFAULTS,
    ...p,
    article: { ...PAGE_DEFAULTS.article, ...p.article },
    guide: { ...PAGE_DEFAULTS.guide, ...p.guide },
  };
}
