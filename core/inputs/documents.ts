/**
 * A publisher's articles and guides read where they live: the folders or globs the config names
 * for each kind and language, Markdown or MDX, YAML (`---`) or TOML (`+++`) frontmatter whose keys
 * the config maps to risk-cli's, drafts left out, the publisher's other keys declared once and
 * then ignored. An undeclared key is still an error, and its message says how to map or declare it.
 */
import picomatch from "picomatch";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { instantInZone, parseDateTime } from "../dates.ts";
import { inputError } from "../errors.ts";
import { explain, parseWithSchema } from "./locate.ts";
import { readPlainYaml } from "./plain-yaml.ts";
import { FRONTMATTER_KEYS, Frontmatter, type ContentConfig } from "./schemas.ts";

export type DocKind = "article" | "guide";
export type DocLang = "fr" | "en";

/** Where each kind and language is read from when the config says nothing: the demo's layout. */
// Markdown and MDX alike, as with globs: an .mdx file in the default folders is never silently left out.
const DEFAULT_GLOBS: Record<DocKind, Record<DocLang, string[]>> = {
  article: { fr: ["content/articles/fr/*.{md,mdx}"], en: ["content/articles/en/*.{md,mdx}"] },
  guide: { fr: ["content/guides/fr/*.{md,mdx}"], en: ["content/guides/en/*.{md,mdx}"] },
};

/** Markdown and MDX files; anything else a glob matches is not a document. */
const DOCUMENT_FILE = /\.(md|mdx|markdown)$/;

export interface DocLocation {
  kind: DocKind;
  lang: DocLang;
  globs: string[];
  match: (rel: string) => boolean;
}

export function docLocations(content: ContentConfig | undefined): DocLocation[] {
  const out: DocLocation[] = [];
  for (const kind of ["article", "guide"] as const) {
    const configured = content?.[kind === "article" ? "articles" : "guides"];
    for (const lang of ["fr", "en"] as const) {
      const globs = configured ? configured[lang] : DEFAULT_GLOBS[kind][lang];
      const test = picomatch(globs.length ? globs : ["\0none"], { dot: false });
      // A file whose name starts with _ is not a page (Hugo's _index.md, Astro's _draft.md).
      out.push({
        kind,
        lang,
        globs,
        match: (rel) => DOCUMENT_FILE.test(rel) && !/(^|\/)_[^/]*$/.test(rel) && test(rel),
      });
    }
  }
  return out;
}

/** Where a glob starts: its folders before the first that holds a pattern ("" for the root). */
function globStart(glob: string): string {
  const fixed: string[] = [];
  for (const part of glob.split("/").slice(0, -1)) {
    if (/[*?{}[\]!()]/.test(part)) break;
    fixed.push(part);
  }
  return fixed.join("/");
}

/** The first folder of each glob that holds no pattern: where to start listing files. */
export function globRoots(locations: readonly DocLocation[]): string[] {
  const roots = new Set<string>();
  for (const l of locations) for (const g of l.globs) roots.add(globStart(g));
  // A root inside another is listed with it.
  return [...roots].sort().filter((r, i, all) => !all.slice(0, i).some((o) => o === "" || r.startsWith(`${o}/`)));
}

/**
 * The folders between the start of a page's globs and the page (`2026/q1` for
 * `content/posts/2026/q1/x.md` read by `content/posts/**\/*.md`), which a pattern shows as
 * {folder}: a page bundle's `index.md` is the page of its folder, so that folder is its name, not
 * one of its folders. Of the globs whose start holds the file, the shortest start counts, so that
 * a page taken by a glob naming it alone sits where its siblings do. "" at the start itself.
 */
export function pageFolder(rel: string, globs: readonly string[]): string {
  const parts = rel.split("/");
  const name = parts.pop()!;
  if (/^_?index(\.(fr|en))?\.(md|mdx|markdown)$/.test(name)) parts.pop();
  const starts = globs
    .map(globStart)
    .filter((start) => start === "" || rel.startsWith(`${start}/`))
    .map((start) => (start === "" ? 0 : start.split("/").length));
  return parts.slice(starts.length ? Math.min(...starts) : parts.length).join("/");
}

/** Where a document is, once classified. */
export function locate(rel: string, locations: readonly DocLocation[]): { kind: DocKind; lang: DocLang } | null {
  const hit = locations.find((l) => l.match(rel));
  return hit ? { kind: hit.kind, lang: hit.lang } : null;
}

/** The frontmatter block and the body of a Markdown or MDX file. */
export function splitDocument(
  file: string,
  text: string,
): { format: "yaml" | "toml"; head: string; body: string; bodyLine: number } {
  // Spaces or tabs after a fence (an editor's trailing whitespace) do not change it.
  const normalised = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n/g, "\n")
    .replace(/^(---|\+\+\+)[ \t]+\n/, "$1\n");
  const fence = normalised.startsWith("---\n") ? "---" : normalised.startsWith("+++\n") ? "+++" : null;
  if (!fence)
    throw inputError(
      file,
      1,
      undefined,
      "a document must start with frontmatter: YAML between two `---` lines, or TOML between two `+++` lines",
    );
  // YAML's document end `...` closes it too, as Jekyll reads it.
  const closing = fence === "---" ? /\n(?:---|\.\.\.)[ \t]*(?:\n|$)/g : /\n\+\+\+[ \t]*(?:\n|$)/g;
  closing.lastIndex = 3;
  const close = closing.exec(normalised);
  if (!close) throw inputError(file, 1, undefined, `the frontmatter is not closed by a \`${fence}\` line`);
  const end = close.index;
  const head = normalised.slice(4, end + 1);
  return {
    format: fence === "---" ? "yaml" : "toml",
    head,
    body: normalised.slice(end + close[0].length),
    bodyLine: head.split("\n").length + 2,
  };
}

/** The risk-cli key a publisher's key most likely means (pubDate: date), if it is a common one. */
export function likelyKey(key: string): (typeof FRONTMATTER_KEYS)[number] | undefined {
  const k = key.toLowerCase();
  // Own keys only: `constructor` is no publisher's key, whatever objects inherit.
  return Object.hasOwn(LIKELY_KEYS, k) ? LIKELY_KEYS[k] : undefined;
}

/** Keys publishers commonly use, and the risk-cli key each one means: the hint of an error. */
export const LIKELY_KEYS: Record<string, (typeof FRONTMATTER_KEYS)[number]> = {
  pubdate: "date",
  publishdate: "date",
  published: "date",
  publishedat: "date",
  pub_date: "date",
  created: "date",
  updateddate: "updated",
  lastmod: "updated",
  modified: "updated",
  updatedat: "updated",
  updated_at: "updated",
  last_modified_at: "updated",
  moddate: "updated",
  sourcearticle: "translationOf",
  original: "translationOf",
  translation_of: "translationOf",
  translationkey: "translationOf",
  excerpt: "description",
  categories: "tags",
  keywords: "tags",
};

export interface ReadFrontmatter {
  meta: Frontmatter;
  /** The publication instant when the frontmatter gave a date-time (UTC, ISO 8601). */
  publishedAt: string | null;
  /**
   * The day the frontmatter's date names as written (YYYY-MM-DD): a date-time's own, in the offset
   * written with it, or on the wall clock when it has none; null when the frontmatter gives no date.
   */
  dateWritten: string | null;
  /** The value of the slug key, when the config makes slugs from one. */
  slugValue: string | null;
  /** The value of the key every language version shares, when the config pairs translations by one. */
  pairValue: string | null;
  /** The page's own address, when the config names a key for it and the page gives one. */
  address?: string;
  draft: boolean;
}

/** A date-time as frontmatter writes it: ISO 8601, or Jekyll's `2026-09-22 08:30:00 +0200`. */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) ?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A date or date-time value as frontmatter gives it: the UTC calendar date, the instant if any,
 * and the day as written (a date-time's own day, in its written offset or on its wall clock). A
 * date-time without a zone is read in `zone` (the config's `content.timezone`); without one, it
 * is "naive": the instant it names cannot be known.
 */
function dateOf(
  value: unknown,
  zone: string | undefined,
): { date: string; instant: string | null; written: string } | "naive" | "impossible" | null {
  let written = "";
  const at = (ms: number) => {
    const iso = new Date(ms).toISOString();
    // Years past 9999 (or before 0) print with a sign: no calendar date of the contract.
    if (!/^\d{4}-/.test(iso)) return "impossible" as const;
    return { date: iso.slice(0, 10), instant: iso.replace(".000Z", "Z"), written: written || iso.slice(0, 10) };
  };
  if (value instanceof Date && !Number.isNaN(value.getTime())) {
    // TOML's dates (smol-toml's TomlDate) print themselves as written, offset included: the UTC
    // instant comes from Date's own toISOString. A TOML local date is a date, not an instant; a
    // TOML local date-time holds its wall-clock reading as if it were UTC.
    const toml = value as Date & { isDate?: () => boolean; isTime?: () => boolean; isLocal?: () => boolean };
    if (toml.isTime?.()) return null;
    const ms = value.getTime();
    // A TOML date-time prints its day as written (a plain Date, its UTC day).
    written = /^\d{4}-\d{2}-\d{2}/.exec(value.toISOString())?.[0] ?? "";
    if (toml.isDate?.()) {
      const date = new Date(ms).toISOString().slice(0, 10);
      return { date, instant: null, written: date };
    }
    if (toml.isLocal?.()) return zone ? at(instantInZone(ms, zone)) : "naive";
    return at(ms);
  }
  if (typeof value !== "string") return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return { date: value, instant: null, written: value };
  const m = DATE_TIME.exec(value.trim());
  if (!m) return null;
  written = m[1]!;
  // Strictly: a day, an hour or an offset out of range is refused, never rolled over.
  const offset = m[3] ? m[3].replace(/^([+-]\d{2})(\d{2})$/, "$1:$2") : "Z";
  const ms = parseDateTime(`${m[1]}T${m[2]}${offset}`);
  if (ms === null) return "impossible";
  if (!m[3]) return zone ? at(instantInZone(ms, zone)) : "naive";
  return at(ms);
}

/** The line of `key` in the frontmatter block (1-based in the file), when it can be found. */
export function lineOfKey(head: string, key: string): number | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const lines = head.split("\n");
  // A top-level key first: the same key nested under another (seo: { title }) is not the one meant.
  const top = new RegExp(`^["']?${escaped}["']?\\s*[:=]`);
  const nested = new RegExp(`^\\s*["']?${escaped}["']?\\s*[:=]`);
  let i = lines.findIndex((l) => top.test(l));
  if (i < 0) i = lines.findIndex((l) => nested.test(l));
  return i < 0 ? undefined : i + 2;
}

/**
 * Reads and checks a document's frontmatter: parsed as YAML or TOML, drafts recognised, the
 * publisher's declared keys dropped, mapped keys renamed, dates read with their instant, then
 * validated against risk-cli's frontmatter schema.
 */
export function readFrontmatter(
  file: string,
  format: "yaml" | "toml",
  head: string,
  content: ContentConfig | undefined,
): ReadFrontmatter {
  const flag = (key: string, value: unknown): boolean | undefined => {
    if (value === undefined || value === null || typeof value === "boolean") return value ?? undefined;
    const word = typeof value === "string" ? value.trim().toLowerCase() : "";
    if (word === "true" || word === "yes") return true;
    if (word === "false" || word === "no") return false;
    throw inputError(
      file,
      lineOfKey(head, key),
      key,
      `${key} says whether the document is published: write true or false (found ${JSON.stringify(value).slice(0, 40)})`,
    );
  };
  // Eleventy's `permalink: false` leaves a page unwritten; its other values give the page's address.
  const published = (key: string, value: unknown): boolean | undefined => {
    const address = typeof value === "string" && value.trim().startsWith("/");
    const table = value !== null && typeof value === "object" && !(value instanceof Date) && !Array.isArray(value);
    return address || table ? true : flag(key, value);
  };
  // JavaScript objects do not keep such a key as data: it would vanish, unseen by the key checks.
  const proto = head.includes("__proto__") ? lineOfKey(head, "__proto__") : undefined;
  if (proto !== undefined)
    throw inputError(file, proto, "__proto__", "a key named __proto__ cannot be read; remove it or rename it");
  let raw: Record<string, unknown>;
  if (format === "toml") {
    try {
      raw = parseToml(head) as Record<string, unknown>;
    } catch (e) {
      const line = e instanceof TomlError ? e.line + 1 : undefined;
      throw inputError(file, line, undefined, `invalid TOML: ${(e as Error).message.split("\n")[0]}`);
    }
    // The TOML reader rolls a day the calendar does not have over to the next month (2026-02-30
    // would be published as 2026-03-02): such a date is refused, as in YAML.
    head.split("\n").forEach((text, i) => {
      const m = /^\s*([A-Za-z0-9_-]+)\s*=\s*(\d{4})-(\d{2})-(\d{2})/.exec(text);
      if (!m) return;
      const [year, month, day] = [Number(m[2]), Number(m[3]), Number(m[4])];
      const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
      if (month < 1 || month > 12 || day < 1 || day > last)
        throw inputError(file, i + 2, m[1], `${m[2]}-${m[3]}-${m[4]} is not a day of the calendar`);
    });
  } else {
    const parsed =
      readPlainYaml(head) ??
      parseWithSchema(file, head, z.record(z.string(), z.unknown()).nullable(), { lineOffset: 1 });
    raw = parsed ?? {};
  }
  const fm = content?.frontmatter ?? { map: {}, ignore: [] };
  // Jekyll names a post by its `slug` key when it has one (its :title and :slug), as by its file name.
  const slugKey =
    content && typeof content.slug === "object" ? content.slug.key : content?.slug === "jekyll" ? "slug" : null;
  const pairKey = content && typeof content.translations === "object" ? content.translations.key : null;
  const draftKey = fm.draft;
  const publishedKey = fm.published;
  const addressKey = fm.address;
  const draft =
    (draftKey !== undefined && flag(draftKey, raw[draftKey]) === true) ||
    (publishedKey !== undefined && published(publishedKey, raw[publishedKey]) === false);
  const meta: Record<string, unknown> = {};
  const origin = new Map<string, string>();
  for (const [key, value] of Object.entries(raw)) {
    if (
      key === draftKey ||
      key === publishedKey ||
      key === addressKey ||
      key === slugKey ||
      key === pairKey ||
      fm.ignore.includes(key)
    )
      continue;
    const target = fm.map[key] ?? key;
    if (key === "" && fm.map[key] === undefined) {
      // YAML reads a key written `null:`, `~:` or `:` alone as the empty key.
      const line = head.split("\n").findIndex((l) => /^\s*(?:null|Null|NULL|~|""|'')?\s*[:=](?:\s|$)/.test(l));
      throw inputError(
        file,
        line < 0 ? undefined : line + 2,
        undefined,
        "a key written null, ~ or nothing at all is read as an empty key: give the field its name, or quote the key if it is a word",
      );
    }
    if (!(FRONTMATTER_KEYS as readonly string[]).includes(target)) {
      const likely = likelyKey(key);
      throw inputError(
        file,
        lineOfKey(head, key),
        key,
        likely
          ? `unknown key "${key}": if it is your ${likely}, map it to ${likely} in risk.config.yaml (content.frontmatter.map: { ${key}: ${likely} }), else declare it as yours (content.frontmatter.ignore: [${key}])`
          : `unknown key "${key}": declare it as yours in risk.config.yaml (content.frontmatter.ignore: [${key}]) or map it to one of ${FRONTMATTER_KEYS.join(", ")} (content.frontmatter.map)`,
      );
    }
    if (target in meta)
      throw inputError(
        file,
        lineOfKey(head, key),
        key,
        `${origin.get(target)} and ${key} both give ${target}; keep one, or declare the other in content.frontmatter.ignore`,
      );
    origin.set(target, key);
    meta[target] =
      value instanceof Date && !(target === "date" || target === "updated" || target === "translatedFrom")
        ? Date.prototype.toISOString.call(value)
        : value;
  }
  let publishedAt: string | null = null;
  let dateWritten: string | null = null;
  for (const key of ["date", "updated", "translatedFrom"] as const) {
    const value = meta[key];
    if (value === undefined || value === null) continue;
    const d = dateOf(value, content?.timezone);
    if (d === "naive" || d === "impossible") {
      const written = origin.get(key) ?? key;
      const shown = value instanceof Date ? "a TOML local date-time" : `"${String(value).trim().slice(0, 40)}"`;
      throw inputError(
        file,
        lineOfKey(head, written),
        written === key ? key : `${written} (read as ${key})`,
        d === "naive"
          ? `${shown} has no time zone, so the instant it names cannot be known; add Z (UTC) or an offset such as +01:00 (2026-03-01T10:00:00Z), write the date alone (2026-03-01), or say in risk.config.yaml in which zone the site writes its times (content: { timezone: Europe/Paris })`
          : `${shown} is not a real date-time (a day the month does not have, an hour past 23, an offset past 23:59 or a year past 9999); write the one you mean`,
      );
    }
    if (!d) continue;
    meta[key] = d.date;
    if (key === "date") [publishedAt, dateWritten] = [d.instant, d.written];
  }
  // A Jekyll post's date is in its file name when the frontmatter gives none.
  const named = content?.slug === "jekyll" ? /^(\d{4})-(\d{1,2})-(\d{1,2})-/.exec(file.split("/").at(-1)!) : null;
  if (meta.date === undefined && named)
    meta.date = `${named[1]}-${named[2]!.padStart(2, "0")}-${named[3]!.padStart(2, "0")}`;
  // Tags given as one comma-separated string (a common Hugo and Jekyll habit) are a list.
  if (typeof meta.tags === "string") meta.tags = meta.tags.split(/[,\s]+/).filter(Boolean);
  const result = Frontmatter.safeParse(meta, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = String(issue.path[0] ?? "");
    const key = origin.get(field) ?? field;
    const shown = key === field ? field : `${key} (read as ${field})`;
    throw inputError(
      file,
      lineOfKey(head, key),
      shown || "(frontmatter)",
      issue.code === "invalid_type" && issue.input === undefined
        ? `the field is required${key === field ? "; if your files name it otherwise (pubDate for date...), map that key to it in risk.config.yaml (content.frontmatter.map)" : ""}`
        : explain(issue),
    );
  }
  const slugRaw = slugKey ? raw[slugKey] : undefined;
  if (slugRaw !== undefined && slugRaw !== null && typeof slugRaw !== "string")
    throw inputError(file, lineOfKey(head, slugKey!), slugKey!, "the slug is a text, as my-article");
  const pairRaw = pairKey ? raw[pairKey] : undefined;
  if (pairRaw !== undefined && pairRaw !== null && (typeof pairRaw !== "string" || !pairRaw.trim()))
    throw inputError(
      file,
      lineOfKey(head, pairKey!),
      pairKey!,
      "the key every language version of a document shares is a text, the same in each (dette-americaine)",
    );
  const written = addressKey === undefined ? undefined : ownAddress(file, head, addressKey, raw[addressKey]);
  // Hugo serves a page whose `url` names no file (no extension) as a folder: `/analyses/x` is
  // built as /analyses/x/index.html and linked as /analyses/x/.
  const address =
    written !== undefined && content?.templates === "hugo" && !/(\/|\.[^/]*)$/.test(written) ? `${written}/` : written;
  return {
    meta: result.data,
    publishedAt,
    dateWritten,
    slugValue: typeof slugRaw === "string" ? slugRaw : null,
    pairValue: typeof pairRaw === "string" ? pairRaw : null,
    ...(address ? { address } : {}),
    draft,
  };
}

/**
 * A page's own address as its frontmatter writes it (`url = "/analyses/spread-btp/"`): a path
 * from the site's root, published as written. `false` (Eleventy's page that is never written) and
 * an absent key give none; a value risk-cli cannot read as one path is refused with its line.
 */
function ownAddress(file: string, head: string, key: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const path = typeof value === "string" ? value.trim() : "";
  const problem =
    typeof value !== "string"
      ? "is not a path"
      : !path.startsWith("/") || path.startsWith("//")
        ? "does not start with one /"
        : /[\s\u0000-\u001f\u007f-\u009f?#\\"'<>`{}]|:[a-z_]/i.test(path)
          ? "holds a placeholder, a space, a query or a character an address cannot hold as written"
          : path.split("/").some((s) => s === "." || s === "..")
            ? "holds a . or .. segment"
            : undefined;
  if (problem)
    throw inputError(
      file,
      lineOfKey(head, key),
      key,
      `${key} gives the page's address (content.frontmatter.address), and ${JSON.stringify(String(value)).slice(0, 60)} ${problem}: write the path your site serves the page at (/analyses/spread-btp/), or take ${key} out of content.frontmatter.address to link the page by its urls: pattern`,
    );
  return path;
}

/**
 * The slug a file's name gives: the name without its extension (and without Hugo's language
 * suffix, post.en.md), a page bundle's folder for index.md, and without Jekyll's date prefix
 * when `jekyll`.
 */
export function fileSlug(rel: string, jekyll: boolean): string {
  const parts = rel.split("/");
  let name = parts
    .at(-1)!
    .replace(DOCUMENT_FILE, "")
    .replace(/\.(fr|en)$/, "");
  if (name === "index" || name === "_index") name = parts.at(-2) ?? name;
  return jekyll ? name.replace(/^\d{4}-\d{1,2}-\d{1,2}-/, "") : name;
}

/**
 * The slug of a document at `rel`, as the config says slugs are made; with a frontmatter key, a
 * file that does not give it takes its file name's slug (as Hugo and Astro do).
 */
export function slugOf(rel: string, content: ContentConfig | undefined, slugValue: string | null): string {
  const rule = content?.slug ?? "file";
  return typeof rule === "object"
    ? (slugValue ?? fileSlug(rel, false))
    : rule === "jekyll"
      ? (slugValue ?? fileSlug(rel, true))
      : fileSlug(rel, false);
}

/**
 * A document's identity when its kind's pattern shows its folder ({folder}): the folders between
 * the start of its globs and the page, then its slug, joined by hyphens (`2026-q1-taux` for
 * `content/posts/2026/q1/taux.md` read by `content/posts/**\/*.md`), each folder written as a
 * slug (lowercase ASCII, anything else a hyphen). Two pages of one file name filed in different
 * folders are so two documents, each named by where it is filed alone: adding a page never renames
 * another. A page at the globs' start is its slug alone. The identity is a slug itself, so that a
 * translation's translationOf and a claim review can name it.
 */
export function folderIdentity(folder: string, slug: string): string {
  return [...folder.split("/").map(suggestedSlug).filter(Boolean), slug].join("-");
}

/** A slug risk-cli publishes: lowercase ASCII letters and digits, words joined by single hyphens. */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A slug made of a name: its accents dropped, lowercased, anything else between words a hyphen. */
export function suggestedSlug(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * Why a document's slug cannot be published, and what to do, or undefined when it can. A slug
 * from the file name is never solved by renaming the file (that moves the live page): the
 * document's frontmatter can name it instead, in the key `content.slug` reads (`slug` for Jekyll).
 */
export function slugProblem(
  rel: string,
  content: ContentConfig | undefined,
  slugValue: string | null,
): string | undefined {
  const slug = slugOf(rel, content, slugValue);
  if (slug && SLUG.test(slug)) return undefined;
  const shown = slug ? ` "${slug.slice(0, 80)}"` : "";
  const rule = content?.slug ?? "file";
  const key = typeof rule === "object" ? rule.key : "slug";
  const example = suggestedSlug(slug || fileSlug(rel, rule === "jekyll")) || "my-article";
  if (slugValue !== null)
    return `the slug${shown} must be lowercase ASCII letters, digits and single hyphens; write it so (${key}: ${example})`;
  const read =
    typeof rule === "object"
      ? ""
      : rule === "jekyll"
        ? " (Jekyll names the page by it too)"
        : `, and read it: content.slug: { key: slug } in risk.config.yaml (if your generator names pages by a slug key, as Hugo and Astro do; the other files keep their file names' slugs)`;
  return `the slug${shown} comes from the file name, and must be lowercase ASCII letters, digits and single hyphens; renaming the file would change the page's address: give the document its slug in its frontmatter (${key}: ${example})${read}; the generator then publishes the page at that slug too, so redirect its old address if it was live`;
}

/**
 * A document's path with its language left out (`x.en.md` as `x.md`, `en/_posts/a.md` as
 * `_posts/a.md`): a translation and its original share it where the site pairs them by file.
 */
export const stemOf = (rel: string) =>
  rel
    .replace(/\.(fr|en)(\.[^./]+)$/, "$2")
    .split("/")
    .filter((p) => p !== "fr" && p !== "en")
    .join("/");
