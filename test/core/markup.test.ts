import { describe, expect, it } from "vitest";
import { parseBlocks, parseInline } from "../../core/claims/markdown.ts";
import { readableBody } from "../../core/editorial/markup.ts";
import { markdownToPlain } from "../../core/editorial/plain.ts";
import { withoutComments } from "../../core/render/text.ts";
import { best, expectFourTimesLinear, expectLinear } from "../helpers/linear.ts";
import { MDX_BLOCK } from "../helpers/sites.ts";

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

describe("an Astro article's MDX", () => {
  it("keeps components' text props, the SVG's title and the figure caption, and names the component without text", () => {
    const { text, dropped } = mdx(MDX_BLOCK);
    sameLines(MDX_BLOCK, text);
    expect(text).not.toMatch(/<|>|import|export|components|stroke|margin|[{}]/);
    expect(text).toContain("Écart BTP-Bund sur dix ans — BCE, Bundesbank");
    expect(text).toContain("Courbe de l’écart en points de base");
    expect(text).toContain("Figure 1 : l’écart a culminé en mai.");
    expect(text).toContain("Les données de mai sont provisoires.");
    expect(dropped).toEqual([{ line: 5, component: "Chart" }]);
  });

  it("reduces the markup of a text prop as the body's: no <script> or element of a title reaches the text", () => {
    const body = 'Avant.\n\n<Chart title="Titre <script>alert(1)</script> <b>gras</b>" data={[1]} />\n\nAprès.';
    const { text } = mdx(body);
    sameLines(body, text);
    expect(text).toContain("Titre");
    expect(text).toContain("gras");
    expect(text).not.toMatch(/<|>|script|alert/);
  });
});

describe("MDX expressions", () => {
  it("are dropped wherever they are, comments too: nothing of their code reaches the text", () => {
    const body = [
      'Before {props.inline} and {"STRINGEXPR"} and {1 + 2} after.',
      "A note{/* PRIVATE NOTE */} here, {/* don't {leak} this */} and {'}'} there.",
      "{cond && <p>Don't show {x}</p>} stays out.",
      "{",
      "  /* PRIVATE",
      "     BLOCK */",
      "}",
      "End.",
    ].join("\n");
    const { text, dropped } = mdx(body);
    sameLines(body, text);
    expect(text).not.toMatch(/props|inline|STRINGEXPR|1 \+ 2|PRIVATE|NOTE|leak|don't|cond|show|[{}]/);
    expect(text).toContain("Before");
    expect(text).toContain("after.");
    expect(text).toContain("A note here,");
    expect(text).toContain("there.");
    expect(text).toContain("stays out.");
    expect(text).toContain("End.");
    // Each value a reader would see is named with its line; the comments are not.
    expect(dropped.map((d) => [d.line, d.component, d.template])).toEqual([
      [1, "{props.inline}", true],
      [1, '{"STRINGEXPR"}', true],
      [1, "{1 + 2}", true],
      [2, "{'}'}", true],
      [3, "{cond && <p>Don't show {x}</p>}", true],
    ]);
  });

  it("in a component's attribute are read as before: a string literal is text, any other expression code", () => {
    const { text } = mdx('<Figure caption={"Écart BTP-Bund"} data={{ a: "}" }} />\n');
    expect(text).toContain("Écart BTP-Bund");
    expect(text).not.toMatch(/data|[{}]/);
  });

  it("are kept as written in code spans and fenced code, and after a backslash", () => {
    const body = "Write `{props.title}` or \\{literal\\}.\n\n```jsx\n<Note>{props.title}</Note>\n```\n";
    const { text } = mdx(body);
    expect(text).toContain("`{props.title}`");
    expect(text).toContain("\\{literal\\}");
    expect(text).toContain("<Note>{props.title}</Note>");
  });

  it("are plain text in a .md file", () => {
    const body = "A set {a, b} and {props.inline} and {/* not a comment */}.\n";
    expect(md(body).text).toBe(body);
  });

  it("left open drop the rest of the document, and lint names where", () => {
    const body = "Prose.\n\nText {open\n\nSECRET after.\n\n```\ncode\n```\n";
    const { text, dropped } = mdx(body);
    sameLines(body, text);
    expect(text).toContain("Text ");
    expect(text).not.toMatch(/SECRET|open|code/);
    expect(dropped).toMatchObject([{ line: 3, component: "{" }]);
  });
});

describe("JSX fragments", () => {
  it("are dropped in MDX, their children's text kept", () => {
    const { text } = mdx("<>\n  Kept <b>words</b>.\n</>\n\nA <>short</> one.\n");
    expect(text).not.toMatch(/<|>/);
    expect(text).toContain("Kept");
    expect(text).toContain("words");
    expect(text).toContain("short");
  });

  it("are text in a .md file (`a <> b`)", () => {
    expect(md("a <> b\n").text).toBe("a <> b\n");
  });
});

describe("an unclosed <style> or <script>", () => {
  for (const [name, content] of [
    ["style", ".secret { color: red; }"],
    ["script", "window.SECRET = fetch('/token');"],
  ] as const) {
    for (const [kind, read] of [
      ["md", md],
      ["mdx", mdx],
    ] as const) {
      it(`holds the rest of the document, which is dropped and named (<${name}>, .${kind})`, () => {
        const body = `Intro.\n\n<${name}>\n${content}\n\nMore ${content}\n\n\`\`\`\n${content}\n\`\`\`\n`;
        const { text, dropped } = read(body);
        sameLines(body, text);
        expect(text).toContain("Intro.");
        expect(text).not.toMatch(/secret|SECRET|token|color/i);
        expect(dropped).toMatchObject([{ line: 3, component: name }]);
        expect(dropped[0]!.reason).toMatch(/never closed/);
      });
    }
  }

  it("closed, is dropped whole and the text after it stays", () => {
    const { text, dropped } = md("<style>\n.a { color: red }\n</style>\n\nAfter.\n");
    expect(text).not.toContain("color");
    expect(text).toContain("After.");
    expect(dropped).toEqual([]);
  });

  it("written in a code span is text, not an element", () => {
    const { text, dropped } = md("Put it in a `<style>` element.\n\nThe rest stays.\n");
    expect(text).toContain("The rest stays.");
    expect(dropped).toEqual([]);
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
  "<a>",
  "</a>",
  "<a><b></a>",
  "<1",
  "<https://x.example ",
  "\\",
  "\0",
  "[^\u202e",
  "[^a\u202e",
];

describe("the markup reader takes time linear in its input", () => {
  for (const flood of FLOODS) {
    it(`reads 60 KB and 240 KB of ${JSON.stringify(flood)} in proportion (quadratic would be 16 times)`, () => {
      expectLinear(flood, (body) => {
        for (const read of [md, mdx]) expect(read(body).text.split("\n")).toHaveLength(body.split("\n").length);
      });
    });
  }
});

describe("an <svg> holding many <title", () => {
  it("is read in linear time (quadratic took 19 s at 200 KB), and an svg's titles still give its text", () => {
    const read = (n: number) => {
      const body = `Intro.\n\n<svg>${"<title".repeat(n)}</svg>\n`;
      return best(() => {
        for (const reader of [md, mdx]) reader(body);
      });
    };
    expectFourTimesLinear(
      () => read(8_000),
      () => read(32_000),
    );
    const svg = '<svg viewBox="0 0 1 1"><title lang="fr"> Courbe </title><title\n<title>Taux</title></svg>';
    expect(md(`Avant ${svg} après.`).text.replace(/\s+/g, " ")).toBe("Avant Courbe Taux après.");
  });
});

describe("an article's text takes time linear in its size on its way to every corpus", () => {
  for (const flood of [...FLOODS, "x *a* ", "\n", " \n", "- a\n", "| --- |\n", " ".repeat(100), " *a", "*/ "]) {
    it(`reads 60 KB and 240 KB of ${JSON.stringify(flood)} into the search text, the claims and llms-full in proportion`, () => {
      expectLinear(flood, (body) => {
        for (const read of [md, mdx]) {
          // What an article's body goes through: its readable text, then each corpus's reader.
          const readable = read(body).text;
          const parsed = parseBlocks(readable);
          for (const b of parsed.blocks) parseInline(b.raw, parsed.definitions);
          markdownToPlain(readable);
          withoutComments(readable);
        }
      });
    });
  }
});

describe("lint on markup left out", () => {
  it("says why an unclosed <style> was left out, not that a component carries no text", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const { loadPublication } = await import("../../core/inputs/publication.ts");
    const { editorialFindings } = await import("../../core/editorial/lint.ts");
    const { nodeFs } = await import("../../cli/runtime/node.ts");
    const pub = demoCopy();
    editFile(`${pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => `${t}\n<style>\n.x { color: red }\n\nFin.\n`);
    const p = await loadPublication(nodeFs, pub);
    const findings = editorialFindings(p, "2026-11-21T10:00:00Z", (path) => `https://x.example${path}`);
    const dropped = findings.filter((f) => f.code === "dropped-markup");
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.message).toMatch(/^<style> is never closed/);
    expect(dropped[0]!.file).toBe("content/articles/fr/spread-btp-bund-2026.md");
  });
});

describe("character references in an article", () => {
  it("never bring in a control character, a bidirectional override or a lone surrogate: those stay as written", () => {
    const text = parseInline(
      "Le taux &#x1B;[31m est passé à &#x202E;3 % &#xD800; &#233;lev&#xE9; &amp;",
      new Map(),
    ).text;
    expect(text).not.toMatch(/[\u001b\u202e\ud800]/);
    expect(text).toContain("&#x1B;");
    expect(text).toContain("&#x202E;");
    expect(text).toContain("élevé &");
  });
});

describe("claim markers in MDX", () => {
  it("reads {/* claim-id: name */} as the marker, on its own line, and leaves other comments out", () => {
    const body = "Intro.\n\n{/* claim-id: jsx-marker */}\nLe taux a atteint 4 % en 2026.\n\n{/* une note */}\nFin.\n";
    const { text } = readableBody(body, { mdx: true });
    expect(text).toContain("<!-- claim-id: jsx-marker -->\nLe taux");
    expect(text).not.toContain("une note");
    expect(text.split("\n").length).toBe(body.split("\n").length);
    // In Markdown, braces are text: nothing is turned into a marker.
    expect(readableBody(body, { mdx: false }).text).not.toContain("<!-- claim-id");
    const blocks = parseBlocks(text);
    expect(JSON.stringify(blocks)).toContain("jsx-marker");
  });
});

describe("zero-width characters in an article", () => {
  it("are dropped before claims and search terms are read: the same claim ids and terms as without them", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const { loadPublication } = await import("../../core/inputs/publication.ts");
    const { editorialOf } = await import("../../core/editorial/analysis.ts");
    const { searchDocuments } = await import("../../core/surfaces/search-index.ts");
    const { nodeFs } = await import("../../cli/runtime/node.ts");
    const url = (path: string) => `https://x.example${path}`;
    const read = async (sentence: string) => {
      const pub = demoCopy();
      editFile(`${pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => `${t}\n${sentence}\n`);
      const p = await loadPublication(nodeFs, pub);
      const claims = editorialOf(p, "2026-11-21T10:00:00Z", url).bySlug.get("spread-btp-bund-2026")!.claims;
      const doc = searchDocuments(p, url).find((d) => d.id === "article:fr:spread-btp-bund-2026")!;
      return { claims: claims.map((c) => [c.id, c.claim]), text: doc.text };
    };
    const hidden = await read(
      "L’écart a atteint 57\u200b points de base le 3 mars 2026, se\u200d\u200clon la \ufeffBCE.",
    );
    const plain = await read("L’écart a atteint 57 points de base le 3 mars 2026, selon la BCE.");
    expect(hidden).toEqual(plain);
    expect(JSON.stringify(hidden)).not.toMatch(/[\u200b-\u200d\ufeff]/);
  });
});

describe("a generator's template syntax in a body", () => {
  const hugo = (body: string) => readableBody(body, { mdx: false, templates: "hugo" });
  const liquid = (body: string) => readableBody(body, { mdx: false, templates: "liquid" });
  const nunjucks = (body: string) => readableBody(body, { mdx: false, templates: "nunjucks" });

  it("never reaches the text: Hugo shortcodes keep their caption and title, a ref link its text, an escaped one shows as written", () => {
    const body = [
      "Au 30 juin 2026, la dette atteignait 38 100 milliards.",
      "",
      '{{< figure src="chart.png" title="Encours de la dette" caption="Source : Trésor" >}}',
      "",
      "{{% note %}}",
      "Une **note** de la rédaction.",
      "{{% /note %}}",
      "",
      "{{< youtube abc123 >}}",
      "",
      'Voir [l\'article sur la dette]({{< ref "dette/index.md" >}}) et ![le graphique]({{< relref "x" >}}).',
      "",
      '{{</* figure src="x" */>}} est la syntaxe échappée.',
      "",
      "Entre accolades {{ site.Title }} dans Hugo : du texte.",
    ].join("\n");
    const { text, dropped } = hugo(body);
    sameLines(body, text);
    expect(text).toContain("Encours de la dette — Source : Trésor");
    expect(text).toContain("Une **note** de la rédaction.");
    expect(text).toContain("Voir l'article sur la dette et le graphique.");
    expect(text).toContain('{{< figure src="x" >}} est la syntaxe échappée.');
    expect(text).toContain("{{ site.Title }}");
    expect(text.split(/\{\{[<%]/)).toHaveLength(2);
    expect(text).not.toMatch(/youtube|chart\.png|\/note|[>%]\}\}(?! est)/);
    // The shortcode that carries no text is named with its line; the paired note and the ref are not.
    expect(dropped).toEqual([{ line: 9, component: "{{< youtube abc123 >}}", template: true }]);
  });

  it("never reaches the text: Liquid's comments, outputs and tags go, raw and highlight stay as the page shows them", () => {
    const body = [
      "Le 5 mars 2026, la BCE a maintenu son taux à 2 %.",
      "",
      '{% include figure.html src="/img/taux.png" caption="Taux directeurs de la BCE" %}',
      "",
      "Abonnez-vous sur {{ site.url }}/newsletter/ pour recevoir {{- site.title -}}.",
      "",
      "{% comment %}",
      "Note interne : PRIVATE-NOTE à vérifier.",
      "{% endcomment %}",
      "",
      "{% raw %}Les gabarits s'écrivent {{ page.title }}.{% endraw %}",
      "",
      "{% highlight python %}",
      "taux = 2.0 < 3",
      "{% endhighlight %}",
      "",
      "{%- if site.url -%}Voir [le billet]({% post_url 2026-02-01-point %}) et [les archives]({{ '/archives/' | relative_url }}).{% endif %}",
      "{% capture secret %}CAPTURED{% endcapture %}{% assign x = 1 %}",
    ].join("\n");
    const { text, dropped } = liquid(body);
    sameLines(body, text);
    expect(text).toContain("Taux directeurs de la BCE");
    expect(text).toContain("Abonnez-vous sur /newsletter/ pour recevoir .");
    expect(text).toContain("Les gabarits s'écrivent {{ page.title }}.");
    expect(text).toContain("```python\ntaux = 2.0 < 3\n```");
    expect(text).toContain("Voir le billet et les archives.");
    expect(text).not.toMatch(/PRIVATE-NOTE|CAPTURED|\{%|site\.url|relative_url|post_url/);
    expect(dropped.map((d) => [d.line, d.component])).toEqual([
      [5, "{{ site.url }}"],
      [5, "{{- site.title -}}"],
      [17, "{{ '/archives/' | relative_url }}"],
    ]);
    // In Nunjucks, {# … #} is a comment too; in Liquid it is text.
    expect(nunjucks("A {# PRIVATE #} B {% year %}").text).toBe("A  B ");
    expect(liquid("A {# text #} B").text).toBe("A {# text #} B");
    // Without the generator's syntax named, braces are text.
    expect(md("A {{ x }} B").text).toBe("A {{ x }} B");
  });

  for (const flood of ["{{< a ", "{{% x %}}", "{% raw %}", "{% comment %}a", "{{ x ", "[a]({{ y }}", "{# ", "{{</* "]) {
    it(`reads 60 KB and 240 KB of ${JSON.stringify(flood)} in proportion (quadratic would be 16 times)`, () => {
      expectLinear(flood, (body) => {
        for (const read of [hugo, liquid, nunjucks])
          expect(read(body).text.split("\n")).toHaveLength(body.split("\n").length);
      });
    });
  }
});

describe("an MDX file that would not compile", () => {
  it("is named at each place MDX refuses: an element never closed, a closing tag that closes nothing, an HTML comment, a < before a digit or an address", () => {
    const body = [
      "Le 11 août 2026, l'inflation est restée <2 % selon [Eurostat](https://ec.europa.eu/eurostat).",
      "",
      "<!-- une note -->",
      "",
      "Voir <https://www.ecb.europa.eu> pour le détail.<br>",
      "",
      "<Tabs>",
      "```js",
      'const x = "<Tab>";',
      "```",
      "</Tabs>",
      "",
      '<Callout type="info">',
      "Une remarque sans fermeture.",
      "</Note>",
      "",
      'a < b et <Figure caption="x" />',
    ].join("\n");
    const { dropped } = mdx(body);
    expect(dropped.filter((d) => d.mdx).map((d) => [d.line, d.component])).toEqual([
      [1, "<2"],
      [3, "<!--"],
      [5, "<https://www.ecb.europa.eu>"],
      [5, "br"],
      [13, "Callout"],
      [15, "/Note"],
    ]);
    // The same text in a .md file compiles wherever Markdown is read: nothing to say.
    expect(md(body).dropped.filter((d) => d.mdx)).toEqual([]);
    // Closed elements, across fenced code too, compile.
    expect(mdx("<Tabs>\n\n```\n<x>\n```\n\n</Tabs>\n\n<br />\n").dropped).toEqual([]);
  });

  it("is a lint error naming the file and line, and the assembly still publishes what it reads", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const { loadPublication } = await import("../../core/inputs/publication.ts");
    const { editorialFindings } = await import("../../core/editorial/lint.ts");
    const { nodeFs } = await import("../../cli/runtime/node.ts");
    const { renameSync } = await import("node:fs");
    const pub = demoCopy();
    const md = `${pub}/content/articles/fr/spread-btp-bund-2026.md`;
    // MDX takes no HTML comment: the claim marker is an MDX comment there.
    editFile(
      md,
      (t) => `${t.replace(/<!-- (claim-id: [a-z-]+) -->/g, "{/* $1 */}")}\n<Callout>\nUne note jamais fermée.\n`,
    );
    renameSync(md, md.replace(/\.md$/, ".mdx"));
    editFile(
      `${pub}/risk.config.yaml`,
      (t) =>
        `${t}content:\n  articles:\n    fr: ["content/articles/fr/*.{md,mdx}"]\n    en: ["content/articles/en/*.md"]\n`,
    );
    const p = await loadPublication(nodeFs, pub);
    const findings = editorialFindings(p, "2026-11-21T10:00:00Z", (path) => `https://x.example${path}`);
    const refused = findings.filter((f) => f.code === "mdx-syntax");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ severity: "error", file: "content/articles/fr/spread-btp-bund-2026.mdx" });
    expect(refused[0]!.message).toMatch(/^<Callout> is never closed.*close it with <\/Callout>/);
    const lines = (await import("node:fs")).readFileSync(md.replace(/\.md$/, ".mdx"), "utf8").split("\n");
    expect(lines[refused[0]!.line! - 1]).toBe("<Callout>");
    // Published as read: the element's text stays.
    expect(p.articles.find((a) => a.slug === "spread-btp-bund-2026")!.body).toContain("Une note jamais fermée.");
  });
});
