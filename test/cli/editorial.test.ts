import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../cli/exit.ts";
import { join } from "node:path";
import { ROOT, runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

const ARTICLE = "content/articles/fr/carry-trade-yen-boj.md";

/** A demo copy whose reviewed claim `hausse-taux-boj` lost its marker: its review is an orphan. */
function orphanedReview(): string {
  const pub = demoCopy();
  editFile(`${pub}/${ARTICLE}`, (t) => t.replace("<!-- claim-id: hausse-taux-boj -->\n", ""));
  return pub;
}

describe("risk-cli lint", () => {
  it("passes the demo, listing its stale translation as a warning and writing nothing", () => {
    const cwd = tempDir("risk-lint-");
    const r = runCli(["lint", "--json"], { cwd });
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, counts: { articles: 7, errors: 0, reviewedClaims: 3 } });
    expect(report.surfacesChecked).toBeGreaterThanOrEqual(12);
    const stale = report.findings.find((f: { code: string }) => f.code === "stale-translation");
    expect(stale).toMatchObject({
      severity: "warning",
      file: "content/articles/en/btp-bund-spread-2026.md",
      field: "translatedFrom",
    });
    expect(stale.line).toBeGreaterThan(1);
    expect(runCli(["lint"], { cwd }).stderr).toMatch(
      /^warning: content\/articles\/en\/btp-bund-spread-2026\.md:\d+ \(field translatedFrom\)/m,
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("fails with exit 1 on a review whose claim is gone, naming the file, line and field", () => {
    const pub = orphanedReview();
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(1);
    const line =
      readFileSync(`${pub}/content/claim-reviews.yaml`, "utf8")
        .split("\n")
        .findIndex((l) => l.includes("carry-trade-yen-boj#hausse-taux-boj")) + 1;
    expect(r.stderr).toContain(
      `error: content/claim-reviews.yaml:${line} (field entries[1].claimId): the review of "carry-trade-yen-boj#hausse-taux-boj" matches no claim`,
    );
  });

  it("suggests the claim-id marker in the form the article's file takes: an MDX comment in .mdx, an HTML comment in .md", () => {
    const pub = orphanedReview();
    editFile(`${pub}/${ARTICLE}`, (t) => t.replace(/^Le /m, "<!-- claim-id: Mauvais_Nom -->\nLe "));
    const md = runCli(["lint", "--publication", pub]);
    expect(md.stderr).toContain("restore the <!-- claim-id: hausse-taux-boj --> marker");
    expect(md.stderr).toContain("<!-- claim-id: Mauvais_Nom --> does not name a claim");
    expect(md.stderr).toContain("as <!-- claim-id: mauvais-nom -->");
    // The same article as MDX, read through the content globs.
    editFile(
      `${pub}/risk.config.yaml`,
      (t) =>
        `${t}content:\n  articles:\n    fr: ["content/articles/fr/*.{md,mdx}"]\n    en: ["content/articles/en/*.md"]\n`,
    );
    const mdx = `${pub}/${ARTICLE.replace(/\.md$/, ".mdx")}`;
    writeFileSync(
      mdx,
      readFileSync(`${pub}/${ARTICLE}`, "utf8").replace(
        "<!-- claim-id: Mauvais_Nom -->",
        "{/* claim-id: Mauvais_Nom */}",
      ),
    );
    rmSync(`${pub}/${ARTICLE}`);
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("restore the {/* claim-id: hausse-taux-boj */} marker");
    expect(r.stderr).toContain(
      "carry-trade-yen-boj.mdx:21 (field claim-id): {/* claim-id: Mauvais_Nom */} does not name a claim",
    );
    expect(r.stderr).toContain("as {/* claim-id: mauvais-nom */}");
    expect(r.stderr).not.toContain("<!--");
  });

  it("stops with the input exit code on a broken input file", () => {
    const pub = demoCopy();
    editFile(`${pub}/content/glossary.yaml`, (t) => t.replace(/^- slug: /m, "- slug: [oops\n"));
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(EXIT.E_INPUT);
    expect(r.stderr).toMatch(/glossary\.yaml:\d+/);
  });
});

describe("risk-cli lint and documents it cannot read", () => {
  it("names a file saved in Latin-1 among the other bad documents, in one run", () => {
    const pub = demoCopy();
    const fr = `${pub}/content/articles/fr`;
    writeFileSync(
      `${fr}/latin1.md`,
      Buffer.concat([
        Buffer.from('---\ntitle: "Cr'),
        Buffer.from([0xe9]),
        Buffer.from('dit\"\ndescription: x\ndate: 2026-03-03\n---\nTexte.\n'),
      ]),
    );
    writeFileSync(`${fr}/sans-description.md`, "---\ntitle: T\ndate: 2026-03-12\n---\nTexte.\n");
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(EXIT.E_INPUT);
    expect(r.stderr).toContain("content/articles/fr/latin1.md:2: it is not valid UTF-8; save it as UTF-8");
    expect(r.stderr).toContain("content/articles/fr/sans-description.md (field description): the field is required");
    expect(r.stderr).toContain("(and 1 more document(s) that cannot be read, named above)");
  });

  it("names every bad document in one run, each with what to do, then exits 3", () => {
    const pub = demoCopy();
    const fr = `${pub}/content/articles/fr`;
    writeFileSync(`${fr}/vide.md`, "");
    writeFileSync(`${fr}/clotures.md`, "---\n---\nTexte.\n");
    writeFileSync(`${fr}/sans-description.md`, "---\ntitle: T\ndate: 2026-03-12\n---\nTexte.\n");
    writeFileSync(`${fr}/description-vide.md`, '---\ntitle: T\ndescription: ""\ndate: 2026-03-12\n---\nTexte.\n');
    writeFileSync(`${fr}/profond.md`, `---\ntitle: ${"[".repeat(5000)}\ndate: 2026-03-12\n---\nTexte.\n`);
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(EXIT.E_INPUT);
    for (const file of ["vide.md:1", "clotures.md", "sans-description.md", "description-vide.md:3", "profond.md:2"])
      expect(r.stderr).toContain(`Cannot read content/articles/fr/${file}`);
    expect(r.stderr).toContain("description-vide.md:3 (field description): the field is empty; write its text");
    expect(r.stderr).toContain("profond.md:2: invalid YAML: its lists or mappings are nested too deeply");
    expect(r.stderr).not.toMatch(/Too small|call stack/);
    expect(r.stderr).toContain("(and 4 more document(s) that cannot be read, named above) [E_INPUT]");
    const json = JSON.parse(runCli(["lint", "--json", "--publication", pub]).stdout);
    expect(json.documents).toHaveLength(5);
  });

  it("is described as it behaves, in lint --help, the README and the exit codes: every bad document named in one run", () => {
    const help = runCli(["lint", "--help"]).stdout.replace(/\s+/g, " ");
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const row = readme.split("\n").find((l) => l.startsWith("| `risk-cli lint "))!;
    for (const [where, text] of [
      ["lint --help", help],
      ["README", row],
    ] as const) {
      expect(text, where).not.toContain("on the first bad one");
      expect(text, where).toContain("every article and guide that cannot be read is named in one run");
    }
    // The exit code lint gives for its errors is in the README's table, as in --help.
    expect(runCli(["--help"]).stdout).toContain("1 verification failed or lint found errors");
    expect(readme).toMatch(/^\| 1 \| `lint` found errors, /m);
  });

  it("warns on a document dated after today and exits 0, as docs/inputs.md and the README say", () => {
    const pub = demoCopy();
    editFile(`${pub}/content/articles/fr/carry-trade-yen-boj.md`, (t) => t.replace(/^date: .*$/m, "date: 2099-01-01"));
    const r = runCli(["lint", "--json", "--publication", pub]);
    expect(r.status, r.stderr).toBe(0);
    const future = JSON.parse(r.stdout).findings.filter((f: { code: string }) => f.code === "future-date");
    expect(future).toMatchObject([{ severity: "warning", file: "content/articles/fr/carry-trade-yen-boj.md" }]);
    const doc = readFileSync(join(ROOT, "docs/inputs.md"), "utf8").replace(/\s+/g, " ");
    expect(doc).toContain("dated after today (`future-date`, a warning: `lint` still exits 0)");
    expect(doc).not.toMatch(/fails when[^.]*dated after today/);
  });

  it("gives the line of a future date and of a translation naming no French original", () => {
    const pub = demoCopy();
    const en = `${pub}/content/articles/en/us-debt-ceiling-2026.md`;
    editFile(en, (t) =>
      t
        .replace(/^date: .*$/m, "date: 2099-01-01")
        .replace(/^updated: .*\n/m, "")
        .replace(/^translationOf: .*$/m, ""),
    );
    let r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(EXIT.E_INPUT);
    expect(r.stderr).toContain("Cannot read content/articles/en/us-debt-ceiling-2026.md:1 (field translationOf)");
    editFile(en, (t) => t.replace("---\n", "---\ntranslationOf: dette-americaine-plafond-2026\n"));
    r = runCli(["lint", "--json", "--publication", pub]);
    const future = JSON.parse(r.stdout).findings.find((f: { code: string }) => f.code === "future-date");
    const line = readFileSync(en, "utf8").split("\n").indexOf("date: 2099-01-01") + 1;
    expect(future).toMatchObject({ file: "content/articles/en/us-debt-ceiling-2026.md", line });
  });
});

describe("risk-cli assemble and orphan reviews", () => {
  it("warns at every assembly, the steady-state one included, without stopping", () => {
    const pub = orphanedReview();
    const cwd = tempDir("risk-orphan-");
    const first = runCli(["assemble", "--publication", pub, "--json"], {
      cwd,
      env: { SOURCE_DATE_EPOCH: "1795251300" },
    });
    expect(first.status).toBe(0);
    expect(first.stderr).toContain("warning: content/claim-reviews.yaml:");
    expect(JSON.parse(first.stdout).warnings).toHaveLength(1);
    const second = runCli(["assemble", "--publication", pub, "--json"], {
      cwd,
      env: { SOURCE_DATE_EPOCH: "1795252200" },
    });
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout).warnings).toEqual(JSON.parse(first.stdout).warnings);
    expect(second.stderr).toContain("carry-trade-yen-boj#hausse-taux-boj");
  });
});

describe("risk-cli search", () => {
  const cwd = tempDir("risk-search-");
  it("queries the index the assembly published, in one language or both", () => {
    expect(runCli(["assemble"], { cwd, env: { SOURCE_DATE_EPOCH: "1795251300" } }).status).toBe(0);
    const fr = JSON.parse(runCli(["search", "plafond de la dette", "--lang", "fr", "--json"], { cwd }).stdout);
    expect(fr.hits[0]).toMatchObject({
      lang: "fr",
      type: "article",
      url: expect.stringContaining("/articles/dette-americaine-plafond-2026/"),
    });
    expect(fr.hits.every((h: { lang: string }) => h.lang === "fr")).toBe(true);
    const en = JSON.parse(runCli(["search", "carry trade", "--lang", "en", "--limit", "2", "--json"], { cwd }).stdout);
    expect(en.hits.length).toBeLessThanOrEqual(2);
    expect(en.hits[0].lang).toBe("en");
    const folded = JSON.parse(runCli(["search", "ELEVE", "--json"], { cwd }).stdout);
    expect(folded.hits.length).toBeGreaterThan(0);
    const text = runCli(["search", "yen"], { cwd });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^\s+[\d.]+ {2}(fr|en) {2}\w/m);
  });

  it("says to assemble first when there is no index, and refuses an unknown language", () => {
    const empty = tempDir("risk-search-empty-");
    const r = runCli(["search", "dette"], { cwd: empty });
    expect(r.status).toBe(EXIT.E_INPUT);
    expect(r.stderr).toContain("run risk-cli assemble first");
    expect(runCli(["search", "dette", "--lang", "de"], { cwd: empty }).status).toBe(EXIT.E_USAGE);
  });

  it("refuses an index that is not one, a link to a device and a FIFO, naming the file and the field", () => {
    const index = join(cwd, "site/api/v1/search-index.json");
    const published = readFileSync(index);
    const whole = JSON.parse(published.toString("utf8"));
    const cases: [string, string, RegExp][] = [
      ["another JSON document", "{}", /search-index\.json \(field documents\): not a published search index/],
      ["an array", "[]", /not a published search index/],
      [
        "a damaged index",
        JSON.stringify({ ...whole, index: '{"documentCount":"x"}' }),
        /\(field index\): not a minisearch index/,
      ],
      [
        "an index that finds a document the list lacks",
        JSON.stringify({ ...whole, documents: [] }),
        /\(field documents\): the index finds document "[^"]+", which documents does not list/,
      ],
    ];
    try {
      for (const [what, text, message] of cases) {
        writeFileSync(index, text);
        const r = runCli(["search", "dette", "--json"], { cwd });
        expect(r.status, what).toBe(EXIT.E_INPUT);
        expect(r.stderr, what).toMatch(message);
        expect(r.stderr, what).toContain("assemble the site again");
      }
      rmSync(index);
      symlinkSync("/dev/zero", index);
      const zero = runCli(["search", "dette"], { cwd });
      expect(zero.status).toBe(EXIT.E_INPUT);
      expect(zero.stderr).toContain("not a regular file inside it");
      rmSync(index);
      execFileSync("mkfifo", [index]);
      const fifo = runCli(["search", "dette"], { cwd });
      expect(fifo.status).toBe(EXIT.E_INPUT);
      expect(fifo.stderr).toContain("not a regular file inside it");
    } finally {
      rmSync(index, { force: true });
      writeFileSync(index, published);
    }
    expect(runCli(["search", "dette", "--json"], { cwd }).status).toBe(0);
  });
});

describe("risk-cli lint and claim markers", () => {
  it("warns about a marker that names no claim, with the article's file and line", () => {
    const pub = demoCopy();
    editFile(`${pub}/${ARTICLE}`, (t) => t.replace("## Voir aussi\n", "## Voir aussi\n\n<!-- claim-id: perdu -->\n"));
    const r = runCli(["lint", "--publication", pub, "--json"]);
    expect(r.status).toBe(0);
    const finding = JSON.parse(r.stdout).findings.find((f: { code: string }) => f.code.startsWith("marker-"));
    expect(finding).toMatchObject({ severity: "warning", file: ARTICLE, field: "claim-id" });
    const line =
      readFileSync(`${pub}/${ARTICLE}`, "utf8")
        .split("\n")
        .findIndex((l) => l.includes("claim-id: perdu")) + 1;
    expect(finding.line).toBe(line);
  });
});
