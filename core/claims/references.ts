/** Links of an article as EvidenceReference records: absolute href, host, kind, dates. */
import type { z } from "zod";
import type { EvidenceReference } from "../schemas/contract.ts";
import { rfc3986Href } from "../schemas/primitives.ts";
import { findDates, type Observation } from "./dates.ts";
import { fold } from "./text.ts";

export type Reference = z.infer<typeof EvidenceReference>;
export type ReferenceKind = "primary-source" | "secondary-source" | "internal";

export interface PrimaryHost {
  host: string;
  slug: string;
}

export const NO_SOURCE_DATE_LABEL = "date de publication de la source non précisée";

/**
 * `href` made absolute: site-relative paths (`/…`) against the base URL (which may carry a path),
 * other relative ones against the article's URL. Null for what is not an http(s) link: in-page
 * anchors, mailto:, tel:, and hrefs that do not parse.
 */
export function absoluteHref(href: string, baseUrl: string, pageUrl: string): string | null {
  const url = absoluteUrl(href, baseUrl, pageUrl);
  return url ? rfc3986Href(url) : null;
}

/** absoluteHref() as a parsed URL. */
export function absoluteUrl(href: string, baseUrl: string, pageUrl: string): URL | null {
  const h = href.trim();
  if (h === "" || h.startsWith("#")) return null;
  let url: URL;
  try {
    if (/^[a-z][a-z0-9+.-]*:/i.test(h)) url = new URL(h);
    else if (h.startsWith("//")) url = new URL(`https:${h}`);
    else if (h.startsWith("/")) url = new URL(`${baseUrl.replace(/\/+$/, "")}${h}`);
    else url = new URL(h, pageUrl);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
}

/** A host without its `www.` label, lower case: `www.boj.or.jp` and `boj.or.jp` are one institution. */
export function hostKey(host: string): string {
  return host.toLowerCase().replace(/^www\./, "");
}

/**
 * The primary source whose host is `host` or a parent domain of it (`stat-search.boj.or.jp` is the
 * Bank of Japan's, `notboj.or.jp` is not). The longest matching host wins, then the first slug.
 * An assembly asks this for every reference of every article, of a few dozen hosts: the answer is
 * kept per list of primary hosts and host.
 */
export function primarySourceOf(host: string, primaryHosts: readonly PrimaryHost[]): string | null {
  let answers = primaryAnswers.get(primaryHosts);
  if (answers === undefined) primaryAnswers.set(primaryHosts, (answers = new Map()));
  let slug = answers.get(host);
  if (slug === undefined) answers.set(host, (slug = ownerOf(host, primaryHosts)));
  return slug;
}

const primaryAnswers = new WeakMap<readonly PrimaryHost[], Map<string, string | null>>();

function ownerOf(host: string, primaryHosts: readonly PrimaryHost[]): string | null {
  const h = hostKey(host);
  let best: PrimaryHost | null = null;
  let bestKey = "";
  for (const p of primaryHosts) {
    const k = hostKey(p.host);
    if (k === "" || !(h === k || h.endsWith(`.${k}`))) continue;
    if (best === null || k.length > bestKey.length || (k.length === bestKey.length && p.slug < best.slug)) {
      best = p;
      bestKey = k;
    }
  }
  return best ? best.slug : null;
}

/**
 * When the source was published, if its link label says it ("… d’octobre 2026") or the words
 * right after the link do ("[rapport](…) d’avril 2026", "[note](…), publiée le 3 mars 2026").
 * Never from the URL: `/Issues/2026/10/14/` is a path, not a statement.
 */
export function sourcePublicationOf(label: string, sentence: string, linkEnd: number): Observation | null {
  const inLabel = findDates(label);
  if (inLabel.length > 0) return _latest(inLabel);
  const after = findDates(sentence).filter((d) => d.index >= linkEnd);
  for (const d of after) {
    const between = fold(sentence.slice(linkEnd, d.index));
    if (_ADJACENT.test(between) || _PUBLISHED.test(between)) return d;
    break;
  }
  return null;
}

const _ADJACENT = /^\s*[,(]?\s*(?:(?:du|de|d'|of|dated|from)\s*)?$/u;
const _PUBLISHED =
  /(?<![\p{L}])(?:publiee?s?|parue?s?|mise?s? en ligne|published|released|issued)\s+(?:(?:le|en|au|du|on|in)\s+)?$/u;

function _latest(dates: ReturnType<typeof findDates>): Observation {
  return dates.reduce((a, b) => (b.date > a.date ? b : a));
}

/** The hosts of primary sources as records of primary-sources.yaml give them: official site and datasets. */
export function primaryHostsOf(
  sources: readonly { slug: string; officialUrl: string; datasets?: readonly { url: string }[] }[],
): PrimaryHost[] {
  const hosts: PrimaryHost[] = [];
  const seen = new Set<string>();
  for (const s of sources) {
    for (const url of [s.officialUrl, ...(s.datasets ?? []).map((d) => d.url)]) {
      const host = new URL(url).hostname.toLowerCase();
      if (seen.has(`${s.slug} ${host}`)) continue;
      seen.add(`${s.slug} ${host}`);
      hosts.push({ host, slug: s.slug });
    }
  }
  return hosts;
}
