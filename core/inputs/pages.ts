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
  /**
   * The zone whose calendar gives {year}, {month} and {day}. When unset: the day as written for a
   * Hugo site (content.templates: hugo), else content.timezone, else UTC.
   */
  timezone?: string;
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
  timezone?: string;
}

/**
 * The placeholders an article's or a guide's pattern may hold besides {slug}: its date's year
 * (four digits), month and day (two digits each), as Jekyll's :year, :month and :day give them.
 */
export const DATE_PLACEHOLDERS = ["{year}", "{month}", "{day}"] as const;

/** A document's date as its page address shows it: YYYY, MM and DD. */
export interface PageDate {
  year: string;
  month: string;
  day: string;
}

/**
 * The date a page address shows for a document. With a `zone`, the calendar day of its
 * publication instant there (as Jekyll shows a post's date in its site's timezone); with none
 * (null), the day its frontmatter writes, `written`: a date-time's own day in the offset written
 * with it, or on its wall clock when it has none (as Hugo's permalinks show it, a date-time
 * without an offset being read in the site's timeZone). A date given alone is that day either way.
 */
export function pageDateOf(
  date: string,
  instant: string | null,
  zone: string | null,
  written: string | null = null,
): PageDate {
  if (zone === null) {
    const [year, month, day] = (written ?? date).split("-");
    return { year: year!, month: month!, day: day! };
  }
  if (instant) {
    const part: Record<string, string> = {};
    const format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    for (const p of format.formatToParts(Date.parse(instant))) part[p.type] = p.value;
    return { year: part.year!.padStart(4, "0"), month: part.month!, day: part.day! };
  }
  const [year, month, day] = date.split("-");
  return { year: year!, month: month!, day: day! };
}

/**
 * The placeholder of an article's or a guide's pattern that stands for the folders between the
 * start of its kind's globs and the page (`2026/q1` for `content/posts/2026/q1/x.md` read by
 * `content/posts/**\/*.md`), as Hugo puts a page's subfolders in its address by default. It is
 * a whole segment, `/{folder}/`, which a page at the globs' start leaves out.
 */
export const FOLDER_PLACEHOLDER = "{folder}";

/**
 * The path of the page a pattern with {slug} (and, for a document, its date's parts and its
 * folder below its globs' start) gives.
 */
export const pageOf = (pattern: string, slug: string, date?: PageDate, folder?: string) => {
  let path = pattern.replaceAll("{slug}", slug);
  if (folder !== undefined) path = path.replaceAll(`${FOLDER_PLACEHOLDER}/`, folder ? `${folder}/` : "");
  return date
    ? path.replaceAll("{year}", date.year).replaceAll("{month}", date.month).replaceAll("{day}", date.day)
    : path;
};

export function pagesOf(patterns: PagePatterns | undefined): Pages {
  const p = patterns ?? {};
  return {
    ...PAGE_DEFAULTS,
    ...p,
    article: { ...PAGE_DEFAULTS.article, ...p.article },
    guide: { ...PAGE_DEFAULTS.guide, ...p.guide },
  };
}
