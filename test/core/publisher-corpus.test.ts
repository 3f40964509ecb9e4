/**
 * A publisher's corpus as it really is: an article dated far ahead, a bidirectional override
 * pasted into a sentence, articles that are symbolic links, and cross-reference mistakes whose
 * messages must name the line. Assembled through the published bin.
 */
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { assembleInto, demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

const NOW = "2026-11-21T10:00:00Z";
const article = (meta: string, body: string) => `---\n${meta}\n---\n\n${body}\n`;

const assemble = (pub: string) => assembleInto(pub, NOW);

describe("a publisher's corpus", () => {
  it("names a debt snapshot dated after the collection by its own field, generatedAt", () => {
    const r = assembleInto(demoCopy(), "2026-11-20T00:00:00Z");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "upstream/debt-latest.json: field generatedAt: 2026-11-21T04:00:00Z is after the collection",
    );
    expect(r.stderr).not.toContain("debt-latest.json: field publishedAt");
  });

  it("publishes beside an article dated far ahead, which does not keep the corpus fresh", () => {
    const pub = demoCopy();
    writeFileSync(
      `${pub}/content/articles/fr/annonce.md`,
      article('title: "Annonce"\ndescription: "Un article annoncé."\ndate: 9999-12-31', "Un texte."),
    );
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.stderr).toContain("future-date");
    const r = assemble(pub);
    expect(r.status, r.stderr).toBe(0);
    const freshness = JSON.parse(readFileSync(`${r.site}/api/v1/freshness.json`, "utf8"));
    expect(freshness.corpus.editorial.updatedAt).not.toContain("9999");
    expect(freshness.corpus.editorial.updatedAt < "2026-11-22").toBe(true);
  });

  it("counts an article dated ahead from its day on, even when the inputs did not change since", () => {
    const pub = demoCopy();
    writeFileSync(
      `${pub}/content/articles/fr/programme.md`,
      article('title: "Programmé"\ndescription: "Un article programmé."\ndate: 2026-12-20', "Un texte."),
    );
    const out = tempDir("risk-scheduled-");
    const run = (now: string) =>
      runCli([
        "assemble",
        "--publication",
        pub,
        "--site",
        `${out}/site`,
        "--archive",
        `${out}/a.git`,
        "--now",
        now,
        "--allow-future",
      ]);
    const updatedAt = () =>
      JSON.parse(readFileSync(`${out}/site/api/v1/freshness.json`, "utf8")).producers.find(
        (p: { id: string }) => p.id === "editorial",
      );
    expect(run("2026-12-10T10:00:00Z").status).toBe(0);
    expect(updatedAt().updatedAt < "2026-12-20").toBe(true);
    // Two days later on one day, then on the article's day: nothing in the inputs changed.
    expect(run("2026-12-19T23:45:00Z").status).toBe(0);
    expect(updatedAt().updatedAt < "2026-12-20").toBe(true);
    expect(run("2026-12-20T00:00:00Z").status).toBe(0);
    expect(updatedAt()).toMatchObject({ updatedAt: "2026-12-20T00:00:00Z", timeliness: "fresh" });
  });

  it("never publishes a bidirectional override written in a body", () => {
    const pub = demoCopy();
    editFile(
      `${pub}/content/articles/fr/carry-trade-yen-boj.md`,
      (t) =>
        `${t}\nLe 10 août 2026, la dette atteignait 3 000 milliards selon [le Trésor](https://home.treasury.gov/) \u202e à l'envers\u2066.\n`,
    );
    const r = assemble(pub);
    expect(r.status, r.stderr).toBe(0);
    for (const file of ["api/v1/claims.json", "api/v1/claims.ndjson", "llms-full.txt", "api/v1/search-index.json"]) {
      const text = readFileSync(`${r.site}/${file}`, "utf8");
      expect(text, file).not.toMatch(/[\u202a-\u202e\u2066-\u2069]|\\u202[a-e]|\\u206[6-9]/i);
    }
    expect(readFileSync(`${r.site}/llms-full.txt`, "utf8")).toContain("à l'envers");
  });

  it("reads an article that is a link inside the publication, and names one that leads out or nowhere", () => {
    const pub = demoCopy();
    const outside = tempDir("risk-outside-");
    writeFileSync(
      `${outside}/dehors.md`,
      article('title: "Dehors"\ndescription: "Hors de la publication."\ndate: 2026-09-01', "Un texte."),
    );
    writeFileSync(
      `${pub}/content/lien-cible.md`,
      article('title: "Lié"\ndescription: "Un article lié."\ndate: 2026-09-02', "Un texte."),
    );
    symlinkSync(`${pub}/content/lien-cible.md`, `${pub}/content/articles/fr/lie.md`);
    const inside = assemble(pub);
    expect(inside.status, inside.stderr).toBe(0);
    expect(readFileSync(`${inside.site}/api/v1/catalog.json`, "utf8")).toContain('"title":"Lié"');
    symlinkSync(`${outside}/dehors.md`, `${pub}/content/articles/fr/dehors.md`);
    const out = assemble(pub);
    expect(out.status).toBe(3);
    expect(out.stderr).toContain("content/articles/fr/dehors.md");
    expect(out.stderr).toContain("leading out of the publication");
    expect(out.stderr).not.toContain(outside);
  });

  it("names the line of an updated date before the date, and of an unknown topic", () => {
    const pub = demoCopy();
    const file = `${pub}/content/articles/fr/carry-trade-yen-boj.md`;
    const original = readFileSync(file, "utf8");
    editFile(file, (t) => t.replace("date: 2026-08-18\n", "date: 2026-08-18\nupdated: 2026-08-01\n"));
    const before = runCli(["lint", "--publication", pub]);
    expect(before.status).toBe(3);
    expect(before.stderr).toContain("content/articles/fr/carry-trade-yen-boj.md:5");
    writeFileSync(file, original.replace("topics: [change-et-carry", "topics: [inexistant"));
    const topic = runCli(["lint", "--publication", pub]);
    expect(topic.status).toBe(3);
    expect(topic.stderr).toContain("content/articles/fr/carry-trade-yen-boj.md:6");
  });

  it("lints two English translations of one French article as an error naming both", () => {
    const pub = demoCopy();
    const en = `${pub}/content/articles/en`;
    writeFileSync(`${en}/btp-bund-spread-bis.md`, readFileSync(`${en}/btp-bund-spread-2026.md`, "utf8"));
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.status).toBe(1);
    expect(lint.stderr).toContain("two-translations");
    // The French page links to the last one read (by path); the other is the one named as an error.
    expect(lint.stderr).toContain("content/articles/en/btp-bund-spread-2026.md:8");
    expect(lint.stderr).toContain("content/articles/en/btp-bund-spread-bis.md also translates");
  });

  it("refuses a bidirectional override in a tag, naming the line", () => {
    const pub = demoCopy();
    editFile(`${pub}/content/articles/fr/carry-trade-yen-boj.md`, (t) =>
      t.replace("tags: [japon,", "tags: [ja\u202epon,"),
    );
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.status).toBe(3);
    expect(lint.stderr).toContain("content/articles/fr/carry-trade-yen-boj.md:5 (field tags)");
  });

  it("refuses a publication name or a glossary name of spaces only", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t.replace(/^name: .*$/m, 'name: "   "'));
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.status).toBe(3);
    expect(lint.stderr).toContain("risk.config.yaml:");
    expect(lint.stderr).toContain("only spaces");
  });

  it("refuses a topic label, a topic blurb, a primary source name or description of spaces only, naming the line", () => {
    const cases: [string, RegExp, string, string][] = [
      ["content/topics.yaml", /^  label: .*$/m, '  label: "   "', "content/topics.yaml:2 (field 0.label): only spaces"],
      ["content/topics.yaml", /^  blurb: .*$/m, '  blurb: "   "', "content/topics.yaml:3 (field 0.blurb): only spaces"],
      [
        "content/primary-sources.yaml",
        /^  name: .*$/m,
        '  name: "   "',
        "content/primary-sources.yaml:2 (field 0.name): only spaces",
      ],
      [
        "content/primary-sources.yaml",
        /^  description: >-\n(    .*\n)+/m,
        '  description: "   "\n',
        "content/primary-sources.yaml:6 (field 0.description): only spaces",
      ],
    ];
    for (const [file, line, blank, expected] of cases) {
      const pub = demoCopy();
      editFile(`${pub}/${file}`, (t) => t.replace(line, blank));
      const lint = runCli(["lint", "--publication", pub]);
      expect(lint.status, file).toBe(3);
      expect(lint.stderr).toContain(expected);
    }
  });

  it("refuses a date-time without a time zone in an article, a claim review or the confluence synthesis, saying to add Z or an offset", () => {
    const cases: [string, (t: string) => string, string][] = [
      [
        "content/articles/fr/carry-trade-yen-boj.md",
        (t) => t.replace(/^date: (.*)$/m, "date: $1T10:00:00"),
        "content/articles/fr/carry-trade-yen-boj.md:4 (field date)",
      ],
      [
        "content/claim-reviews.yaml",
        (t) => t.replace(/reviewedAt: (\S+)Z/, "reviewedAt: $1"),
        "content/claim-reviews.yaml:10 (field entries.0.reviewedAt)",
      ],
      [
        "upstream/confluence.json",
        (t) => t.replace(/"updated": "([^"]+)Z"/, '"updated": "$1"'),
        "upstream/confluence.json:2 (field updated)",
      ],
    ];
    for (const [file, edit, where] of cases) {
      const pub = demoCopy();
      editFile(`${pub}/${file}`, edit);
      const r = assemble(pub);
      expect(r.status, file).toBe(3);
      expect(r.stderr).toContain(where);
      expect(r.stderr).toMatch(/add Z \(UTC\) or an offset/);
    }
    // A review given with an offset is read as the UTC instant it names.
    const pub = demoCopy();
    editFile(`${pub}/content/claim-reviews.yaml`, (t) =>
      t.replace(/reviewedAt: 2026-11-02T10:00:00Z/, "reviewedAt: 2026-11-02T11:00:00+01:00"),
    );
    const r = assemble(pub);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(`${r.site}/api/v1/claims.json`, "utf8")).toContain('"reviewedAt":"2026-11-02T10:00:00Z"');
  });

  it("refuses a title or a description of spaces only, naming the line", () => {
    const pub = demoCopy();
    editFile(`${pub}/content/articles/fr/carry-trade-yen-boj.md`, (t) => t.replace(/^title: .*$/m, 'title: "   "'));
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.status).toBe(3);
    expect(lint.stderr).toContain("content/articles/fr/carry-trade-yen-boj.md:2 (field title): only spaces");
  });

  it("refuses a title or a description of invisible characters only (zero-width space, word joiner, Hangul filler)", () => {
    for (const invisible of ["\\u200B", "\\u2060\\u200D", "\\u3164", "\\u00A0\\uFEFF"]) {
      const pub = demoCopy();
      editFile(`${pub}/content/articles/fr/carry-trade-yen-boj.md`, (t) =>
        t.replace(/^description: .*$/m, `description: "${invisible}"`),
      );
      const lint = runCli(["lint", "--publication", pub]);
      expect(lint.status, invisible).toBe(3);
      expect(lint.stderr).toContain("(field description): only spaces or invisible characters");
    }
  });
});
