/**
 * `risk-cli init --detect`: looks at an existing static site (Astro content collections, Hugo,
 * Jekyll, Eleventy, or a plain folder of Markdown) and proposes the part of risk.config.yaml that
 * reads its corpus where it lives: the globs of each kind and language, how slugs and translations
 * are made, the frontmatter keys mapped to risk-cli's, the publisher's other keys declared, and
 * page-address patterns to check. What it cannot map is listed, never guessed silently.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import { parse as parseToml, TomlError } from "smol-toml";
import { LineCounter, parseDocument, stringify } from "yaml";
import { readRegularFile } from "../archive/regular-file.ts";
import { isTimeZone } from "../core/dates.ts";
import { isRiskError } from "../core/errors.ts";
import { type ContentConfig, FRONTMATTER_KEYS, SiteAddress } from "../core/inputs/schemas.ts";
import {
  fileSlug,
  folderIdentity,
  likelyKey,
  pageFolder,
  SLUG,
  slugProblem,
  splitDocument,
  stemOf,
} from "../core/inputs/documents.ts";
import { yamlProblem } from "../core/inputs/locate.ts";
import { MAX_INPUT_BYTES } from "../core/inputs/read.ts";

export type Generator = "astro" | "hugo" | "jekyll" | "eleventy" | "markdown";

interface Found {
  rel: string;
  kind: "article" | "guide";
  lang: "fr" | "en";
  fm: Record<string, unknown>;
  slug: string;
}

export interface Detection {
  generator: Generator;
  documents: {
    kind: "article" | "guide";
    lang: "fr" | "en";
    files: number;
    globs: string[];
    /** The slugs of the documents that are published (drafts left out). */
    slugs: string[];
  }[];
  content: {
    articles?: { fr: string[]; en: string[] };
    guides?: { fr: string[]; en: string[] };
    slug: "file" | "jekyll" | { key: string };
    translations: "translationOf" | "same-slug" | { key: string };
    timezone?: string;
    templates?: "hugo" | "liquid" | "nunjucks";
    frontmatter: {
      map: Record<string, (typeof FRONTMATTER_KEYS)[number]>;
      draft?: string;
      published?: string;
      address?: string;
      ignore: string[];
    };
  };
  urls: Urls;
  /**
   * The site's address as its generator's config gives it (Hugo's `baseURL`, Jekyll's `url` and
   * `baseurl`, Astro's `site`), when it is one a publication may have; the demo's is kept otherwise.
   */
  siteAddress?: string;
  /** The topics the documents name (frontmatter `topics`, after mapping). */
  topics: string[];
  /** What could not be mapped, each with what to do. */
  unmapped: string[];
  /** Files and folders that are not documents of the site, each reason with a few of them. */
  leftOut: string[];
}

/** The page patterns written: each kind's by language, and the zone of their dates if any. */
export interface Urls {
  article?: Record<string, string>;
  guide?: Record<string, string>;
  timezone?: string;
}

// The detection is written as the config's content block: it must be one the schema accepts.
const _contentIsConfig = (d: Detection["content"]): ContentConfig => d;
void _contentIsConfig;

const SKIP = new Set(["node_modules", "dist", "public", "_site", "resources", "build", "out", "vendor"]);
const DOC = /\.(md|mdx|markdown)$/;
const DATED = /(^|\/)\d{4}-\d{1,2}-\d{1,2}-[^/]+$/;
/** Keys that only a translation holds: they name its original. */
const TRANSLATION_KEYS = ["translationOf", "sourceArticle", "original", "translation_of", "sourceSlug"];
/**
 * Hugo's `translationKey`: every language version of a page holds it with one value, so it says
 * which pages are one, not which is the translation (Hugo matches its keys in any case).
 */
const isPairKey = (key: string) => key.toLowerCase() === "translationkey";
/** Frontmatter keys that give a page its whole address, by generator. */
const ADDRESS_KEYS: Partial<Record<Generator, string>> = { hugo: "url", jekyll: "permalink", eleventy: "permalink" };
/** Generators whose `slug` key names the page, the file name standing in when a file has none. */
const SLUG_KEY_GENERATORS = new Set<Generator>(["hugo", "astro"]);
const ELEVENTY_CONFIGS = [
  ".eleventy.js",
  ".eleventy.cjs",
  "eleventy.config.js",
  "eleventy.config.mjs",
  "eleventy.config.cjs",
];

function generatorOf(root: string): Generator {
  const has = (name: string) => fs.existsSync(join(root, name));
  if (["astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.cjs"].some(has)) return "astro";
  // hugo.* and config.toml are Hugo's own; a config.yaml or .json is Hugo's beside its content folder.
  const hugoFiles = HUGO_CONFIG_FILES.filter(
    (f) => f.startsWith("hugo.") || f.startsWith("config/") || f === "config.toml",
  );
  if (hugoFiles.some(has) || (HUGO_CONFIG_FILES.some(has) && has("content"))) return "hugo";
  if (has("_config.yml") || has("_posts")) return "jekyll";
  if (ELEVENTY_CONFIGS.some(has)) return "eleventy";
  return "markdown";
}

/**
 * The template syntax the generator evaluates in a Markdown body: Hugo's shortcodes, Jekyll's
 * Liquid, Eleventy's `markdownTemplateEngine` (Liquid unless its config names Nunjucks, `njk`).
 */
function templatesOf(root: string, generator: Generator): Detection["content"]["templates"] {
  if (generator === "hugo") return "hugo";
  if (generator === "jekyll") return "liquid";
  if (generator !== "eleventy") return undefined;
  const text = eleventyConfig(root);
  if (text === undefined) return "liquid";
  const engine = /\bmarkdownTemplateEngine\s*[:=]\s*(["'`])([^"'`\n]*)\1/.exec(text)?.[2];
  // `markdownTemplateEngine: false`: Markdown read as it is.
  if (/\bmarkdownTemplateEngine\s*:\s*false\b/.test(text)) return undefined;
  return engine === "njk" ? "nunjucks" : "liquid";
}

/** The largest config or data file of a generator read: they are a few kilobytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The text of a file of the site; undefined when there is none (or it cannot be opened); a
 * `refused` reason for what is not read: anything but a regular file (a FIFO would hang the
 * detection, /dev/zero fill the memory) and a file over `maxBytes`.
 */
function siteText(path: string, maxBytes: number): string | { refused: string } | undefined {
  let read: Buffer | "not-regular" | "refused";
  try {
    read = readRegularFile(path, { followLink: true, admit: (size) => size <= maxBytes });
  } catch {
    return undefined;
  }
  if (read === "not-regular") return { refused: "it is not a regular file (a FIFO, a device or a folder)" };
  if (read === "refused") return { refused: `it is over the ${maxBytes}-byte limit` };
  return read.toString("utf8");
}

/** The text of a generator's config or data file, or undefined when there is none or it is not read. */
function configText(path: string): string | undefined {
  const text = siteText(path, MAX_CONFIG_BYTES);
  return typeof text === "string" ? text : undefined;
}

/** The text of an Eleventy site's config file: the first of its names that reads. */
function eleventyConfig(root: string): string | undefined {
  for (const name of ELEVENTY_CONFIGS) {
    const text = configText(join(root, name));
    if (text !== undefined) return text;
  }
  return undefined;
}

/**
 * Eleventy's input folder (`dir.input` in its config), relative to the site's root: "" for the
 * root. Page addresses are relative to it, and Eleventy reads nothing outside it.
 */
function eleventyInput(root: string): string {
  const input = eleventyDir(eleventyConfig(root) ?? "", "input");
  if (input === undefined) return "";
  const parts = input.split("/").filter((p) => p !== "" && p !== ".");
  // Only a folder inside the site; anything else is not read as one.
  if (input.startsWith("/") || parts.includes("..")) return "";
  return parts.join("/");
}

/** One folder of an Eleventy config's `dir` (`input`, `data`...), as written. */
function eleventyDir(config: string, name: string): string | undefined {
  const dirs = /\bdir\s*:\s*\{([^}]*)\}/.exec(config)?.[1] ?? "";
  return new RegExp(`\\b${name}\\s*:\\s*(["'\`])([^"'\`\\n]*)\\1`).exec(dirs)?.[2];
}

/**
 * The zone the generator reads the frontmatter's date-times without a zone in. Jekyll reads them
 * as UTC (its `timezone` setting only changes how times are shown); Hugo reads them in its
 * config's top-level `timeZone` (a key Hugo matches in any case), UTC when the config names none.
 * Undefined when that cannot be told: such date-times are then refused when assembled, saying
 * what to write.
 */
function siteTimeZone(root: string, generator: Generator): string | undefined {
  if (generator === "jekyll") return "UTC";
  if (generator !== "hugo") return undefined;
  const config = hugoConfig(root);
  if (config === undefined) return undefined;
  if (config === null) return "UTC";
  const zone = hugoKey(config, "timezone");
  if (zone === undefined) return "UTC";
  return typeof zone === "string" && isTimeZone(zone) ? zone : undefined;
}

/**
 * Where Hugo reads its config, in the order it looks: the root's files, then the config folder's
 * `_default` environment (whose other files, `params.toml`..., hold no key read here).
 */
const HUGO_CONFIG_FILES = ["hugo", "config", "config/_default/hugo", "config/_default/config"].flatMap((base) =>
  ["toml", "yaml", "yml", "json"].map((ext) => `${base}.${ext}`),
);

/** A YAML file's top-level mapping; empty when the file is missing, broken or not a mapping. */
function readYamlObject(file: string): Record<string, unknown> {
  return readConfig(file, "yaml").config ?? {};
}

/**
 * A generator's config file: its top-level mapping (null when the file is empty), or why it
 * cannot be read (`broken`); neither when there is no such file.
 */
function readConfig(
  file: string,
  format: "toml" | "yaml" | "json",
): { config?: Record<string, unknown> | null; broken?: string } {
  const text = siteText(file, MAX_CONFIG_BYTES);
  if (text === undefined) return {};
  if (typeof text !== "string") return { broken: text.refused };
  try {
    let value: unknown;
    if (format === "toml") value = parseToml(text);
    else if (format === "json") value = JSON.parse(text);
    else {
      const doc = parseDocument(text, { merge: true, logLevel: "silent", prettyErrors: false });
      if (doc.errors[0]) return { broken: yamlProblem(doc.errors[0]) };
      value = doc.toJS({ maxAliasCount: 100 });
    }
    if (value == null) return { config: null };
    return typeof value === "object" && !Array.isArray(value)
      ? { config: value as Record<string, unknown> }
      : { broken: "it is not a mapping of keys" };
  } catch (e) {
    const line = e instanceof TomlError ? ` (line ${e.line})` : "";
    return { broken: `invalid ${format.toUpperCase()}${line}: ${String((e as Error).message).split("\n")[0]}` };
  }
}

/** The first Hugo config file the site holds, by its path in the site, and what it gives. */
function hugoConfigFile(
  root: string,
): { name: string; config?: Record<string, unknown> | null; broken?: string } | undefined {
  for (const name of HUGO_CONFIG_FILES) {
    const ext = name.split(".").pop()!;
    const read = readConfig(join(root, name), ext === "yml" ? "yaml" : (ext as "toml" | "yaml" | "json"));
    if (read.broken) return { name, ...read };
    if ("config" in read) return { name, config: withSplitKeys(root, read.config ?? null) };
  }
  return undefined;
}

/**
 * The content folders Hugo's languages name (`[languages.fr] contentDir = "content/french"`), each
 * with its language (a code starting fr or en); none when the config names none.
 */
function hugoContentDirs(config: Record<string, unknown> | null | undefined): { dir: string; lang: "fr" | "en" }[] {
  const languages = config ? hugoKey(config, "languages") : undefined;
  if (!languages || typeof languages !== "object" || Array.isArray(languages)) return [];
  const out: { dir: string; lang: "fr" | "en" }[] = [];
  for (const [code, settings] of Object.entries(languages as Record<string, unknown>)) {
    const lang = /^fr/i.test(code) ? "fr" : /^en/i.test(code) ? "en" : undefined;
    if (!lang || !settings || typeof settings !== "object") continue;
    const dir = hugoKey(settings as Record<string, unknown>, "contentdir");
    if (typeof dir !== "string") continue;
    const clean = dir.trim().replace(/^\.\//, "").replace(/\/+$/, "");
    if (clean && !clean.startsWith("/") && !clean.split("/").includes("..")) out.push({ dir: clean, lang });
  }
  return out;
}

/**
 * Hugo's config folder may split the config into one file per top-level key
 * (`config/_default/languages.toml` holds `languages`, `permalinks.toml` holds `permalinks`):
 * each such file's content is added under its key, unless the main file already sets that key.
 */
function withSplitKeys(root: string, config: Record<string, unknown> | null): Record<string, unknown> | null {
  const folder = join(root, "config/_default");
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return config;
  }
  const merged: Record<string, unknown> = { ...(config ?? {}) };
  let added = false;
  for (const file of names.sort()) {
    const m = /^([A-Za-z][\w-]*)\.(toml|yaml|yml|json)$/.exec(file);
    if (!m || /^(hugo|config)$/i.test(m[1]!) || hugoKey(merged, m[1]!.toLowerCase()) !== undefined) continue;
    const read = readConfig(join(folder, file), m[2] === "yml" ? "yaml" : (m[2] as "toml" | "yaml" | "json"));
    if (read.config) {
      merged[m[1]!] = read.config;
      added = true;
    }
  }
  return added ? merged : config;
}

/**
 * Hugo's config, as the first of its files the site holds gives it: null when that file is empty,
 * undefined when there is none or it does not parse as a mapping.
 */
function hugoConfig(root: string): Record<string, unknown> | null | undefined {
  return hugoConfigFile(root)?.config;
}

/** A top-level key of a Hugo config, which Hugo matches in any case (`baseURL`, `baseurl`). */
const hugoKey = (config: Record<string, unknown>, key: string): unknown =>
  config[Object.keys(config).find((k) => k.toLowerCase() === key) ?? ""];

/**
 * The site's address from its generator's config, when it is one a publication may have (an
 * http(s) address with no password, query, quote or space; the trailing slash dropped).
 */
function siteAddress(root: string, generator: Generator): string | undefined {
  let found: unknown;
  if (generator === "hugo") {
    const config = hugoConfig(root);
    found = config ? hugoKey(config, "baseurl") : undefined;
  } else if (generator === "jekyll") {
    const c = readYamlObject(join(root, "_config.yml"));
    const base = typeof c.baseurl === "string" ? c.baseurl.replace(/^\/*/, "/").replace(/\/+$/, "") : "";
    found = typeof c.url === "string" ? `${c.url.replace(/\/+$/, "")}${base === "/" ? "" : base}` : undefined;
  } else if (generator === "astro") {
    for (const name of ASTRO_CONFIGS) {
      const text = configText(join(root, name));
      if (text === undefined) continue;
      found = /\bsite\s*:\s*(['"`])(https?:\/\/[^'"`\s]+)\1/.exec(text)?.[2];
      // Astro serves every page under its `base` path: the site's address includes it.
      const base = /\bbase\s*:\s*(['"`])(\/[^'"`\s]*)\1/.exec(text)?.[2]?.replace(/\/+$/, "");
      if (typeof found === "string" && base) found = `${found.replace(/\/+$/, "")}${base}`;
      break;
    }
  } else if (generator === "eleventy") {
    found = eleventySiteAddress(root);
  }
  if (typeof found !== "string") return undefined;
  const address = found.trim().replace(/\/+$/, "");
  return SiteAddress.safeParse(address).success ? address : undefined;
}

/** The keys an Eleventy site's global data names its address under, as its starters write them. */
const ELEVENTY_ADDRESS_KEYS = ["url", "baseUrl", "baseURL", "siteUrl", "siteURL"];

/**
 * An Eleventy site's address: Eleventy has no setting for it, so sites keep it in a global data
 * file (`metadata` in its base blog, `site` in many others) under its data folder (`dir.data`,
 * `_data` by default, inside the input folder), followed by the config's `pathPrefix`, under which
 * Eleventy serves every page.
 */
function eleventySiteAddress(root: string): string | undefined {
  const config = eleventyConfig(root) ?? "";
  const data = eleventyDir(config, "data") ?? "_data";
  const parts = [eleventyInput(root), ...data.split("/")].filter((p) => p !== "" && p !== ".");
  if (data.startsWith("/") || parts.includes("..")) return undefined;
  const folder = join(root, ...parts);
  let found: string | undefined;
  for (const name of ["metadata", "site"]) {
    for (const ext of [".json", ".js", ".mjs", ".cjs"]) {
      const text = configText(join(folder, `${name}${ext}`));
      if (text === undefined) continue;
      if (ext === ".json") {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          continue;
        }
        const record = value && typeof value === "object" ? (value as Record<string, unknown>) : {};
        found = ELEVENTY_ADDRESS_KEYS.map((k) => record[k]).find((v): v is string => typeof v === "string");
      } else {
        // The object's own key, not an author's `url` nested in it: the match least deep in braces.
        const key = ELEVENTY_ADDRESS_KEYS.join("|");
        const pattern = new RegExp(`(?:^|[\\s{,])["']?(?:${key})["']?\\s*:\\s*(['"\`])(https?://[^'"\`\\s]+)\\1`, "g");
        let least = Number.POSITIVE_INFINITY;
        let depth = 0;
        let read = 0;
        for (const m of text.matchAll(pattern)) {
          for (; read < m.index; read++) depth += text[read] === "{" ? 1 : text[read] === "}" ? -1 : 0;
          if (depth < least) [least, found] = [depth, m[2]];
        }
      }
      if (found !== undefined) break;
    }
    if (found !== undefined) break;
  }
  if (found === undefined) return undefined;
  const prefix = /\bpathPrefix\s*:\s*(['"`])([^'"`\s]*)\1/.exec(config)?.[2]?.replace(/^\/*/, "/").replace(/\/+$/, "");
  return prefix ? `${found.replace(/\/+$/, "")}${prefix}` : found;
}

/** Jekyll's named permalink styles, as the templates they stand for. */
const JEKYLL_STYLES: Record<string, string> = {
  date: "/:categories/:year/:month/:day/:title:output_ext",
  pretty: "/:categories/:year/:month/:day/:title/",
  ordinal: "/:categories/:year/:y_day/:title:output_ext",
  weekdate: "/:categories/:year/W:week/:short_day/:title:output_ext",
  none: "/:categories/:title:output_ext",
};

/**
 * What a Jekyll site's `_config.yml` says about its addresses: `permalink`, `timezone`, and the
 * languages of the jekyll-polyglot plugin.
 */
interface JekyllConfig {
  /** The site-wide `permalink` as written (`date`, Jekyll's default, when it names none). */
  permalink: string;
  /** The zone Jekyll shows dates in (`timezone`), if the config names one. */
  timezone?: string;
  /** The `permalink` a collection sets for itself under `collections`, by collection name. */
  collectionPermalinks: Record<string, string>;
  /**
   * With jekyll-polyglot: each language's folder in the addresses. Polyglot builds the site once
   * per language of `languages`, `default_lang` (English when unset) at the root and every other
   * under `/<code>`, permalinks included.
   */
  prefixes?: Record<"fr" | "en", string>;
}

function jekyllConfig(root: string): JekyllConfig {
  const c = readYamlObject(join(root, "_config.yml"));
  const permalink = typeof c.permalink === "string" && c.permalink.trim() ? c.permalink.trim() : "date";
  const zone = typeof c.timezone === "string" && isTimeZone(c.timezone) ? c.timezone : undefined;
  const prefixes = polyglotPrefixes(root, c);
  const collectionPermalinks: Record<string, string> = {};
  if (c.collections && typeof c.collections === "object" && !Array.isArray(c.collections))
    for (const [name, settings] of Object.entries(c.collections as Record<string, unknown>)) {
      const own = (settings as { permalink?: unknown } | null)?.permalink;
      if (typeof own === "string" && own.trim()) collectionPermalinks[name] = own.trim();
    }
  return {
    permalink,
    collectionPermalinks,
    ...(zone ? { timezone: zone } : {}),
    ...(prefixes ? { prefixes } : {}),
  };
}

/**
 * The language folders of a site built with jekyll-polyglot: listed under `plugins` (or the older
 * `gems`) in `_config.yml`, or in the Gemfile's `jekyll_plugins` group, which Jekyll loads without
 * a listing. Undefined without the plugin or without `languages`.
 */
function polyglotPrefixes(root: string, c: Record<string, unknown>): Record<"fr" | "en", string> | undefined {
  const listed = [c.plugins, c.gems].some((l) => Array.isArray(l) && l.includes("jekyll-polyglot"));
  const gemfile = configText(join(root, "Gemfile")) ?? "";
  if (!listed && !/^\s*gem\s+["']jekyll-polyglot["']/m.test(gemfile)) return undefined;
  if (!Array.isArray(c.languages)) return undefined;
  const codes = c.languages.filter((l): l is string => typeof l === "string" && /^[A-Za-z0-9_-]+$/.test(l));
  const fallback = typeof c.default_lang === "string" ? c.default_lang : "en";
  const prefixOf = (lang: "fr" | "en") => {
    const code =
      codes.find((l) => l.toLowerCase() === lang) ??
      codes.find((l) => /^[a-z]{2}[-_]/i.test(l) && l.slice(0, 2).toLowerCase() === lang);
    return code === undefined || code === fallback ? "" : `/${code}`;
  };
  return { fr: prefixOf("fr"), en: prefixOf("en") };
}

/**
 * A Jekyll permalink template as a risk-cli page pattern: :year, :month and :day as {year},
 * {month} and {day}; :title and :slug as {slug}; :output_ext as .html; :categories as the
 * folders above the posts' _posts (nothing when there are none: Jekyll then drops the slash
 * doubled). Any other placeholder (:i_month, :short_year, :y_day...), or categories that some
 * posts name in their frontmatter (`categories` undefined), cannot be written: the reason.
 */
function patternOfPermalink(
  template: string,
  categories: string | undefined,
): { pattern: string } | { reason: string } {
  const left: string[] = [];
  const path = template.replace(/:([a-z_]+)/g, (whole, name: string) => {
    const to: Record<string, string> = {
      year: "{year}",
      month: "{month}",
      day: "{day}",
      title: "{slug}",
      slug: "{slug}",
      output_ext: ".html",
    };
    if (name in to) return to[name]!;
    if (name === "categories" && categories !== undefined) return categories;
    left.push(whole);
    return whole;
  });
  if (left.length)
    return {
      reason: `${[...new Set(left)].join(", ")} cannot be written in a urls: pattern${left.includes(":categories") ? " (some posts name categories in their frontmatter)" : ""}`,
    };
  const pattern = `/${path}`.replace(/\/{2,}/g, "/");
  return pattern.includes("{slug}") ? { pattern } : { reason: "it names no :title or :slug" };
}

/** The suffix Jekyll gives a collection's addresses (`/:collection/:path`) for a site-wide permalink. */
function collectionSuffix(permalink: string): string {
  if (permalink === "pretty") return "/";
  if (permalink in JEKYLL_STYLES) return ".html";
  return permalink.endsWith("/") ? "/" : permalink.endsWith(":output_ext") ? ".html" : "";
}

interface Walked {
  /** Markdown and MDX files that may be documents. */
  docs: string[];
  /** Files that are not pages of the site: no glob may take them. */
  excluded: { rel: string; reason: string }[];
  /** Folders left out whole, with why. */
  folders: { rel: string; reason: string }[];
}

const IGNORED_FILE = /^(README|CHANGELOG|LICENSE|CONTRIBUTING)\./i;

function walk(root: string, dir: string, generator: Generator, out: Walked, excludedAs?: string): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    out.folders.push({ rel: dir || ".", reason: "could not be listed" });
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith(".") || SKIP.has(e.name)) continue;
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      let why = excludedAs;
      if (!why && fs.lstatSync(join(root, rel, "risk.config.yaml"), { throwIfNoEntry: false })) {
        why = "holds its own risk.config.yaml (another publication)";
        out.folders.push({ rel, reason: why });
      } else if (!why && generator === "jekyll" && e.name === "_drafts") {
        why = "Jekyll's drafts, never published";
        out.folders.push({ rel, reason: why });
      }
      walk(root, rel, generator, out, why);
    } else if (e.isFile() && DOC.test(e.name) && !IGNORED_FILE.test(e.name)) {
      if (excludedAs) out.excluded.push({ rel, reason: excludedAs });
      else out.docs.push(rel);
    }
  }
}

/**
 * Hugo's files that are not pages: a section's list page (`_index.md`) and a leaf bundle's
 * resources (any other Markdown file in or below a folder that holds an `index.md`).
 */
function hugoNonPages(docs: string[]): Map<string, string> {
  const bundles = new Set(
    docs.filter((r) => /^index(\.(fr|en))?\.(md|mdx|markdown)$/.test(r.split("/").at(-1)!)).map(dirOf),
  );
  const out = new Map<string, string>();
  for (const rel of docs) {
    if (rel.split("/").at(-1)!.startsWith("_index.")) {
      out.set(rel, "Hugo section pages (_index), lists rather than articles");
      continue;
    }
    const dir = dirOf(rel);
    const isIndex = bundles.has(dir) && /^index(\.(fr|en))?\./.test(rel.split("/").at(-1)!);
    const parts = dir.split("/");
    for (let i = parts.length; i > 0; i--) {
      const d = parts.slice(0, i).join("/");
      if (bundles.has(d) && !(isIndex && d === dir)) {
        out.set(rel, "resources of a Hugo page bundle, part of the page beside their index.md");
        break;
      }
    }
  }
  return out;
}

const dirOf = (rel: string) => rel.split("/").slice(0, -1).join("/");

/** Astro's config files, in the order Astro looks for them. */
const ASTRO_CONFIGS = [
  "astro.config.mjs",
  "astro.config.ts",
  "astro.config.js",
  "astro.config.mts",
  "astro.config.cjs",
];

/**
 * Astro's source folder (`srcDir`, `src` by default), which holds its collections (`content/`)
 * and its routes (`pages/`), relative to the site's root. Read when the config writes it as a
 * plain string literal (`srcDir: './www'`); anything else (a `new URL(...)`, a variable, a path
 * outside the site) leaves `src` and says why.
 */
function astroSrcDir(root: string): { dir: string; todo?: string } {
  for (const name of ASTRO_CONFIGS) {
    const text = configText(join(root, name));
    if (text === undefined) continue;
    const at = /\bsrcDir\s*:\s*/.exec(text);
    if (!at) return { dir: "src" };
    const rest = text.slice(at.index + at[0].length);
    const literal = /^(['"`])([^'"`\n$\\]*)\1\s*(?:[,}\n]|$)/.exec(rest);
    const parts = literal?.[2]!.split("/").filter((p) => p !== "" && p !== ".") ?? [];
    if (literal && !literal[2]!.startsWith("/") && !parts.includes("..") && parts.length)
      return { dir: parts.join("/") };
    const shown = `srcDir: ${rest
      .split("\n")[0]!
      .replace(/[\s,;}]+$/, "")
      .slice(0, 80)}`;
    return {
      dir: "src",
      todo: `${name}: srcDir is not a plain string (${shown}); risk-cli read the collections and routes under src/, as Astro does without it: if the site keeps them elsewhere, write srcDir as a path from the site's root ('./www') and run init --detect again, or write the globs and patterns by hand`,
    };
  }
  return { dir: "src" };
}

/**
 * The route an Astro site gives the pages under an address folder (`/posts`): `rest` when
 * `<srcDir>/pages/posts/` (`src/pages/posts/` by default) holds a rest route (`[...slug].astro`, or `[...slug]/index.astro`), whose
 * parameter takes a collection entry's id with its subfolders (`2026/x`); `other` for another
 * dynamic route there (`[slug].astro`); `none` without one.
 */
function astroRoute(root: string, src: string, folder: string): "rest" | "other" | "none" {
  const dir = join(root, src, "pages", ...folder.split("/").filter(Boolean));
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return "none";
  }
  const rest = (n: string) =>
    /^\[\.\.\.[^\]/]+\]\.astro$/.test(n) ||
    (/^\[\.\.\.[^\]/]+\]$/.test(n) && fs.existsSync(join(dir, n, "index.astro")));
  if (names.some(rest)) return "rest";
  return names.some((n) => /^\[[^\]/]+\]/.test(n)) ? "other" : "none";
}

/** The folder a Hugo page is served at: its file's, or above a page bundle's index.md. */
const hugoPageDir = (rel: string) =>
  /^index(\.(fr|en))?\.(md|mdx|markdown)$/.test(rel.split("/").at(-1)!) ? dirOf(dirOf(rel)) : dirOf(rel);

/**
 * What a document's frontmatter gives: its keys; `none` when the file starts with no fence (no
 * frontmatter at all); or `broken`, with the 1-based line of the file where it breaks (a fence
 * never closed, YAML or TOML that does not parse, a value that is not a mapping of keys).
 */
type FrontmatterRead = { fm: Record<string, unknown> } | { none: true } | { broken: { line: number; problem: string } };

function frontmatterOf(rel: string, text: string, warn: (message: string) => void): FrontmatterRead {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const fence = /^(---|\+\+\+)[ \t]*\n/.exec(t)?.[1];
  if (!fence) return { none: true };
  let head: string;
  try {
    // Split as assemble and lint split it, so that detection and reading agree on where it ends.
    ({ head } = splitDocument(rel, t));
  } catch (e) {
    if (!isRiskError(e)) throw e;
    return { broken: { line: 1, problem: `the \`${fence}\` opening it is never closed by a \`${fence}\` line` } };
  }
  // The frontmatter's first line is the file's second.
  const broken = (line: number, problem: string) => ({ broken: { line: line + 1, problem } });
  let value: unknown;
  if (fence === "---") {
    // The yaml library's own warnings would reach the terminal without the file's name: they
    // are collected and reported with it instead.
    const counter = new LineCounter();
    const doc = parseDocument(head, { lineCounter: counter, merge: true, prettyErrors: false, logLevel: "silent" });
    const error = doc.errors[0];
    if (error) return broken(counter.linePos(error.pos[0]).line, yamlProblem(error, head, 1));
    for (const w of doc.warnings) warn(w.message.split("\n")[0]!);
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch {
      return broken(1, "too many YAML aliases (*name) expand here; write the values out");
    }
  } else {
    try {
      value = parseToml(head);
    } catch (e) {
      if (!(e instanceof TomlError)) throw e;
      return broken(e.line, `invalid TOML: ${e.message.split("\n")[0]}`);
    }
  }
  if (value && typeof value === "object" && !Array.isArray(value)) return { fm: value as Record<string, unknown> };
  return value === null || value === undefined
    ? { broken: { line: 1, problem: "it is empty; write its keys (title, date, description...)" } }
    : broken(1, "it is not a mapping of keys (key: value)");
}

/** A path as a glob that matches only itself. */
const literal = (rel: string) => rel.replace(/[*?[\]{}()!+@\\]/g, "\\$&");

/**
 * The globs that take exactly a group's files: for each file not yet taken, the most general
 * pattern of its folder (recursive, then that folder only, then without the other language's
 * suffix, then the file itself) that takes none of the `forbidden` files. A file below its
 * section (`sectionOf`: Hugo's section, Astro's collection, Eleventy's first folder) is first
 * taken by a recursive glob from the section, so that pages filed by year (`posts/2025/`,
 * `posts/2026/`) are read by one glob, a later year's pages with them.
 */
function globsOf(
  group: Found[],
  forbidden: string[],
  generator: Generator,
  sectionOf: (rel: string) => string | undefined = () => undefined,
): string[] {
  // A collection that holds MDX takes Markdown too (Astro and MDX sites mix them): a later
  // `.md` page is not left out by a glob made when there was none.
  const exts = [
    ...new Set([
      ...group.map((f) => f.rel.split(".").pop()!),
      ...(group.some((f) => f.rel.endsWith(".mdx")) ? ["md"] : []),
    ]),
  ].sort();
  const ext = exts.length === 1 ? exts[0]! : `{${exts.join(",")}}`;
  // Files named _* are never read as pages (drafts, partials), whatever the globs say: a glob may
  // take them, and the folder's glob keeps taking the pages added later.
  const refused = forbidden.filter((rel) => !rel.split("/").at(-1)!.startsWith("_"));
  const hugo = generator === "hugo";
  // Hugo never makes a page of a file whose name starts with _: the globs say so.
  const any = hugo ? "[^_]*" : "*";
  const globs: string[] = [];
  const matchers: ((rel: string) => boolean)[] = [];
  const depth = (rel: string) => rel.split("/").length;
  const files = [...group].sort((a, b) => depth(a.rel) - depth(b.rel) || (a.rel < b.rel ? -1 : 1));
  for (const f of files) {
    if (matchers.some((m) => m(f.rel))) continue;
    const name = f.rel.split("/").at(-1)!;
    const suffix = /\.(fr|en)\.[^.]+$/.exec(name)?.[1];
    const s = suffix ? `.${suffix}` : "";
    const other = f.lang === "fr" ? "en" : "fr";
    const d = dirOf(f.rel);
    const at = (dir: string, pattern: string) => (dir ? `${dir}/${pattern}` : pattern);
    const candidates: string[] = [];
    const not = hugo ? `!(_*|*.${other})` : `!(*.${other})`;
    const bundle = hugo && /^index(\.(fr|en))?\./.test(name) && d !== "";
    // Where the page's folder is (a bundle's is above its index.md), and its section above it.
    const folder = bundle ? dirOf(d) : d;
    const section = sectionOf(f.rel);
    if (section !== undefined && folder.startsWith(`${section}/`)) {
      if (bundle) candidates.push(at(section, `**/index${s}.${ext}`));
      else candidates.push(at(section, `**/${any}${s}.${ext}`), ...(s ? [] : [at(section, `**/${not}.${ext}`)]));
    }
    if (bundle) {
      // A leaf bundle: its index.md is the page.
      candidates.push(at(dirOf(d), `**/index${s}.${ext}`), at(d, `index${s}.${ext}`));
    } else {
      candidates.push(at(d, `**/${any}${s}.${ext}`), at(d, `${any}${s}.${ext}`));
      if (!s) candidates.push(at(d, `**/${not}.${ext}`), at(d, `${not}.${ext}`));
    }
    candidates.push(literal(f.rel));
    for (const glob of candidates) {
      const m = picomatch(glob, { dot: false });
      if (!m(f.rel) || refused.some((r) => m(r))) continue;
      globs.push(glob);
      matchers.push(m);
      break;
    }
  }
  return globs;
}

/**
 * The section a page sits in below the folder `root` (Hugo's content folder, Astro's src/content,
 * Eleventy's input folder): its first folder there, after a language's folder (`en/posts`);
 * undefined for a page outside `root` or at its top.
 */
function sectionBelow(rel: string, root: string): string | undefined {
  if (root && !rel.startsWith(`${root}/`)) return undefined;
  const parts = (root ? rel.slice(root.length + 1) : rel).split("/").slice(0, -1);
  let i = 0;
  while (i < parts.length && (parts[i] === "fr" || parts[i] === "en")) i++;
  return i < parts.length ? [...(root ? [root] : []), ...parts.slice(0, i + 1)].join("/") : undefined;
}

/**
 * The folder of the Jekyll collection a page sits in (`_guides` for `_guides/2026/x.md`), whose
 * address (`/:collection/:path`) shows the page's subfolders; undefined for a post (`_posts`,
 * whose subfolders no address shows) or a page outside a collection.
 */
function jekyllCollection(rel: string): string | undefined {
  const first = rel.split("/")[0]!;
  return /^_[^/]+$/.test(first) && first !== "_posts" && rel.includes("/") ? first : undefined;
}

/**
 * The folder an Astro collection's entries are read from as one: the collection
 * (`src/content/posts`), or its language folder (`src/content/posts/fr`) for an entry filed in
 * one, whose language it gives; undefined for an entry at the top of `content`.
 */
function astroSection(rel: string, content: string): string | undefined {
  const section = sectionBelow(rel, content);
  if (section === undefined) return undefined;
  const next = rel.slice(section.length + 1).split("/");
  return next.length > 1 && (next[0] === "fr" || next[0] === "en") ? `${section}/${next[0]}` : section;
}

/** A few of a list's items, and how many more. */
const some = (items: string[]) =>
  `${items.slice(0, 3).join(", ")}${items.length > 3 ? ` and ${items.length - 3} more` : ""}`;

export function detectSite(root: string): Detection {
  const generator = generatorOf(root);
  const input = generator === "eleventy" ? eleventyInput(root) : "";
  const walked: Walked = { docs: [], excluded: [], folders: [] };
  if (input && !fs.statSync(join(root, input), { throwIfNoEntry: false })?.isDirectory())
    walked.folders.push({ rel: input, reason: "Eleventy's input folder (dir.input), missing" });
  else walk(root, input, generator, walked);
  const nonPages = generator === "hugo" ? hugoNonPages(walked.docs) : new Map<string, string>();
  // A file whose name starts with _ is never a page (Astro's collections and risk-cli skip it).
  for (const rel of walked.docs)
    if (!nonPages.has(rel) && rel.split("/").at(-1)!.startsWith("_"))
      nonPages.set(rel, "files whose name starts with _, which are not pages");
  for (const [rel, reason] of nonPages) walked.excluded.push({ rel, reason });
  const rels = walked.docs.filter((r) => !nonPages.has(r));
  // A Jekyll post's date and slug are in its file name: 2026-09-22-slug.md.
  const jekyll = generator === "jekyll" && rels.some((r) => DATED.test(r));
  const zone = siteTimeZone(root, generator);
  const unmapped: string[] = [];
  // Astro's collections and routes are in its srcDir.
  const astroSrc = generator === "astro" ? astroSrcDir(root) : { dir: "src" };
  if (astroSrc.todo) unmapped.push(astroSrc.todo);
  // A generator config that does not parse gives none of what is read from it: said, not guessed.
  const config =
    generator === "hugo"
      ? hugoConfigFile(root)
      : generator === "jekyll"
        ? { name: "_config.yml", ...readConfig(join(root, "_config.yml"), "yaml") }
        : undefined;
  if (config?.broken)
    unmapped.push(
      `${config.name}: ${config.broken}; nothing was read from it (the site's address, time zone and page addresses): fix it, then run init --detect again`,
    );
  const found: Found[] = [];
  // Hugo's languages may each keep their pages in a folder of their own (contentDir).
  const contentDirs = generator === "hugo" ? hugoContentDirs(config?.config) : [];
  for (const rel of rels) {
    // As an assembly reads it: a regular file of at most the input limit.
    const page = siteText(join(root, rel), MAX_INPUT_BYTES);
    if (typeof page !== "string") {
      unmapped.push(`${rel}: ${page?.refused ?? "it cannot be read"}; left out`);
      continue;
    }
    const read = frontmatterOf(rel, page, (w) =>
      unmapped.push(`${rel}: its frontmatter's YAML says "${w}"; check that value`),
    );
    if ("none" in read) {
      unmapped.push(`${rel}: no YAML or TOML frontmatter; left out (add one, or narrow the globs)`);
      continue;
    }
    if ("broken" in read) {
      unmapped.push(
        `${rel}:${read.broken.line}: its frontmatter is broken: ${read.broken.problem}; fix it there, then run init --detect again (the file was not read)`,
      );
      continue;
    }
    const { fm } = read;
    const declared = String(fm.lang ?? fm.language ?? fm.locale ?? "").toLowerCase();
    // A declared language first, then the file's name or folder (x.fr.md is French whatever its
    // keys say), then a key only translations hold.
    const byPath =
      contentDirs.find((c) => rel.startsWith(`${c.dir}/`))?.lang ??
      (/(^|\/)en(\/|$)|\.en\.(md|mdx|markdown)$|(^|\/)[^/]*-en\//.test(rel)
        ? "en"
        : /(^|\/)fr(\/|$)|\.fr\.(md|mdx|markdown)$|(^|\/)[^/]*-fr\//.test(rel)
          ? "fr"
          : undefined);
    const lang: "fr" | "en" = declared
      ? declared.startsWith("en")
        ? "en"
        : "fr"
      : (byPath ?? (TRANSLATION_KEYS.some((k) => k in fm) ? "en" : "fr"));
    const kind = /guide/i.test(rel) ? "guide" : "article";
    found.push({ rel, kind, lang, fm, slug: fileSlug(rel, jekyll) });
  }

  // Frontmatter keys: risk-cli's own pass, known aliases are mapped, the rest are declared as the publisher's.
  const counts = new Map<string, number>();
  for (const f of found) for (const k of Object.keys(f.fm)) counts.set(k, (counts.get(k) ?? 0) + 1);
  const valuesOf = (key: string) => found.filter((f) => key in f.fm).map((f) => f.fm[key]);
  const map: Detection["content"]["frontmatter"]["map"] = {};
  const ignore: string[] = [];
  let draft: string | undefined;
  let published: string | undefined;
  let slugKey: string | undefined;
  let pairKey: string | undefined;
  const own = new Set<string>(FRONTMATTER_KEYS);
  const taken = new Set([...counts.keys()].filter((k) => own.has(k)));
  for (const key of [...counts.keys()].sort()) {
    if (own.has(key)) continue;
    if (key === "draft") {
      draft = key;
      continue;
    }
    // Jekyll's `published: false` leaves a post out: a flag, not a date.
    if (key === "published" && valuesOf(key).every((v) => typeof v === "boolean")) {
      published = key;
      continue;
    }
    // Eleventy writes no page whose permalink is false: risk-cli leaves it out as unpublished.
    if (key === "permalink" && generator === "eleventy" && !published && valuesOf(key).some((v) => v === false)) {
      published = key;
      continue;
    }
    // Jekyll's multilingual convention: `lang` and `ref`, one `ref` shared by every language version.
    const jekyllRef =
      key === "ref" &&
      generator === "jekyll" &&
      found.some(
        (f) =>
          f.lang === "en" &&
          typeof f.fm.ref === "string" &&
          found.some((o) => o.lang === "fr" && o.fm.ref === f.fm.ref),
      );
    if ((isPairKey(key) || jekyllRef) && !pairKey) {
      pairKey = key;
      continue;
    }
    if (key === "slug" && SLUG_KEY_GENERATORS.has(generator)) {
      slugKey = key;
      continue;
    }
    // Jekyll names a post by its slug key where it has one: content.slug: jekyll reads it.
    if (key === "slug" && jekyll) continue;
    const target = likelyKey(key);
    if (target && !taken.has(target)) {
      map[key] = target;
      taken.add(target);
    } else ignore.push(key);
  }
  // A file whose name gives a slug risk-cli cannot publish is named by a slug key in its
  // frontmatter, where the generator reads one: the config reads that key before any file has it.
  if (!slugKey && SLUG_KEY_GENERATORS.has(generator) && !counts.has("slug") && found.some((f) => !SLUG.test(f.slug)))
    slugKey = "slug";
  const fileSlugs = new Map(found.map((f) => [f, f.slug]));
  if (jekyll) for (const f of found) if (typeof f.fm.slug === "string") f.slug = f.fm.slug;
  if (slugKey) for (const f of found) if (typeof f.fm[slugKey] === "string") f.slug = f.fm[slugKey] as string;
  const addressKey = ADDRESS_KEYS[generator];
  // Pages that give their own address as a path are published there; a placeholder (Jekyll's
  // :title, Eleventy's {{ page.fileSlug }}) is the generator's to compute: said, not guessed.
  let ownAddressKey: string | undefined;
  if (addressKey && counts.has(addressKey)) {
    const given = valuesOf(addressKey).filter((v) => v !== false && v !== null);
    const literal = (v: unknown) =>
      typeof v === "string" &&
      /^\/(?!\/)/.test(v.trim()) &&
      !/[\s?#\\"'<>`{}]|:[a-z_]/i.test(v.trim()) &&
      !v.split("/").some((s) => s === "." || s === "..");
    if (given.length && given.every(literal)) {
      ownAddressKey = addressKey;
      const at = ignore.indexOf(addressKey);
      if (at >= 0) ignore.splice(at, 1);
    }
  }
  if (addressKey && counts.has(addressKey) && !ownAddressKey) {
    const own = found.filter((f) => addressKey in f.fm && f.fm[addressKey] !== false).map((f) => f.rel);
    if (own.length)
      unmapped.push(
        `${addressKey}: ${own.length} page(s) give their own address (${some(own)}); risk-cli links every page by the urls: pattern of its kind, so check those pages' links, or give them the pattern's address`,
      );
  }
  // Hugo leaves out a page before its publishDate and after its expiryDate; risk-cli reads
  // neither, so such a page would be published at once, or kept: said, with the pages.
  if (generator === "hugo") {
    const now = new Date().toISOString().slice(0, 10);
    const day = (v: unknown) =>
      v instanceof Date ? v.toISOString().slice(0, 10) : typeof v === "string" ? v.slice(0, 10) : "";
    const held = (key: string, when: (d: string) => boolean, what: string, todo: string) => {
      const k = [...counts.keys()].find((c) => c.toLowerCase() === key.toLowerCase());
      if (!k || map[k]) return;
      const pages = found.filter((f) => day(f.fm[k]) && when(day(f.fm[k]))).map((f) => f.rel);
      unmapped.push(
        `${k}: Hugo ${what}; risk-cli does not read it (declared as yours)${pages.length ? `, and these page(s) are concerned today: ${some(pages)}` : ""}; ${todo}`,
      );
    };
    held(
      "publishDate",
      (d) => d > now,
      "holds a page back until its publishDate",
      "risk-cli would publish such a page at once: mark it draft until that day",
    );
    held(
      "expiryDate",
      (d) => d <= now,
      "removes a page once its expiryDate has passed",
      "risk-cli would keep publishing it: mark it draft (or remove it) once it expires",
    );
  }
  if (counts.has("slug") && !slugKey && !jekyll) {
    const own = found.filter((f) => "slug" in f.fm).map((f) => f.rel);
    unmapped.push(
      `slug: ${own.length} page(s) name their own slug (${some(own)}), declared as yours: risk-cli names each page by its file name, so check those pages' links`,
    );
  }
  for (const required of ["title", "description", "date"])
    if (!taken.has(required) && !(required === "date" && found.every((f) => jekyll && DATED.test(f.rel))))
      unmapped.push(
        `${required}: required, and no key of your frontmatter looks like it; add it to each document or map your key to it (content.frontmatter.map)`,
      );

  const isDraft = (f: Found) =>
    (draft !== undefined && f.fm[draft] === true) || (published !== undefined && f.fm[published] === false);
  // What assembly would refuse in a page's slug, said here with the file and what to do.
  const slugRule: ContentConfig["slug"] = slugKey ? { key: slugKey } : jekyll ? "jekyll" : "file";
  for (const f of found) {
    if (isDraft(f)) continue;
    const value = slugKey ? f.fm[slugKey] : jekyll ? f.fm.slug : undefined;
    const problem = slugProblem(f.rel, { slug: slugRule } as ContentConfig, typeof value === "string" ? value : null);
    if (problem) unmapped.push(`${f.rel}: ${problem}`);
  }
  const groups = (["article", "guide"] as const).flatMap((kind) =>
    (["fr", "en"] as const).map((lang) => ({
      kind,
      lang,
      files: found.filter((f) => f.kind === kind && f.lang === lang),
    })),
  );
  const excluded = walked.excluded.map((e) => e.rel);
  // Where each generator serves a page at its folders: a page's section is read whole.
  const sectionOf = (rel: string) =>
    generator === "hugo"
      ? sectionBelow(rel, contentDirs.find((c) => rel.startsWith(`${c.dir}/`))?.dir ?? "content")
      : generator === "astro"
        ? astroSection(rel, `${astroSrc.dir}/content`)
        : generator === "eleventy"
          ? sectionBelow(rel, input)
          : generator === "jekyll"
            ? jekyllCollection(rel)
            : undefined;
  const documents = groups
    .filter((g) => g.files.length > 0)
    .map((g) => ({
      kind: g.kind,
      lang: g.lang,
      files: g.files.length,
      globs: globsOf(
        g.files,
        [...found.filter((f) => !g.files.includes(f)).map((f) => f.rel), ...excluded],
        generator,
        sectionOf,
      ),
      slugs: [...new Set(g.files.filter((f) => !isDraft(f)).map((f) => f.slug))].sort(),
    }));
  const globsFor = (kind: "article" | "guide") => {
    const of = (lang: "fr" | "en") => documents.find((d) => d.kind === kind && d.lang === lang)?.globs ?? [];
    return of("fr").length ? { fr: of("fr"), en: of("en") } : undefined;
  };
  if (!documents.some((d) => d.lang === "fr"))
    unmapped.push("no French original found: risk-cli publishes French originals and their English translations");

  // Without a key naming the original, a translation is paired with its original as risk-cli's
  // same-slug pairs it: the same file (un.en.md beside un.fr.md), else file name, else slug. A
  // key every language version shares (Hugo's translationKey) pairs the pages that hold it.
  const fr = found.filter((f) => f.lang === "fr");
  const en = found.filter((f) => f.lang === "en");
  const pairs = (f: Found) => {
    const value = pairKey ? f.fm[pairKey] : undefined;
    if (typeof value === "string") return fr.some((o) => o.kind === f.kind && o.fm[pairKey!] === value);
    const others = fr.filter((o) => o.kind === f.kind && !(pairKey && pairKey in o.fm));
    const name = fileSlugs.get(f);
    return (
      others.some((o) => stemOf(o.rel) === stemOf(f.rel)) ||
      others.filter((o) => fileSlugs.get(o) === name).length === 1 ||
      (!pairKey && others.some((o) => o.slug === f.slug))
    );
  };
  const byKey = (f: Found) => TRANSLATION_KEYS.some((k) => k in f.fm);
  const translations: Detection["content"]["translations"] = pairKey
    ? { key: pairKey }
    : taken.has("translationOf") && en.every(byKey)
      ? "translationOf"
      : en.length > 0 && en.every((f) => byKey(f) || pairs(f))
        ? "same-slug"
        : "translationOf";
  const unpaired = en.filter(
    (f) => !(taken.has("translationOf") && byKey(f)) && (translations === "translationOf" || !pairs(f)),
  );
  if (unpaired.length)
    unmapped.push(
      `translations: ${unpaired.length} English document(s) (${some(unpaired.map((f) => f.rel))}) name no French original${pairKey ? ` by ${pairKey}` : ""} and share no file name or slug with one; add translationOf (or your key mapped to it) to each${pairKey ? `, or give the original the same ${pairKey}` : ""}`,
    );

  const topicKey = Object.keys(map).find((k) => map[k] === "topics") ?? "topics";
  const topics = [
    ...new Set(valuesOf(topicKey).flatMap((v) => (Array.isArray(v) ? v.filter((t) => typeof t === "string") : []))),
  ].sort() as string[];

  // A Jekyll post's categories are the folders above its _posts (downcased, as its addresses
  // show them), and its frontmatter's: a group of posts where some name their own has none to write.
  const categoriesOf = (kind: "article" | "guide", lang: "fr" | "en", glob: string) =>
    found.some(
      (f) =>
        f.kind === kind &&
        f.lang === lang &&
        [f.fm.categories, f.fm.category].some((c) => (Array.isArray(c) ? c.length > 0 : !!c)),
    )
      ? undefined
      : glob.startsWith("_posts/")
        ? ""
        : glob.split("/_posts/")[0]!.toLowerCase();
  // Hugo names a page by its slug key, by its file name, or (`:slug` without the key) by its title.
  const slugsOf = (kind: "article" | "guide", lang: "fr" | "en"): HugoSlugs => {
    if (!slugKey) return "file";
    const group = found.filter((f) => f.kind === kind && f.lang === lang);
    return group.every((f) => typeof f.fm[slugKey!] === "string") ? "key" : "mixed";
  };
  const urls = guessUrls(generator, documents, {
    input,
    jekyll: generator === "jekyll" ? { ...jekyllConfig(root), categoriesOf } : undefined,
    hugo:
      generator === "hugo"
        ? {
            permalinks: hugoPermalinks(config?.config),
            slugsOf,
            prefixes: hugoLanguagePrefixes(config?.config),
            contentDirs,
          }
        : undefined,
    astro: generator === "astro" ? { content: `${astroSrc.dir}/content`, pages: `${astroSrc.dir}/pages` } : undefined,
    astroRoute: (folder) => astroRoute(root, astroSrc.dir, folder),
    // The published pages its pattern places: not a draft, and no address of its own.
    pagesOf: (kind, lang) =>
      found
        .filter(
          (f) =>
            f.kind === kind &&
            f.lang === lang &&
            !isDraft(f) &&
            !(ownAddressKey && typeof f.fm[ownAddressKey] === "string"),
        )
        .map((f) => ({ ...f, named: slugKey !== undefined && typeof f.fm[slugKey] === "string" })),
    unmapped,
  });
  // Under a pattern that shows the folder, a page's identity is its folders and slug.
  for (const d of documents)
    if (urls[d.kind]?.[d.lang]?.includes("{folder}"))
      d.slugs = [
        ...new Set(
          found
            .filter((f) => f.kind === d.kind && f.lang === d.lang && !isDraft(f))
            .map((f) => folderIdentity(pageFolder(f.rel, d.globs), f.slug)),
        ),
      ].sort();
  unmapped.push(
    "urls: the page patterns are guesses from the folders; check each against a page of your site before publishing",
  );
  const address = siteAddress(root, generator);
  if (!address)
    unmapped.push(
      "baseUrl: your site's address was not found in its generator's config; baseUrl is the demo's: write yours (https://your.site, no trailing slash)",
    );
  const reasons = new Map<string, string[]>();
  for (const e of [
    ...walked.folders.map((f) => ({ ...f, rel: `${f.rel}/` })),
    ...walked.excluded.filter((e) => !walked.folders.some((f) => e.rel.startsWith(`${f.rel}/`))),
  ])
    reasons.set(e.reason, [...(reasons.get(e.reason) ?? []), e.rel]);
  return {
    generator,
    documents,
    content: {
      ...(globsFor("article") ? { articles: globsFor("article") } : {}),
      ...(globsFor("guide") ? { guides: globsFor("guide") } : {}),
      slug: slugRule,
      translations,
      ...(zone ? { timezone: zone } : {}),
      ...(templatesOf(root, generator) ? { templates: templatesOf(root, generator) } : {}),
      frontmatter: {
        map,
        ...(draft ? { draft } : {}),
        ...(published ? { published } : {}),
        ...(ownAddressKey ? { address: ownAddressKey } : {}),
        ignore,
      },
    },
    urls,
    ...(address ? { siteAddress: address } : {}),
    topics,
    unmapped,
    leftOut: [...reasons].map(([reason, rels]) => `${some(rels)}: ${reason}`),
  };
}

/** How a group of Hugo pages is named: by file name, all by their slug key, or some by their title. */
type HugoSlugs = "file" | "key" | "mixed";

/**
 * Where a multilingual Hugo site puts each language's pages: under `/<code>` but for the
 * `defaultContentLanguage` (English when unset, as in Hugo), which stays at the root unless
 * `defaultContentLanguageInSubdir` is true. Undefined for a site that names no `languages`.
 */
function hugoLanguagePrefixes(
  config: Record<string, unknown> | null | undefined,
): Record<"fr" | "en", string> | undefined {
  const languages = config ? hugoKey(config, "languages") : undefined;
  if (!languages || typeof languages !== "object" || Array.isArray(languages)) return undefined;
  const codes = Object.keys(languages).map((k) => k.toLowerCase());
  const fallback = String(hugoKey(config!, "defaultcontentlanguage") ?? "en").toLowerCase();
  const inSubdir = hugoKey(config!, "defaultcontentlanguageinsubdir") === true;
  const prefixOf = (lang: "fr" | "en") => {
    const code = codes.find((c) => c === lang) ?? codes.find((c) => c.startsWith(`${lang}-`)) ?? lang;
    return code === fallback && !inSubdir ? "" : `/${code}`;
  };
  return { fr: prefixOf("fr"), en: prefixOf("en") };
}

/** Hugo's `[permalinks]`, by section (the newer `[permalinks.page]` table first), as written. */
function hugoPermalinks(config: Record<string, unknown> | null | undefined): Record<string, string> {
  const table = config ? hugoKey(config, "permalinks") : undefined;
  if (!table || typeof table !== "object") return {};
  const page = (table as Record<string, unknown>).page;
  const source = (page && typeof page === "object" ? page : table) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(source).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/**
 * A Hugo permalink as a risk-cli page pattern: :year, :month and :day as {year}, {month} and
 * {day}; :section as the section; :slugorfilename as {slug}; :filename and :slug as {slug} when
 * the pages are named so (Hugo gives a page without a slug key its title for :slug). Any other
 * token (:title, :monthname, :sections...) cannot be written: the reason.
 */
function patternOfHugoPermalink(
  template: string,
  section: string,
  slugs: HugoSlugs,
): { pattern: string } | { reason: string } {
  const left: string[] = [];
  const path = template.replace(/:([a-z_]+)(\[[^\]]*\])?/gi, (whole, name: string, index?: string) => {
    const token = name.toLowerCase();
    const to: Record<string, string | undefined> = {
      year: "{year}",
      month: "{month}",
      day: "{day}",
      section,
      slugorfilename: "{slug}",
      slugorcontentbasename: "{slug}",
      filename: slugs === "file" ? "{slug}" : undefined,
      contentbasename: slugs === "file" ? "{slug}" : undefined,
      slug: slugs === "key" ? "{slug}" : undefined,
    };
    const value = index ? undefined : to[token];
    if (value !== undefined) return value;
    left.push(whole);
    return whole;
  });
  if (left.length)
    return {
      reason: `${[...new Set(left)].join(", ")} cannot be written in a urls: pattern${left.some((l) => /^:slug$/i.test(l)) ? " (pages without a slug key take their title there)" : ""}`,
    };
  const pattern = `/${path}`.replace(/\/{2,}/g, "/");
  return pattern.includes("{slug}") ? { pattern } : { reason: "it names no :slug or :filename" };
}

/**
 * Page patterns guessed from where each group's files sit: the folder under the content root.
 * Jekyll's posts take the site-wide `permalink` (its `date` style when the config names none),
 * and its collections `/name/:path` with the suffix that permalink gives them.
 */
function guessUrls(
  generator: Generator,
  documents: Detection["documents"],
  options: {
    input: string;
    jekyll?: JekyllConfig & {
      categoriesOf: (kind: "article" | "guide", lang: "fr" | "en", glob: string) => string | undefined;
    };
    hugo?: {
      permalinks: Record<string, string>;
      slugsOf: (kind: "article" | "guide", lang: "fr" | "en") => HugoSlugs;
      /** Each language's folder in the addresses, when the site names its languages. */
      prefixes?: Record<"fr" | "en", string>;
      /** The languages' own content folders (contentDir), whose pages' addresses start below them. */
      contentDirs: { dir: string; lang: "fr" | "en" }[];
    };
    /** Astro's folders of collections and of routes (src/content and src/pages, or below its srcDir). */
    astro?: { content: string; pages: string };
    /** Astro's page routes: whether <pages>/<folder> holds a rest route ([...slug].astro), or another one. */
    astroRoute?: (folder: string) => "rest" | "other" | "none";
    /** The pages of a kind and language that its pattern places, and whether each names its slug. */
    pagesOf: (kind: "article" | "guide", lang: "fr" | "en") => { rel: string; slug: string; named: boolean }[];
    unmapped: string[];
  },
): Urls {
  const { input, jekyll, hugo, astro, astroRoute, pagesOf, unmapped } = options;
  // The folders a page's address does not show: the content root of each generator.
  const drop =
    generator === "astro"
      ? (astro?.content ?? "src/content").split("/").length
      : generator === "hugo"
        ? 1
        : generator === "eleventy" && input
          ? input.split("/").length
          : 0;
  const section = (glob: string) => {
    const parts = glob
      .split("/")
      .slice(0, -1)
      .filter((p) => !/[*?{[(!\\]/.test(p));
    const own = hugo?.contentDirs.find((c) => glob.startsWith(`${c.dir}/`));
    const rest = parts
      .slice(own ? own.dir.split("/").length : drop)
      // Eleventy serves a file at its path under the input folder, a language folder included.
      .filter((p) => (generator === "eleventy" ? true : p !== "en" && p !== "fr" && p !== "_posts"))
      // A Jekyll collection's folder is _name; its pages are published under /name/.
      .map((p) => (generator === "jekyll" ? p.replace(/^_/, "") : p));
    return rest.length ? `/${rest.join("/")}` : "";
  };
  const urls: Urls = {};
  for (const d of documents) {
    const glob = d.globs[0]!;
    const base = section(glob);
    const languages = hugo?.prefixes ?? jekyll?.prefixes;
    const prefix = languages
      ? languages[d.lang]
      : d.lang === "en" && !base.startsWith("/en") && generator !== "eleventy"
        ? "/en"
        : "";
    let pattern = `${prefix}${base}/{slug}/`;
    // Hugo's [permalinks] give a section's pages their addresses; the language prefix stays.
    const hugoSection = base.split("/")[1] ?? "";
    const permalink = hugo && hugoSection ? hugo.permalinks[hugoSection] : undefined;
    // The pages the pattern would place, each with its folders below the globs' start; those the
    // generator serves elsewhere than below the pattern's folder (another section) are said.
    const placed = pagesOf(d.kind, d.lang).map((f) => {
      const folder = pageFolder(f.rel, d.globs);
      const own = section(`${hugoPageDir(f.rel)}/page.md`);
      return { ...f, folder, own, elsewhere: own !== `${base}${folder ? `/${folder}` : ""}` };
    });
    const filed = placed.filter((f) => f.folder !== "" && !f.elsewhere);
    // An Astro collection's language folder (src/content/posts/fr/) is part of its entries' ids
    // (fr/x): the route of the collection's folder, with no language prefix, serves them.
    const langFolder = astro ? astroLanguageFolder(glob, astro.content) : undefined;
    const routeFolder = langFolder ? base : `${prefix}${base}`;
    const route = generator === "astro" && (filed.length || langFolder) ? astroRoute?.(routeFolder) : undefined;
    const pages = astro?.pages ?? "src/pages";
    if (langFolder && route !== "rest") {
      unmapped.push(
        `urls.${d.kind}.${d.lang}: these pages sit in the language folder ${astro!.content}${base}/${langFolder}/ of their collection, so their Astro ids start with ${langFolder}/ (${some(placed.slice(0, 1).map((f) => `${f.rel}: ${langFolder}/${f.folder ? `${f.folder}/` : ""}${f.slug}`))}), and Astro serves them where the site's routes say: ${pages}${routeFolder}/ holds ${route === "other" ? "a route other than [...slug].astro" : "no route"}, so risk-cli cannot tell their address and links them at ${pattern}; write the pattern by hand (${base}/${langFolder}/${filed.length ? "{folder}/" : ""}{slug}/ when the route's parameter is the entry's id, as with [...slug].astro${filed.length ? ", {folder} standing for the subfolders" : ""})`,
      );
    } else if (generator === "astro" && filed.length && route !== "rest") {
      // Astro's address is its route's: only a rest route ([...slug].astro) serves the
      // collection's subfolders, as the entry's id (2026/x) holds them.
      unmapped.push(
        `urls.${d.kind}.${d.lang}: ${filed.length} page(s) sit in subfolders of their collection (${some(filed.map((f) => f.rel))}), and Astro serves them where the site's routes say: ${pages}${prefix}${base}/ holds ${route === "other" ? "a route other than [...slug].astro" : "no route"}, so risk-cli cannot tell their address and links them at ${pattern}; write the pattern by hand ({folder} stands for the subfolders: ${prefix}${base}/{folder}/{slug}/ when the route's parameter is the entry's id, as with [...slug].astro)`,
      );
    } else if ((hugo && permalink === undefined) || generator === "eleventy" || generator === "astro") {
      // Without a permalink, Hugo serves a page at its folders under the content folder, and so
      // do Eleventy by default and an Astro rest route ([...slug].astro, the entry's id holding
      // its subfolders): one in a subfolder (posts/2026/x.md) at /posts/2026/x/, which {folder} shows.
      if (langFolder) pattern = `${base}/${langFolder}/${filed.length ? "{folder}/" : ""}{slug}/`;
      else if (filed.length) pattern = `${prefix}${base}/{folder}/{slug}/`;
      const elsewhere = placed.filter((f) => f.elsewhere).map((f) => `${f.rel} (${prefix}${f.own}/${f.slug}/)`);
      if (elsewhere.length)
        unmapped.push(
          generator === "astro"
            ? `urls.${d.kind}.${d.lang}: ${elsewhere.length} page(s) sit in another collection than the one the pattern ${pattern} starts from, whose routes give them other addresses: ${some(elsewhere)}; risk-cli links every ${d.kind} of one language by one pattern: leave their globs out, or check their links by hand`
            : `urls.${d.kind}.${d.lang}: ${elsewhere.length} page(s) sit outside the folder the pattern ${pattern} starts from, and ${generator === "hugo" ? "Hugo" : "Eleventy"} serves each at its own folders: ${some(elsewhere)}; risk-cli links every ${d.kind} of one language by one pattern: give those pages their own ${generator === "hugo" ? "url" : "permalink"}, or leave their globs out`,
        );
      // Astro takes a slug key as the entry's whole id: such a page is served without its
      // subfolders, and without its language folder.
      const named = generator === "astro" ? (langFolder ? placed : filed).filter((f) => f.named) : [];
      if (named.length)
        unmapped.push(
          `urls.${d.kind}.${d.lang}: ${named.length} page(s) in a ${langFolder ? "language folder" : "subfolder"} of their collection name their slug (${some(named.map((f) => `${f.rel} (${langFolder ? "" : prefix}${base}/${f.slug}/)`))}), which Astro takes as the whole id, ${langFolder ? "folders" : "subfolders"} left out, while risk-cli links them at ${pattern}; move each to the collection's top folder (its slug keeps its address), or check its links by hand`,
        );
    } else if (hugo && permalink !== undefined) {
      const read = patternOfHugoPermalink(permalink, hugoSection, hugo.slugsOf(d.kind, d.lang));
      if ("pattern" in read) pattern = `${prefix}${read.pattern}`;
      else
        unmapped.push(
          `urls.${d.kind}.${d.lang}: Hugo's permalink "${permalink}" for ${hugoSection} gives these pages' addresses, and ${read.reason}; write the pattern of their address by hand, with {slug}, {year}, {month} and {day}`,
        );
    } else if (jekyll && /(^|\/)_posts\//.test(glob)) {
      const template = JEKYLL_STYLES[jekyll.permalink] ?? jekyll.permalink;
      const read = patternOfPermalink(template, jekyll.categoriesOf(d.kind, d.lang, glob));
      // One pattern per kind and language: posts whose folders give :categories another prefix
      // (finance/_posts beside _posts) would be linked at the first folder's addresses.
      const others = d.globs.filter(
        (g) =>
          /(^|\/)_posts\//.test(g) &&
          g !== glob &&
          jekyll.categoriesOf(d.kind, d.lang, g) !== jekyll.categoriesOf(d.kind, d.lang, glob),
      );
      if ("pattern" in read && template.includes(":categories") && others.length)
        unmapped.push(
          `urls.${d.kind}.${d.lang}: Jekyll's :categories puts the folders above _posts in the address, and these posts sit in folders that give other ones (${some([glob, ...others])}); the pattern written, ${read.pattern}, is right for ${glob} only, and risk-cli links every ${d.kind} of one language by one pattern: the others would be linked at wrong addresses; leave their globs out (or check those links by hand)`,
        );
      // The address is the permalink's alone: Jekyll adds no language to it, jekyll-polyglot its folder.
      if ("pattern" in read) pattern = `${jekyll.prefixes?.[d.lang] ?? ""}${read.pattern}`;
      else
        unmapped.push(
          `urls.${d.kind}.${d.lang}: Jekyll's permalink "${jekyll.permalink}"${template === jekyll.permalink ? "" : ` (${template})`} gives the posts' addresses, and ${read.reason}; write the pattern of your posts' address by hand, with {slug}, {year}, {month} and {day}`,
        );
    } else if (jekyll && /^_[^/]+\//.test(glob)) {
      // A collection's own permalink wins over the site's: :collection is its name, :name its
      // page's file name, :path its page's path in the collection (`2026/x` for
      // `_guides/2026/x.md`), the subfolders then shown by {folder}. Jekyll's default is
      // /:collection/:path with the suffix the site's permalink gives.
      const name = glob.slice(1, glob.indexOf("/"));
      const own = Object.hasOwn(jekyll.collectionPermalinks, name) ? jekyll.collectionPermalinks[name] : undefined;
      const path = filed.length ? "{folder}/:slug" : ":slug";
      if (own === undefined)
        pattern = `${prefix}${base}/${path.replace(":slug", "{slug}")}${collectionSuffix(jekyll.permalink)}`;
      else {
        const template = (JEKYLL_STYLES[own] ?? own)
          .replace(/:collection\b/g, name)
          .replace(/:name\b/g, ":slug")
          .replace(/:path\b/g, path);
        const read = patternOfPermalink(template, undefined);
        if ("pattern" in read) pattern = `${jekyll.prefixes?.[d.lang] ?? ""}${read.pattern}`;
        else
          unmapped.push(
            `urls.${d.kind}.${d.lang}: the collection ${name}'s permalink "${own}" gives these pages' addresses, and ${read.reason}; write the pattern of their address by hand, with {slug}`,
          );
      }
    }
    (urls[d.kind] ??= {})[d.lang] = pattern;
  }
  const dated = [urls.article, urls.guide].some((l) =>
    Object.values(l ?? {}).some((p) => /\{(year|month|day)\}/.test(p)),
  );
  if (jekyll && dated) {
    if (jekyll.timezone) urls.timezone = jekyll.timezone;
    else
      unmapped.push(
        "urls.timezone: Jekyll dates its addresses in the zone of the machine that builds the site when _config.yml names no timezone; UTC is assumed (as GitHub Pages builds): set urls.timezone (or timezone in _config.yml) if yours builds elsewhere",
      );
  }
  return urls;
}

/**
 * The language folder (`fr`, `en`) of an Astro collection a glob starts in
 * (`src/content/posts/fr/**\/*.md`), undefined when it starts at the collection.
 */
function astroLanguageFolder(glob: string, content: string): string | undefined {
  if (!glob.startsWith(`${content}/`)) return undefined;
  const folder = glob.slice(content.length + 1).split("/")[1];
  return folder === "fr" || folder === "en" ? folder : undefined;
}

/** A note as one comment line: a file name's line break or control character cannot end it. */
const commentLine = (text: string) =>
  text.replace(
    /[\u0000-\u001f\u007f\u0085\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

/** The detection as the YAML blocks to add to risk.config.yaml, with what is left to do as comments. */
export function detectionYaml(d: Detection): string {
  return (
    `# Read where it lives: detected by risk-cli init --detect (${d.generator}).\n` +
    d.unmapped.map((u) => `# TODO ${commentLine(u)}\n`).join("") +
    d.leftOut.map((u) => `# Left out: ${commentLine(u)}\n`).join("") +
    stringify({ content: d.content, urls: d.urls }, { lineWidth: 0 })
  );
}
