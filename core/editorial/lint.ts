/**
 * Editorial findings that do not stop an assembly but that the publisher must see: reviews whose
 * claim no longer exists, translations whose original is gone or was updated since, French
 * articles with no claim. `assemble` prints them as warnings; `risk-cli lint` lists them all.
 */
import type { Publication } from "../inputs/publication.ts";
import type { UrlOf } from "../surfaces/common.ts";
import type { ExtractWarningCode } from "../claims/extract.ts";
import { claimMarkerIn } from "../claims/markdown.ts";
import picomatch from "picomatch";
import { editorialOf } from "./analysis.ts";
import { withoutUnsafeLinks } from "./links.ts";
import { impossibleDays } from "../claims/dates.ts";
import { withoutComments } from "../render/text.ts";
import { deadLinks } from "./dead-links.ts";
import { quote } from "../inputs/locate.ts";
import { NEVER_CLOSED } from "./markup.ts";

export interface Finding {
  severity: "error" | "warning" | "note";
  code:
    | "orphan-review"
    | "missing-source"
    | "two-translations"
    | "stale-translation"
    | "no-claim"
    | "dropped-markup"
    | "mdx-syntax"
    | "unsafe-link"
    | "dead-link"
    | "impossible-date"
    | "empty-glob"
    | "no-articles"
    | "future-date"
    | "upstream-fallback"
    | ExtractWarningCode;
  /** The file, relative to the publication folder. */
  file: string;
  field: string;
  message: string;
  /** Text to look for in the file to give a line number. */
  needle: string;
  /** The line, when the finding knows it already. */
  line?: number;
  /** Text the needle stands after, when the needle alone may occur earlier in the file. */
  after?: string;
}

const SEVERITY_ORDER = { error: 0, warning: 1, note: 2 } as const;

/**
 * What `lint` reports on the corpus. With `errorsOnly` (an assembly, which prints only errors),
 * the reading of every body for warnings alone (days that do not exist) is left out.
 */
export function editorialFindings(
  p: Publication,
  now: string,
  url: UrlOf,
  options: { errorsOnly?: boolean } = {},
): Finding[] {
  const editorial = editorialOf(p, now, url);
  const rel = (file: string) => (file.startsWith(`${p.root}/`) ? file.slice(p.root.length + 1) : file);
  const findings: Finding[] = [];
  for (const o of editorial.orphans) {
    const [slug, name] = o.claimId.split("#") as [string, string];
    // The marker as the article's file takes it; an article that is gone may have been either.
    const article = p.articles.find((a) => a.lang === "fr" && a.slug === slug);
    const marker = article
      ? claimMarkerIn(article.file, name)
      : `${claimMarkerIn(".md", name)} (${claimMarkerIn(".mdx", name)} in an .mdx file)`;
    findings.push({
      severity: "error",
      code: "orphan-review",
      file: "content/claim-reviews.yaml",
      field: `entries[${o.index}].claimId`,
      message: `the review of "${o.claimId}" matches no claim (${o.reason}); restore the ${marker} marker in the article or update the review's claimId`,
      needle: o.claimId,
    });
  }
  // One English translation per French original: the French page links to the last one read.
  const translations = new Map<string, string[]>();
  for (const doc of [...p.articles, ...p.guides])
    if (doc.lang === "en" && doc.meta.translationOf) {
      const key = `${doc.kind}:${doc.meta.translationOf}`;
      translations.set(key, [...(translations.get(key) ?? []), rel(doc.file)]);
    }
  for (const [key, files] of translations) {
    if (files.length < 2) continue;
    const linked = files.at(-1)!;
    for (const file of files.slice(0, -1))
      findings.push({
        severity: "error",
        code: "two-translations",
        file,
        field: "translationOf",
        message: `${linked} also translates the French ${key.replace(":", " ")}, and the French page links to it only; keep one English translation per original (remove one, or point its translationOf elsewhere)`,
        needle: "translationOf",
      });
  }
  for (const doc of [...p.articles, ...p.guides]) {
    if (doc.lang !== "en") continue;
    const t = editorial.translation(doc);
    if (t.translationStatus === "missing-source") {
      findings.push({
        severity: "error",
        code: "missing-source",
        file: rel(doc.file),
        field: "translationOf",
        message: doc.pairedBy
          ? `no French ${doc.kind} has its ${doc.pairedBy}; the translation is published with translationStatus missing-source. Restore the original, ${doc.pairedBy.startsWith("file name") ? "name its file as this one (x.fr.md beside x.en.md)" : `give it the same ${doc.pairedBy.split(" ")[0]}`}, or name it by translationOf`
          : `no French ${doc.kind} "${doc.meta.translationOf}" exists; the translation is published with translationStatus missing-source. Restore the original or fix translationOf`,
        needle: "translationOf:",
        // Paired by its file name, the file itself names the original: its first line.
        line: doc.lines?.original ?? (doc.pairedBy ? 1 : undefined),
      });
    } else if (t.translationStatus === "stale") {
      findings.push({
        severity: "warning",
        code: "stale-translation",
        file: rel(doc.file),
        field: "translatedFrom",
        message: doc.meta.translatedFrom
          ? `translated from the ${doc.meta.translatedFrom} version, but the French original was updated since; update the translation, then translatedFrom`
          : `last revised ${doc.meta.updated ?? doc.meta.date}, before the French original's last revision; update the translation, then its updated date (or translatedFrom)`,
        needle: "translatedFrom:",
      });
    }
  }
  // A glob that matches no document empties its part of the corpus: a typo, most often.
  const content = p.config.content;
  for (const [kind, key] of [
    ["article", "articles"],
    ["guide", "guides"],
  ] as const) {
    for (const lang of ["fr", "en"] as const) {
      for (const glob of content?.[key]?.[lang] ?? []) {
        const match = picomatch(glob);
        if ([...p.articles, ...p.guides].some((d) => d.kind === kind && d.lang === lang && match(rel(d.file))))
          continue;
        findings.push({
          severity: "warning",
          code: "empty-glob",
          file: "risk.config.yaml",
          field: `content.${key}.${lang}`,
          message: `the glob ${glob} matches no published ${kind}; check its folders and letter case (drafts and files whose name starts with _ are left out)`,
          needle: glob,
        });
      }
    }
  }
  // A config that reads no French article publishes nothing of the corpus: never a clean lint.
  if (!p.articles.some((a) => a.lang === "fr")) {
    const field = content?.articles ? "content.articles.fr" : "content.articles";
    findings.push({
      severity: "error",
      code: "no-articles",
      file: "risk.config.yaml",
      field,
      message: content?.articles
        ? `its globs read no published French article, so nothing of the corpus would be published; make them take your French originals (${content.articles.fr.join(", ") || "none written"})`
        : "no content.articles block, and content/articles/fr/ holds no published French article, so nothing of the corpus would be published; write content.articles: { fr: [...], en: [...] } with globs that take your French originals and their translations (risk-cli init --detect writes them)",
      needle: content?.articles ? "articles:" : "",
    });
  }
  const today = now.slice(0, 10);
  for (const doc of [...p.articles, ...p.guides]) {
    if ((doc.publishedAt ?? doc.meta.date) > (doc.publishedAt ? now : today)) {
      findings.push({
        severity: "warning",
        code: "future-date",
        file: rel(doc.file),
        field: "date",
        message: `dated ${doc.publishedAt ?? doc.meta.date}, after ${doc.publishedAt ? now : today}: risk-cli publishes it now; if your site holds it back until then, mark it as a draft until that day`,
        needle: "",
        // A Jekyll post dated by its file name alone has no date line: the file's first.
        line: doc.lines?.date ?? 1,
      });
    }
  }
  const unsafe = (scheme: string) =>
    `a ${scheme} link is published as its text alone, never as a link: link to an http(s) address or write the text without a link`;
  for (const doc of [...p.articles, ...p.guides]) {
    for (const field of ["title", "description"] as const) {
      for (const f of withoutUnsafeLinks(withoutComments(doc.meta[field])).found) {
        findings.push({
          severity: "warning",
          code: "unsafe-link",
          file: rel(doc.file),
          field,
          message: unsafe(f.scheme),
          needle: f.raw,
        });
      }
    }
    for (const d of options.errorsOnly ? [] : impossibleDays(doc.body)) {
      const written = doc.body.slice(d.index, d.index + d.length);
      findings.push({
        severity: "warning",
        code: "impossible-date",
        file: rel(doc.file),
        field: "(body)",
        message: `"${written.replace(/\s+/g, " ")}" is no day of the calendar, so no date is read from it (not even its month or year); write the day meant`,
        needle: "",
        line: doc.bodyLine + (doc.body.slice(0, d.index).match(/\n/g)?.length ?? 0),
      });
    }
    for (const d of doc.dropped) {
      if (d.scheme) {
        findings.push({
          severity: "warning",
          code: "unsafe-link",
          file: rel(doc.file),
          field: "(body)",
          message: unsafe(d.scheme),
          needle: "",
          line: d.line,
        });
        continue;
      }
      if (d.mdx) {
        const shown =
          d.component === "{" ? "an MDX expression {" : d.component.startsWith("<") ? d.component : `<${d.component}>`;
        findings.push({
          severity: "error",
          code: "mdx-syntax",
          file: rel(doc.file),
          field: "(body)",
          message:
            d.reason === NEVER_CLOSED
              ? `${shown} ${d.reason}; MDX refuses to compile the file, so your site's build fails on it: close it`
              : `${shown} ${d.reason}`,
          needle: "",
          line: d.line,
        });
        continue;
      }
      findings.push({
        severity: "warning",
        code: "dropped-markup",
        file: rel(doc.file),
        field: "(body)",
        message: d.template
          ? d.component.startsWith("{{") || d.component.startsWith("{%")
            ? `${d.component} is filled in by your site's generator, which risk-cli does not run: it is left out of every published text; write in the text what it says, or give it a caption or title parameter`
            : `the MDX expression ${d.component} is computed by your site's build, which risk-cli does not run: it is left out of every published text (a sentence holding it loses that word or number); write in the text what it says`
          : d.reason
            ? `${d.component === "{" ? "an MDX expression {" : `<${d.component}>`} ${d.reason}`
            : `the component <${d.component}> carries no text (no title, caption, alt, source or label) and is left out of every published text; give it one of those props if it says something a reader needs`,
        needle: "",
        line: d.line,
      });
    }
  }
  for (const d of options.errorsOnly ? [] : deadLinks(p)) {
    findings.push({
      severity: "warning",
      code: "dead-link",
      file: d.file,
      field: d.field,
      message: `the link to ${quote(d.href)} leads to no ${d.kind} of the publication (deleted, made a draft, or given another slug), yet it is published as written; fix the link's slug, or publish the ${d.kind}`,
      needle: d.href,
      after: d.entry === undefined ? undefined : `slug: ${d.entry}`,
      line: d.line,
    });
  }
  for (const a of editorial.articles) {
    for (const w of a.evidence.warnings) {
      findings.push({
        severity: "warning",
        code: w.code,
        file: rel(w.file),
        field: w.code.startsWith("footnote-") ? "footnote" : "claim-id",
        message: w.message,
        needle: "",
        line: w.line,
      });
    }
    if (a.claims.length === 0) {
      findings.push({
        severity: "note",
        code: "no-claim",
        file: rel(a.doc.file),
        field: "(body)",
        message:
          "no sentence qualifies as a structural claim (a link to a source, a number or a date); none is invented",
        needle: "",
      });
    }
  }
  return findings.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      (a.field < b.field ? -1 : a.field > b.field ? 1 : 0),
  );
}

/**
 * The 1-based line of the first occurrence of `needle` in `text` (the first after `after`, when
 * `after` is written there), or null.
 */
export function lineOf(text: string | undefined, needle: string, after?: string): number | null {
  if (!text || !needle) return null;
  const from = after ? text.indexOf(after) : -1;
  const at = from >= 0 && text.indexOf(needle, from) >= 0 ? text.indexOf(needle, from) : text.indexOf(needle);
  if (at < 0) return null;
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** A finding as reported: its line found in the file (null when the file does not say). */
export interface LintFinding extends Omit<Finding, "needle" | "line" | "after"> {
  line: number | null;
}

/** One line of a report: `file:line (field f): message [code]`. */
export function formatFinding(f: LintFinding): string {
  return `${f.file}${f.line ? `:${f.line}` : ""} (field ${f.field}): ${f.message} [${f.code}]`;
}
