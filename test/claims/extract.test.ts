import { describe, expect, it } from "vitest";
import { classifySentence } from "../../core/claims/classify.ts";
import { extractArticleEvidence, MAX_CLAIM_LENGTH, type ArticleEvidence } from "../../core/claims/extract.ts";
import { Claim, EvidenceReference } from "../../core/schemas/contract.ts";
import { article, articleOf, demo, NOW, OPTIONS, optionsOf } from "./_demo.ts";

async function demoEvidence(): Promise<Map<string, ArticleEvidence>> {
  const p = await demo();
  const out = new Map<string, ArticleEvidence>();
  for (const doc of p.articles.filter((d) => d.lang === "fr"))
    out.set(doc.slug, extractArticleEvidence(articleOf(doc), optionsOf(p)));
  return out;
}

const MARKDOWN = /\]\(|\*\*|__|`|<!--|^#|!\[|\[[^\]]*\]\(/;

describe("extractArticleEvidence() on the demo corpus", () => {
  it("keeps between one and three claims for each of the seven French articles, each valid against the Claim schema", async () => {
    const all = await demoEvidence();
    expect(all.size).toBe(7);
    for (const [slug, ev] of all) {
      expect(ev.claims.length, slug).toBeGreaterThan(0);
      expect(ev.claims.length, slug).toBeLessThanOrEqual(3);
      for (const c of ev.claims) expect(() => Claim.parse(c)).not.toThrow();
    }
  });

  it("names the marked claims by their marker, as the review registry does, and marks them structurée", async () => {
    const ids = [...(await demoEvidence()).values()]
      .flatMap((ev) => ev.claims)
      .filter((c) => c.confidence === "structurée")
      .map((c) => c.id);
    expect(ids.sort()).toEqual([
      "carry-trade-yen-boj#hausse-taux-boj",
      "dette-americaine-plafond-2026#plafond-2026",
      "liquidite-bancaire-repo#sofr-fin-septembre",
      "spread-btp-bund-2026#ecart-btp-bund-mai",
    ]);
  });

  it("gives automatic claims a hash id, auto-backfill confidence and unique ids", async () => {
    const claims = [...(await demoEvidence()).values()].flatMap((ev) => ev.claims);
    expect(new Set(claims.map((c) => c.id)).size).toBe(claims.length);
    for (const c of claims.filter((c) => c.confidence === "auto-backfill")) {
      expect(c.id).toMatch(/^[a-z0-9-]+#c-[0-9a-f]{10}$/);
      expect(c.id).toBe(`${c.articleSlug}#${c.localId}`);
    }
  });

  it("fills article fields, the publication date and the observation date of each claim", async () => {
    const p = await demo();
    const ev = (await demoEvidence()).get("spread-btp-bund-2026")!;
    const c = ev.claims.find((c) => c.localId === "ecart-btp-bund-mai")!;
    expect(c).toMatchObject({
      articleSlug: "spread-btp-bund-2026",
      articleUrl: "https://risques.example.org/articles/spread-btp-bund-2026/",
      articleTitle: p.articles.find((a) => a.slug === "spread-btp-bund-2026" && a.lang === "fr")!.meta.title,
      claimDate: "2026-09-22",
      claimDateLabel: "publié le 22 septembre 2026",
      date: "2026-05-27",
      dateLabel: "du 28 avril au 27 mai 2026",
      observationDate: "2026-05-27",
      observationDateLabel: "du 28 avril au 27 mai 2026",
      observationStart: "2026-04-28",
      observationEnd: "2026-05-27",
      temporalPrecision: "range",
      reviewStatus: "unreviewed",
      reviewedAt: null,
      evidenceLocator: null,
    });
    expect(c.references.map((r) => r.host)).toEqual(["data.ecb.europa.eu", "www.bundesbank.de"]);
  });

  it("writes claims as plain text of at most 400 characters", async () => {
    for (const ev of (await demoEvidence()).values()) {
      for (const c of ev.claims) {
        expect(c.claim).not.toMatch(MARKDOWN);
        expect(c.claim.length).toBeLessThanOrEqual(MAX_CLAIM_LENGTH);
      }
    }
  });

  it("does not read the demo's « même si » and « autour de 161,94 » sentences as scenario or estimate", async () => {
    const p = await demo();
    const sentenceWith = (needle: string) => {
      const body = p.articles
        .filter((a) => a.lang === "fr")
        .map((a) => a.body)
        .join("\n");
      const at = body.indexOf(needle);
      expect(at).toBeGreaterThan(0);
      const start = body.lastIndexOf(". ", at) + 2;
      return body.slice(start, body.indexOf(".", body.indexOf(needle) + needle.length) + 1);
    };
    expect(classifySentence(sentenceWith("même si la prime"), "fr").matchedRule).toBe("unclassified-assertion");
    expect(classifySentence(sentenceWith("autour de 161,94"), "fr").matchedRule).toBe("unclassified-assertion");
  });

  it("makes every reference href absolute, valid against EvidenceReference and indexed at the assembly time", async () => {
    for (const ev of (await demoEvidence()).values()) {
      for (const r of [...ev.references, ...ev.claims.flatMap((c) => c.references)]) {
        expect(r.href).toMatch(/^https?:\/\//);
        expect(URL.canParse(r.href)).toBe(true);
        expect(r.indexedAt).toBe(NOW);
        expect(r.retrievedAt).toBeNull();
        expect(() => EvidenceReference.parse(r)).not.toThrow();
      }
    }
  });

  it("lists the links of the see-also and sources sections as references, internal ones resolved against the base URL", async () => {
    const ev = (await demoEvidence()).get("carry-trade-yen-boj")!;
    const internal = ev.references.filter((r) => r.kind === "internal").map((r) => r.href);
    expect(internal).toEqual([
      "https://risques.example.org/methodologies/tension-carry-yen/",
      "https://risques.example.org/guides/lire-les-niveaux-de-risque/",
    ]);
    expect(ev.counts).toEqual({ externalLinks: 7, internalLinks: 2, primarySources: 2 });
    expect(ev.primarySourceSlugs).toEqual(["banque-du-japon", "bri"]);
  });

  it("dates a source's publication from its link label, never from a year in its URL", async () => {
    const ev = (await demoEvidence()).get("confluence-des-risques-automne-2026")!;
    const gfsr = ev.references.find((r) => r.href.includes("/Issues/2026/10/14/"))!;
    expect(gfsr.sourcePublicationDate).toBe("2026-10-01");
    expect(gfsr.sourcePublicationDateLabel).toBe("publication de la source : octobre 2026");
    const tic = ev.references.find((r) => r.host === "home.treasury.gov")!;
    expect(tic.sourcePublicationDate).toBeNull();
    expect(tic.sourcePublicationDateLabel).toBe("date de publication de la source non précisée");
  });

  it("reports no warning on the demo corpus", async () => {
    for (const ev of (await demoEvidence()).values()) expect(ev.warnings).toEqual([]);
  });
});

describe("extractArticleEvidence() on written scenarios", () => {
  const P1 =
    "Le 30 juin 2026, la dette atteignait 39 284 milliards de dollars selon [Debt to the Penny](https://fiscaldata.treasury.gov/datasets/debt-to-the-penny).";
  const P2 =
    "La Banque du Japon a relevé son taux de 0,75 % à 1,00 % le 31 juillet 2026, selon sa [déclaration](https://www.boj.or.jp/en/mopo/index.htm).";
  const P3 =
    "Les positions représentaient environ 480 milliards de dollars en juin 2026, d’après la [BRI](https://www.bis.org/statistics/bankstats.htm).";
  const P4 =
    "Le rendement du Bund est resté autour de 2,55 % en mai 2026, selon la [Bundesbank](https://www.bundesbank.de/en/statistics).";
  const FILLER = "Le marché reste attentif aux annonces des banques centrales et à leur communication.";

  it("keeps at most three claims, preferring primary sources, material numbers and dates, in document order", () => {
    const ev = extractArticleEvidence(article([FILLER, P4, P1, P2, P3].join("\n\n")), OPTIONS);
    expect(ev.claims).toHaveLength(3);
    expect(ev.claims.map((c) => c.claim.slice(0, 20))).toEqual([P1, P2, P3].map((p) => p.slice(0, 20)));
  });

  it("keeps an article with no candidate sentence without claims", () => {
    const body = [
      "Les marchés restent attentifs aux annonces des banques centrales et à leur communication.",
      "## Pourquoi ce sujet ?",
      "Quelle taille pour le carry trade aujourd’hui et demain ?",
      "```\nLe 30 juin 2026, 39 284 milliards de dollars https://fiscaldata.treasury.gov/x\n```",
      "<!-- Le 30 juin 2026, 39 284 milliards de dollars -->",
    ].join("\n\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    expect(ev.claims).toEqual([]);
    expect(extractArticleEvidence(article(""), OPTIONS).claims).toEqual([]);
  });

  it("never takes a claim from see-also, bibliography or further-reading sections, nor a navigation sentence", () => {
    const body = [
      FILLER,
      "Lire aussi notre analyse du 12 mars 2026 sur les [réserves](https://www.bis.org/publ/a.htm), qui ont atteint 2 950 milliards de dollars.",
      "Pour en savoir plus, le [rapport](https://www.bis.org/publ/b.htm) du 3 mars 2026 chiffre l’encours à 1 100 milliards de dollars.",
      "Voir notre guide des spreads publié le 2 mars 2026 avec 12 exemples chiffrés à 300 points de base.",
      "## Voir aussi",
      "- Le 30 juin 2026, la dette atteignait 39 284 milliards de dollars selon [Debt to the Penny](https://fiscaldata.treasury.gov/d).",
      "### Un sous-titre de la même section",
      "Le 1er juillet 2026, 1 816 milliards de marge selon [le Trésor](https://fiscaldata.treasury.gov/e).",
      "## Bibliographie",
      "- [BIS Quarterly Review, septembre 2026](https://www.bis.org/publ/qtrpdf/r_qt2609.htm), 1 100 milliards de dollars le 30 septembre 2026.",
      "## Further reading",
      "The spread reached 412 basis points on April 9, 2026, per [FRED](https://fred.stlouisfed.org/series/X).",
      "## Sources :",
      "Le taux SOFR a atteint 3,58 % le 30 septembre 2026 selon la [Fed de New York](https://www.newyorkfed.org/sofr).",
    ].join("\n\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    expect(ev.claims).toEqual([]);
    expect(ev.references.map((r) => r.host)).toEqual([
      "www.bis.org",
      "www.bis.org",
      "fiscaldata.treasury.gov",
      "fiscaldata.treasury.gov",
      "www.bis.org",
      "fred.stlouisfed.org",
      "www.newyorkfed.org",
    ]);
  });

  it("takes claims again after the excluded section ends at a heading of the same level", () => {
    const body = ["## Voir aussi", `- ${P1}`, "## Analyse", P2].join("\n\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    expect(ev.claims.map((c) => c.claim.slice(0, 30))).toEqual([P2.slice(0, 30)]);
  });

  it("lets a claim-id marker name the claim, even a sentence the ranking would not choose", () => {
    const ev = extractArticleEvidence(
      article([P1, P2, P3, `<!-- claim-id: bund-stable -->\n${P4}`].join("\n\n")),
      OPTIONS,
    );
    expect(ev.claims).toHaveLength(3);
    const marked = ev.claims.find((c) => c.localId === "bund-stable")!;
    expect(marked.id).toBe("essai#bund-stable");
    expect(marked.claim.startsWith("Le rendement du Bund")).toBe(true);
    expect(marked.confidence).toBe("structurée");
  });

  it("lets a marker inside a paragraph name the sentence that follows it", () => {
    const ev = extractArticleEvidence(article(`${FILLER} <!-- claim-id: taux-boj --> ${P2}`), OPTIONS);
    expect(ev.claims.map((c) => [c.localId, c.claim.slice(0, 24)])).toEqual([["taux-boj", P2.slice(0, 24)]]);
  });

  it("names only the first sentence of a marked paragraph", () => {
    const ev = extractArticleEvidence(article(`<!-- claim-id: deux -->\n${P1} ${P2}`), OPTIONS);
    const marked = ev.claims.find((c) => c.localId === "deux")!;
    expect(marked.claim).toBe(
      "Le 30 juin 2026, la dette atteignait 39 284 milliards de dollars selon Debt to the Penny.",
    );
  });

  it("warns about markers that name nothing, are malformed, repeated or over the limit", () => {
    const body = [
      "<!-- claim-id: Mauvais_Nom -->",
      P1,
      "<!-- claim-id: titre -->\n## Un titre",
      `<!-- claim-id: a -->\n${P1}`,
      `<!-- claim-id: a -->\n${P2}`,
      `<!-- claim-id: b -->\n${P3}`,
      `<!-- claim-id: c -->\n${P4}`,
      `<!-- claim-id: d -->\n${FILLER}`,
    ].join("\n\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    expect(ev.claims.map((c) => c.localId)).toEqual(["a", "b", "c"]);
    expect(ev.warnings.map((w) => w.code)).toEqual([
      "marker-invalid",
      "marker-unused",
      "marker-duplicate",
      "marker-over-limit",
    ]);
    expect(ev.warnings[0]).toMatchObject({ file: "content/articles/fr/essai.md", line: 8 });
    expect(ev.warnings[0].message).toContain("Mauvais_Nom");
  });

  it("keeps the id of an unchanged claim when another sentence is edited or a paragraph is inserted before it", () => {
    const base = extractArticleEvidence(article([FILLER, P1, P2, P3].join("\n\n")), OPTIONS);
    const edited = extractArticleEvidence(
      article([FILLER.replace("attentif", "très attentif"), P1, P2.replace("1,00 %", "1,25 %"), P3].join("\n\n")),
      OPTIONS,
    );
    const inserted = extractArticleEvidence(
      article(
        [
          FILLER,
          "## Contexte",
          "Une phrase ajoutée sans chiffre ni lien pour le contexte général du marché.",
          P1,
          P2,
          P3,
        ].join("\n\n"),
      ),
      OPTIONS,
    );
    const idOf = (ev: ArticleEvidence, start: string) => ev.claims.find((c) => c.claim.startsWith(start))!.id;
    for (const start of ["Le 30 juin", "Les positions"]) {
      expect(idOf(edited, start)).toBe(idOf(base, start));
      expect(idOf(inserted, start)).toBe(idOf(base, start));
    }
    expect(idOf(edited, "La Banque du Japon")).not.toBe(idOf(base, "La Banque du Japon"));
  });

  it("keeps a claim's id when only its Markdown changes, not its words", () => {
    const plain = extractArticleEvidence(article(P1), OPTIONS).claims[0].id;
    const styled = extractArticleEvidence(
      article(P1.replace("39 284", "**39 284**").replace("la dette", "la  dette")),
      OPTIONS,
    ).claims[0].id;
    expect(styled).toBe(plain);
  });

  it("gives identical sentences distinct ids, in document order", () => {
    const ev = extractArticleEvidence(article([P1, P1].join("\n\n")), OPTIONS);
    expect(ev.claims).toHaveLength(2);
    expect(ev.claims[1].id).toBe(`${ev.claims[0].id}-2`);
  });

  it("strips Markdown from claims and cuts a long one at a word boundary with an ellipsis", () => {
    const long = `Le 30 juin 2026, la dette *fédérale* \`totale\` s’établissait à 39 284 milliards de dollars selon [Debt to the Penny](https://fiscaldata.treasury.gov/d) ${"et encore une précision chiffrée utile ".repeat(15)}fin.`;
    const c = extractArticleEvidence(article(long), OPTIONS).claims[0];
    expect(c.claim.length).toBeLessThanOrEqual(MAX_CLAIM_LENGTH);
    expect(c.claim.endsWith("…")).toBe(true);
    expect(c.claim).toMatch(
      /^Le 30 juin 2026, la dette fédérale totale s’établissait à 39 284 milliards de dollars selon Debt to the Penny et/,
    );
    expect(c.claim).toMatch(/[a-zé]…$/);
    expect(c.claim.slice(0, -1)).toMatch(/(?:^| )[^ ]+$/);
    expect(long).toContain(c.claim.slice(-12, -1).replace(/\s+$/, ""));
  });

  it("reads footnotes as notes: never a claim, no [^label] in a claim, their links references of the sentence that calls them", () => {
    const body = [
      FILLER,
      "Note[^1].",
      "Le solde du Trésor a reculé à 722 milliards de dollars à la fin du trimestre selon le relevé officiel[^bis].",
      "[^1]: La note dit que le chiffre a été révisé le 3 avril 2026.",
      "[^bis]: Voir https://fiscaldata.treasury.gov/datasets/daily-treasury-statement/ du 3 mars 2026,",
      "    et sa note de méthode de 2025.",
    ].join("\n\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    expect(ev.claims.map((c) => c.claim)).toEqual([
      "Le solde du Trésor a reculé à 722 milliards de dollars à la fin du trimestre selon le relevé officiel.",
    ]);
    expect(ev.claims[0]!.references).toEqual([
      expect.objectContaining({
        href: "https://fiscaldata.treasury.gov/datasets/daily-treasury-statement/",
        kind: "primary-source",
        // Dated by the words after the link in the note, not by the calling sentence.
        sourcePublicationDate: "2026-03-03",
      }),
    ]);
    expect(ev.references.map((r) => r.href)).toEqual([
      "https://fiscaldata.treasury.gov/datasets/daily-treasury-statement/",
    ]);
    expect(ev.counts).toEqual({ externalLinks: 1, internalLinks: 0, primarySources: 1 });
    // Alone, a footnote is still no claim, however dated and sourced it is.
    const alone = extractArticleEvidence(
      article(
        "[^n]: La dette atteignait 39 284 milliards de dollars le 30 juin 2026 selon https://fiscaldata.treasury.gov/x.",
      ),
      OPTIONS,
    );
    expect(alone.claims).toEqual([]);
    expect(alone.references.map((r) => r.href)).toEqual(["https://fiscaldata.treasury.gov/x"]);
  });

  it("counts distinct links over the whole body, excluded sections included", () => {
    const body = [
      `${P1} Voir aussi [le guide](/guides/lire-les-spreads/) et [le même guide](/guides/lire-les-spreads/).`,
      "## Sources",
      "- [Debt to the Penny](https://fiscaldata.treasury.gov/datasets/debt-to-the-penny)",
      "- [FRED](https://fred.stlouisfed.org/series/DGS2)",
      "- [Écrire](mailto:redaction@example.org) et [plus haut](#haut)",
    ].join("\n\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    expect(ev.counts).toEqual({ externalLinks: 2, internalLinks: 1, primarySources: 1 });
    expect(ev.references.map((r) => r.kind)).toEqual(["primary-source", "internal", "secondary-source"]);
    expect(ev.primarySourceSlugs).toEqual(["us-treasury"]);
  });

  it("resolves site-relative links against a base URL with a path, and reference links through their definitions", () => {
    const body = `${P1.replace("](https://fiscaldata.treasury.gov/datasets/debt-to-the-penny)", "][dtp]")} Voir [la méthode](/methodologies/dette/).\n\n[dtp]: https://fiscaldata.treasury.gov/datasets/debt-to-the-penny`;
    const ev = extractArticleEvidence(article(body), { ...OPTIONS, baseUrl: "https://example.org/risques" });
    expect(ev.references.map((r) => r.href)).toEqual([
      "https://fiscaldata.treasury.gov/datasets/debt-to-the-penny",
      "https://example.org/risques/methodologies/dette/",
    ]);
    expect(ev.claims[0].references.map((r) => r.kind)).toEqual(["primary-source"]);
  });
});

describe("footnotes defined twice or never", () => {
  it("read the first definition and warn, with their line, on a duplicate and on a call never defined", () => {
    const body = [
      "Le taux a été relevé le 3 mars 2026[^1] et encore[^2].",
      "",
      "[^1]: Première note https://www.ecb.europa.eu/a.html.",
      "[^1]: Seconde note https://example.org/b.html.",
    ].join("\n");
    const ev = extractArticleEvidence(article(body), OPTIONS);
    const refs = ev.references.map((r) => r.href);
    expect(refs).toContain("https://www.ecb.europa.eu/a.html");
    expect(refs).not.toContain("https://example.org/b.html");
    expect(ev.warnings.map((w) => [w.code, w.line - article(body).bodyLine])).toEqual([
      ["footnote-duplicate", 3],
      ["footnote-undefined", 0],
    ]);
    expect(ev.warnings[0]!.message).toContain("[^1]");
    expect(ev.warnings[1]!.message).toContain("[^2]");
  });
});
