import { describe, expect, it } from "vitest";
import { extractArticleEvidence } from "../../core/claims/extract.ts";
import { parseBlocks, parseInline } from "../../core/claims/markdown.ts";
import { footnotesAsText } from "../../core/editorial/footnotes.ts";
import { markdownToPlain } from "../../core/editorial/plain.ts";
import { withoutComments } from "../../core/render/text.ts";
import { best, expectFourTimesLinear, expectLinear } from "../helpers/linear.ts";
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
  // Footnote calls beside code spans and code blocks, which keep them as written.
  "`a`[^a] ",
  "```\n[^a]\n",
  "x\n\n    [^a]\n\n",
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

describe("link labels nested deep", () => {
  const nested = (open: string, n: number) =>
    `Intro.\n\n${open.repeat(n)}x${"](https://a.org)".repeat(n)}\n\nx[^a]\n\n[^a]: ${open.repeat(n)}y${"](https://b.org)".repeat(n)}\n`;
  const read = (body: string) => {
    const parsed = parseBlocks(body);
    for (const b of parsed.blocks) parseInline(b.raw, parsed.definitions);
    extractArticleEvidence(article(body), OPTIONS);
  };
  it("are read without recursion: 20,000 nested links or images keep their text and no stack overflows", () => {
    for (const open of ["[", "!["]) {
      const body = nested(open, 20_000);
      expect(() => read(body)).not.toThrow();
      const { text, links } = parseInline(`${open.repeat(20_000)}x${"](https://a.org)".repeat(20_000)}`, new Map());
      expect(text).toBe("x");
      expect(links.length).toBe(open === "[" ? 1 : 0);
    }
  });
  it("are read in time linear in their depth: 4 times the depth, well under 16 times the time", () => {
    expectFourTimesLinear(
      () => best(() => read(nested("[", 5_000))),
      () => best(() => read(nested("[", 20_000))),
    );
  });
});

describe("balanced brackets nested deep", () => {
  it("are read in linear time: no label of nested brackets is normalised to look up a reference", () => {
    const defs = new Map([["x", "https://x.org/"]]);
    const read = (n: number) => {
      const body = `Intro.\n\n${"[".repeat(n)}x${"]".repeat(n)}\n\n[x]: https://x.org/\n`;
      return best(() => {
        const parsed = parseBlocks(body);
        for (const b of parsed.blocks) parseInline(b.raw, parsed.definitions);
        extractArticleEvidence(article(body), OPTIONS);
      });
    };
    expectFourTimesLinear(
      () => read(50_000),
      () => read(200_000),
    );
    // The innermost label still names its reference.
    expect(parseInline("[[x]]", defs).links).toEqual([{ label: "x", href: "https://x.org/", start: 1, end: 2 }]);
  });
});

describe("a sentence of many numbers and dates", () => {
  for (const piece of ["2026 ", "le 3 mars 2026 : 12,5 ; "]) {
    it(`is scored in linear time: 24 KB and 96 KB of ${JSON.stringify(piece)} in one sentence`, () => {
      const read = (kb: number) => {
        const body = `Selon le Trésor, ${piece.repeat(Math.floor((kb * 1000) / piece.length))}.\n`;
        return best(() => extractArticleEvidence(article(body), OPTIONS));
      };
      expectFourTimesLinear(
        () => read(24),
        () => read(96),
      );
    });
  }
});
