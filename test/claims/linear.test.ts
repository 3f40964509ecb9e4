import { describe, expect, it } from "vitest";
import { extractArticleEvidence } from "../../core/claims/extract.ts";
import { parseBlocks, parseInline } from "../../core/claims/markdown.ts";
import { footnotesAsText } from "../../core/editorial/footnotes.ts";
import { markdownToPlain } from "../../core/editorial/plain.ts";
import { withoutComments } from "../../core/render/text.ts";
import { best, expectLinear } from "../helpers/linear.ts";
import { article, OPTIONS } from "./_demo.ts";

const FLOODS = [
  "[",
  "![",
  "[a](",
  "<",
  "<!--",
  "*",
  "_a",
  "`",
  "``a`",
  "&#",
  "<a ",
  "[x]: ",
  "> [",
  "- [",
  // Many short pieces of one paragraph: emphasis, and complete links.
  "x *a* ",
  "a* ",
  "[a](https://example.org/) ",
  // Footnote calls and definitions.
  "[^",
  "[^a",
  "x[^a] ",
  "[^a]: x\n",
];

describe("the Markdown readers take time linear in their input", () => {
  for (const flood of FLOODS) {
    it(`reads 60 KB and 240 KB of ${JSON.stringify(flood)} in proportion (quadratic would be 16 times)`, () => {
      expectLinear(flood, (body) => {
        const parsed = parseBlocks(body);
        let inline = 0;
        for (const b of parsed.blocks) inline += parseInline(b.raw, parsed.definitions).text.length;
        if (inline === 0 && !flood.startsWith("<!--")) throw new Error("the inline reader read nothing");
        markdownToPlain(body);
        footnotesAsText(body, "fr");
        withoutComments(body);
      });
    });
  }
});

describe("a long list of bare addresses", () => {
  it("is read in linear time: 480 KB of them in well under 2 s (quadratic took 10 s)", () => {
    const body = `Intro.\n\n${"https://x.org/ ".repeat(32_000)}\n`;
    const ms = best(() => {
      const parsed = parseBlocks(body);
      for (const b of parsed.blocks) parseInline(b.raw, parsed.definitions);
    });
    expect(ms).toBeLessThan(2000);
  });
});

describe("a note of many links called from every paragraph", () => {
  it("is read in time linear in the calls, not calls × links", () => {
    const note = `[^a]: ${Array.from({ length: 400 }, (_, k) => `https://x.org/${k}`).join(" ")}\n\n`;
    expectLinear("Le texte appelle la note[^a].\n\n", (body) => extractArticleEvidence(article(note + body), OPTIONS));
  });
});
