import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { footnotesAsText } from "../../core/editorial/footnotes.ts";
import { markdownToPlain } from "../../core/editorial/plain.ts";
import { csvField } from "../../core/render/text.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { assembleInto, demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

/** The text a spreadsheet sees in a field, once CSV quoting is undone. */
const unquote = (field: string) => (field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field);

describe("CSV cells a spreadsheet would run", () => {
  it("neutralises text starting with =, +, -, @, a tab or a carriage return, and keeps numbers numbers", () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("-cmd")).toBe("'-cmd");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField("\tx")).toBe("'\tx");
    expect(csvField(-1.5)).toBe("-1.5");
    expect(csvField("nominal")).toBe("nominal");
    fc.assert(
      fc.property(fc.string(), (s) => {
        const seen = unquote(csvField(s));
        expect(/^[=+\-@\t\r]/.test(seen)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe("one-line fields of the corpus", () => {
  const pubWith = (f: (t: string) => string) => {
    const pub = join(tempDir("risk-text-"), "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const file = join(pub, "content/articles/fr/carry-trade-yen-boj.md");
    writeFileSync(file, f(readFileSync(file, "utf8")));
    return pub;
  };
  it("refuses a title with a line break (it would inject a section into llms-full.txt), naming file, line and field", () => {
    const pub = pubWith((t) => t.replace(/^title: .*$/m, 'title: "Titre\\n## Injected\\n- [x](javascript:alert(1))"'));
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/carry-trade-yen-boj\.md:2 \(field title\): .*remove line breaks/);
  });
  it("refuses NUL, BEL and ESC in a description", () => {
    for (const c of ["\\u0000", "\\u0007", "\\u001b"]) {
      const pub = pubWith((t) => t.replace(/^description: "/m, `description: "x${c}`));
      const r = runCli(["lint", "--publication", pub]);
      expect(r.status, c).toBe(3);
      expect(r.stderr).toMatch(/field description/);
    }
  });
});

describe("every text of the registries, the methodologies and the config", () => {
  /** A copy of the demo with `file` (relative to it) edited by `f`. */
  const pubWithFile = (file: string, f: (t: string) => string) => {
    const pub = join(tempDir("risk-text-"), "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    writeFileSync(join(pub, file), f(readFileSync(join(pub, file), "utf8")));
    return pub;
  };
  const injected = '"x\\r\\n## INJECTED HEADING\\n- [pwn](javascript:alert(1))"';
  it("refuses a line break, ESC or a bidirectional override in a one-line field, naming file, line and field", () => {
    const cases: [string, (t: string) => string, RegExp][] = [
      [
        "content/glossary.yaml",
        (t) => t.replace(/^ {2}category: taux$/m, `  category: ${injected}`),
        /glossary\.yaml:8 \(field 0\.category\): .*remove line breaks/,
      ],
      [
        "content/editorial/changelog.yaml",
        (t) => t.replace(/^ {2}summary: >-\n(?: {4}.*\n)+/m, '  summary: "x\\u001b[31m"\n'),
        /changelog\.yaml:5 \(field 0\.summary\)/,
      ],
      [
        "content/methodologies/stress-financier-us.yaml",
        (t) => t.replace(/^ {2}title: .*$/m, '  title: "Une valeur \\u202Enormalisée"'),
        /stress-financier-us\.yaml:14 \(field scaleCaveat\.title\)/,
      ],
      [
        "content/methodologies/stress-financier-us.yaml",
        (t) => t.replace(/^ {2}- name: .*$/m, `  - name: ${injected}`),
        /stress-financier-us\.yaml:24 \(field sources\.0\.name\)/,
      ],
      [
        "risk.config.yaml",
        (t) => t.replace(/^ {2}title: .*$/m, '  title: "Lire \\u2066un niveau"'),
        /risk\.config\.yaml:26 \(field riskBandScaleCaveat\.title\)/,
      ],
      [
        "content/claim-reviews.yaml",
        (t) => t.replace(/^ {4}reviewedBy: .*$/m, `    reviewedBy: ${injected}`),
        /claim-reviews\.yaml:11 \(field entries\.0\.reviewedBy\)/,
      ],
    ];
    for (const [file, edit, message] of cases) {
      const pub = pubWithFile(file, edit);
      const r = runCli(["lint", "--publication", pub]);
      expect(r.status, `${file}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(message);
    }
  });
  it("refuses a bidirectional override or ESC in a text of several lines, naming file, line and field", () => {
    const cases: [string, (t: string) => string, RegExp][] = [
      [
        "content/articles/fr/carry-trade-yen-boj.md",
        (t) => t.replace(/^description: "/m, 'description: "\\u202E'),
        /carry-trade-yen-boj\.md:\d+ \(field description\): .*bidirectional overrides/,
      ],
      [
        "content/glossary.yaml",
        (t) => t.replace(/^ {2}definition: >-\n {4}/m, "  definition: >-\n    \u2066"),
        /glossary\.yaml:\d+ \(field 0\.definition\)/,
      ],
      [
        "content/primary-sources.yaml",
        (t) => t.replace(/^ {2}description: >-\n {4}/m, "  description: >-\n    \u202d"),
        /primary-sources\.yaml:6 \(field 0\.description\)/,
      ],
      [
        "content/editorial/protocol.yaml",
        (t) => t.replace(/^ {4}title: La source primaire d’abord$/m, '    title: "La source\\u001b[2J primaire"'),
        /protocol\.yaml:8 \(field principles\.0\.title\): .*U\+001B/,
      ],
      [
        "content/glossary.yaml",
        (t) => t.replace(/^ {4}intuition: >-\n {6}/m, "    intuition: >-\n      \u2067"),
        /glossary\.yaml:\d+ \(field \d+\.atlas\.intuition\): .*U\+2067/,
      ],
    ];
    for (const [file, edit, message] of cases) {
      const pub = pubWithFile(file, edit);
      const r = runCli(["lint", "--publication", pub]);
      expect(r.status, `${file}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(message);
    }
  });
  it("refuses a config name, attribution or license too long for the head of llms.txt, naming its line", () => {
    for (const [key, line] of [
      ["name", 1],
      ["license", 12],
      ["attribution", 14],
    ] as const) {
      const pub = pubWithFile("risk.config.yaml", (t) =>
        t.replace(new RegExp(`^${key}: .*$`, "m"), `${key}: "${"x".repeat(70_000)}"`),
      );
      const r = runCli(["lint", "--publication", pub]);
      expect(r.status, `${key}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(new RegExp(`risk\\.config\\.yaml:${line} \\(field ${key}\\)`));
    }
  });
});

describe("llms.txt stays under 64 KB whatever one document holds", () => {
  it("shortens a 100 KB description to one line of the map instead of failing the assembly", async () => {
    const { cpSync: cp, readFileSync: read, writeFileSync: write } = await import("node:fs");
    const pub = join(tempDir("risk-llms-"), "pub");
    cp(join(ROOT, "demo"), pub, { recursive: true });
    const file = join(pub, "content/articles/fr/carry-trade-yen-boj.md");
    write(file, read(file, "utf8").replace(/^description: .*$/m, `description: "${"mot ".repeat(25_000)}"`));
    const r = assembleInto(pub, "2026-11-21T10:00:00Z");
    expect(r.status, r.stderr).toBe(0);
    const llms = read(`${r.site}/llms.txt`);
    expect(llms.byteLength).toBeLessThan(64 * 1024);
    expect(llms.toString()).toMatch(/Carry trade sur le yen[^\n]*: 2026-08-18\. (mot ){10}[^\n]*…\n/);
  });
});

describe("footnotes in an article", () => {
  it("never reach a claim, llms-full.txt, the evidence graph or the search index as [^label] markup", () => {
    const pub = join(tempDir("risk-text-"), "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const notes = [
      "",
      "Note[^1].",
      "",
      "Le solde du compte du Trésor est tombé à 722 milliards de dollars le 30 septembre 2026[^bce].",
      "",
      "[^1]: La note dit que le chiffre a été révisé le 3 avril 2026.",
      "[^bce]: Voir https://www.ecb.europa.eu/press/financial-stability-publications/fsr/html/index.fr.html du 3 mars 2026.",
      "",
    ].join("\n");
    for (const [lang, slug] of [
      ["fr", "carry-trade-yen-boj"],
      ["en", "yen-carry-trade-boj"],
    ]) {
      const file = join(pub, `content/articles/${lang}/${slug}.md`);
      writeFileSync(file, readFileSync(file, "utf8").replace("\n## ", `${notes}\n## `));
    }
    const r = assembleInto(pub, "2026-11-21T12:00:00Z");
    expect(r.status, r.stderr).toBe(0);
    const site = r.site;
    const read = (path: string) => readFileSync(join(site, path), "utf8");
    for (const path of [
      "/api/v1/claims.json",
      "/api/v1/claims.ndjson",
      "/api/v1/evidence-graph.json",
      "/llms-full.txt",
      "/llms-full-en.txt",
      "/api/v1/search-index.json",
    ])
      expect(read(path), path).not.toMatch(/\[\^|\^1\b|\^bce/);
    const claims = JSON.parse(read("/api/v1/claims.json")).claims as {
      articleSlug: string;
      claim: string;
      references: { href: string }[];
    }[];
    expect(claims.some((c) => /la note dit|^voir /i.test(c.claim))).toBe(false);
    const called = claims.find((c) => c.claim.startsWith("Le solde du compte du Trésor"));
    expect(called?.references.map((x) => x.href)).toContain(
      "https://www.ecb.europa.eu/press/financial-stability-publications/fsr/html/index.fr.html",
    );
    const full = read("/llms-full.txt");
    expect(full).toContain("Note (note 1).");
    expect(full).toContain("le 30 septembre 2026 (note 2).");
    expect(full).toContain("Note 1 : La note dit que le chiffre a été révisé le 3 avril 2026.");
    expect(full).toContain("Note 2 : Voir https://www.ecb.europa.eu/");
    expect(read("/llms-full-en.txt")).toContain("Note 1: La note dit");
  });
});

describe("footnote markup in code", () => {
  const body = [
    "Texte[^a] et `x[^a]` en ligne.",
    "",
    "    indenté x[^a]",
    "    [^a]: pas une note",
    "",
    "````markdown",
    "```",
    "[^a]: dans la clôture",
    "````",
    "",
    "~~~",
    "```",
    "~~~",
    "",
    "Encore après[^a].",
    "",
    "[^a]: La note.",
  ].join("\n");

  it("stays as written in llms-full, and no call or definition outside code is left raw", () => {
    const text = footnotesAsText(body, "fr");
    expect(text.split("\n")).toEqual([
      "Texte (note 1) et `x[^a]` en ligne.",
      "",
      "    indenté x[^a]",
      "    [^a]: pas une note",
      "",
      "````markdown",
      "```",
      "[^a]: dans la clôture",
      "````",
      "",
      "~~~",
      "```",
      "~~~",
      "",
      "Encore après (note 1).",
      "",
      "Note 1 : La note.",
    ]);
  });

  it("stays as written in the search index, whose prose keeps no call", () => {
    const plain = markdownToPlain(body);
    expect(plain).toContain("x[^a] en ligne");
    expect(plain).toContain("indenté x[^a] [^a]: pas une note");
    expect(plain).toMatch(/^Texte et /);
    expect(plain).toMatch(/Encore après \. La note\.$/);
  });
});

describe("a footnote label holding a control character or a bidirectional override", () => {
  it("stays one label through body cleaning: no [^ or ^a reaches llms-full or the search index", async () => {
    const { readableBody } = await import("../../core/editorial/markup.ts");
    const { parseBlocks } = await import("../../core/claims/markdown.ts");
    for (const odd of ["\u202e", "\u0007", "\f"]) {
      const body = `Texte[^a${odd}b].\n\n[^a${odd}b]: Note ici.\n`;
      const clean = readableBody(body, { mdx: false }).text;
      expect(footnotesAsText(clean, "fr")).toBe("Texte (note 1).\n\nNote 1 : Note ici.\n");
      const plain = markdownToPlain(clean);
      expect(plain).toBe("Texte . Note ici.");
      expect(parseBlocks(clean).footnotes.size).toBe(1);
    }
  });
});

describe("a footnote defined twice", () => {
  it("is written once in llms-full, with its first definition, as the claims read it", () => {
    const body = "Texte[^1].\n\n[^1]: Première.\n[^1]: Seconde.\n\n[^1]: Troisième,\n    sur deux lignes.\n\nFin.\n";
    expect(footnotesAsText(body, "fr")).toBe("Texte (note 1).\n\nNote 1 : Première.\n\n\n\n\nFin.\n");
  });
});

describe("corpus text in the text corpora and pages", () => {
  const REPO = "content/articles/fr/liquidite-bancaire-repo.md";

  it("cuts a long title or claim between characters, never inside an emoji", () => {
    const pub = demoCopy();
    const long = `${"a".repeat(598)}\u{1F600}${"b".repeat(10)}`;
    editFile(join(pub, REPO), (t) => t.replace(/^title: .*$/m, `title: "${long}"`));
    // A claim sentence of over 400 characters whose cut falls inside an emoji, and whose
    // manifest title (117 characters) does too.
    const claim = `Le 3 mars 2026, l’encours atteignait 12 milliards de dollars ${"x".repeat(54)}\u{1F600}${"y".repeat(400)} selon [le Trésor](https://home.treasury.gov/data).`;
    editFile(join(pub, REPO), (t) =>
      t.replace("\n## La fin de trimestre", `\n<!-- claim-id: long -->\n${claim}\n\n## La fin de trimestre`),
    );
    const r = assembleInto(pub, "2026-11-27T10:00:00Z");
    const site = r.site;
    expect(r.status, r.stderr).toBe(0);
    const llms = readFileSync(join(site, "llms.txt"), "utf8");
    expect(llms).toContain(`${"a".repeat(598)}…`);
    expect(llms.isWellFormed()).toBe(true);
    expect(readFileSync(join(site, "api/v1/claims.json"), "utf8")).toContain("y…");
  });

  it("keeps a title's final backslash inside its link, and reduces every registry text as a title is", () => {
    const pub = demoCopy();
    editFile(join(pub, REPO), (t) =>
      t
        .replace(/^title: .*$/m, 'title: "Liquidité bancaire \\\\"')
        .replace(/^description: .*$/m, 'description: "Cliquez ](javascript:alert(1)) ici."'),
    );
    editFile(join(pub, "content/methodologies/stress-financier-us.yaml"), (t) =>
      t.replace(
        "  Indicateur composite",
        "  Voir [la note](javascript:alert(2)) <img src=x onerror=alert(3)> Indicateur composite",
      ),
    );
    editFile(join(pub, "content/glossary.yaml"), (t) =>
      t.replace(/name: Taux directeur/, 'name: "Taux directeur [clic](javascript:alert(4))"'),
    );
    // A lone carriage return ends a line for a Markdown reader: the heading after it stays nested.
    editFile(join(pub, REPO), (t) =>
      t.replace("\n## La fin de trimestre", "\nParagraphe.\r# Titre injecté\r\rTexte.\n\n## La fin de trimestre"),
    );
    // Escaped markup in a claim stays text.
    editFile(join(pub, REPO), (t) =>
      t.replace(
        "\n## La fin de trimestre",
        "\n<!-- claim-id: ent -->\nLe 3 mars 2026, l’encours atteignait 12 milliards de dollars, voir &lt;img src=x onerror=alert(5)&gt; selon [le Trésor](https://home.treasury.gov/data).\n\n## La fin de trimestre",
      ),
    );
    const r = assembleInto(pub, "2026-11-27T10:00:00Z");
    const site = r.site;
    expect(r.status, r.stderr).toBe(0);
    const llms = readFileSync(join(site, "llms.txt"), "utf8");
    const full = readFileSync(join(site, "llms-full.txt"), "utf8");
    // The label's backslash is doubled: the link closes where it should, and the description's
    // "](javascript:…)" after it is text.
    expect(llms).toContain("- [Liquidité bancaire \\\\](https://");
    for (const text of [llms, full]) {
      expect(text).not.toContain("[la note](javascript:");
      expect(text).not.toContain("[clic](javascript:");
      expect(text).not.toMatch(/<img/);
    }
    expect(full).not.toMatch(/^# Titre injecté/m);
    expect(full).toMatch(/Affirmation liquidite-bancaire-repo#ent .*&lt;img src=x onerror=alert\(5\)>/);
  });

  it("drops noncharacters from the pages", () => {
    const pub = demoCopy();
    editFile(join(pub, "risk.config.yaml"), (t) =>
      t.replace("label: { fr: Stress financier US", "label: { fr: Stress\uFFFE financier US"),
    );
    const r = assembleInto(pub, "2026-11-27T10:00:00Z");
    const site = r.site;
    expect(r.status, r.stderr).toBe(0);
    const pages = readdirSync(site, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".html"));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(readFileSync(join(site, page), "utf8"), page).not.toContain("\uFFFE");
  });
});
