/**
 * MDX and inline HTML reduced to the text a reader would read, before anything is published from a
 * document's body (the text corpora, the search index, the claims). In MDX, `import`/`export`
 * statements and `{…}` expressions go wherever they stand, comments `{/* … *\/}` with them; a
 * component keeps its text props (title, caption, alt, source, label) and its children, and one that
 * carries no text is dropped and reported; a fragment `<>…</>` keeps its children. In Markdown and
 * MDX alike `<style>` and `<script>` go whole (left open, they hold the rest of the document, as in
 * an HTML parser, and are reported), and so do `<template>` and `<noscript>`; an `<svg>` gives only its `<title>`; an `<img>` its `alt`; any
 * other element its content. Code spans, fenced code and backslash-escaped characters are text.
 * Control characters other than tab and line breaks, and bidirectional overrides, become spaces. HTML comments stay: they carry
 * the claim markers. Line breaks are kept where markup is removed, so that every line number the
 * claims engine reports is still the file's.
 *
 * Hand-written, not an MDX or HTML parser: those build a syntax tree and a JavaScript program for
 * every file (the MDX compiler alone is dozens of modules), where this needs one linear pass that
 * never fails on a file a publisher's own build accepts. Every scan is bounded or consumes what it
 * reads: a tag's attributes are read for at most MAX_TAG characters, the search for an element's
 * end is memoised, code spans and fences are paired from one list of their delimiters, and an
 * expression either closes (and the scan goes on after it) or holds the rest of the document. A
 * flood of `<`, `{`, backticks, fences or `import` lines costs no more than plain text.
 */

import { withoutUnsafeLinks } from "./links.ts";
import { type TemplateSyntax, withoutTemplates } from "./templates.ts";

export interface DroppedMarkup {
  /** The line in the body (1-based; the caller adds the frontmatter's lines). */
  line: number;
  component: string;
  /** Why it was dropped when it is not a component without text: an element or expression never closed. */
  reason?: string;
  /** Set when what was dropped is a link's address in this scheme (`javascript:`): the link keeps its text. */
  scheme?: string;
  /** Set when what was dropped is template syntax the site's generator fills in (`{{ site.title }}`). */
  template?: boolean;
  /** Set when MDX refuses to compile the file there (the site's own build fails on it): `reason` says why. */
  mdx?: boolean;
}

/** The JSX elements of an MDX body still open, across its fenced code: each must close, as MDX demands. */
interface JsxState {
  open: { name: string; line: number }[];
  /** How many of each name are open: a closing tag that closes nothing is known without a search. */
  count: Map<string, number>;
  /** The lines before the part being read. */
  base: number;
}

/** Props whose value is text a reader sees: kept where the component stood. */
const TEXT_PROPS = ["title", "caption", "alt", "source", "label"];
/** Elements removed with all they hold. */
const REMOVED = new Set(["style", "script", "template", "noscript"]);
/** Elements whose content is raw text to their end tag: left open, they hold the rest of the document. */
const RAW_TEXT = new Set(["style", "script"]);
const MAX_TAG = 4_000;
/** A claim marker written as an MDX comment: `{/* claim-id: name *\/}`, on one line. */
const CLAIM_MARKER_COMMENT = /^\{\s*\/\*\s*claim-id\s*:\s*([^*\n]*?)\s*\*\/\s*\}$/;
/**
 * C0 controls but tab, line feed and carriage return; DEL; C1 controls; and the bidirectional
 * embeddings, overrides and isolates, which would show published text in another order than it
 * is read (a claim, a figure, a command).
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Zero-width spaces, joiners and byte-order marks: invisible, they would split a number or a word
 * into another claim text, claim id or search term than the one a reader sees. Dropped, never a
 * space: a line keeps its breaks, so line numbers stay the file's.
 */
const ZERO_WIDTH = /[\u200b-\u200d\ufeff]/g;
// A footnote label as written (no bracket, no space), where control characters may stand too. The
// two kinds of character are disjoint and a label stops at the next bracket, so matching is linear.
const _NOTE_LABEL = /\[\^(?:[^\][\s]|[\v\f])+\]/g;
export const NEVER_CLOSED =
  "is never closed: everything after it is read as its content and left out of every published text";

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attrs: Map<string, string | null>;
  end: number;
}

/** Reads the tag starting at `i` (text[i] is `<`), or null when it is not one. */
function readTag(text: string, i: number, braces: (i: number) => number): Tag | null {
  let j = i + 1;
  const closing = text[j] === "/";
  if (closing) j++;
  const nameStart = j;
  if (!/[A-Za-z]/.test(text[j] ?? "")) return null;
  while (j < text.length && /[A-Za-z0-9.:_-]/.test(text[j]!)) j++;
  const name = text.slice(nameStart, j);
  const next = text[j];
  if (next !== ">" && next !== "/" && !/\s/.test(next ?? "")) return null;
  const attrs = new Map<string, string | null>();
  const limit = Math.min(text.length, i + MAX_TAG);
  while (j < limit) {
    while (j < limit && /\s/.test(text[j]!)) j++;
    if (text[j] === ">") return { name, closing, selfClosing: false, attrs, end: j + 1 };
    if (text[j] === "/" && text[j + 1] === ">") return { name, closing, selfClosing: true, attrs, end: j + 2 };
    if (text[j] === "{") {
      // A spread or expression attribute: {...props}.
      const close = braces(j);
      if (close < 0 || close >= limit) return null;
      j = close + 1;
      continue;
    }
    // A name or an unquoted value never holds `<`: where one stands, this was no tag.
    const attrStart = j;
    while (j < limit && /[^\s=<>/{}"']/.test(text[j]!)) j++;
    if (j === attrStart) return null;
    const attr = text.slice(attrStart, j);
    if (text[j] !== "=") {
      attrs.set(attr, null);
      continue;
    }
    j++;
    const quote = text[j];
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, j + 1);
      if (close < 0 || close >= limit) return null;
      attrs.set(attr, text.slice(j + 1, close));
      j = close + 1;
    } else if (quote === "{") {
      const close = braces(j);
      if (close < 0 || close >= limit) return null;
      const expression = text.slice(j + 1, close).trim();
      // A string literal in braces is text; any other expression is code.
      const literal = /^(["'`])([^"'`]*)\1$/.exec(expression);
      attrs.set(attr, literal ? literal[2]! : null);
      j = close + 1;
    } else {
      const valueStart = j;
      while (j < limit && /[^\s<>]/.test(text[j]!)) j++;
      attrs.set(attr, text.slice(valueStart, j));
    }
  }
  return null;
}

const BACKSLASH = 92;
const NEWLINE = 10;
const BACKTICK = 96;

/**
 * Where each `{` of one text closes, found once: braces are counted as MDX counts them, except
 * inside a string that closes on its line (a template literal: anywhere), inside a block comment
 * that closes, and after a backslash. A quote or comment that does not close is an ordinary
 * character (an apostrophe in JSX text), and is not searched for again. Every brace met on the way
 * is remembered with its match, and a later search jumps over what is known, so a flood of `{`
 * (closed or not) is read once.
 */
function braceMatcher(text: string): (i: number) => number {
  // A `{`'s closing `}`, or -1 when it never closes.
  const memo = new Map<number, number>();
  return (i: number): number => {
    const known = memo.get(i);
    if (known !== undefined) return known;
    const open: number[] = [];
    // Where a failed search for each kind of closer ended: an opener before it fails too.
    let noQuote = -1;
    let noApostrophe = -1;
    let noTemplate = -1;
    let noComment = false;
    for (let j = i; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 123) {
        const inner = j === i ? undefined : memo.get(j);
        // A brace inside that never closes leaves every brace around it open.
        if (inner !== undefined && inner < 0) break;
        if (inner !== undefined) j = inner;
        else open.push(j);
      } else if (c === 125) {
        memo.set(open.pop()!, j);
        if (open.length === 0) return j;
      } else if (c === BACKSLASH) j++;
      else if (c === 34 || c === 39 || c === BACKTICK) {
        if (j < (c === 34 ? noQuote : c === 39 ? noApostrophe : noTemplate)) continue;
        let k = j + 1;
        while (k < text.length) {
          const d = text.charCodeAt(k);
          if (d === BACKSLASH) k += 2;
          else if (d === c || (d === NEWLINE && c !== BACKTICK)) break;
          else k++;
        }
        if (text.charCodeAt(k) === c) j = k;
        else if (c === 34) noQuote = k;
        else if (c === 39) noApostrophe = k;
        else noTemplate = k;
      } else if (c === 47 && text.charCodeAt(j + 1) === 42 && !noComment) {
        const end = text.indexOf("*/", j + 2);
        if (end >= 0) j = end + 1;
        else noComment = true;
      }
    }
    for (const o of open) memo.set(o, -1);
    return -1;
  };
}

const newlines = (s: string) => s.replace(/[^\n]/g, "");
/** Whether an expression `{…}` holds only comments and spaces: one pass, no copy. */
function commentsOnly(expression: string): boolean {
  let i = 1;
  const end = expression.length - 1;
  while (i < end) {
    const c = expression[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") i++;
    else if (c === "/" && expression[i + 1] === "*") {
      const close = expression.indexOf("*/", i + 2);
      if (close < 0 || close >= end) return false;
      i = close + 2;
    } else return false;
  }
  return true;
}

/** An expression as lint names it: on one line, cut short. */
const shortExpression = (s: string) => {
  const one = s.replace(/\s+/g, " ");
  return one.length > 60 ? `${one.slice(0, 58)}…}` : one;
};

/** Line numbers of positions met in increasing order, counted once through the text. */
function lineCounter(text: string) {
  let line = 1;
  let at = 0;
  return (i: number) => {
    for (let k = text.indexOf("\n", at); k >= 0 && k < i; k = text.indexOf("\n", k + 1)) line++;
    at = Math.max(at, i);
    return line;
  };
}

/** The body with its markup reduced to readable text, and what was dropped. */
export function readableBody(
  body: string,
  options: { mdx: boolean; templates?: TemplateSyntax },
): { text: string; dropped: DroppedMarkup[] } {
  const dropped: DroppedMarkup[] = [];
  // Control characters become spaces: same length, so that offsets and line numbers stay the file's.
  // In a footnote's label they become "_" instead: a space would break the label, leaving its calls
  // and its definition as raw markup in every published text.
  // Zero-width characters go: line numbers stay, offsets in a line are the text's, not the file's.
  // Most bodies hold none: one scan finds that, and the text is not scanned again for them.
  const cleaned = (
    body.search(CONTROL) >= 0 ? body.replace(_NOTE_LABEL, (m) => m.replace(CONTROL, "_")).replace(CONTROL, " ") : body
  ).replace(ZERO_WIDTH, "");
  // The generator evaluates its template syntax before it reads the Markdown, code included.
  let clean = cleaned;
  if (options.templates) {
    const evaluated = withoutTemplates(cleaned, options.templates);
    clean = evaluated.text;
    for (const d of evaluated.dropped) dropped.push({ line: d.line, component: d.tag, template: true });
  }
  const lineOf = lineCounter(clean);
  const out: string[] = [];
  let swallowed = false;
  const jsx: JsxState | undefined = options.mdx ? { open: [], count: new Map(), base: 0 } : undefined;
  for (const part of fencedParts(clean)) {
    const text = clean.slice(part.start, part.end);
    // Fenced code is shown as written: markup inside it is the subject of the text.
    if (swallowed) out.push(newlines(text));
    else if (part.code) out.push(text);
    else {
      const first = lineOf(part.start);
      const prose = options.mdx ? withoutModuleStatements(text) : text;
      if (jsx) jsx.base = first - 1;
      const reduced = (options.mdx ? /[<`\\{]/ : /[<`\\]/).test(prose)
        ? reduceMarkup(prose, options.mdx, (d) => dropped.push({ ...d, line: d.line + first - 1 }), jsx)
        : { text: prose, swallowed: false };
      // After the markup is gone, so that no element or comment left out can join a link back together.
      const safe = withoutUnsafeLinks(reduced.text);
      for (const f of safe.found) dropped.push({ line: f.line + first - 1, component: f.scheme, scheme: f.scheme });
      out.push(safe.text);
      swallowed = reduced.swallowed;
    }
  }
  // An element MDX never saw closed: the file does not compile (already said when the rest was swallowed).
  if (jsx && !swallowed)
    for (const o of jsx.open)
      dropped.push({ line: o.line, component: o.name, reason: MDX_UNCLOSED(o.name), mdx: true });
  dropped.sort((a, b) => a.line - b.line);
  return { text: out.join(""), dropped };
}

const MDX_UNCLOSED = (name: string) =>
  `is never closed, and MDX closes every element (<${name} /> when it holds nothing): MDX refuses to compile the file, so your site's build fails on it; close it with </${name}>`;

interface Part {
  start: number;
  end: number;
  code: boolean;
}

/**
 * The body cut into prose and fenced code. A fence opens with three or more backticks or tildes
 * (up to three spaces in) and closes at the next line of the same character, at least as long,
 * with nothing after it; one that never closes is not code. Pairs are found from one list of the
 * fence lines and, for each character, the longest closer at or after each of them, so a flood of
 * unclosed fences is read once.
 */
function fencedParts(text: string): Part[] {
  const fences: { start: number; end: number; char: string; length: number; closer: boolean }[] = [];
  for (const m of text.matchAll(/^ {0,3}(`{3,}|~{3,})([^\n]*)$/gm)) {
    const [line, run, info] = m as unknown as [string, string, string];
    // A backtick fence's info string holds no backtick.
    if (run[0] === "`" && info.includes("`")) continue;
    fences.push({
      start: m.index,
      end: m.index + line.length,
      char: run[0]!,
      length: run.length,
      closer: /^[ \t\r]*$/.test(info),
    });
  }
  // longest[c][k]: the longest closer of character c among fences[k..].
  const longest: Record<string, number[]> = { "`": new Array(fences.length + 1), "~": new Array(fences.length + 1) };
  longest["`"]![fences.length] = longest["~"]![fences.length] = 0;
  for (let k = fences.length - 1; k >= 0; k--) {
    const f = fences[k]!;
    for (const c of ["`", "~"]) longest[c]![k] = Math.max(longest[c]![k + 1]!, f.closer && f.char === c ? f.length : 0);
  }
  const parts: Part[] = [];
  let at = 0;
  for (let k = 0; k < fences.length; k++) {
    const open = fences[k]!;
    if (longest[open.char]![k + 1]! < open.length) continue;
    let j = k + 1;
    while (!(fences[j]!.closer && fences[j]!.char === open.char && fences[j]!.length >= open.length)) j++;
    parts.push({ start: at, end: open.start, code: false }, { start: open.start, end: fences[j]!.end, code: true });
    at = fences[j]!.end;
    k = j;
  }
  parts.push({ start: at, end: text.length, code: false });
  return parts;
}

const BLANK = /^[ \t\r]*$/;

/**
 * MDX's `import`/`export` statements, blanked. As in MDX, a statement starts with `import` or
 * `export` and a space at the start of a line that begins a block (the document's or a part's first
 * line, or one after a blank line or a heading), never inside a paragraph, and runs to the next blank
 * line, or further while a bracket is open or the line ends with `,` or `=`.
 */
function withoutModuleStatements(text: string): string {
  const lines = text.split("\n");
  let blockStart = true;
  let inStatement = false;
  let depth = 0;
  let continues = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const blank = BLANK.test(line);
    if (!inStatement && blockStart && /^(?:import|export)(?:\s|$)/.test(line)) {
      inStatement = true;
      depth = 0;
    } else if (inStatement && blank && depth <= 0 && !continues) inStatement = false;
    if (inStatement) {
      for (const c of line)
        depth += c === "{" || c === "(" || c === "[" ? 1 : c === "}" || c === ")" || c === "]" ? -1 : 0;
      if (!blank) continues = /[,=]\s*$/.test(line) || /^(?:import|export)\s*\{?\s*$/.test(line);
      lines[i] = "";
    }
    blockStart = blank || /^ {0,3}#{1,6}(?:\s|$)/.test(line);
  }
  return lines.join("\n");
}

/** Where each code span that opens at a backtick run closes: the next run as long, in the same paragraph. */
function codeSpans(text: string) {
  const runs = new Map<number, number[]>();
  for (const m of text.matchAll(/`+/g)) {
    const list = runs.get(m[0].length);
    if (list) list.push(m.index);
    else runs.set(m[0].length, [m.index]);
  }
  const next = new Map<number, number>();
  const blanks = [...text.matchAll(/\n[ \t\r]*\n/g)].map((m) => m.index);
  let blank = 0;
  // Asked for runs in increasing order: each list is walked once.
  return (at: number, length: number): number => {
    while (blank < blanks.length && blanks[blank]! < at) blank++;
    const paragraphEnd = blanks[blank] ?? text.length;
    const list = runs.get(length) ?? [];
    let k = next.get(length) ?? 0;
    while (k < list.length && list[k]! < at + length) k++;
    next.set(length, k);
    const close = list[k];
    return close !== undefined && close < paragraphEnd ? close + length : -1;
  };
}

function reduceMarkup(
  text: string,
  mdx: boolean,
  drop: (d: DroppedMarkup) => void,
  jsx?: JsxState,
): { text: string; swallowed: boolean } {
  const out: string[] = [];
  const lineAt = lineCounter(text);
  const spanEnd = codeSpans(text);
  const braces = braceMatcher(text);
  // The next closing tag of each name after a position, memoised so that a flood of unclosed
  // elements is not searched for again and again.
  const closeMemo = new Map<string, { from: number; at: number }>();
  const closeOf = (name: string, from: number): number => {
    const known = closeMemo.get(name);
    if (known && known.from <= from && (known.at < 0 || known.at >= from)) return known.at;
    const re = new RegExp(`</${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*>`, "gi");
    re.lastIndex = from;
    const m = re.exec(text);
    const at = m ? m.index : -1;
    closeMemo.set(name, { from, at });
    return at;
  };
  // What is left open from `at` holds the rest of the document: dropped, its line breaks kept.
  const swallow = (at: number, component: string) => {
    drop({ line: lineAt(at), component, reason: NEVER_CLOSED, ...(mdx ? { mdx: true } : {}) });
    out.push(text.slice(last, at), newlines(text.slice(at)));
    return { text: out.join(""), swallowed: true };
  };
  const special = mdx ? /[<`\\{]/g : /[<`\\]/g;
  let i = 0;
  let last = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const found = special.exec(text);
    if (!found) break;
    const at = found.index;
    const c = text[at];
    if (c === "\\") {
      // An escaped character is text.
      i = at + 2;
      continue;
    }
    if (c === "`") {
      // A code span is text as written; a run with no partner is only backticks.
      let run = at;
      while (text[run] === "`") run++;
      const end = spanEnd(at, run - at);
      i = end < 0 ? run : end;
      continue;
    }
    if (c === "{") {
      const close = braces(at);
      if (close < 0) return swallow(at, "{");
      // MDX takes no HTML comment, so a claim marker is written as a JSX comment there
      // ({/* claim-id: name */}): it becomes the marker the claims reader knows.
      const marker = mdx ? CLAIM_MARKER_COMMENT.exec(text.slice(at, close + 1)) : null;
      // A value the page shows ({seuil}, {props.x}) is the site's to compute: left out, and said.
      // A comment alone says nothing to a reader.
      const expression = text.slice(at, close + 1);
      if (!commentsOnly(expression)) drop({ line: lineAt(at), component: shortExpression(expression), template: true });
      out.push(
        text.slice(last, at),
        marker ? `<!-- claim-id: ${marker[1]} -->` : "",
        newlines(text.slice(at, close + 1)),
      );
      i = last = close + 1;
      continue;
    }
    if (text.startsWith("<!--", at)) {
      if (jsx)
        drop({
          line: lineAt(at),
          component: "<!--",
          reason:
            "MDX takes no HTML comment and refuses to compile the file, so your site's build fails on it; write {/* … */}",
          mdx: true,
        });
      const end = text.indexOf("-->", at + 4);
      i = end < 0 ? text.length : end + 3;
      continue;
    }
    if (mdx && (text.startsWith("<>", at) || text.startsWith("</>", at))) {
      // A fragment: only its children are read.
      out.push(text.slice(last, at), " ");
      i = last = at + (text[at + 1] === ">" ? 2 : 3);
      continue;
    }
    const tag = readTag(text, at, braces);
    if (!tag) {
      // MDX reads every < as a tag's start: a digit, = or an address after it does not compile.
      const after = text.slice(at + 1, at + 200);
      if (jsx && /^(?:[0-9=]|[A-Za-z][A-Za-z0-9+.-]*:\/\/|[^\s<>@]+@[^\s<>@]+>)/.test(after))
        drop({
          line: lineAt(at),
          component: /^<[^\s[\]()]{0,30}/.exec(text.slice(at, at + 32))![0],
          reason:
            "is read by MDX as the start of a tag, and MDX refuses to compile the file, so your site's build fails on it; write &lt; (or {'<'}) for a sign, [text](address) for a link",
          mdx: true,
        });
      i = at + 1;
      continue;
    }
    const lower = tag.name.toLowerCase();
    const component = /^[A-Z]/.test(tag.name) || tag.name.includes(".");
    let resume = tag.end;
    if (!tag.closing && (REMOVED.has(lower) || lower === "svg")) {
      const close = tag.selfClosing ? -1 : closeOf(tag.name, tag.end);
      if (close < 0 && !tag.selfClosing && RAW_TEXT.has(lower)) return swallow(at, tag.name);
      if (close < 0 && !tag.selfClosing && jsx)
        drop({ line: lineAt(at), component: tag.name, reason: MDX_UNCLOSED(tag.name), mdx: true });
      out.push(text.slice(last, at));
      const inner = close < 0 ? "" : text.slice(tag.end, close);
      resume = close < 0 ? tag.end : text.indexOf(">", close) + 1;
      out.push(newlines(text.slice(at, resume)));
      if (lower === "svg") {
        // The start tag stops at the next `<` too: `[^>]*` read from every `<title` to the one `>` after
        // them all (quadratic on a flood of `<title`).
        const titles = [...inner.matchAll(/<title[^<>]*>([^<]*)<\/title\s*>/gi)]
          .map((m) => m[1]!.trim())
          .filter(Boolean);
        if (titles.length) out.push(` ${titles.join(" ")} `);
      }
    } else if (tag.closing) {
      out.push(text.slice(last, at), " ");
      if (jsx) {
        const top = jsx.open.at(-1);
        const held = (jsx.count.get(tag.name) ?? 0) > 0;
        if (!held || top!.name !== tag.name)
          drop({
            line: lineAt(at),
            component: `/${tag.name}`,
            reason: !held
              ? `closes no open <${tag.name}>: MDX refuses to compile the file, so your site's build fails on it; remove it, or open the element before it`
              : `stands where <${top!.name}> (line ${top!.line}) is still open: MDX refuses to compile the file, so your site's build fails on it; close <${top!.name}> first`,
            mdx: true,
          });
        // Closed: every element opened inside it is closed with it (each popped once: linear).
        while (held && jsx.open.length) {
          const o = jsx.open.pop()!;
          jsx.count.set(o.name, jsx.count.get(o.name)! - 1);
          if (o.name === tag.name) break;
        }
      }
    } else {
      if (jsx && !tag.selfClosing) {
        jsx.open.push({ name: tag.name, line: lineAt(at) + jsx.base });
        jsx.count.set(tag.name, (jsx.count.get(tag.name) ?? 0) + 1);
      }
      out.push(text.slice(last, at));
      const words = [...tag.attrs]
        .filter(([name, value]) => value && (TEXT_PROPS.includes(name) || (lower === "img" && name === "alt")))
        // A prop's text is published as a body's is: markup in it (`<script>`) is reduced too.
        .map(([, value]) =>
          reduceMarkup(value!, false, () => {})
            .text.replace(/\s+/g, " ")
            .trim(),
        )
        .filter(Boolean);
      if (component && words.length === 0 && tag.selfClosing) drop({ line: lineAt(at), component: tag.name });
      out.push(words.length ? ` ${words.join(" — ")} ` : " ");
      out.push(newlines(text.slice(at, tag.end)));
    }
    i = last = resume;
  }
  out.push(text.slice(last));
  return { text: out.join(""), swallowed: false };
}
