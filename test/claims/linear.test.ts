import { describe, expect, it } from "vitest";
import { parseBlocks, parseInline } from "../../core/claims/markdown.ts";
import { markdownToPlain } from "../../core/editorial/plain.ts";
import { withoutComments } from "../../core/render/text.ts";

/** Milliseconds of the best of three runs of `f` (the least disturbed by the machine's other work). */
function best(f: () => void): number {
  let min = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    f();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

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
];

describe("the Markdown readers take time linear in their input", () => {
  for (const flood of FLOODS) {
    it(`reads 60 KB and 240 KB of ${JSON.stringify(flood)} in proportion (quadratic would be 16 times)`, () => {
      const run = (kb: number) => {
        const text = flood.repeat(Math.floor((kb * 1000) / flood.length));
        const body = `Intro.\n\n${text}\n`;
        return best(() => {
          const parsed = parseBlocks(body);
          let inline = 0;
          for (const b of parsed.blocks) inline += parseInline(b.raw, parsed.definitions).text.length;
          if (inline === 0 && !flood.startsWith("<!--")) throw new Error("the inline reader read nothing");
          markdownToPlain(body);
          withoutComments(body);
        });
      };
      const small = run(60);
      const large = run(240);
      // Four times the input: linear gives about 4, quadratic 16. A generous bound that timing noise cannot break.
      expect(large, `${small.toFixed(1)} ms then ${large.toFixed(1)} ms`).toBeLessThan(Math.max(10 * small, 200));
      expect(large).toBeLessThan(5000);
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
