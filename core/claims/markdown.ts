/**
 * A small Markdown reader for claim extraction: blocks (headings, paragraphs, list items, quotes,
 * tables, code, HTML) and, for the blocks with prose, plain text with the offsets of its links and
 * of its `<!-- claim-id: … -->` markers.
 *
 * Why not mdast-util-from-markdown: on this machine it parses a demo article in about 2.3 ms, so
 * 350 articles take 0.8 s, over the whole budget of the editorial assembly. This reader covers
 * what the corpus writes (CommonMark blocks, inline links, reference links, autolinks, emphasis,
 * code, entities, HTML comments, footnotes as Goldmark and kramdown write them) in a few hundredths
 * of that.
 */

export type BlockType = "heading" | "paragraph" | "listItem" | "quote" | "table" | "code" | "html" | "footnote";

export interface Block {
  type: BlockType;
  /** Raw Markdown of the block's inline content (lines joined with "\n"). */
  raw: string;
  /** 0-based line of the block in the body, and of its last line (a closing fence included). */
  line: number;
  end: number;
  /** Heading depth 1–6, 0 for other blocks. */
  depth: number;
  /** Claim-id marker(s) of HTML comments standing right before the block. */
  markers: { name: string; line: number }[];
}

export interface InlineLink {
  label: string;
  href: string;
  /** Offsets of the label in the plain text. */
  start: number;
  end: number;
  /**
   * For a link of a footnote, given on the sentence that calls the note: the note's plain text and
   * where the link ends in it (what follows the link there may date the source).
   */
  note?: { text: string; end: number };
}

export interface Inline {
  text: string;
  links: InlineLink[];
  /** Claim-id markers inside the text, at the plain-text offset of what follows them. */
  markers: { name: string; offset: number }[];
  /** Labels of footnote calls whose note is not defined, as written. */
  missingNotes?: string[];
}

export interface ParsedMarkdown {
  blocks: Block[];
  /** Reference definitions `[name]: url`, by lower-cased name. */
  definitions: Map<string, string>;
  /** Footnote definitions `[^label]: text`, by lower-cased label (the first of a label wins). */
  footnotes: Map<string, Block>;
  /** Malformed claim-id comments (bad name), with the name written and their line. */
  badMarkers: { name: string; line: number }[];
  /** Footnote definitions of a label defined before (they are ignored), with their line. */
  duplicateFootnotes: { label: string; line: number }[];
}

const _FENCE = /^ {0,3}(`{3,}|~{3,})/;
const _ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const _SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const _THEMATIC = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const _LIST = /^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const _QUOTE = /^ {0,3}>[ ]?(.*)$/;
const _TABLE = /^ {0,3}\|/;
const _HTML_OPEN = /^ {0,3}<(?:[a-zA-Z][a-zA-Z0-9-]*|\/[a-zA-Z])[\s/>]/;
const _FOOTNOTE = /^ {0,3}\[\^([^\][\s]+)\]:[ \t]*(.*)$/;
const _DEFINITION = /^ {0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]+)>?(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$/;
const _MARKER = /<!--\s*claim-id\s*:\s*(.*?)\s*-->/g;
export const MARKER_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * A claim marker as the publisher writes it in `file`: an MDX comment in an .mdx file (MDX takes
 * no HTML comment), an HTML comment in Markdown. Every message that shows a marker uses it.
 */
export function claimMarkerIn(file: string, name: string): string {
  return /\.mdx$/i.test(file) ? `{/* claim-id: ${name} */}` : `<!-- claim-id: ${name} -->`;
}

/** The blocks of a Markdown body, in document order. */
export function parseBlocks(body: string): ParsedMarkdown {
  const lines = body.split(/\r?\n/);
  const blocks: Block[] = [];
  const definitions = new Map<string, string>();
  const footnotes = new Map<string, Block>();
  const badMarkers: { name: string; line: number }[] = [];
  const duplicateFootnotes: { label: string; line: number }[] = [];
  let pending: { name: string; line: number }[] = [];
  let open: Block | null = null;

  const close = () => {
    open = null;
  };
  const extend = (b: Block, text: string, line: number) => {
    b.raw += `\n${text}`;
    b.end = line;
  };
  const push = (type: BlockType, raw: string, line: number, depth = 0): Block => {
    const b: Block = { type, raw, line, end: line, depth, markers: pending };
    pending = [];
    blocks.push(b);
    return b;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*$/.test(line)) {
      close();
      continue;
    }
    const fence = _FENCE.exec(line);
    if (fence) {
      const marker = fence[1];
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length; i++) {
        const closing = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`);
        if (closing.test(lines[i])) break;
        body.push(lines[i]);
      }
      push("code", body.join("\n"), start).end = Math.min(i, lines.length - 1);
      close();
      continue;
    }
    if (/^ {0,3}<!--/.test(line)) {
      const start = i;
      let text = line;
      // Each line is searched once: searching the growing text again was quadratic in its lines.
      for (let closed = line.includes("-->"); !closed && i + 1 < lines.length; ) {
        text += `\n${lines[++i]}`;
        closed = lines[i]!.includes("-->");
      }
      const rest = text.slice(text.indexOf("-->") + 3);
      for (const m of text.matchAll(_MARKER)) {
        if (MARKER_NAME.test(m[1])) pending.push({ name: m[1], line: start });
        else badMarkers.push({ name: m[1], line: start });
      }
      close();
      // Text after the comment on its closing line starts a paragraph that the marker names.
      if (rest.trim() !== "") open = push("paragraph", rest.trim(), i);
      continue;
    }
    const atx = _ATX.exec(line);
    if (atx) {
      push("heading", atx[2] ?? "", i, atx[1].length);
      close();
      continue;
    }
    const current = open as Block | null;
    if (current && current.type === "paragraph") {
      const setext = _SETEXT.exec(line);
      if (setext) {
        current.type = "heading";
        current.depth = setext[1][0] === "=" ? 1 : 2;
        close();
        continue;
      }
    }
    if (_THEMATIC.test(line)) {
      close();
      continue;
    }
    // A footnote definition is a note, never prose of the article: it starts even inside a
    // paragraph, and its text goes on over the lines that follow it and, after a blank line,
    // over the lines indented under it.
    const note = _FOOTNOTE.exec(line);
    if (note) {
      const label = note[1].toLowerCase();
      open = push("footnote", note[2].trim(), i);
      if (!footnotes.has(label)) footnotes.set(label, open);
      else duplicateFootnotes.push({ label: note[1], line: i });
      continue;
    }
    const def = _DEFINITION.exec(line);
    if (def && !(current && current.type === "paragraph")) {
      definitions.set(def[1].trim().toLowerCase(), def[2]);
      continue;
    }
    const quote = _QUOTE.exec(line);
    if (quote) {
      if (current && current.type === "quote" && quote[1].trim() !== "") extend(current, quote[1], i);
      else if (quote[1].trim() !== "") open = push("quote", quote[1], i);
      else close();
      continue;
    }
    const item = _LIST.exec(line);
    if (item && (item[3] ?? "").trim() !== "") {
      open = push("listItem", item[3], i);
      continue;
    }
    if (_TABLE.test(line)) {
      if (current && current.type === "table") extend(current, line, i);
      else open = push("table", line, i);
      continue;
    }
    const last = blocks[blocks.length - 1];
    if (!current && last?.type === "footnote" && /^(?: {4}|\t)/.test(line)) {
      extend(last, line.trim(), i);
      open = last;
      continue;
    }
    if (!current && /^(?: {4}|\t)/.test(line) && blocks.length > 0 && last.type !== "listItem") {
      const start = i;
      const body = [line];
      while (i + 1 < lines.length && (/^(?: {4}|\t)/.test(lines[i + 1]) || /^\s*$/.test(lines[i + 1])))
        body.push(lines[++i]);
      push("code", body.join("\n"), start).end = i;
      continue;
    }
    if (!current && _HTML_OPEN.test(line)) {
      open = push("html", line, i);
      continue;
    }
    if (current) extend(current, line, i);
    else open = push("paragraph", line.trim(), i);
  }
  return { blocks, definitions, footnotes, badMarkers, duplicateFootnotes };
}

/**
 * Where a Markdown body holds code, as `[start, end)` offsets in it: its code blocks (fences
 * included) and the code spans of its other lines. What rewrites prose (footnote calls in the text
 * corpora) leaves these as written.
 */
export function codeRanges(body: string): [number, number][] {
  const lines = body.split("\n");
  const starts: number[] = [];
  for (let i = 0, at = 0; i < lines.length; at += lines[i]!.length + 1, i++) starts.push(at);
  const lineEnd = (i: number) => starts[i]! + lines[i]!.length;
  const inCode = new Uint8Array(lines.length);
  const ranges: [number, number][] = [];
  const paragraph = (from: number, to: number) => {
    // Code spans pair within a run of lines with no blank line or code block between them.
    const text = body.slice(starts[from]!, lineEnd(to));
    const ends = _codeEnds(text);
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === "`") {
        let j = i;
        while (text[j] === "`") j++;
        if (ends[i]! > 0) {
          ranges.push([starts[from]! + i, starts[from]! + ends[i]!]);
          j = ends[i]!;
        }
        i = j - 1;
      }
    }
  };
  for (const b of parseBlocks(body).blocks) if (b.type === "code") inCode.fill(1, b.line, b.end + 1);
  let from = -1;
  for (let i = 0; i <= lines.length; i++) {
    const prose = i < lines.length && !inCode[i] && !/^\s*$/.test(lines[i]!);
    if (prose && from < 0) from = i;
    if (!prose && from >= 0) {
      if (body.slice(starts[from]!, lineEnd(i - 1)).includes("`")) paragraph(from, i - 1);
      from = -1;
    }
    if (i < lines.length && inCode[i] && (i === 0 || !inCode[i - 1])) {
      let j = i;
      while (j + 1 < lines.length && inCode[j + 1]) j++;
      ranges.push([starts[i]!, lineEnd(j)]);
    }
  }
  return ranges;
}

/** What a footnote gives the sentence that calls it: its plain text and its links. */
export interface Note {
  text: string;
  links: InlineLink[];
}

/** The notes of a parsed body, by lower-cased label, for `parseInline`'s `footnotes`. */
export function notesOf(parsed: Pick<ParsedMarkdown, "footnotes" | "definitions">): Map<string, Note> {
  const notes = new Map<string, Note>();
  for (const [label, b] of parsed.footnotes) {
    const { text, links } = parseInline(b.raw, parsed.definitions);
    notes.set(label, { text, links });
  }
  return notes;
}

const _ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

export function _entity(name: string): string | null {
  if (name[0] === "#") {
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    // A character reference may not bring in what the input files may not hold: control
    // characters, bidirectional overrides, lone surrogates. Those are kept as written.
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff && !_UNWELCOME.test(String.fromCodePoint(code))
      ? String.fromCodePoint(code)
      : null;
  }
  return _ENTITIES[name] ?? null;
}

const _UNWELCOME = /^[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ud800-\udfff]$/;
const _PUNCT = /[!-/:-@[-`{-~]/;
const _BARE_URL = /^https?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]]/;

/**
 * Plain text of inline Markdown, with the links it holds and its claim-id markers. A footnote
 * reference (`[^label]`) leaves no text; the links of its note (`footnotes`) are given to the
 * character before it, so that they are references of the sentence that calls the note.
 */
export function parseInline(
  raw: string,
  definitions: ReadonlyMap<string, string>,
  options: { footnotes?: ReadonlyMap<string, Note> } = {},
): Inline {
  const out: Inline = { text: "", links: [], markers: [] };
  _inline(raw, { definitions, footnotes: options.footnotes ?? _NO_NOTES }, out, true);
  // Trim, keeping offsets right.
  const lead = out.text.length - out.text.trimStart().length;
  out.text = out.text.trim();
  if (lead > 0) {
    for (const l of out.links) {
      l.start = Math.max(0, l.start - lead);
      l.end = Math.max(0, l.end - lead);
    }
    for (const m of out.markers) m.offset = Math.max(0, m.offset - lead);
  }
  for (const l of out.links) l.end = Math.min(l.end, out.text.length);
  return out;
}

/**
 * Whether an inline text being built ends with a space (or is empty), kept beside it: asking the
 * text itself (`endsWith`) flattens a string built by many appends, once per append, which made
 * a paragraph of 240 KB of short emphasis or links quadratic (3 s, measured).
 */
const _atSpace = new WeakMap<Inline, boolean>();

/** Appends `s` with runs of spaces and line breaks as one space (non-breaking spaces are kept). */
function _append(out: Inline, s: string): void {
  const collapsed = /[\t\r\n\f\v]| {2}/.test(s) ? s.replace(/[ \t\r\n\f\v]+/g, " ") : s;
  const atSpace = _atSpace.get(out) ?? out.text.length === 0;
  const add = collapsed.startsWith(" ") && atSpace ? collapsed.slice(1) : collapsed;
  if (add === "") return;
  out.text += add;
  _atSpace.set(out, add.endsWith(" "));
}

/**
 * Where each `[` of `s` closes and where each backtick run's code span ends, found in one pass.
 * Looking forward from every `[` and every backtick run instead cost O(n²) on a text of 60 KB of
 * `[` (35 s, measured); a table built once per text keeps every lookup O(1), so reading is linear.
 */
interface Spans {
  /** For the index of a `[`: the index of its `]`, or -1. */
  close: Int32Array;
  /** For the index where a backtick run starts: the index after the run that closes its code span, or -1. */
  codeEnd: Int32Array;
  /** For the index of a `(`: the index of the `)` that closes it, or -1 (a destination cannot end there). */
  parenClose: Int32Array;
  /** For the index of a `[`: 1 when no other bracket stands before its `]` (it may name a reference). */
  simple: Uint8Array;
}

let spansOf: { text: string; spans: Spans } | null = null;

/**
 * For the index where each backtick run of `s` starts: the index after the run that closes its code
 * span (the next run of the same length), or -1.
 */
function _codeEnds(s: string): Int32Array {
  const codeEnd = new Int32Array(s.length).fill(-1);
  const runs: { start: number; len: number }[] = [];
  for (let i = s.indexOf("`"); i >= 0; i = s.indexOf("`", i)) {
    let j = i;
    while (s.charCodeAt(j) === BACKTICK) j++;
    runs.push({ start: i, len: j - i });
    i = j;
  }
  const nextOfLength = new Map<number, number>();
  for (let k = runs.length - 1; k >= 0; k--) {
    const { start, len } = runs[k]!;
    const next = nextOfLength.get(len);
    if (next !== undefined) codeEnd[start] = next + len;
    nextOfLength.set(len, start);
  }
  return codeEnd;
}

// Compared as UTF-16 units: reading `s[i]` makes a string of each character outside Latin-1.
const BACKSLASH = 0x5c;
const BACKTICK = 0x60;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function spans(s: string): Spans {
  if (spansOf?.text === s) return spansOf.spans;
  const close = new Int32Array(s.length).fill(-1);
  const codeEnd = _codeEnds(s);
  const parenClose = new Int32Array(s.length).fill(-1);
  const parens: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === OPEN_PAREN) parens.push(i);
    else if (c === CLOSE_PAREN && parens.length > 0) parenClose[parens.pop()!] = i;
  }
  const simple = new Uint8Array(s.length);
  const stack: number[] = [];
  let lastBracket = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === BACKTICK) {
      let j = i;
      while (s.charCodeAt(j) === BACKTICK) j++;
      i = (codeEnd[i]! > 0 ? codeEnd[i]! : j) - 1;
    } else if (c === OPEN_BRACKET) {
      stack.push(i);
      lastBracket = i;
    } else if (c === CLOSE_BRACKET) {
      if (stack.length > 0) {
        const opening = stack.pop()!;
        close[opening] = i;
        if (lastBracket === opening) simple[opening] = 1;
      }
      lastBracket = i;
    }
  }
  const result = { close, codeEnd, parenClose, simple };
  spansOf = { text: s, spans: result };
  return result;
}

/** A link destination or title longer than this is not one (it bounds the scan, keeping reading linear). */
const MAX_DESTINATION = 4096;

/** `(dest "title")` starting at `open`: the destination and the index after `)`, or null. */
function _destination(s: string, open: number, sp: Spans, end: number): { href: string; next: number } | null {
  if (s[open] !== "(") return null;
  let i = open + 1;
  while (s[i] === " " || s[i] === "\n") i++;
  let href = "";
  // Without a `)` that closes this `(`, there is no destination: said at once, not after a scan.
  const closing = sp.parenClose[open]!;
  if (closing < 0 || closing >= end) return null;
  const limit = Math.min(s.length, open + MAX_DESTINATION, closing + 1);
  if (s[i] === "<") {
    const end = s.indexOf(">", i);
    if (end < 0 || end > limit) return null;
    href = s.slice(i + 1, end);
    i = end + 1;
  } else {
    let depth = 0;
    for (; i < limit; i++) {
      const c = s[i];
      if (c === "\\" && i + 1 < s.length) {
        href += s[++i];
        continue;
      }
      if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) break;
        depth--;
      } else if (/\s/.test(c)) break;
      href += c;
    }
  }
  while (s[i] === " " || s[i] === "\n") i++;
  if (s[i] === '"' || s[i] === "'" || s[i] === "(") {
    const close = s[i] === "(" ? ")" : s[i];
    const end = s.indexOf(close, i + 1);
    if (end < 0 || end > limit) return null;
    i = end + 1;
    while (s[i] === " " || s[i] === "\n") i++;
  }
  if (i >= limit || s[i] !== ")") return null;
  return { href, next: i + 1 };
}

const _NO_NOTES: ReadonlyMap<string, Note> = new Map();
/**
 * The links of a note given to each call of it: a note called from every paragraph would
 * otherwise cost calls × links (quadratic in the body). The note's own block still gives all of them.
 */
export const NOTE_LINKS_PER_CALL = 8;
// A label holds no bracket or space, so a call is found without reading past the next bracket.
const _NOTE_CALL = /\[\^([^\][\s]+)\]/y;

interface _Refs {
  definitions: ReadonlyMap<string, string>;
  footnotes: ReadonlyMap<string, Note>;
}

/**
 * A link's label being read: its text goes to `text` (appended to the text around it when the
 * label closes), and it ends at `close`.
 */
interface _Label {
  text: Inline;
  /** Index of the first character of the label and of its closing `]`. */
  begin: number;
  close: number;
  /** Where reading goes on after the link, its destination and whether it is an image. */
  next: number;
  href: string;
  image: boolean;
  /** Offset in the whole text where the label's text starts. */
  base: number;
}

/**
 * Reads `s` into `out`. Labels of links are read in place with a stack of the labels open, not by
 * reading each label again as a text of its own: that recursed once per nested bracket (2,000
 * nested labels overflowed the stack) and built a table per label (quadratic in the depth).
 */
function _inline(s: string, refs: _Refs, root: Inline, allowLinksAtTop: boolean): void {
  const defs = refs.definitions;
  // Looked up once per text: finding the cached table compares the texts, which costs their
  // length when an equal text comes again as another string (quadratic if done at every piece).
  const sp = spans(s);
  const labels: _Label[] = [];
  let out = root;
  let base = 0;
  let begin = 0;
  let limit = s.length;
  let allowLinks = allowLinksAtTop;
  let nextHttp = -1;
  // The next "-->" at or after `commentFrom` (-1 for none), kept so that many unclosed comments do
  // not each search to the end of the text.
  let commentFrom = -1;
  let commentEnd = -1;
  const open = (label: _Label) => {
    labels.push(label);
    out = label.text;
    base = label.base;
    begin = label.begin;
    limit = label.close;
    allowLinks = false;
  };
  let i = 0;
  for (;;) {
    if (i >= limit) {
      const label = labels.pop();
      if (!label) break;
      const parent = labels.length > 0 ? labels[labels.length - 1]!.text : root;
      const start = parent.text.length;
      parent.text += label.text.text;
      _atSpace.set(parent, _atSpace.get(label.text) ?? parent.text.length === 0);
      out = parent;
      const outer = labels[labels.length - 1];
      base = outer ? outer.base : 0;
      begin = outer ? outer.begin : 0;
      limit = outer ? outer.close : s.length;
      allowLinks = outer ? false : allowLinksAtTop;
      if (allowLinks && !label.image)
        root.links.push({ label: label.text.text.trim(), href: label.href, start, end: root.text.length });
      i = label.next;
      continue;
    }
    const c = s[i];
    if (c === "\\" && i + 1 < limit && _PUNCT.test(s[i + 1])) {
      _append(out, s[i + 1]);
      i += 2;
      continue;
    }
    if (c === "\\" && i + 1 < limit && s[i + 1] === "\n") {
      i += 1;
      continue;
    }
    if (c === "`") {
      let j = i;
      while (j < limit && s[j] === "`") j++;
      const run = s.slice(i, j);
      const after = sp.codeEnd[i]!;
      if (after > 0 && after <= limit) {
        const end = after - run.length;
        let code = s.slice(i + run.length, end).replace(/\n/g, " ");
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ")) code = code.slice(1, -1);
        _append(out, code);
        i = after;
      } else {
        _append(out, run);
        i += run.length;
      }
      continue;
    }
    if (c === "<") {
      if (s.startsWith("<!--", i) && i + 4 <= limit) {
        if (commentFrom < 0 || i + 4 < commentFrom || (commentEnd >= 0 && commentEnd < i + 4)) {
          commentFrom = i + 4;
          commentEnd = s.indexOf("-->", i + 4);
        }
        const end = commentEnd;
        const stop = end < 0 || end + 3 > limit ? limit : end + 3;
        const m = /^<!--\s*claim-id\s*:\s*(.*?)\s*-->$/.exec(s.slice(i, stop));
        if (m && MARKER_NAME.test(m[1])) root.markers.push({ name: m[1], offset: base + out.text.length });
        i = stop;
        continue;
      }
      const rest = s.slice(i, limit);
      const auto = /^<((?:https?|mailto):[^\s<>]+)>/i.exec(rest);
      if (auto) {
        const start = out.text.length;
        _append(out, auto[1]);
        if (allowLinks) out.links.push({ label: auto[1], href: auto[1], start, end: out.text.length });
        i += auto[0].length;
        continue;
      }
      const tag = /^<\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?\/?>/.exec(rest);
      if (tag) {
        if (/^<br\s*\/?>$/i.test(tag[0])) _append(out, " ");
        i += tag[0].length;
        continue;
      }
    }
    if (c === "&") {
      const m = /^&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/.exec(s.slice(i, limit));
      const decoded = m ? _entity(m[1]) : null;
      if (m && decoded !== null) {
        _append(out, decoded);
        i += m[0].length;
        continue;
      }
    }
    if (c === "[" && s[i + 1] === "^") {
      _NOTE_CALL.lastIndex = i;
      const call = _NOTE_CALL.exec(s);
      if (call && i + call[0].length <= limit && s[i + call[0].length] !== "(") {
        const close = i + call[0].length - 1;
        const note = refs.footnotes.get(call[1].toLowerCase());
        if (!note) (root.missingNotes ??= []).push(call[1]);
        if (note && allowLinks) {
          const end = Math.max(out.text.length, 1);
          for (const l of note.links.slice(0, NOTE_LINKS_PER_CALL))
            out.links.push({
              label: l.label,
              href: l.href,
              start: end - 1,
              end,
              note: { text: note.text, end: l.end },
            });
        }
        i = close + 1;
        continue;
      }
    }
    const image = c === "!" && s[i + 1] === "[";
    if (c === "[" || image) {
      const opening = image ? i + 1 : i;
      const close = sp.close[opening]!;
      if (close > 0 && close < limit) {
        let href: string | null = null;
        let next = close + 1;
        const dest = _destination(s, close + 1, sp, limit);
        if (dest) {
          href = dest.href;
          next = dest.next;
        } else {
          // A reference label holds no bracket (CommonMark) and is at most 999 characters long:
          // normalising every label of nested brackets instead cost their depth times their length.
          const after = s[close + 1] === "[" ? sp.close[close + 1]! : -1;
          const ref = after > 0 && after < limit && sp.simple[close + 1] ? s.slice(close + 2, after) : null;
          const name =
            ref !== null && ref.trim() !== "" ? ref : sp.simple[opening] ? s.slice(opening + 1, close) : null;
          const found = name !== null && name.length <= 999 && defs.size > 0 ? defs.get(_refKey(name)) : undefined;
          if (found !== undefined) {
            href = found;
            next = ref !== null ? after + 1 : close + 1;
          }
        }
        if (href !== null) {
          // The label is read into a text of its own and then appended, so that taking its text
          // does not flatten everything read before it (once per link: quadratic on a flood of links).
          const text: Inline = { text: "", links: [], markers: [] };
          _atSpace.set(text, _atSpace.get(out) ?? out.text.length === 0);
          open({ text, begin: opening + 1, close, next, href, image, base: base + out.text.length });
          i = opening + 1;
          continue;
        }
      }
    }
    if (c === "*" || c === "~" || c === "_") {
      let end = i + 1;
      while (end < limit && s[end] === c) end++;
      const run = s.slice(i, end);
      const before = i > begin ? s[i - 1] : " ";
      const after = end < limit ? s[end] : " ";
      const word = /[\p{L}\p{N}]/u;
      // Intraword underscores (snake_case) and lone spaced asterisks ("2 * 3") are text.
      const literal = c === "_" ? word.test(before) && word.test(after) : /\s/.test(before) && /\s/.test(after);
      if (literal) _append(out, run);
      i += run.length;
      continue;
    }
    // A URL right after `](` opens a link destination that did not parse (a space in it, as
    // `[x](https://example.org/a b)`): CommonMark reads all of it as text, and the URL cut at the
    // space is not the address the writer gave, so it is no bare link either.
    const inDestination = i >= 2 && s[i - 1] === "(" && s[i - 2] === "]";
    if (allowLinks && (c === "h" || c === "H") && (i === 0 || !/[\p{L}\p{N}]/u.test(s[i - 1])) && !inDestination) {
      const bare = _BARE_URL.exec(s.slice(i));
      if (bare) {
        const start = out.text.length;
        _append(out, bare[0]);
        out.links.push({ label: bare[0], href: bare[0], start, end: out.text.length });
        i += bare[0].length;
        continue;
      }
    }
    // A run of ordinary text up to the next character that may open something, or a bare URL.
    // The run is read only up to the next "http": reading to the end of the text and keeping the
    // part before the URL read the rest of the text again for each URL (quadratic on a list of them).
    if (allowLinks && nextHttp <= i) {
      nextHttp = s.indexOf("http", i + 1);
      if (nextHttp < 0) nextHttp = s.length;
    }
    const stop = allowLinks ? Math.min(limit, nextHttp) : limit;
    _PLAIN.lastIndex = i;
    const plain = _PLAIN.exec(stop < s.length ? s.slice(0, stop) : s);
    let chunk = plain ? plain[0] : c;
    const url = allowLinks ? _bareUrlAt(chunk) : -1;
    if (url > 0) chunk = chunk.slice(0, url);
    else if (url === 0) chunk = chunk.slice(0, 1);
    _append(out, chunk);
    i += chunk.length;
  }
}

/** A reference's name as definitions are keyed. */
function _refKey(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, " ");
}

const _PLAIN = /[^\\`<&![*~_]+/y;

/** Where the first bare URL of `chunk` starts (not inside a word), or -1. */
function _bareUrlAt(chunk: string): number {
  for (let i = chunk.indexOf("http"); i >= 0; i = chunk.indexOf("http", i + 1)) {
    if (
      (chunk.startsWith("https://", i) || chunk.startsWith("http://", i)) &&
      (i === 0 || !/[\p{L}\p{N}]/u.test(chunk[i - 1]))
    )
      return i;
  }
  return -1;
}
