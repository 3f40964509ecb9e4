/** Sentence boundaries of French or English plain text. */
import { ABBREVIATIONS } from "./markers.ts";
import { fold } from "./text.ts";

export interface Span {
  start: number;
  end: number;
}

const _ABBREVIATIONS = new Set(ABBREVIATIONS.map(fold));
// A stop, closing quotes or brackets, spaces, then what may open a sentence.
const _BOUNDARY = /([.!?…]+)["»”’)\]]*\s+(?=["«“‘(\[]?\s*[\p{Lu}\p{N}])/gu;

/** Spans of the sentences of `text` (trimmed, in order); a period after an abbreviation or an initial does not end one. */
export function splitSentences(text: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  _BOUNDARY.lastIndex = 0;
  for (let m = _BOUNDARY.exec(text); m !== null; m = _BOUNDARY.exec(text)) {
    if (m[1] === "." && _abbreviated(text, m.index)) continue;
    const end = m.index + m[0].trimEnd().length;
    spans.push({ start, end });
    start = m.index + m[0].length;
  }
  if (start < text.length) spans.push({ start, end: text.trimEnd().length });
  return spans.filter((s) => s.end > s.start);
}

function _abbreviated(text: string, dot: number): boolean {
  const word = /[\p{L}\p{N}°.]+$/u.exec(text.slice(Math.max(0, dot - 24), dot));
  if (!word) return false;
  const w = fold(word[0]);
  // "U.S." or "M." (an initial): a period inside the word or a single letter.
  if (w.includes(".") && /\p{L}/u.test(w)) return true;
  if (/^\p{L}$/u.test(w)) return true;
  return _ABBREVIATIONS.has(w);
}
