/**
 * A corpus that lives for years and is checked out on macOS, Windows and Linux: text and file
 * names in either Unicode normalisation, names that one machine would merge. Assembled and
 * linted through the published bin.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { assembleInto, demoCopy, editFile } from "../helpers/publication.ts";

const NOW = "2026-11-21T10:00:00Z";
const ARTICLE = "content/articles/fr/ecart-credit.md";
const SENTENCE =
  "Le 3 février 2026, l’écart de crédit européen a atteint 412 points de base, estimée à partir de la [Banque centrale européenne](https://www.ecb.europa.eu/stats/index.en.html).";

/** The demo reading its articles by a `slug` key and pairing translations by file name. */
const BY_FILE_NAME = `
content:
  articles: { fr: ["content/articles/fr/*.md"], en: ["content/articles/en/*.md"] }
  guides: { fr: ["content/guides/fr/*.md"], en: ["content/guides/en/*.md"] }
  slug: { key: slug }
  translations: same-slug
`;
/** The demo's own layout, reading `draft: true`. */
const WITH_DRAFTS = `
content:
  articles: { fr: ["content/articles/fr/*.md"], en: ["content/articles/en/*.md"] }
  guides: { fr: ["content/guides/fr/*.md"], en: ["content/guides/en/*.md"] }
  frontmatter: { draft: draft }
`;
const doc = (slug: string, title: string, body: string) =>
  `---\nslug: ${slug}\ntitle: "${title}"\ndescription: "Un essai."\ndate: 2026-11-01\n---\n\n${body}\n`;

describe("a corpus checked out on several machines", () => {
  it("publishes an article saved decomposed (NFD) as the same article composed: claims, dates and bytes", () => {
    const composed = demoCopy();
    const decomposed = demoCopy();
    const text = doc("ecart-credit", "Écart de crédit en février", SENTENCE).replace("slug: ecart-credit\n", "");
    writeFileSync(`${composed}/${ARTICLE}`, text.normalize("NFC"));
    writeFileSync(`${decomposed}/${ARTICLE}`, text.normalize("NFD"));
    const [a, b] = [assembleInto(composed, NOW), assembleInto(decomposed, NOW)];
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    const claims = JSON.parse(readFileSync(`${b.site}/api/v1/claims.json`, "utf8")).claims;
    const claim = claims.find((c: { claim: string }) => c.claim.includes("crédit européen"));
    expect(claim.observationDate).toBe("2026-02-03");
    for (const file of ["api/v1/claims.json", "api/v1/catalog.json", "api/v1/search-index.json", "llms-full.txt"])
      expect(readFileSync(`${b.site}/${file}`, "utf8"), file).toBe(readFileSync(`${a.site}/${file}`, "utf8"));
  });

  it("pairs crédit.fr and crédit.en by file name when one name is composed and the other decomposed", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t + BY_FILE_NAME);
    writeFileSync(`${pub}/content/articles/fr/${"crédit".normalize("NFC")}.md`, doc("credit", "Crédit", SENTENCE));
    writeFileSync(
      `${pub}/content/articles/en/${"crédit".normalize("NFD")}.md`,
      doc("credit-en", "Credit", "On 3 February 2026 the spread reached 412 basis points."),
    );
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.stderr).not.toContain("missing-source");
    const r = assembleInto(pub, NOW);
    expect(r.status, r.stderr).toBe(0);
    const catalog = JSON.parse(readFileSync(`${r.site}/api/v1/catalog.json`, "utf8"));
    const en = catalog.articles.find((d: { slug: string }) => d.slug === "credit-en");
    expect(en.translationOf).toBe("credit");
    expect(en.translationStatus).toBe("current");
  });

  it("refuses two files whose names differ only in letter case or Unicode normalisation, naming them", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t + BY_FILE_NAME);
    writeFileSync(`${pub}/content/articles/fr/note.md`, doc("note-a", "A", "Un texte."));
    writeFileSync(`${pub}/content/articles/fr/Note.md`, doc("note-b", "B", "Un texte."));
    const cased = runCli(["lint", "--publication", pub]);
    expect(cased.status).toBe(3);
    expect(cased.stderr).toContain(
      "content/articles/fr/note.md: content/articles/fr/Note.md has the same name but for letter case: a macOS or Windows checkout keeps only one of the two",
    );
    const other = demoCopy();
    editFile(`${other}/risk.config.yaml`, (t) => t + BY_FILE_NAME);
    writeFileSync(`${other}/content/articles/fr/${"été".normalize("NFC")}.md`, doc("ete-a", "A", "Un texte."));
    writeFileSync(`${other}/content/articles/fr/${"été".normalize("NFD")}.md`, doc("ete-b", "B", "Un texte."));
    const normalised = assembleInto(other, NOW);
    expect(normalised.status).toBe(3);
    expect(normalised.stderr).toContain(
      "content/articles/fr/été.md: another file has this name written in another Unicode normalisation",
    );
  });

  it("holds back the reviews of a draft's claims with the draft, and publishes them with the article", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t + WITH_DRAFTS);
    editFile(`${pub}/content/articles/fr/carry-trade-yen-boj.md`, (t) =>
      t.replace("\ntitle:", "\ndraft: true\ntitle:"),
    );
    editFile(`${pub}/content/claim-reviews.yaml`, (t) =>
      t.replace(
        "entries:\n",
        'entries:\n  - claimId: projet-secret#hausse-bce\n    reviewedAt: 2026-11-20T10:00:00Z\n    reviewedBy: Comité éditorial\n    note: "Note de revue confidentielle"\n',
      ),
    );
    writeFileSync(
      `${pub}/content/articles/fr/projet-secret.md`,
      `---\ntitle: "Projet"\ndescription: "Un brouillon."\ndate: 2026-11-20\ndraft: true\n---\n\n<!-- claim-id: hausse-bce -->\n${SENTENCE}\n`,
    );
    const lint = runCli(["lint", "--publication", pub]);
    expect(lint.stderr).not.toContain("orphan-review");
    expect(lint.status, lint.stderr).toBe(0);
    const r = assembleInto(pub, NOW);
    expect(r.status, r.stderr).toBe(0);
    for (const file of ["api/v1/claims.json", "api/v1/claims.ndjson", "api/v1/changes.json", "llms-full.txt"]) {
      const text = readFileSync(`${r.site}/${file}`, "utf8");
      expect(text, file).not.toContain("projet-secret");
      expect(text, file).not.toContain("carry-trade-yen-boj#");
      expect(text, file).not.toContain("confidentielle");
    }
    editFile(`${pub}/content/articles/fr/projet-secret.md`, (t) => t.replace("draft: true\n", ""));
    const published = assembleInto(pub, NOW);
    expect(published.status, published.stderr).toBe(0);
    const claims = JSON.parse(readFileSync(`${published.site}/api/v1/claims.json`, "utf8"));
    expect(claims.reviewRegistry.entries.map((e: { claimId: string }) => e.claimId)).toContain(
      "projet-secret#hausse-bce",
    );
    expect(claims.claims.find((c: { id: string }) => c.id === "projet-secret#hausse-bce").reviewStatus).toBe(
      "reviewed",
    );
  });
});
