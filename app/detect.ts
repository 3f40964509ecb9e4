/**
 * `risk-cli init --detect`: looks at an existing static site (Astro content collections, Hugo,
 * Jekyll, Eleventy, or a plain folder of Markdown) and proposes the part of risk.config.yaml that
 * reads its corpus where it lives: the globs of each kind and language, how slugs and translations
 * are made, the frontmatter keys mapped to risk-cli's, the publisher's other keys declared, and
 * page-address patterns to check. What it cannot map is listed, never guessed silently.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml, stringify } from "yaml";
import { FRONTMATTER_KEYS } from "../core/inputs/schemas.ts";
import { fileSlug, LIKELY_KEYS } from "../core/inputs/documents.ts";

export type Generator = "astro" | "hugo" | "jekyll" | "eleventy" | "markdown";

interface Found {
  rel: string;
  kind: "article" | "guide";
  lang: "fr" | "en";
  keys: string[];
  slug: string;
}

export interface Detection {
  generator: Generator;
  documents: { kind: "article" | "guide"; lang: "fr" | "en"; files: number; globs: string[] }[];
  content: {
    articles?: { fr: string[]; en: string[] };
    guides?: { fr: string[]; en: string[] };
    slug: "file" | "jekyll";
    translations: "translationOf" | "same-slug";
    frontmatter: { map: Record<string, string>; draft?: string; ignore: string[] };
  };
  urls: Record<string, unknown>;
  /** What could not be mapped, each with what to do. */
  unmapped: string[];
}

const SKIP = new Set(["node_modules", "dist", "public", "_site", "resources", "build", "out", "vendor"]);
const DOC = /\.(md|mdx|markdown)$/;
const TRANSLATION_KEYS = [
  "translationOf",
  "sourceArticle",
  "original",
  "translation_of",
  "translationKey",
  "sourceSlug",
];

function generatorOf(root: string): Generator {
  const has = (name: string) => fs.existsSync(join(root, name));
  if (["astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.cjs"].some(has)) return "astro";
  if (["hugo.toml", "hugo.yaml", "hugo.json", "config.toml"].some(has)) return "hugo";
  if (has("_config.yml") || has("_posts")) return "jekyll";
  if ([".eleventy.js", "eleventy.config.js", "eleventy.config.mjs", "eleventy.config.cjs"].some(has)) return "eleventy";
  return "markdown";
}

function walk(root: string, dir: string, out: string[]): void {
  for (const e of fs.readdirSync(join(root, dir), { withFileTypes: true })) {
    if (e.name.startsWith(".") || SKIP.has(e.name)) continue;
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) walk(root, rel, out);
    else if (e.isFile() && DOC.test(e.name) && !/^(README|CHANGELOG|LICENSE|CONTRIBUTING)\./i.test(e.name))
      out.push(rel);
  }
}

/** The frontmatter of a document as an object, or null when it has none that parses. */
function frontmatterOf(text: string): Record<string, unknown> | null {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const fence = t.startsWith("---\n") ? "---" : t.startsWith("+++\n") ? "+++" : null;
  if (!fence) return null;
  const end = t.indexOf(`\n${fence}`, 3);
  if (end < 0) return null;
  try {
    const head = t.slice(4, end + 1);
    const value = fence === "---" ? parseYaml(head) : parseToml(head);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The globs that take exactly a group's files: its folders, recursive where no other group lives. */
function globsOf(group: Found[], others: Found[]): string[] {
  const exts = [...new Set(group.map((f) => f.rel.split(".").pop()!))].sort();
  const ext = exts.length === 1 ? exts[0]! : `{${exts.join(",")}}`;
  const dirs = [...new Set(group.map((f) => f.rel.split("/").slice(0, -1).join("/")))].sort();
  const under = (d: string, rel: string) => (d === "" ? true : rel.startsWith(`${d}/`));
  const globs: string[] = [];
  for (const d of dirs) {
    if (globs.some((g) => g.endsWith(`/**/*.${ext}`) && under(g.slice(0, -`/**/*.${ext}`.length), `${d}/x`))) continue;
    const mixed = others.some((o) => under(d, o.rel));
    globs.push(`${d ? `${d}/` : ""}${mixed ? "" : "**/"}*.${ext}`);
  }
  return globs;
}

export function detectSite(root: string): Detection {
  const generator = generatorOf(root);
  const rels: string[] = [];
  walk(root, "", rels);
  const jekyll = generator === "jekyll" && rels.some((r) => /(^|\/)\d{4}-\d{2}-\d{2}-[^/]+$/.test(r));
  const unmapped: string[] = [];
  const found: Found[] = [];
  for (const rel of rels) {
    const fm = frontmatterOf(fs.readFileSync(join(root, rel), "utf8"));
    if (!fm) {
      unmapped.push(`${rel}: no YAML or TOML frontmatter; left out (add one, or narrow the globs)`);
      continue;
    }
    const keys = Object.keys(fm);
    const declared = String(fm.lang ?? fm.language ?? fm.locale ?? "").toLowerCase();
    const lang: "fr" | "en" =
      declared.startsWith("en") ||
      (!declared && TRANSLATION_KEYS.some((k) => k in fm)) ||
      (!declared && /(^|\/)en(\/|$)|\.en\.(md|mdx)$|(^|\/)[^/]*-en\//.test(rel))
        ? "en"
        : "fr";
    const kind = /guide/i.test(rel) ? "guide" : "article";
    found.push({ rel, kind, lang, keys, slug: fileSlug(rel, jekyll) });
  }
  const groups = (["article", "guide"] as const).flatMap((kind) =>
    (["fr", "en"] as const).map((lang) => ({
      kind,
      lang,
      files: found.filter((f) => f.kind === kind && f.lang === lang),
    })),
  );
  const documents = groups
    .filter((g) => g.files.length > 0)
    .map((g) => ({
      kind: g.kind,
      lang: g.lang,
      files: g.files.length,
      globs: globsOf(
        g.files,
        found.filter((f) => !g.files.includes(f)),
      ),
    }));
  const globsFor = (kind: "article" | "guide") => {
    const of = (lang: "fr" | "en") => documents.find((d) => d.kind === kind && d.lang === lang)?.globs ?? [];
    return of("fr").length ? { fr: of("fr"), en: of("en") } : undefined;
  };
  if (!documents.some((d) => d.lang === "fr"))
    unmapped.push("no French original found: risk-cli publishes French originals and their English translations");

  // Frontmatter keys: risk-cli's own pass, known aliases are mapped, the rest are declared as the publisher's.
  const counts = new Map<string, number>();
  for (const f of found) for (const k of f.keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  const map: Record<string, string> = {};
  const ignore: string[] = [];
  let draft: string | undefined;
  const own = new Set<string>(FRONTMATTER_KEYS);
  const taken = new Set([...counts.keys()].filter((k) => own.has(k)));
  for (const key of [...counts.keys()].sort()) {
    if (own.has(key)) continue;
    if (key === "draft") {
      draft = key;
      continue;
    }
    const target = LIKELY_KEYS[key.toLowerCase()];
    if (target && !taken.has(target)) {
      map[key] = target;
      taken.add(target);
    } else ignore.push(key);
  }
  for (const required of ["title", "description", "date"])
    if (!taken.has(required))
      unmapped.push(
        `${required}: required, and no key of your frontmatter looks like it; add it to each document or map your key to it (content.frontmatter.map)`,
      );
  const frSlugs = new Set(found.filter((f) => f.lang === "fr").map((f) => `${f.kind}:${f.slug}`));
  const en = found.filter((f) => f.lang === "en");
  const translations: "translationOf" | "same-slug" = taken.has("translationOf")
    ? "translationOf"
    : en.length > 0 && en.every((f) => frSlugs.has(`${f.kind}:${f.slug}`))
      ? "same-slug"
      : "translationOf";
  if (en.length > 0 && !taken.has("translationOf") && translations !== "same-slug")
    unmapped.push(
      "translations: no key names an English document's French original, and their slugs differ; add translationOf (or your key mapped to it) to each translation",
    );

  const urls = guessUrls(generator, documents);
  unmapped.push(
    "urls: the page patterns are guesses from the folders; check each against a page of your site before publishing",
  );
  return {
    generator,
    documents,
    content: {
      ...(globsFor("article") ? { articles: globsFor("article") } : {}),
      ...(globsFor("guide") ? { guides: globsFor("guide") } : {}),
      slug: jekyll ? "jekyll" : "file",
      translations,
      frontmatter: { map, ...(draft ? { draft } : {}), ignore },
    },
    urls,
    unmapped,
  };
}

/** Page patterns guessed from where each group's files sit: the folder under the content root. */
function guessUrls(generator: Generator, documents: Detection["documents"]): Record<string, unknown> {
  const section = (glob: string) => {
    const parts = glob.split("/").filter((p) => !/[*{]/.test(p));
    const drop = generator === "astro" ? 2 : generator === "hugo" ? 1 : 0;
    const rest = parts.slice(drop).filter((p) => p !== "en" && p !== "fr" && p !== "_posts");
    return rest.length ? `/${rest.join("/")}` : "";
  };
  const urls: Record<string, Record<string, string>> = {};
  for (const d of documents) {
    const base = section(d.globs[0]!);
    const prefix = d.lang === "en" && !base.startsWith("/en") ? "/en" : "";
    (urls[d.kind] ??= {})[d.lang] = `${prefix}${base}/{slug}/`;
  }
  return urls;
}

/** The detection as the YAML blocks to add to risk.config.yaml, with what is left to do as comments. */
export function detectionYaml(d: Detection): string {
  return (
    `# Read where it lives: detected by risk-cli init --detect (${d.generator}).\n` +
    d.unmapped.map((u) => `# TODO ${u}\n`).join("") +
    stringify({ content: d.content, urls: d.urls }, { lineWidth: 0 })
  );
}
