import { describe, expect, it } from "vitest";
import { readableBody } from "../../core/editorial/markup.ts";

/** The readable text of an MDX body, as an article's body is read (editorial/markup.ts). */
const mdx = (body: string) => readableBody(body, { mdx: true });
const md = (body: string) => readableBody(body, { mdx: false });

/** The same number of lines: every line number the claims engine reports is still the file's. */
function sameLines(body: string, text: string) {
  expect(text.split("\n")).toHaveLength(body.split("\n").length);
}

describe("MDX import and export", () => {
  it("are module statements only at the start of a block: a wrapped prose line starting with export or import stays", () => {
    const body = [
      "Japan recorded strong",
      "export growth of 3 % in 2026, the fastest since 2017.",
      "Its energy bill fell while",
      "import volumes held up.",
      "",
      "The yen stayed weak.",
    ].join("\n");
    const { text } = mdx(body);
    expect(text).toBe(body);
  });

  it("run from the start of the document or a blank line to the next blank line, brackets spanning blank lines", () => {
    const body = [
      'import Chart from "../components/Chart.astro";',
      'import { Figure } from "../components";',
      "",
      "export const data = {",
      "",
      "  secret: 1,",
      "};",
      "",
      "## Heading",
      'export const meta = { title: "CODE" };',
      "",
      "Prose stays.",
    ].join("\n");
    const { text } = mdx(body);
    sameLines(body, text);
    expect(text).not.toMatch(/import|export|Chart|secret|CODE|components/);
    expect(text).toContain("## Heading");
    expect(text).toContain("Prose stays.");
  });

  it("are only words in a .md file", () => {
    const body = 'import x from "y"\n\nexport const a = 1\n';
    expect(md(body).text).toBe(body);
  });
});

describe("control characters", () => {
  it("other than tab and line breaks never reach the text", () => {
    const controls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).filter(
      (c) => c !== "\t" && c !== "\n" && c !== "\r",
    );
    const body = `NUL\0ESC\x1b[31mBEL\x07 ${controls.join("")}DEL\x7f\n\tTabbed.\r\nCRLF.\n\n\`\`\`\ncode\0\n\`\`\`\n`;
    for (const read of [md, mdx]) {
      const { text } = read(body);
      sameLines(body, text);
      expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
      expect(text).toContain("NUL ESC [31mBEL");
      expect(text).toContain("\tTabbed.\r\nCRLF.");
    }
  });
});

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
  "<!-- c -->\n\n",
  "<!-- c -->\n",
  "```\n",
  "```a\n",
  "~~~~\n```\n",
  'import x from "y"\n\n',
  "export const a = 1\n",
  "{a}",
  "{'",
  "a {/* c */} ",
  "`",
  "``a`",
  "<",
  "<a ",
  "<a {",
  '<a x="',
  "<>",
  "<style>",
  "<svg>",
  "\\",
  "\0",
];

describe("the markup reader takes time linear in its input", () => {
  for (const flood of FLOODS) {
    it(`reads 60 KB and 240 KB of ${JSON.stringify(flood)} in proportion (quadratic would be 16 times)`, () => {
      const run = (kb: number) => {
        const text = flood.repeat(Math.floor((kb * 1000) / flood.length));
        const body = `Intro.\n\n${text}\n`;
        return best(() => {
          for (const read of [md, mdx]) expect(read(body).text.split("\n")).toHaveLength(body.split("\n").length);
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
