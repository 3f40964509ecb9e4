/**
 * Footnotes as Goldmark and kramdown write them (`text[^label]`, and `[^label]: note` at the start
 * of a line) turned into plain words for the text corpora: a call becomes "(note 1)" and its
 * definition "Note 1 : …", numbered in the order of the first calls as those renderers number them
 * (notes never called come after). No `[^label]` markup is left outside code; code (blocks and
 * spans) stays as written; a call to a note that is not defined is dropped.
 */

import { type Block, codeRanges, parseBlocks } from "../claims/markdown.ts";

// A label holds no bracket or space, so that no match reads past the next bracket (linear time).
const _NOTE = /^( {0,3})\[\^([^\][\s]+)\]:[ \t]*|\[\^([^\][\s]+)\](?!\()/gm;

/** A footnote call, or the `[^label]:` that starts a definition (with its indent), outside code. */
export interface NoteMark {
  start: number;
  end: number;
  /** The label, lower-cased. */
  label: string;
  /** For a definition, the spaces before its `[^`; null for a call. */
  indent: string | null;
}

/** The footnote calls and definitions of a Markdown body that stand outside its code, in order. */
export function noteMarks(markdown: string): NoteMark[] {
  const marks: NoteMark[] = [];
  if (!markdown.includes("[^")) return marks;
  let from = 0;
  const prose = (end: number) => {
    // Read in a view that ends where the prose does: a search from each piece of prose would
    // otherwise run on to the next call, past every code span between (quadratic).
    const view = end < markdown.length ? markdown.slice(0, end) : markdown;
    _NOTE.lastIndex = from;
    for (let m = _NOTE.exec(view); m !== null; m = _NOTE.exec(view)) {
      if (m[2] !== undefined)
        marks.push({ start: m.index, end: m.index + m[0].length, label: m[2].toLowerCase(), indent: m[1]! });
      else marks.push({ start: m.index, end: m.index + m[0].length, label: m[3]!.toLowerCase(), indent: null });
    }
  };
  for (const [start, end] of codeRanges(markdown)) {
    if (start > from) prose(start);
    from = Math.max(from, end);
  }
  if (from < markdown.length) prose(markdown.length);
  return marks;
}

export function footnotesAsText(markdown: string, lang: "fr" | "en"): string {
  const marks = noteMarks(markdown);
  if (marks.length === 0) return markdown;
  const defined = new Set(marks.filter((m) => m.indent !== null).map((m) => m.label));
  const numbers = new Map<string, number>();
  for (const m of [...marks.filter((m) => m.indent === null), ...marks.filter((m) => m.indent !== null)])
    if (defined.has(m.label) && !numbers.has(m.label)) numbers.set(m.label, numbers.size + 1);
  const colon = lang === "fr" ? " :" : ":";
  // A label defined again keeps its first definition, as the claims read it: the others are left
  // out with their text, over the lines the Markdown reader gives the note.
  const seen = new Set<string>();
  let notesAt: Map<number, Block> | null = null;
  // The line of the mark being read, counted on from the last one (marks come in order).
  let lineNo = 0;
  let counted = 0;
  const out: string[] = [];
  let last = 0;
  for (const m of marks) {
    if (m.start < last) continue;
    out.push(markdown.slice(last, m.start));
    const n = numbers.get(m.label);
    if (m.indent !== null && seen.has(m.label)) {
      notesAt ??= new Map(
        parseBlocks(markdown)
          .blocks.filter((b) => b.type === "footnote")
          .map((b) => [b.line, b]),
      );
      for (let i = markdown.indexOf("\n", counted); i >= 0 && i < m.start; i = markdown.indexOf("\n", i + 1)) {
        lineNo++;
        counted = i + 1;
      }
      const block = notesAt.get(lineNo);
      let end = markdown.indexOf("\n", m.start);
      for (let k = block ? block.end - block.line : 0; k > 0 && end >= 0; k--) end = markdown.indexOf("\n", end + 1);
      last = end < 0 ? markdown.length : end;
      continue;
    }
    if (m.indent !== null) {
      seen.add(m.label);
      out.push(`${m.indent}Note ${n}${colon} `);
    } else if (n !== undefined)
      out.push(m.start > 0 && /\s/.test(markdown[m.start - 1]!) ? `(note ${n})` : ` (note ${n})`);
    last = m.end;
  }
  out.push(markdown.slice(last));
  return out.join("");
}
