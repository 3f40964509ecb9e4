/**
 * Claims and references of one French article.
 *
 * - A claim is one sentence of a paragraph or list item outside the bibliography and navigation
 *   sections (./markers.ts EXCLUDED_SECTIONS). A footnote (`[^label]: …`) is never one; its call
 *   leaves no text in the sentence, and its links are references of the sentence that calls it. A `<!-- claim-id: name -->` comment right before a
 *   block names the block's first sentence; inside a paragraph, the sentence after it. Marked
 *   claims come first (at most three, in document order).
 * - The other slots go to candidates: sentences of at least six words that are not questions, not
 *   navigation ("Lire aussi…"), not mostly link text (a bibliography line), and carry a link to an
 *   external source, a material number or a date. They rank by a link to a primary source (8),
 *   another external link (4), a number with a unit (6) or without (2), a date by precision (day or
 *   range 4, month or quarter 2, year 1); ties keep document order. No candidate, no claim.
 * - Ids: `<slug>#<marker>` for marked claims, else `<slug>#c-<10 hex of FNV-1a 64 of the normalised
 *   sentence>`, with `-2`, `-3`… for a sentence repeated in the article; so an edit elsewhere in
 *   the article leaves the id of an unchanged claim as it was.
 */
import type { ClaimRecord } from "../schemas/contract.ts";
import { classifySentence } from "./classify.ts";
import {
  findDatesFolded,
  frenchDay,
  NO_OBSERVATION_LABEL,
  observationAmong,
  type DateMention,
  type Observation,
} from "./dates.ts";
import { claimMarkerIn, notesOf, parseBlocks, parseInline, type Block, type InlineLink } from "./markdown.ts";
import { EXCLUDED_SECTIONS, MATERIAL_UNITS, NAVIGATION_PREFIXES } from "./markers.ts";
import {
  absoluteUrl,
  NO_SOURCE_DATE_LABEL,
  primarySourceOf,
  sourcePublicationOf,
  type PrimaryHost,
  type Reference,
  type ReferenceKind,
} from "./references.ts";
import { rfc3986Href } from "../schemas/primitives.ts";
import { splitSentences } from "./sentences.ts";
import { anyOf, bound, claimKey, fnv1a64, fold, WORD_CLASS, wordSource } from "./text.ts";

export interface ArticleInput {
  slug: string;
  title: string;
  /** Absolute URL of the article page. */
  url: string;
  /** Publication date YYYY-MM-DD (claimDate). */
  date: string;
  body: string;
  /** 1-based line of the body's first line in `file`. */
  bodyLine: number;
  file: string;
}

export interface ExtractOptions {
  /** Assembly instant, ISO UTC with Z: every reference's indexedAt. */
  now: string;
  /** Base URL of the site, for site-relative links. */
  baseUrl: string;
  /** Hosts of the primary sources (url, officialUrl) and of their datasets, with the source's slug. */
  primaryHosts: readonly PrimaryHost[];
}

export type ExtractWarningCode =
  | "marker-invalid"
  | "marker-unused"
  | "marker-duplicate"
  | "marker-over-limit"
  | "footnote-duplicate"
  | "footnote-undefined";

/** Something the publisher should fix in the article; extraction went on without it. */
export interface ExtractWarning {
  code: ExtractWarningCode;
  file: string;
  line: number;
  message: string;
}

export interface ArticleEvidence {
  /** At most three, document order, unreviewed. */
  claims: ClaimRecord[];
  /** Every distinct link of the body, excluded sections included (document order, one per href). */
  references: Reference[];
  /** Slugs of the primary sources linked anywhere in the body, sorted, unique. */
  primarySourceSlugs: string[];
  /** Distinct links over the whole body. */
  counts: { externalLinks: number; internalLinks: number; primarySources: number };
  warnings: ExtractWarning[];
}

export const MAX_CLAIMS = 3;
export const MAX_CLAIM_LENGTH = 400;

interface _Sentence {
  text: string;
  /** Offsets in the block's plain text. */
  start: number;
  end: number;
  links: InlineLink[];
  block: Block;
  excluded: boolean;
  order: number;
  marker: string | null;
  /**
   * Computed once, on first use. Present from the start, undefined until then: a member added to
   * an object later gives it a new shape, which V8 forgets when the last such object dies, and
   * with it the optimised code that read these sentences (compiled again at every assembly of a
   * long-lived process).
   */
  folded: string | undefined;
  dates: DateMention[] | undefined;
}

function _folded(s: _Sentence): string {
  return (s.folded ??= fold(s.text));
}

function _dates(s: _Sentence): DateMention[] {
  return (s.dates ??= findDatesFolded(_folded(s)));
}

const _EXCLUDED = anyOf(EXCLUDED_SECTIONS);
const _NAVIGATION = new RegExp(`^(?:${NAVIGATION_PREFIXES.map(wordSource).join("|")})`);
const _NUMBER = new RegExp(`(?<![${WORD_CLASS}])\\d+(?: \\d{3})*(?:[,.]\\d+)?`, "g");
const _UNIT_AFTER = new RegExp(`^\\s*(?:${MATERIAL_UNITS.map(wordSource).join("|")})`);
/**
 * The blocks whose text is read as prose, links included. A footnote is read for its links, never
 * for a claim: it is not a candidate block.
 */
export const PROSE_BLOCKS: ReadonlySet<string> = new Set([
  "paragraph",
  "listItem",
  "quote",
  "table",
  "heading",
  "footnote",
]);
const _CANDIDATE_BLOCKS: ReadonlySet<string> = new Set(["paragraph", "listItem"]);

/** The claims (at most three), references and counts of one French article. */
export function extractArticleEvidence(article: ArticleInput, options: ExtractOptions): ArticleEvidence {
  const warnings: ExtractWarning[] = [];
  const warn = (code: ExtractWarningCode, line: number, message: string) =>
    warnings.push({ code, file: article.file, line: article.bodyLine + line, message });
  const parsed = parseBlocks(article.body);
  for (const bad of parsed.badMarkers) {
    const fixed = bad.name
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
    warn(
      "marker-invalid",
      bad.line,
      `${claimMarkerIn(article.file, bad.name)} does not name a claim: use lower-case letters, digits and single hyphens${fixed ? `, as ${claimMarkerIn(article.file, fixed)}` : ""}`,
    );
  }

  for (const dup of parsed.duplicateFootnotes) {
    const first = parsed.footnotes.get(dup.label.toLowerCase());
    warn(
      "footnote-duplicate",
      dup.line,
      `footnote [^${dup.label}] is defined again; only its first definition${first ? ` (line ${article.bodyLine + first.line})` : ""} is read: remove this one or give it a label of its own`,
    );
  }
  const footnotes = parsed.footnotes.size > 0 ? notesOf(parsed) : undefined;
  const missing = new Set<string>();
  const sentences: _Sentence[] = [];
  let excludedDepth: number | null = null;
  // A note defined again is left out: only the first definition of a label is read.
  const firstNotes = new Set(parsed.footnotes.values());
  for (const block of parsed.blocks) {
    if (block.type === "footnote" && !firstNotes.has(block)) continue;
    if (!PROSE_BLOCKS.has(block.type)) {
      for (const m of block.markers)
        warn("marker-unused", m.line, `claim-id "${m.name}" stands before a ${block.type} block, which holds no claim`);
      continue;
    }
    const inline = parseInline(block.raw, parsed.definitions, { footnotes });
    for (const label of inline.missingNotes ?? []) {
      if (missing.has(label.toLowerCase())) continue;
      missing.add(label.toLowerCase());
      warn(
        "footnote-undefined",
        block.line,
        `footnote [^${label}] is called but never defined, so the call is dropped: add a line [^${label}]: … or remove the call`,
      );
    }
    if (block.type === "heading") {
      if (excludedDepth !== null && block.depth <= excludedDepth) excludedDepth = null;
      if (excludedDepth === null && _isExcludedHeading(inline.text)) excludedDepth = block.depth;
    }
    const excluded = excludedDepth !== null || !_CANDIDATE_BLOCKS.has(block.type);
    const spans =
      block.type === "paragraph" || block.type === "listItem" || block.type === "quote"
        ? splitSentences(inline.text)
        : [{ start: 0, end: inline.text.length }];
    const first = sentences.length;
    for (const span of spans) {
      sentences.push({
        text: inline.text.slice(span.start, span.end),
        start: span.start,
        end: span.end,
        links: inline.links.filter((l) => l.start < span.end && l.end > span.start),
        block,
        excluded,
        order: sentences.length,
        marker: null,
        folded: undefined,
        dates: undefined,
      });
    }
    const named = [
      ...block.markers.map((m) => ({ name: m.name, line: m.line, offset: 0 })),
      ...inline.markers.map((m) => ({ name: m.name, line: block.line, offset: m.offset })),
    ];
    for (const m of named) {
      const target = sentences.slice(first).find((s) => s.end > m.offset);
      if (!target || excluded || block.type === "heading") {
        warn(
          "marker-unused",
          m.line,
          `claim-id "${m.name}" names no sentence of a paragraph or list item outside the sources and see-also sections`,
        );
      } else if (target.marker !== null) {
        warn(
          "marker-duplicate",
          m.line,
          `claim-id "${m.name}" names the same sentence as "${target.marker}"; keep one`,
        );
      } else target.marker = m.name;
    }
  }

  const { references, byHref } = _references(sentences, article, options);
  const chosen = _choose(sentences, byHref, warn);
  const claims = _claims(chosen, sentences, byHref, article, options.now);
  const slugs = new Set<string>();
  let externalLinks = 0;
  let internalLinks = 0;
  for (const r of references) {
    if (r.kind === "internal") internalLinks++;
    else externalLinks++;
  }
  for (const info of byHref.values()) if (info.primarySlug !== null) slugs.add(info.primarySlug);
  const primarySourceSlugs = [...slugs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    claims,
    references,
    primarySourceSlugs,
    counts: { externalLinks, internalLinks, primarySources: primarySourceSlugs.length },
    warnings,
  };
}

function _isExcludedHeading(text: string): boolean {
  const m = _EXCLUDED.exec(fold(text).trim());
  return m !== null && m.index === 0;
}

interface _LinkInfo {
  href: string;
  host: string;
  kind: ReferenceKind;
  primarySlug: string | null;
}

function _resolve(
  link: InlineLink,
  article: ArticleInput,
  options: ExtractOptions,
  baseHost: string,
): _LinkInfo | null {
  const url = absoluteUrl(link.href, options.baseUrl, article.url);
  if (url === null) return null;
  // Published as `format: uri`: WHATWG keeps a stray `%` or `|` that RFC 3986 does not allow.
  const href = rfc3986Href(url);
  const host = url.hostname.toLowerCase();
  const primarySlug = host === baseHost ? null : primarySourceOf(host, options.primaryHosts);
  const kind: ReferenceKind =
    host === baseHost ? "internal" : primarySlug !== null ? "primary-source" : "secondary-source";
  return { href, host, kind, primarySlug };
}

function _reference(link: InlineLink, info: _LinkInfo, s: _Sentence, observation: Observation, now: string): Reference {
  const published = link.note
    ? sourcePublicationOf(link.label, link.note.text, link.note.end)
    : sourcePublicationOf(link.label, s.text, link.end - s.start);
  return {
    label: link.label === "" ? info.href : link.label,
    href: info.href,
    host: info.host,
    kind: info.kind,
    date: observation.date,
    dateLabel: observation.label,
    sourcePublicationDate: published ? published.date : null,
    sourcePublicationDateLabel: published ? `publication de la source : ${published.label}` : NO_SOURCE_DATE_LABEL,
    retrievedAt: null,
    indexedAt: now,
  };
}

/** The article's references (first mention of each href wins) and what each link resolved to. */
function _references(
  sentences: _Sentence[],
  article: ArticleInput,
  options: ExtractOptions,
): { references: Reference[]; byHref: Map<InlineLink, _LinkInfo> } {
  const references: Reference[] = [];
  const seen = new Set<string>();
  const byHref = new Map<InlineLink, _LinkInfo>();
  const baseHost = new URL(options.baseUrl).hostname.toLowerCase();
  for (const s of sentences) {
    if (s.links.length === 0) continue;
    let observation: Observation | null = null;
    for (const link of s.links) {
      if (byHref.has(link)) continue;
      const info = _resolve(link, article, options, baseHost);
      if (info === null) continue;
      byHref.set(link, info);
      if (seen.has(info.href)) continue;
      seen.add(info.href);
      observation ??= observationAmong(_dates(s));
      references.push(_reference(link, info, s, observation, options.now));
    }
  }
  return { references, byHref };
}

/**
 * The best scored sentence first, then the first in the article. A function of the module, as
 * byId in core/surfaces/common.ts says why.
 */
const byScore = (a: { score: number; s: _Sentence }, b: { score: number; s: _Sentence }) =>
  b.score - a.score || a.s.order - b.s.order;

function _score(s: _Sentence, byHref: Map<InlineLink, _LinkInfo>): number {
  if (
    s.excluded ||
    s.text.length < 40 ||
    spacesUnder(s.text, 5) ||
    (s.text.includes("?") && /\?\s*["»”)]*$/u.test(s.text))
  )
    return 0;
  const folded = _folded(s);
  if (_NAVIGATION.test(folded.replace(/^[^a-z]+/, ""))) return 0;
  let linkText = 0;
  let primary = false;
  let external = false;
  for (const l of s.links) {
    linkText += Math.min(l.end, s.end) - Math.max(l.start, s.start);
    const info = byHref.get(l);
    if (info?.kind === "primary-source") primary = true;
    if (info?.kind === "secondary-source") external = true;
  }
  if (linkText > 0.8 * s.text.length) return 0;
  const dates = _dates(s);
  let numberScore = 0;
  // The digits of a date are not a material number. Numbers come in order, so the dates starting
  // before each number's end are walked once, keeping the furthest end among them: testing every
  // date for every number was quadratic in a sentence of many of both.
  const byStart = dates.length > 1 ? [...dates].sort((a, b) => a.index - b.index) : dates;
  let next = 0;
  let dateEnd = -1;
  _NUMBER.lastIndex = 0;
  for (let m = _NUMBER.exec(folded); m !== null && numberScore < 6; m = _NUMBER.exec(folded)) {
    const at = m.index;
    for (; next < byStart.length && byStart[next]!.index < at + m[0].length; next++)
      dateEnd = Math.max(dateEnd, byStart[next]!.index + byStart[next]!.length);
    if (dateEnd > at) continue;
    const after = at + m[0].length;
    numberScore = Math.max(numberScore, _UNIT_AFTER.test(folded.slice(after, after + 16)) ? 6 : 2);
  }
  let dateScore = 0;
  for (const d of dates) {
    dateScore = Math.max(
      dateScore,
      d.precision === "day" || d.precision === "range" ? 4 : d.precision === "year" ? 1 : 2,
    );
  }
  return (primary ? 8 : 0) + (external && !primary ? 4 : 0) + numberScore + dateScore;
}

/** Whether `text` holds fewer than `n` spaces (fewer than n + 1 words), counted up to `n` only. */
function spacesUnder(text: string, n: number): boolean {
  let spaces = 0;
  for (let i = text.indexOf(" "); i >= 0 && spaces < n; i = text.indexOf(" ", i + 1)) spaces++;
  return spaces < n;
}

function _choose(
  sentences: _Sentence[],
  byHref: Map<InlineLink, _LinkInfo>,
  warn: (code: ExtractWarningCode, line: number, message: string) => void,
): _Sentence[] {
  const chosen: _Sentence[] = [];
  const names = new Set<string>();
  for (const s of sentences) {
    if (s.marker === null) continue;
    if (names.has(s.marker)) {
      warn(
        "marker-duplicate",
        s.block.line,
        `claim-id "${s.marker}" is used twice in the article; the first one names the claim`,
      );
      s.marker = null;
    } else if (chosen.length >= MAX_CLAIMS) {
      warn(
        "marker-over-limit",
        s.block.line,
        `claim-id "${s.marker}" is over the limit of ${MAX_CLAIMS} claims per article; it is ignored`,
      );
      names.add(s.marker);
      s.marker = null;
    } else {
      names.add(s.marker);
      chosen.push(s);
    }
  }
  const ranked = sentences
    .filter((s) => s.marker === null)
    .map((s) => ({ s, score: _score(s, byHref) }))
    .filter((c) => c.score > 0)
    .sort(byScore);
  for (const c of ranked) {
    if (chosen.length >= MAX_CLAIMS) break;
    chosen.push(c.s);
  }
  return chosen.sort((a, b) => a.order - b.order);
}

function _claims(
  chosen: _Sentence[],
  sentences: _Sentence[],
  byHref: Map<InlineLink, _LinkInfo>,
  article: ArticleInput,
  now: string,
): ClaimRecord[] {
  // A repeated sentence gets -2, -3… by its rank among the identical sentences of the whole article,
  // so the id does not depend on which other sentences were chosen.
  const occurrence = new Map<_Sentence, number>();
  const keys = new Map<_Sentence, string>();
  const keyOf = (s: _Sentence) => {
    let k = keys.get(s);
    if (k === undefined) keys.set(s, (k = claimKey(s.text)));
    return k;
  };
  for (const c of chosen) {
    // Spacing aside, an identical sentence has about the same length: only those are compared.
    const near = sentences.filter((s) => s.order <= c.order && Math.abs(s.text.length - c.text.length) <= 8);
    occurrence.set(c, near.filter((s) => keyOf(s) === keyOf(c)).length);
  }
  const used = new Set(chosen.filter((s) => s.marker !== null).map((s) => s.marker as string));
  const claimDateLabel = `publié le ${frenchDay(article.date)}`;
  return chosen.map((s) => {
    let localId = s.marker;
    if (localId === null) {
      const n = occurrence.get(s) ?? 1;
      const base = `c-${fnv1a64(claimKey(s.text)).slice(0, 10)}`;
      localId = n > 1 ? `${base}-${n}` : base;
      for (let k = 2; used.has(localId); k++) localId = `${base}-${n}-${k}`;
      used.add(localId);
    }
    const observation = observationAmong(_dates(s));
    const classification = classifySentence(s.text, "fr");
    const seen = new Set<string>();
    const references: Reference[] = [];
    for (const link of s.links) {
      const info = byHref.get(link);
      if (!info || seen.has(info.href)) continue;
      seen.add(info.href);
      references.push(_reference(link, info, s, observation, now));
    }
    const claim: ClaimRecord = {
      id: `${article.slug}#${localId}`,
      localId,
      articleSlug: article.slug,
      articleUrl: article.url,
      articleTitle: article.title,
      kind: classification.kind,
      claim: bound(s.text, MAX_CLAIM_LENGTH),
      date: observation.date,
      dateLabel: observation.date === null ? NO_OBSERVATION_LABEL : observation.label,
      claimDate: article.date,
      claimDateLabel,
      observationDate: observation.date,
      observationDateLabel: observation.label,
      observationStart: observation.start,
      observationEnd: observation.end,
      temporalPrecision: observation.precision,
      confidence: s.marker !== null ? "structurée" : "auto-backfill",
      reviewStatus: "unreviewed",
      reviewedAt: null,
      reviewedBy: null,
      reviewNote: null,
      reviewedProofDepth: null,
      evidenceLocator: null,
      reproductionArtifact: null,
      classifier: {
        method: "lexical-heuristic-v1",
        matchedRule: classification.matchedRule,
        caveat: classification.caveat,
      },
      references,
    };
    return claim;
  });
}
