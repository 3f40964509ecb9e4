import { pageOf } from "../inputs/pages.ts";
import { collapseSpaces, headUnits, withoutComments } from "../render/text.ts";
/**
 * Plain-text surfaces for agents: `/llms.txt` (the llmstxt.org map: H1, blockquote summary, H2
 * sections of links, an Optional section) and the two corpora, French and English, kept apart.
 */
import { z } from "zod";
import type { Doc, Publication } from "../inputs/publication.ts";
import { editorialOf } from "../editorial/analysis.ts";
import { footnotesAsText } from "../editorial/footnotes.ts";
import { withoutUnsafeLinks } from "../editorial/links.ts";
import { readableBody } from "../editorial/markup.ts";
import { defineSurface, type BuildContext } from "./types.ts";
import { byCodeUnits, bySlug, docPath, sortDocs, type UrlOf } from "./common.ts";

/** llmstxt.org asks for a concise file; ours must stay under 64 KB whatever the corpus size. */
export const LLMS_MAX_BYTES = 64 * 1024;
const encoder = new TextEncoder();
const byteLength = (s: string) => encoder.encode(s).byteLength;

const text = () =>
  z.string().refine((s) => s.length > 0 && s.isWellFormed(), { message: "non-empty, well-formed UTF-16 text" });
export const LlmsText = text()
  .refine((s) => byteLength(s) < LLMS_MAX_BYTES, { message: `llms.txt must stay under ${LLMS_MAX_BYTES} bytes` })
  .refine((s) => /^# .+\n\n> .+/.test(s), { message: "llms.txt starts with an H1 then a blockquote summary" });

/** One Markdown list line of a link; the label's brackets and line breaks are neutralised. */
const clip = (text: string, max: number) => (text.length > max ? `${headUnits(text, max - 1).trimEnd()}…` : text);

/** The longest label or note of one line of llms.txt: one document's text can never push the file over its limit. */
const LINE_TEXT_MAX = 600;

function link(label: string, href: string, note?: string): string {
  const safe = (s: string) => clip(collapseSpaces(s), LINE_TEXT_MAX);
  // A backslash is doubled: one left before the closing bracket would escape it, and the note
  // after it would be read as the link's address.
  const shown = safe(label)
    .replace(/[[\]]/g, (c) => (c === "[" ? "(" : ")"))
    .replace(/\\/g, "\\\\");
  return `- [${shown}](${href})${note ? `: ${safe(note)}` : ""}\n`;
}

/**
 * A document's title or description as the text surfaces publish it: reduced as its body is (no
 * element, comment or `javascript:` link left), on one line.
 */
export const publishedLine = (s: string) => collapseSpaces(readableBody(withoutComments(s), { mdx: false }).text);

/**
 * Plain text (a claim, read with its entities decoded) placed in Markdown: a `<` that would open
 * an element or a comment is written `&lt;`, so `&lt;img onerror…&gt;` in an article stays text.
 */
const asMarkdownText = (s: string) => s.replace(/<(?=[A-Za-z/!?])/g, "&lt;");

/** Sections whose lines are added until the budget is spent; what is left out is pointed to. */
interface Section {
  title: string;
  lines: string[];
  overflow?: (left: number) => string;
}

export function llmsTxt(p: Publication, ctx: Pick<BuildContext, "registry" | "url">): string {
  const { url, registry } = ctx;
  const frArticles = sortDocs(p.articles.filter((d) => d.lang === "fr"));
  const frGuides = sortDocs(p.guides.filter((d) => d.lang === "fr"));
  const en = sortDocs([...p.articles, ...p.guides].filter((d) => d.lang === "en"));
  const head =
    `# ${publishedLine(p.config.name)}\n\n` +
    `> ${clip(publishedLine(p.config.description.fr), 1000)}\n\n` +
    `Publication bilingue (français, anglais) sur le risque macro-financier : articles, guides, méthodologies, glossaire, sources primaires et signaux de risque par instrument, sans indice global. ` +
    `Tous les documents sont statiques, régénérés toutes les 15 minutes, sous licence ${publishedLine(p.config.license)} avec attribution « ${publishedLine(p.config.attribution)} ». Ce n’est pas un conseil en investissement. ` +
    `Chaque surface JSON est servie en JSON canonique (RFC 8785) et son SHA-256 figure dans ${url("/api/v1/integrity.json")}.` +
    (p.config.archive
      ? ` Chaque assemblage est un commit de l’archive Git ${p.config.archive.url} (branche ${p.config.archive.branch}) : git clone --bare --branch ${p.config.archive.branch} ${p.config.archive.url} archive.git && risk-cli verify --archive archive.git.`
      : "") +
    (p.config.mcp
      ? ` Un serveur MCP (Model Context Protocol, transport Streamable HTTP) répond à ${p.config.mcp.url} : recherche, surfaces, séries, signaux, relecture et différences à une date passée, sans anticipation.`
      : "") +
    "\n\n";
  const machine = [...registry]
    .filter((s) => s.path !== "/llms.txt")
    .sort((a, b) => byCodeUnits(a.path, b.path))
    .map((s) => link(s.path, url(s.path), s.summary));
  const sections: Section[] = [
    { title: "Contrat machine", lines: machine },
    {
      title: "Méthodologies",
      lines: [...p.methodologies]
        .sort(bySlug)
        .map((m) =>
          link(publishedLine(m.title), url(pageOf(p.pages.methodology, m.slug)), publishedLine(m.description)),
        ),
    },
    {
      title: "Articles",
      lines: frArticles.map((d) =>
        link(publishedLine(d.meta.title), url(docPath(d)), `${d.meta.date}. ${publishedLine(d.meta.description)}`),
      ),
      overflow: (left) =>
        link(
          `${left} article(s) plus ancien(s)`,
          url("/api/v1/catalog.json"),
          "tous les articles sont listés dans le catalogue",
        ),
    },
    {
      title: "Guides",
      lines: frGuides.map((d) => link(publishedLine(d.meta.title), url(docPath(d)), publishedLine(d.meta.description))),
      overflow: (left) =>
        link(`${left} guide(s) de plus`, url("/api/v1/catalog.json"), "tous les guides sont listés dans le catalogue"),
    },
    {
      title: "English",
      lines: en.map((d) => link(publishedLine(d.meta.title), url(docPath(d)), publishedLine(d.meta.description))),
      overflow: (left) => link(`${left} more English item(s)`, url("/llms-full-en.txt"), "the whole English corpus"),
    },
  ];
  const optional =
    "## Optional\n\n" +
    link(
      "Corpus complet en français",
      url("/llms-full.txt"),
      "articles, guides, méthodologies, glossaire et sources primaires en texte brut",
    ) +
    link(
      "Full English corpus",
      url("/llms-full-en.txt"),
      "English translations only, kept apart from the French context",
    ) +
    link("Glossaire", url(p.pages.glossary), `${p.glossary.length} entrées`) +
    link("Sources primaires", url(p.pages.sources), `${p.primarySources.length} institutions répertoriées`) +
    link("Protocole éditorial", url(p.pages.protocol), "principes, niveaux de preuve, politique de correction") +
    link(
      "Description du contrat pour les agents",
      url(p.pages.agents),
      "fraîcheur, séries, règles de citation, garde-fous",
    );
  // Every section keeps its heading and first line; the rest fills what the budget leaves.
  let budget = LLMS_MAX_BYTES - 1024 - byteLength(head) - byteLength(optional);
  const kept = sections.map((s) => {
    const first = s.lines.slice(0, 1);
    budget -= byteLength(`## ${s.title}\n\n\n`) + (first[0] ? byteLength(first[0]) : 0) + 200;
    return first;
  });
  sections.forEach((s, i) => {
    for (const line of s.lines.slice(1)) {
      const size = byteLength(line);
      if (size > budget) break;
      kept[i]!.push(line);
      budget -= size;
    }
  });
  const body = sections
    .filter((s) => s.lines.length > 0)
    .map((s) => {
      const lines = kept[sections.indexOf(s)]!;
      const left = s.lines.length - lines.length;
      return `## ${s.title}\n\n${lines.join("")}${left > 0 && s.overflow ? s.overflow(left) : ""}\n`;
    })
    .join("");
  return `${head}${body}${optional}`;
}

/** A document's body as it goes into a corpus: claim markers dropped, footnotes in words, headings nested under it. */
function corpusBody(doc: Doc): string {
  let fence = false;
  // Again once comments are gone: a comment inside a link's address would have hidden its scheme.
  // A lone carriage return ends a line for Markdown readers: made a line feed, so that no heading
  // after one escapes the nesting below.
  const body = doc.body.replace(/\r\n?/g, "\n");
  return withoutUnsafeLinks(footnotesAsText(withoutComments(body, "", true), doc.lang))
    .text.split("\n")
    .map((line) => {
      if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
      return !fence && /^#{1,3} /.test(line) ? `###${line}` : line;
    })
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const LABELS = {
  fr: { url: "URL : ", date: "Date : ", updated: "mis à jour le", summary: "Résumé : ", topics: "Thèmes : " },
  en: { url: "URL: ", date: "Date: ", updated: "updated", summary: "Summary: ", topics: "Topics: " },
};

function docEntry(doc: Doc, url: UrlOf, extra: string[] = []): string {
  const m = doc.meta;
  const l = LABELS[doc.lang];
  const facts = [
    `${l.url}${url(docPath(doc))}`,
    `${l.date}${m.date}${m.updated ? ` (${l.updated} ${m.updated})` : ""}`,
    ...extra,
    `${l.summary}${publishedLine(m.description)}`,
    ...(m.topics?.length ? [`${l.topics}${m.topics.join(", ")}`] : []),
  ];
  return `### ${publishedLine(m.title)}\n\n${facts.join("\n")}\n\n${corpusBody(doc)}\n\n`;
}

export function llmsFullFr(p: Publication, { url, indexedAt }: Pick<BuildContext, "url" | "indexedAt">): string {
  const editorial = editorialOf(p, indexedAt, url);
  const claimLines = (doc: Doc) => {
    const a = editorial.bySlug.get(doc.slug);
    if (!a) return [];
    return [
      `Profondeur de preuve : ${a.summary.depth.score}/5 (${a.summary.depth.label})`,
      ...a.claims.map(
        // A claim's text is read with its comments gone, which may have joined a link to a javascript: address.
        (c) =>
          `Affirmation ${c.id} [${c.kind}, ${c.reviewStatus === "reviewed" ? "revue" : "non revue"}] : ${asMarkdownText(withoutUnsafeLinks(c.claim).text)}`,
      ),
    ];
  };
  const articles = sortDocs(p.articles.filter((d) => d.lang === "fr"));
  const guides = sortDocs(p.guides.filter((d) => d.lang === "fr"));
  let out =
    `# ${publishedLine(p.config.name)} : corpus complet en français\n\n` +
    `> ${publishedLine(p.config.description.fr)}\n\n` +
    `Licence ${publishedLine(p.config.license)}, attribution « ${publishedLine(p.config.attribution)} ». Pas un conseil en investissement. ` +
    `${articles.length} articles, ${guides.length} guides, ${p.methodologies.length} méthodologies, ${p.glossary.length} entrées de glossaire, ${p.primarySources.length} sources primaires. ` +
    `Le corpus anglais est publié à part : ${url("/llms-full-en.txt")}.\n\n`;
  out += "## Articles\n\n" + articles.map((d) => docEntry(d, url, claimLines(d))).join("");
  out += "## Guides\n\n" + guides.map((d) => docEntry(d, url)).join("");
  out +=
    "## Méthodologies\n\n" +
    [...p.methodologies]
      .sort(bySlug)
      .map(
        (m) =>
          `### ${publishedLine(m.title)}\n\nURL : ${url(pageOf(p.pages.methodology, m.slug))}\nVersion : ${m.version} (mise à jour le ${m.updated})\nQuestion : ${publishedLine(m.question)}\n\n${publishedLine(m.description)}\n\n`,
      )
      .join("");
  out +=
    "## Glossaire\n\n" +
    [...p.glossary]
      .sort(bySlug)
      .map(
        (g) =>
          `- **${publishedLine(g.name)}${g.sigle ? ` (${publishedLine(g.sigle)})` : ""}** (${publishedLine(g.category)}) : ${publishedLine(g.definition)} ${url(pageOf(p.pages.glossaryEntry, g.slug))}\n`,
      )
      .join("");
  out +=
    "\n## Sources primaires\n\n" +
    [...p.primarySources]
      .sort(bySlug)
      .map(
        (s) =>
          `### ${publishedLine(s.name)}\n\nURL : ${url(pageOf(p.pages.source, s.slug))}\nSite officiel : ${s.officialUrl}\nCatégorie : ${publishedLine(s.category)}\n\n${publishedLine(s.description)}\n\n` +
          (s.datasets ?? []).map((d) => `- ${publishedLine(d.name)} (${publishedLine(d.role)}) : ${d.url}\n`).join("") +
          "\n",
      )
      .join("");
  return out.trimEnd() + "\n";
}

export function llmsFullEn(p: Publication, { url, indexedAt }: Pick<BuildContext, "url" | "indexedAt">): string {
  const editorial = editorialOf(p, indexedAt, url);
  const docs = sortDocs([...p.articles, ...p.guides].filter((d) => d.lang === "en"));
  const entry = (d: Doc) => {
    const t = editorial.translation(d);
    const original = t.alternateUrl
      ? `Translation of: ${t.alternateUrl} (${t.translationStatus})`
      : `Translation status: ${t.translationStatus}`;
    return docEntry(d, url, [original]);
  };
  const articles = docs.filter((d) => d.kind === "article");
  const guides = docs.filter((d) => d.kind === "guide");
  return (
    (
      `# ${publishedLine(p.config.name)}: full English corpus\n\n` +
      `> ${publishedLine(p.config.description.en)}\n\n` +
      `English translations only, kept apart from the French context (${url("/llms-full.txt")}). Each item names its French original and whether the translation is current. ` +
      `Licence ${publishedLine(p.config.license)}, attribution "${publishedLine(p.config.attribution)}". Not investment advice.\n\n` +
      `## Articles\n\n${articles.map(entry).join("")}## Guides\n\n${guides.map(entry).join("")}`
    ).trimEnd() + "\n"
  );
}

/**
 * The last guard of the text corpora: no control character other than tab and line break
 * reaches them, whatever an input or an upstream held.
 */
const plainText = (text: string) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "");

export const llms = defineSurface({ format: "text", schema: LlmsText })({
  path: "/llms.txt",
  mediaType: "text/plain; charset=utf-8",
  reusable: true,
  reads: { corpus: true },
  schemaName: "LlmsText",
  summary: "Concise map for agents in the llmstxt.org format, under 64 KB",
  build: ({ publication, ...ctx }) => plainText(llmsTxt(publication, ctx)),
});

export const llmsFull = defineSurface({ format: "text", schema: text() })({
  path: "/llms-full.txt",
  mediaType: "text/plain; charset=utf-8",
  reusable: true,
  reads: { corpus: true },
  schemaName: "LlmsFullText",
  summary:
    "Extended French corpus for agents: articles with their claims, guides, methodologies, glossary and primary sources",
  build: ({ publication, ...ctx }) => plainText(llmsFullFr(publication, ctx)),
});

export const llmsFullEnglish = defineSurface({ format: "text", schema: text() })({
  path: "/llms-full-en.txt",
  mediaType: "text/plain; charset=utf-8",
  reusable: true,
  reads: { corpus: true },
  schemaName: "LlmsFullEnglishText",
  summary: "Full English corpus for agents, separate from the French context",
  build: ({ publication, ...ctx }) => plainText(llmsFullEn(publication, ctx)),
});
