/** Text helpers shared by the claims engine: folding, whole-word patterns, normalisation, a hash. */
import { headUnits } from "../render/text.ts";

const _foldCache = new Map<string, string>();
const _NON_ASCII = /[^\x00-\x7f]/;

/**
 * Lower case without diacritics, typographic apostrophes as `'`, non-breaking spaces as spaces.
 * One UTF-16 unit in, one out, so offsets found in the folded text hold in the original.
 */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  if (!_NON_ASCII.test(lower)) return lower;
  // toLowerCase() keeps the length but for a few letters ("İ"); those take the slow path.
  if (lower.length === text.length) return lower.replace(/[^\x00-\x7f]/g, _foldChar);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) {
      out += code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : text[i];
      continue;
    }
    out += _foldChar(text[i]);
  }
  return out;
}

/**
 * The characters of a word in folded text, as a regular-expression class body: folded text is
 * lower-case ASCII but for rare letters (œ, ß, other scripts). An explicit class is several times
 * faster than \p{L} in the look-arounds that bound every word.
 */
export const WORD_CLASS = "a-z0-9\\u00c0-\\u024f\\u0370-\\u03ff\\u0400-\\u04ff";

function _escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function _foldChar(c: string): string {
  let f = _foldCache.get(c);
  if (f === undefined) {
    if (c === "\u2019" || c === "\u2018" || c === "\u02bc") f = "'";
    else if (c === "\u00a0" || c === "\u202f" || c === "\u2009") f = " ";
    else {
      const base = c.normalize("NFD")[0].toLowerCase();
      f = base.length === 1 ? base : c;
    }
    _foldCache.set(c, f);
  }
  return f;
}

/** The regular-expression source of `phrase` as whole words of folded text (spaces match any run). */
export function wordSource(phrase: string): string {
  const body = fold(phrase).trim().split(/\s+/).map(_escape).join("\\s+");
  const start = /^[\p{L}\p{N}]/u.test(body) ? `(?<![${WORD_CLASS}])` : "";
  const end = /[\p{L}\p{N}]$/u.test(body) ? `(?![${WORD_CLASS}])` : "";
  return `${start}${body}${end}`;
}

/** One regular expression matching any of `phrases` as whole words of folded text. */
export function anyOf(phrases: readonly string[], flags = ""): RegExp {
  // Longest first, so "estimations" wins over "estimation" in the alternation.
  const sorted = [...phrases].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  return new RegExp(sorted.map(wordSource).join("|"), flags);
}

/** NFC, plain apostrophes, single spaces, trimmed: two renderings of the same text compare equal. */
export function normaliseSpaces(text: string): string {
  // normalize() is costly and only changes text with combining marks.
  const nfc = /[\u0300-\u036f]/.test(text) ? text.normalize("NFC") : text;
  return nfc.replace(/[\s\u00a0\u202f]+/g, " ").trim();
}

/** The key under which two claim texts count as the same claim (case and spacing ignored). */
export function claimKey(text: string): string {
  return normaliseSpaces(text)
    .replace(/[\u2019\u2018\u02bc]/g, "'")
    .toLowerCase();
}

/** `text` if it fits in `max` characters, else cut at the last word boundary before it, with "…". */
export function bound(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = headUnits(text, max - 1);
  const space = cut.lastIndexOf(" ");
  const head = (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.\-–—(«"]+$/u, "");
  return `${head}…`;
}

/**
 * FNV-1a 64 of the UTF-8 bytes of `text`, as 16 hex digits. Not cryptographic: it names claims,
 * and core has no crypto API it could use on both runtimes without an argument. The 64-bit state
 * is four 16-bit limbs, so the arithmetic stays in exact small integers.
 */
export function fnv1a64(text: string): string {
  // Offset basis 0xcbf29ce484222325, least significant limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const step = (byte: number) => {
    h0 ^= byte;
    // Multiply by the prime 0x100000001b3 = 2^40 + 0x1b3, modulo 2^64.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    // h << 40 puts limb 0 at bit 8 of limb 2 (spilling into limb 3) and limb 1 at bit 8 of limb 3.
    const t2 = h2 * 0x1b3 + (t1 >>> 16) + (h0 << 8);
    const t3 = h3 * 0x1b3 + (t2 >>> 16) + (h1 << 8);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) step(cp);
    else if (cp < 0x800) {
      step(0xc0 | (cp >> 6));
      step(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      step(0xe0 | (cp >> 12));
      step(0x80 | ((cp >> 6) & 0x3f));
      step(0x80 | (cp & 0x3f));
    } else {
      step(0xf0 | (cp >> 18));
      step(0x80 | ((cp >> 12) & 0x3f));
      step(0x80 | ((cp >> 6) & 0x3f));
      step(0x80 | (cp & 0x3f));
    }
  }
  const hex = (n: number) => n.toString(16).padStart(4, "0");
  return hex(h3) + hex(h2) + hex(h1) + hex(h0);
}
