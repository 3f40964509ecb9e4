/**
 * Links whose address runs code or carries a document of its own (`javascript:`, `vbscript:`,
 * `data:`, `file:`) are never published as links: as for a registry field, one in a published text
 * is an injection. The link keeps its text and loses its address; a reference definition or an
 * autolink to such an address goes whole. Line breaks are kept, so that line numbers stay the file's.
 */
import { _entity } from "../claims/markdown.ts";

const UNSAFE_SCHEME = /^(?:javascript|vbscript|data|file):/i;
/** Named references that spell a scheme's colon or hide a line break in it, beyond those the claims reader knows. */
const MORE_ENTITIES: Record<string, string> = { colon: ":", Tab: "\t", NewLine: "\n" };
/** A destination or a link's text longer than this is not read as one (it bounds every scan). */
const MAX = 2_000;
/** How often nested unsafe links are looked for again before the rest are broken as they stand. */
const PASSES = 8;

/** A link destination as CommonMark reads it: backslash escapes and character references decoded. */
export function decodedDestination(raw: string): string {
  return raw.replace(
    /\\([!-/:-@[-`{-~])|&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g,
    (m, escaped: string | undefined, ref: string) => escaped ?? MORE_ENTITIES[ref] ?? _entity(ref) ?? m,
  );
}

/** The scheme of a destination that must never be published as a link (`javascript:`), or null. */
export function unsafeScheme(raw: string): string | null {
  // A browser drops leading spaces and controls, and tabs and line breaks anywhere in the scheme.
  const m = UNSAFE_SCHEME.exec(decodedDestination(raw).replace(/[\u0000-\u0020]/g, ""));
  return m ? m[0].toLowerCase() : null;
}

export interface UnsafeLink {
  /** 1-based line in the text. */
  line: number;
  scheme: string;
  /** The address as written. */
  raw: string;
}

const newlines = (s: string) => s.replace(/[^\n]/g, "");

/**
 * The 1-based line of any position of `text`, by a binary search over its line breaks, found on
 * the first call: most texts have no unsafe link, and then no line is ever asked for.
 */
function linesOf(text: string): (i: number) => number {
  let breaks: number[] | null = null;
  return (i) => {
    breaks ??= [...text.matchAll(/\n/g)].map((m) => m.index);
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid]! < i) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

/** `(dest "title")` with `(` at `open`: the raw destination and the index after `)`, or null. */
function destinationAt(text: string, open: number): { raw: string; end: number } | null {
  let i = open + 1;
  const limit = Math.min(text.length, open + MAX);
  while (i < limit && (text[i] === " " || text[i] === "\t")) i++;
  if (text[i] === "\n") i++;
  while (i < limit && (text[i] === " " || text[i] === "\t")) i++;
  let raw: string;
  if (text[i] === "<") {
    const close = text.slice(i + 1, limit).search(/[<>\n]/);
    if (close < 0 || text[i + 1 + close] !== ">") return null;
    raw = text.slice(i + 1, i + 1 + close);
    i += close + 2;
  } else {
    const start = i;
    let depth = 0;
    for (; i < limit; i++) {
      const c = text[i]!;
      if (c === "\\") i++;
      // CommonMark bounds the nesting of parentheses in a destination; so does this scan.
      else if (c === "(" && ++depth > 32) return null;
      else if (c === ")" && depth-- === 0) break;
      else if (c <= " ") break;
    }
    raw = text.slice(start, i);
  }
  while (i < limit && /\s/.test(text[i]!)) i++;
  const quote = text[i];
  if (quote === '"' || quote === "'" || quote === "(") {
    const close = text.indexOf(quote === "(" ? ")" : quote, i + 1);
    if (close < 0 || close >= limit) return null;
    i = close + 1;
    while (i < limit && /\s/.test(text[i]!)) i++;
  }
  return text[i] === ")" ? { raw, end: i + 1 } : null;
}

/** The `[` that opens the link text closing at `close`, or -1. */
function textOpening(text: string, close: number, from: number): number {
  let depth = 0;
  for (let i = close - 1; i >= Math.max(from, close - MAX); i--) {
    const c = text[i];
    if (text[i - 1] === "\\") continue;
    if (c === "]") depth++;
    else if (c === "[" && depth-- === 0) return i;
    else if (c === "\n") {
      // A link's text never spans a blank line.
      let j = i - 1;
      while (text[j] === " " || text[j] === "\t") j--;
      if (text[j] === "\n") return -1;
    }
  }
  return -1;
}

/** One pass over inline links and images: each unsafe one that does not overlap an earlier becomes its text. */
function inlinePass(text: string, found: UnsafeLink[]): string {
  const out: string[] = [];
  const lineAt = linesOf(text);
  let last = 0;
  for (const m of text.matchAll(/\]\(/g)) {
    const close = m.index;
    if (close < last) continue;
    const dest = destinationAt(text, close + 1);
    const scheme = dest && unsafeScheme(dest.raw);
    if (!dest || !scheme) continue;
    const open = textOpening(text, close, last);
    if (open < 0) continue;
    const start = open > last && text[open - 1] === "!" ? open - 1 : open;
    found.push({ line: lineAt(close), scheme, raw: dest.raw });
    out.push(text.slice(last, start), text.slice(open + 1, close), newlines(text.slice(close, dest.end)));
    last = dest.end;
  }
  out.push(text.slice(last));
  return out.join("");
}

/** `text` with every unsafe link reduced to its text, and where each stood. */
export function withoutUnsafeLinks(text: string): { text: string; found: UnsafeLink[] } {
  const found: UnsafeLink[] = [];
  if (!/[:&]/.test(text)) return { text, found };
  // Each replacement keeps the line breaks: a line number in any pass's text is the original's.
  const lineAt = linesOf(text);
  let out = text.replace(
    /^ {0,3}\[(?!\^)(?:[^\\[\]\n]|\\.){1,999}\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|[^\s<]\S*)[^\n]*/gm,
    (m, dest: string, at: number) => {
      const scheme = unsafeScheme(dest.replace(/^<|>$/g, ""));
      if (!scheme) return m;
      found.push({ line: lineAt(at + m.indexOf(dest)), scheme, raw: dest });
      return newlines(m);
    },
  );
  // A link inside another's text (an image in a link) is reduced first, its host on the next pass.
  let settled = false;
  for (let pass = 0; pass < PASSES && !settled; pass++) {
    const before = found.length;
    out = inlinePass(out, found);
    settled = found.length === before;
  }
  // Nested deeper than any page would: what is left is broken where it stands, never published as a link.
  if (!settled)
    out = out.replace(/\]\(/g, (m, at: number, all: string) => {
      const dest = destinationAt(all, at + 1);
      return dest && unsafeScheme(dest.raw) ? "] (" : m;
    });
  // Autolinks last: one may stand as an inline link's address.
  const outLineAt = linesOf(out);
  out = out.replace(/<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/g, (m, dest: string, at: number) => {
    const scheme = unsafeScheme(dest);
    if (!scheme) return m;
    found.push({ line: outLineAt(at), scheme, raw: dest });
    return "";
  });
  return { text: out, found };
}
