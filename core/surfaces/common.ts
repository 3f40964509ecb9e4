/**
 * What many surfaces share: the contract versions, where each document is published, and the
 * orders that keep output stable.
 */
import type { Doc } from "../inputs/publication.ts";
export const CONTRACT_VERSION = "1.18.0";
export const OPENAPI_VERSION = "1.10.0";

export type UrlOf = (path: string) => string;

/** Compares strings by UTF-16 code units, the order of canonical JSON keys: locale-independent. */
export const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Records by id, or by slug, in code-unit order. Functions of the module, not written inline
 * where they are used: V8 keeps a closure's optimised code only while the closure lives, so a
 * closure made at every assembly was compiled again at every assembly of a long-lived process
 * (`serve`, the benchmarks). The comparators and per-record functions of the assembly's hot
 * paths are written so.
 */
export const byId = (a: { id: string }, b: { id: string }) => byCodeUnits(a.id, b.id);
export const bySlug = (a: { slug: string }, b: { slug: string }) => byCodeUnits(a.slug, b.slug);

/** The page of an article or guide on the publisher's site (the config's `urls:`). */
export function docPath(doc: Pick<Doc, "path">): string {
  return doc.path;
}

/** Resolves a site-relative href (`/x/`) against the base URL; absolute URIs pass through. */
export function resolveHref(href: string, url: UrlOf): string {
  return href.startsWith("/") ? url(href) : href;
}

/** Newest first: by date, then by the instant when the frontmatter gave a time of day, then by language and slug. */
export function sortDocs(docs: Doc[]): Doc[] {
  return [...docs].sort(newestFirst);
}

const newestFirst = (a: Doc, b: Doc) =>
  byCodeUnits(b.meta.date, a.meta.date) ||
  byCodeUnits(b.publishedAt ?? "", a.publishedAt ?? "") ||
  byCodeUnits(a.lang, b.lang) ||
  byCodeUnits(a.slug, b.slug);

/** `Dette publique` -> `dette-publique`: accents folded, ASCII only. */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}
