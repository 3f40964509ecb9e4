import { collapseSpaces, withoutComments } from "../render/text.ts";
import { noteMarks } from "./footnotes.ts";

/**
 * Markdown to plain text for the search index, where only words matter. A full CommonMark parse
 * (micromark) runs at about 2 MB/s here, which would cost a second on the real corpus for text
 * that is only tokenised; these few rules keep every word and drop the markup.
 */
export function markdownToPlain(markdown: string): string {
  // Every rule is linear in the text: a label stops at the next bracket, a tag at the next `<`, a
  // line rule never reads past its line's end (spaces and tabs, not \s), and no two quantifiers can
  // share the same spaces, so that a flood of `[`, `<` or blank lines (60 KB of them) costs no more
  // than plain text.
  return collapseSpaces(
    withoutComments(withoutNoteMarkup(markdown), " ")
      .replace(/^ {0,3}(```|~~~).*$/gm, " ")
      .replace(/!\[([^\][]*)\]\([^()]*\)/g, "$1")
      .replace(/\[([^\][]*)\]\([^()]*\)/g, "$1")
      .replace(/\[([^\][]*)\]\[[^\][]*\]/g, "$1")
      .replace(/^ {0,3}\[[^\][]+\]:\s+\S+.*$/gm, " ")
      .replace(/<[^<>\n]+>/g, " ")
      .replace(/^ {0,3}#{1,6}\s+/gm, "")
      .replace(/^ {0,3}>\s?/gm, "")
      .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, "")
      // Emphasis holds no delimiter of its own kind: each try stops at the next one.
      .replace(/(\*{1,3})([^\s*](?:[^*]*?[^\s*])?)\1/g, "$2")
      .replace(/(_{1,3})([^\s_](?:[^_]*?[^\s_])?)\1/g, "$2")
      .replace(/`+([^`]*)`+/g, "$1")
      .replace(/^[ \t]*(?:\|[ \t]*)?(?::?-{3,}:?[ \t]*\|[ \t]*)+(?::?-+:?[ \t]*)?$/gm, " ")
      .replace(/\|/g, " "),
  );
}

/** A footnote's call leaves no word and its definition keeps its words, not its label; code keeps both. */
function withoutNoteMarkup(markdown: string): string {
  const marks = noteMarks(markdown);
  if (marks.length === 0) return markdown;
  const out: string[] = [];
  let last = 0;
  for (const m of marks) {
    out.push(markdown.slice(last, m.start), m.indent === null ? " " : "");
    last = m.end;
  }
  out.push(markdown.slice(last));
  return out.join("");
}
