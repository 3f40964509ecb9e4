/** Text helpers shared by the claims engine: folding, whole-word patterns, normalisation, a hash. */

const _foldCache = new Map<string, string>();

/**
 * Lower case without diacritics, typographic apostrophes as `'`, non-breaking spaces as spaces.
 * One UTF-16 unit in, one out, so offsets found in the folded text hold in the original.
 */
export function fold(text: string): string {
  const lower = text.toLowerCase();
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
  return normaliseSpaces(text).replace(/[\u2019\u2018\u02bc]/g, "'").toLowerCase();
}

/** `text` if it fits in `max` characters, else cut at the last word boundary before it, with "…". */
export function bound(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  const head = (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.\-–—(«"]+$/u, "");
  return `${head}…`;
}

const _FNV_OFFSET = 0xcbf29ce484222325n;
const _FNV_PRIME = 0x100000001b3n;
const _MASK = 0xffffffffffffffffn;

/**
 * FNV-1a 64 of the UTF-8 bytes of `text`, as 16 hex digits. Not cryptographic: it names claims,
 * and core has no crypto API it could use on both runtimes without an argument.
 */
export function fnv1a64(text: string): string {
  let h = _FNV_OFFSET;
  const step = (byte: number) => {
    h = ((h ^ BigInt(byte)) * _FNV_PRIME) & _MASK;
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
  return h.toString(16).padStart(16, "0");
}
