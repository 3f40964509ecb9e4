import { withoutComments } from "../render/text.ts";

/**
 * Markdown to plain text for the search index, where only words matter. A full CommonMark parse
 * (micromark) runs at about 2 MB/s here, which would cost a second on the real corpus for text
 * that is only tokenised; these few rules keep every word and drop the markup.
 */
export function markdownToPlain(markdown: string): string {
  // Every rule is linear in the text: a label stops at the next bracket, a tag at the next `<`,
  // so that a flood of `[` or `<` (60 KB of them) costs no more than plain text.
  return withoutComments(markdown, " ")
    .replace(/^ {0,3}(```|~~~).*$/gm, " ")
    .replace(/!\[([^\][]*)\]\([^()]*\)/g, "$1")
    .replace(/\[([^\][]*)\]\([^()]*\)/g, "$1")
    .replace(/\[([^\][]*)\]\[[^\][]*\]/g, "$1")
    .replace(/^ {0,3}\[[^\][]+\]:\s+\S+.*$/gm, " ")
    .replace(/<[^<>\n]+>/g, " ")
    .replace(/^ {0,3}#{1,6}\s+/gm, "")
    .replace(/^ {0,3}>\s?/gm, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, "")
    .replace(/(\*{1,3}|_{1,3})(\S(?:[\s\S]*?\S)?)\1/g, "$2")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/gm, " ")
    .replace(/\|/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
