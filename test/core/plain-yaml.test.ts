import fc from "fast-check";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { readPlainYaml, readPlainYamlBlocks } from "../../core/inputs/plain-yaml.ts";

/** What the yaml library makes of `text`, as the frontmatter reader calls it; undefined when it refuses it. */
function withYaml(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) return undefined;
  return doc.toJS({ maxAliasCount: 100 });
}

// Ordinary text, and pieces that make YAML mean something other than a plain string.
const ordinary = [
  "a",
  "b",
  "Z",
  "é",
  "’",
  "l'écart",
  " ",
  "C#",
  "x:y",
  "2026-03-01",
  "x-1",
  "(2026)",
  "à 3,1 %",
  "25",
  "0.5",
];
const hostile = [
  "-0",
  "-12.50",
  "007",
  "1e3",
  "+1",
  ".5",
  "1.",
  "0x1F",
  "0o17",
  "1234567890123456789",
  ".inf",
  "  ",
  ":",
  ": ",
  "#",
  " #",
  "-",
  "- ",
  "'",
  "''",
  '"',
  "\\",
  "[",
  "]",
  "{",
  "}",
  ",",
  ", ",
  "&",
  "*",
  "!",
  "|",
  ">",
  "%",
  "@",
  "`",
  "?",
  "~",
  "0",
  "1",
  "07",
  "0o7",
  "0x1F",
  ".",
  ".5",
  "1e3",
  "+",
  ".inf",
  ".nan",
  "true",
  "False",
  "NULL",
  "null",
  "yes",
  "2026-03-01T10:00:00Z",
  "\t",
  "\r",
  "\u0085",
  "\u2028",
  "\ufeff",
  "\u00a0",
  "\u0000",
  "\u007f",
  "\ud800",
  "😀",
  "---",
  "...",
];
const atom = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ordinary) },
  { weight: 1, arbitrary: fc.constantFrom(...hostile) },
);
const word = fc.array(atom, { minLength: 0, maxLength: 5 }).map((parts) => parts.join(""));
const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("title", "tags", "date", "draft", "x-y", "_k") },
  { weight: 1, arbitrary: fc.constantFrom("true", "null", "__proto__", "1", "a b", "Title", "é") },
);
const quoted = fc.oneof(
  word.map((w) => `"${w}"`),
  word.map((w) => `'${w}'`),
);
const scalar = fc.oneof(word, quoted);
const flow = fc.array(scalar, { maxLength: 4 }).map((items) => `[${items.join(", ")}]`);
// A flow mapping on one line, with the spacing and separators people write and some they should not.
const flowMap = fc
  .tuple(
    fc.array(fc.tuple(key, fc.constantFrom(": ", ":  ", ":", " : "), scalar), { maxLength: 4 }),
    fc.constantFrom("", " ", "  "),
    fc.constantFrom("", " ", "  "),
    fc.constantFrom(", ", ",", " , ", ", ,", ",  "),
    fc.constantFrom("", "", "", ",", " ,"),
  )
  .map(
    ([entries, open, close, comma, last]) =>
      `{${open}${entries.map(([k, colon, v]) => `${k}${colon}${v}`).join(comma)}${last}${close}}`,
  );
const indent = fc.constantFrom("", " ", "  ", "    ");
const block = fc
  .tuple(indent, fc.array(fc.tuple(fc.constantFrom("- ", "-", "-  "), scalar), { minLength: 1, maxLength: 4 }))
  .map(([pad, items]) => items.map(([dash, v]) => `\n${pad}${dash}${v}`).join(""));
const entry = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(key, scalar).map(([k, v]) => `${k}: ${v}`) },
  { weight: 2, arbitrary: fc.tuple(key, flow).map(([k, v]) => `${k}: ${v}`) },
  { weight: 4, arbitrary: fc.tuple(key, flowMap).map(([k, v]) => `${k}: ${v}`) },
  { weight: 2, arbitrary: fc.tuple(key, block).map(([k, v]) => `${k}:${v}`) },
  { weight: 1, arbitrary: key.map((k) => `${k}:`) },
  { weight: 1, arbitrary: fc.constantFrom("", "# note", "  # indented note", "  continued", "---", "- stray") },
  { weight: 1, arbitrary: word },
);
const frontmatter = fc.array(entry, { minLength: 1, maxLength: 6 }).map((lines) => lines.join("\n"));

describe("the plain frontmatter reader", () => {
  it("reads what it accepts exactly as the yaml library does, and accepts nothing the library refuses", () => {
    let taken = 0;
    let mappings = 0;
    fc.assert(
      fc.property(frontmatter, (text) => {
        const plain = readPlainYaml(text);
        if (plain === undefined) return;
        taken++;
        if (text.includes("{")) mappings++;
        expect(withYaml(text)).toStrictEqual(plain);
      }),
      { numRuns: 20_000 },
    );
    // The comparison means something only if the generated texts often take the fast path.
    expect(taken).toBeGreaterThan(2_000);
    expect(mappings).toBeGreaterThan(150);
  });

  it("reads the frontmatter documents usually have, so that the fast path is taken", () => {
    const text = [
      'title: "Carry trade sur le yen : ce qui a changé (2026)"',
      "description: Ce niveau reste inférieur au pic de 2017, à 983,1 TWh.",
      "summary: L’écart s’est élargi de 173 points de base en avril.",
      "date: 2025-02-12",
      "updated: 2025-03-20T08:30:00+02:00",
      "draft: false",
      "tags:",
      "  - trésor",
      "  - taux",
      "topics: [dette-publique, banques-centrales]",
      "translationOf: 'l''écart'",
      "image:",
    ].join("\n");
    const expected = {
      title: "Carry trade sur le yen : ce qui a changé (2026)",
      description: "Ce niveau reste inférieur au pic de 2017, à 983,1 TWh.",
      summary: "L’écart s’est élargi de 173 points de base en avril.",
      date: "2025-02-12",
      updated: "2025-03-20T08:30:00+02:00",
      draft: false,
      tags: ["trésor", "taux"],
      topics: ["dette-publique", "banques-centrales"],
      translationOf: "l'écart",
      image: null,
    };
    expect(readPlainYaml(text)).toStrictEqual(expected);
    expect(withYaml(text)).toStrictEqual(expected);
  });

  it("leaves to the yaml library what it does not take: numbers other than plain decimals, escapes, nesting, duplicates, comments after a value", () => {
    expect(readPlainYaml("weight: 10\nscale: -2.5")).toStrictEqual({ weight: 10, scale: -2.5 });
    for (const text of [
      "weight: 1e3",
      "weight: 010",
      'title: "a \\" b"',
      "author:\n  name: x",
      "title: a\ntitle: b",
      "title: a # note",
      "title: first line\n  second line",
      "summary: >\n  folded",
      "tags: [a, [b]]",
      "title: &x a\nother: *x",
      "---",
      "",
    ])
      expect(readPlainYaml(text), text).toBeUndefined();
  });
});

// Nested documents: mappings and lists by indentation, strings that run on over deeper lines
// (plain or double-quoted), block scalars, and the lines that break them.
const runOn = fc
  .tuple(word, fc.array(fc.tuple(fc.constantFrom(" ", "  ", "    "), word), { minLength: 1, maxLength: 3 }))
  .map(([first, more]) => ({ first, more }));
const valueAt = (pad: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: scalar.map((v) => ` ${v}`) },
    { weight: 1, arbitrary: flow.map((v) => ` ${v}`) },
    { weight: 3, arbitrary: flowMap.map((v) => ` ${v}`) },
    {
      weight: 2,
      arbitrary: runOn.map(({ first, more }) => ` ${first}${more.map(([p, w]) => `\n${pad}${p}${w}`).join("")}`),
    },
    {
      weight: 1,
      arbitrary: runOn.map(({ first, more }) => ` "${first}${more.map(([p, w]) => `\n${pad}${p}${w}`).join("")}"`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(">", ">-", "|", "|-", ">+", "|2"),
          fc.constantFrom("  ", "   "),
          fc.array(word, { minLength: 0, maxLength: 3 }),
        )
        .map(([h, p, ws]) => ` ${h}${ws.map((w) => `\n${pad}${p}${w}`).join("")}`),
    },
  );
const nestedDoc: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    fc
      .array(fc.tuple(key, fc.oneof(valueAt(""), fc.constant(":"))), { minLength: 1, maxLength: 3 })
      .map((es) => es.map(([k, v]) => (v === ":" ? `${k}:` : `${k}:${v}`)).join("\n")),
    fc
      .array(
        fc.oneof(
          valueAt("  "),
          tie("node").map((n) => ` ${n.replace(/\n/g, "\n  ")}`),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((items) => items.map((v) => `-${v}`).join("\n")),
    fc
      .array(fc.tuple(key, tie("node"), fc.constantFrom("  ", "    ", "")), { minLength: 1, maxLength: 3 })
      .map((es) => es.map(([k, n, p]) => `${k}:\n${p}${n.replace(/\n/g, `\n${p}`)}`).join("\n")),
    fc.constantFrom("", "# note", "  # indented", "- ", "---", "a: &x 1", "k: 'x'"),
  ),
})).node;
const withStrayLines = fc
  .tuple(
    nestedDoc,
    fc.array(fc.tuple(fc.nat(), fc.constantFrom("", "# c", "   ", "  x", "- y", "k: v")), { maxLength: 2 }),
  )
  .map(([doc, strays]) => {
    const lines = doc.split("\n");
    for (const [at, line] of strays) lines.splice(at % (lines.length + 1), 0, line);
    return lines.join("\n");
  });

describe("the plain nested YAML reader", () => {
  it("reads what it accepts exactly as the yaml library does, and accepts nothing the library refuses", () => {
    let taken = 0;
    let nested = 0;
    let mappings = 0;
    fc.assert(
      fc.property(withStrayLines, (text) => {
        const plain = readPlainYamlBlocks(text);
        if (plain === undefined) return;
        taken++;
        if (/\n /.test(text)) nested++;
        if (text.includes("{")) mappings++;
        expect(withYaml(text), text).toStrictEqual(plain);
      }),
      { numRuns: 20_000 },
    );
    expect(taken).toBeGreaterThan(2_000);
    expect(nested).toBeGreaterThan(1_000);
    expect(mappings).toBeGreaterThan(60);
  });

  it("reads the flow mappings of the configuration and the claim reviews, and leaves the others to the library", () => {
    const text = [
      "instruments:",
      "  us:",
      "    label: { fr: Stress financier US, en: US financial stress }",
      "reviews:",
      '  - evidenceLocator: { type: table, value: "Debt to the Penny, record date 2026-06-30" }',
      "    kind: fait",
      "  - empty: {}",
    ].join("\n");
    expect(readPlainYamlBlocks(text)).toStrictEqual(withYaml(text));
    expect(readPlainYamlBlocks(text)).toStrictEqual({
      instruments: { us: { label: { fr: "Stress financier US", en: "US financial stress" } } },
      reviews: [
        { evidenceLocator: { type: "table", value: "Debt to the Penny, record date 2026-06-30" }, kind: "fait" },
        { empty: {} },
      ],
    });
    for (const value of [
      "{ a: [b] }",
      "{ a: { b: c } }",
      "{ a: b, a: c }",
      "{ a: }",
      "{ a: b, }",
      "{ a: 1e3 }",
      "{ a: b",
      "{ a: x # c }",
    ])
      expect(readPlainYamlBlocks(`k: ${value}`), value).toBeUndefined();
  });

  it("leaves a document nested deeper than registries are to the library, without running out of stack", () => {
    const deep = (n: number) => Array.from({ length: n }, (_, k) => `${" ".repeat(k * 2)}k${k}:`).join("\n") + " x";
    expect(readPlainYamlBlocks(deep(20))).toStrictEqual(withYaml(deep(20)));
    expect(readPlainYamlBlocks(deep(20_000))).toBeUndefined();
    const list = (n: number) => Array.from({ length: n }, (_, k) => `${" ".repeat(k * 2)}-`).join("\n") + " x";
    expect(readPlainYamlBlocks(list(20_000))).toBeUndefined();
  });

  it("reads a glossary entry as registries write them, so that the fast path is taken", () => {
    const text = [
      "- slug: spread-high-yield",
      "  sigle: HY",
      "  name: Spread high yield",
      '  definition: "Écart de rendement entre les obligations notées sous BBB- : exprimé',
      '    en points de base."',
      "  description: >-",
      "    Ce que les investisseurs exigent en plus ; il s’élargit",
      "    vite quand l’appétit recule.",
      "  atlas:",
      "    whyNow: L’écart a bondi à 412 points de base le 9 avril 2026 avant de",
      "      se resserrer ; les titres notés CCC restent le maillon faible.",
      "    related:",
      "      - ecart-option-ajuste",
      "    articles:",
      "      - label: Crédit à haut rendement",
      "        href: /articles/spreads/",
      "  guide: null",
    ].join("\n");
    const value = readPlainYamlBlocks(text);
    expect(value).toStrictEqual(withYaml(text));
    expect((value as { atlas: { whyNow: string } }[])[0]!.atlas.whyNow).toBe(
      "L’écart a bondi à 412 points de base le 9 avril 2026 avant de se resserrer ; les titres notés CCC restent le maillon faible.",
    );
  });
});
