/**
 * Links to the publisher's own pages that name no page the publication has: an article or a guide
 * deleted, made a draft or given another slug leaves the links to it in other bodies and in the
 * glossary atlas, and every surface would publish them as written. Only an address shaped as one
 * of the publication's page patterns (`urls:` in the config) is judged: the rest of the
 * publisher's site is not risk-cli's to know.
 */
import type { Publication } from "../inputs/publication.ts";
import { pageOf } from "../inputs/pages.ts";
import { parseBlocks, parseInline } from "../claims/markdown.ts";
import { PROSE_BLOCKS } from "../claims/extract.ts";
import { absoluteUrl } from "../claims/references.ts";

/** The path of every publisher's page the publication links: the fixed pages, and one per document or record. */
export function publisherPages(p: Publication): Set<string> {
  const { pages: at } = p;
  const pages = new Set<string>([at.home, at.sources, at.protocol, at.changelog, at.agents, at.glossary]);
  for (const d of [...p.articles, ...p.guides]) pages.add(d.path);
  for (const m of p.methodologies) pages.add(pageOf(at.methodology, m.slug));
  for (const g of p.glossary) pages.add(pageOf(at.glossaryEntry, g.slug));
  for (const s of p.primarySources) pages.add(pageOf(at.source, s.slug));
  return pages;
}

export interface DeadLink {
  /** The file, as the publication names it. */
  file: string;
  field: string;
  /** The address as written. */
  href: string;
  /** The kind of page its address has the shape of ("French article", "glossary entry"). */
  kind: string;
  /** 1-based line in the file, when the body tells it. */
  line?: number;
  /** For the glossary: the entry whose atlas holds the link. */
  entry?: string;
}

const PLACEHOLDER = {
  "{slug}": "[^/]+",
  "{year}": "\\d{4}",
  "{month}": "\\d{2}",
  "{day}": "\\d{2}",
  // A page's folders below its globs' start: none, or any number of segments.
  "{folder}/": "(?:[^/]+/)*",
} as const;

/**
 * A pattern as a test of a path. Null for a pattern that tells no page of its kind from other
 * pages of the site (`/{slug}/`, `/{slug}.html`): no path segment of its own, no date.
 */
function shapeOf(pattern: string): RegExp | null {
  const own = pattern.split("/").some((s) => s !== "" && !s.includes("{")) || /\{(year|month|day)\}/.test(pattern);
  if (!own) return null;
  const source = pattern
    .split(/(\{folder\}\/|\{(?:slug|year|month|day)\})/)
    .map((part, i) =>
      i % 2 ? PLACEHOLDER[part as keyof typeof PLACEHOLDER] : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  // A page's address is the same page with or without its closing slash.
  return new RegExp(`^${source.replace(/\/$/, "")}/?$`);
}

/** Every link of the bodies and of the glossary atlas to a page address of the publication that names no page. */
export function deadLinks(p: Publication): DeadLink[] {
  const known = publisherPages(p);
  const { pages: at } = p;
  const shapes = (
    [
      ["French article", at.article.fr],
      ["English article", at.article.en],
      ["French guide", at.guide.fr],
      ["English guide", at.guide.en],
      ["methodology", at.methodology],
      ["glossary entry", at.glossaryEntry],
      ["source", at.source],
    ] as const
  ).flatMap(([kind, pattern]) => {
    const shape = shapeOf(pattern);
    return shape ? [{ kind, shape }] : [];
  });
  const base = new URL(p.config.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  const url = (path: string) => `${p.config.baseUrl}${path}`;
  /** The kind of page `href` has the address of and names none, or null. */
  const deadKind = (href: string, pageUrl: string): string | null => {
    const u = absoluteUrl(href, p.config.baseUrl, pageUrl);
    if (u === null || u.hostname.toLowerCase() !== base.hostname.toLowerCase()) return null;
    if (basePath && u.pathname !== basePath && !u.pathname.startsWith(`${basePath}/`)) return null;
    let path = u.pathname.slice(basePath.length) || "/";
    try {
      path = decodeURIComponent(path).normalize("NFC");
    } catch {
      // A stray % is no page address risk-cli gives: left as written.
    }
    if (known.has(path) || known.has(path.endsWith("/") ? path.slice(0, -1) : `${path}/`)) return null;
    return shapes.find((s) => s.shape.test(path))?.kind ?? null;
  };
  const rel = (file: string) => (file.startsWith(`${p.root}/`) ? file.slice(p.root.length + 1) : file);
  const found: DeadLink[] = [];
  for (const doc of [...p.articles, ...p.guides]) {
    const pageUrl = url(doc.path);
    const parsed = parseBlocks(doc.body);
    for (const block of parsed.blocks) {
      if (!PROSE_BLOCKS.has(block.type)) continue;
      for (const link of parseInline(block.raw, parsed.definitions).links) {
        const kind = deadKind(link.href, pageUrl);
        if (kind === null) continue;
        // The line of the block that writes the address; a reference link, the block's first.
        const at = block.raw.indexOf(link.href);
        const within = at < 0 ? 0 : (block.raw.slice(0, at).match(/\n/g)?.length ?? 0);
        found.push({
          file: rel(doc.file),
          field: "(body)",
          href: link.href,
          kind,
          line: doc.bodyLine + block.line + within,
        });
      }
    }
  }
  for (const entry of p.glossary) {
    const pageUrl = url(pageOf(at.glossaryEntry, entry.slug));
    for (const list of ["articles", "guides", "datasets", "signals", "sources"] as const) {
      (entry.atlas?.[list] ?? []).forEach((link, i) => {
        const kind = deadKind(link.href, pageUrl);
        if (kind === null) return;
        found.push({
          file: "content/glossary.yaml",
          field: `${entry.slug}.atlas.${list}[${i}].href`,
          href: link.href,
          kind,
          entry: entry.slug,
        });
      });
    }
  }
  return found;
}
