/**
 * Every word list of the claims engine, as plain data: the classifier's markers (lexical-heuristic-v1),
 * the phrases that look like markers but are not, the sections and sentences that are never claims,
 * and the abbreviations that do not end a sentence. Editing a list here changes the engine's output;
 * test/claims/classify.test.ts holds the sentences each list must (and must not) catch.
 *
 * Matching folds case and diacritics and reads typographic apostrophes as `'`, so a phrase is written
 * once, in its plain form; it only matches whole words (Unicode letters and digits bound a word).
 */

export type MarkerLang = "fr" | "en";

/** "X … Y" in one sentence, with X before Y: `si … alors`, `if … then`. */
export interface MarkerPair {
  readonly first: string;
  readonly then: string;
}

export interface RuleMarkers {
  readonly phrases: readonly string[];
  readonly pairs: readonly MarkerPair[];
}

export interface LangMarkers {
  readonly scenario: RuleMarkers;
  readonly estimate: RuleMarkers;
  readonly inference: RuleMarkers;
  /**
   * Masked before matching: phrases containing a marker's words without its meaning
   * ("même si" is a concession, "alors que" a contrast, "autour de 161,94" the level a market
   * clusters around, not an estimate).
   */
  readonly falseFriends: readonly string[];
}

export const MARKERS: Readonly<Record<MarkerLang, LangMarkers>> = {
  fr: {
    scenario: {
      phrases: [
        "dans un scénario",
        "dans le scénario",
        "dans ce scénario",
        "dans un tel scénario",
        "scénario où",
        "scénario dans lequel",
        "dans l'hypothèse où",
        "dans l'hypothèse d'un",
        "dans l'hypothèse d'une",
        "à supposer que",
        "en supposant que",
      ],
      pairs: [
        { first: "si", then: "alors" },
        { first: "s'il", then: "alors" },
        { first: "s'ils", then: "alors" },
      ],
    },
    estimate: {
      phrases: [
        "environ",
        "selon nos estimations",
        "d'après nos estimations",
        "selon nos calculs",
        "d'après nos calculs",
        "nous estimons",
        "nous évaluons",
        "estimation",
        "estimations",
        "estimé à",
        "estimée à",
        "estimés à",
        "estimées à",
        "estime à",
        "estimait à",
        "approximativement",
        "de l'ordre de",
        "une dizaine",
        "une vingtaine",
        "une trentaine",
        "une quarantaine",
        "une cinquantaine",
        "une centaine",
      ],
      pairs: [],
    },
    inference: {
      phrases: [
        "on peut en déduire",
        "on en déduit",
        "nous en déduisons",
        "ce qui suggère",
        "ce qui indique",
        "ce qui laisse penser",
        "laisse supposer",
        "suggère que",
        "suggèrent que",
        "donc",
        "par conséquent",
        "en conséquence",
        "il en résulte",
        "ce qui signifie",
        "cela signifie",
        "c'est pourquoi",
        "notre lecture",
      ],
      pairs: [],
    },
    falseFriends: [
      "même si",
      "comme si",
      "si bien que",
      "si ce n'est",
      "alors que",
      "alors même que",
      "jusqu'alors",
      "autour de",
    ],
  },
  en: {
    scenario: {
      phrases: [
        "in a scenario where",
        "in a scenario in which",
        "in a scenario of",
        "in the scenario where",
        "in this scenario",
        "under a scenario",
        "under the scenario",
        "scenario in which",
        "assuming that",
        "in the event that",
      ],
      pairs: [{ first: "if", then: "then" }],
    },
    estimate: {
      phrases: [
        "approximately",
        "roughly",
        "we estimate",
        "we reckon",
        "our estimate",
        "our estimates",
        "by our estimates",
        "according to our estimates",
        "estimated at",
        "an estimated",
        "on the order of",
        "circa",
      ],
      pairs: [],
    },
    inference: {
      phrases: [
        "we infer",
        "we conclude",
        "this suggests",
        "which suggests",
        "suggests that",
        "suggest that",
        "implies that",
        "which means",
        "this means",
        "therefore",
        "hence",
        "thus",
        "consequently",
        "it follows that",
        "our reading",
      ],
      pairs: [],
    },
    falseFriends: ["even if", "as if", "only if", "what if", "around"],
  },
};

/**
 * Headings whose section is bibliography or navigation: nothing under them is a claim (their links
 * are still references). A heading matches when it is one of these or starts with one and a
 * non-letter ("Sources et notes", "Voir aussi :").
 */
export const EXCLUDED_SECTIONS: readonly string[] = [
  "voir aussi",
  "lire aussi",
  "à lire aussi",
  "à lire également",
  "voir également",
  "pour aller plus loin",
  "pour en savoir plus",
  "bibliographie",
  "sources",
  "références",
  "notes",
  "liens",
  "see also",
  "read also",
  "read more",
  "further reading",
  "references",
  "bibliography",
  "links",
];

/** Sentences starting with one of these are navigation, never claims. */
export const NAVIGATION_PREFIXES: readonly string[] = [
  "lire aussi",
  "lisez aussi",
  "à lire aussi",
  "à lire également",
  "lire également",
  "voir aussi",
  "voir également",
  "voir notre",
  "voir nos",
  "voir le guide",
  "voir la méthodologie",
  "pour en savoir plus",
  "pour aller plus loin",
  "consultez",
  "découvrez",
  "retrouvez",
  "see also",
  "read also",
  "read more",
  "further reading",
  "see our",
  "learn more",
  "find out more",
  "for more",
];

/** Words that a period follows without ending the sentence (case-insensitive, without the period). */
export const ABBREVIATIONS: readonly string[] = [
  "m",
  "mm",
  "mme",
  "mmes",
  "mlle",
  "dr",
  "pr",
  "st",
  "ste",
  "cf",
  "p",
  "pp",
  "vol",
  "env",
  "art",
  "av",
  "apr",
  "n°",
  "no",
  "nos",
  "vs",
  "mr",
  "mrs",
  "ms",
  "jr",
  "sr",
  "inc",
  "corp",
  "co",
  "ltd",
  "fig",
  "al",
  "e.g",
  "i.e",
  "approx",
  "max",
  "min",
  "éd",
  "ed",
];

/** Units that make a number material (a level, an amount, a rate), after folding. */
export const MATERIAL_UNITS: readonly string[] = [
  "%",
  "pour cent",
  "percent",
  "per cent",
  "point",
  "points",
  "pb",
  "bp",
  "bps",
  "pdb",
  "milliard",
  "milliards",
  "million",
  "millions",
  "billion",
  "billions",
  "trillion",
  "trillions",
  "dollar",
  "dollars",
  "euro",
  "euros",
  "yen",
  "yens",
  "$",
  "€",
  "£",
  "¥",
  "twh",
  "mwh",
  "gwh",
  "kwh",
  "m3",
  "fois",
  "times",
];
