import { describe, expect, it } from "vitest";
import { primarySourceOf, absoluteHref, primaryHostsOf } from "../../core/claims/references.ts";
import { parseBlocks, parseInline } from "../../core/claims/markdown.ts";
import { splitSentences } from "../../core/claims/sentences.ts";
import { bound, claimKey, fnv1a64, fold } from "../../core/claims/text.ts";

describe("fnv1a64()", () => {
  it("matches the published FNV-1a 64 test vectors", () => {
    expect(fnv1a64("")).toBe("cbf29ce484222325");
    expect(fnv1a64("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64("foobar")).toBe("85944171f73967e8");
  });

  it("agrees with a BigInt FNV-1a 64 over UTF-8 on French, symbols and astral characters", () => {
    const reference = (text: string) => {
      let h = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text))
        h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, "0");
    };
    for (const text of [
      "l’écart BTP-Bund à 10 ans",
      "5 400 milliards de yens",
      "€ ¥ £ – — «»",
      "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🙂",
      "x".repeat(1000),
    ]) {
      expect(fnv1a64(text)).toBe(reference(text));
    }
  });

  it("hashes the UTF-8 bytes of accented text", () => {
    expect(fnv1a64("é")).not.toBe(fnv1a64("e"));
    expect(fnv1a64("é")).toBe(fnv1a64("e\u0301".normalize("NFC")));
  });
});

describe("text helpers", () => {
  it("fold() keeps one unit per unit, without case, accents or typographic apostrophes", () => {
    const s = "L’Écart À 1\u00a0000";
    expect(fold(s)).toBe("l'ecart a 1 000");
    expect(fold(s).length).toBe(s.length);
  });

  it("claimKey() ignores case, spacing and apostrophe style", () => {
    expect(claimKey("L’écart  est  resté ")).toBe(claimKey("l'écart est resté"));
  });

  it("bound() leaves short text alone and cuts long text at a word boundary", () => {
    expect(bound("court", 400)).toBe("court");
    expect(bound("un deux trois quatre", 12)).toBe("un deux…");
  });
});

describe("primarySourceOf()", () => {
  const hosts = [
    { host: "boj.or.jp", slug: "banque-du-japon" },
    { host: "www.federalreserve.gov", slug: "federal-reserve" },
    { host: "stlouisfed.org", slug: "fed-st-louis" },
    { host: "fred.stlouisfed.org", slug: "fred" },
  ];
  it.each([
    ["www.boj.or.jp", "banque-du-japon"],
    ["stat-search.boj.or.jp", "banque-du-japon"],
    ["boj.or.jp", "banque-du-japon"],
    ["notboj.or.jp", null],
    ["boj.or.jp.evil.example", null],
    ["federalreserve.gov", "federal-reserve"],
    ["WWW.FEDERALRESERVE.GOV", "federal-reserve"],
    ["fred.stlouisfed.org", "fred"],
    ["research.stlouisfed.org", "fed-st-louis"],
  ])("matches %s to %s, subdomains included", (host, slug) => {
    expect(primarySourceOf(host, hosts)).toBe(slug);
  });

  it("answers each list of hosts on its own, though answers are kept between calls", () => {
    expect(primarySourceOf("stat-search.boj.or.jp", hosts)).toBe("banque-du-japon");
    const other = [{ host: "stat-search.boj.or.jp", slug: "boj-statistiques" }, ...hosts];
    expect(primarySourceOf("stat-search.boj.or.jp", other)).toBe("boj-statistiques");
    expect(primarySourceOf("stat-search.boj.or.jp", hosts)).toBe("banque-du-japon");
    expect(primarySourceOf("WWW.BOJ.OR.JP", [])).toBe(null);
  });

  it("primaryHostsOf() takes the official site and the datasets of each source", () => {
    expect(
      primaryHostsOf([
        {
          slug: "bce",
          officialUrl: "https://www.ecb.europa.eu/",
          datasets: [{ url: "https://data.ecb.europa.eu/x" }, { url: "https://www.ecb.europa.eu/y" }],
        },
      ]),
    ).toEqual([
      { host: "www.ecb.europa.eu", slug: "bce" },
      { host: "data.ecb.europa.eu", slug: "bce" },
    ]);
  });
});

describe("absoluteHref()", () => {
  const base = "https://risques.example.org";
  const page = "https://risques.example.org/articles/essai/";
  it.each([
    ["/guides/x/", "https://risques.example.org/guides/x/"],
    ["../autre/", "https://risques.example.org/articles/autre/"],
    ["//www.bis.org/a", "https://www.bis.org/a"],
    ["https://www.bis.org/a b", "https://www.bis.org/a%20b"],
    ["#section", null],
    ["mailto:a@example.org", null],
    ["javascript:alert(1)", null],
    ["", null],
  ])("makes %s absolute as %s", (href, expected) => {
    expect(absoluteHref(href, base, page)).toBe(expected);
  });
});

describe("the Markdown reader", () => {
  it("reads headings, list items, code, comments and quotes as separate blocks", () => {
    const { blocks } = parseBlocks(
      "# Titre\n\nUn paragraphe\nsur deux lignes.\n\n- un\n- deux\n\n```\ncode\n```\n\n> cité\n\nTitre setext\n---\n",
    );
    expect(blocks.map((b) => [b.type, b.raw])).toEqual([
      ["heading", "Titre"],
      ["paragraph", "Un paragraphe\nsur deux lignes."],
      ["listItem", "un"],
      ["listItem", "deux"],
      ["code", "code"],
      ["quote", "cité"],
      ["heading", "Titre setext"],
    ]);
  });

  it("turns inline Markdown into plain text and keeps the offsets of links", () => {
    const inline = parseInline(
      'Selon **la** [série *FRED*](https://fred.stlouisfed.org/x "titre"), `code` &amp; snake_case ![img](a.png) <https://a.example/b>.',
      new Map(),
    );
    expect(inline.text).toBe("Selon la série FRED, code & snake_case img https://a.example/b.");
    expect(inline.links.map((l) => [l.label, l.href, inline.text.slice(l.start, l.end)])).toEqual([
      ["série FRED", "https://fred.stlouisfed.org/x", "série FRED"],
      ["https://a.example/b", "https://a.example/b", "https://a.example/b"],
    ]);
  });
});

describe("splitSentences()", () => {
  it("splits at sentence ends but not after abbreviations, initials or decimals", () => {
    const text =
      "Le U.S. Department of the Treasury publie 1,5 % et 2.5 points. M. Dupont l’a dit. Voir p. 12 du rapport ! Fin ?";
    expect(splitSentences(text).map((s) => text.slice(s.start, s.end))).toEqual([
      "Le U.S. Department of the Treasury publie 1,5 % et 2.5 points.",
      "M. Dupont l’a dit.",
      "Voir p. 12 du rapport !",
      "Fin ?",
    ]);
  });
});
