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
