import { describe, expect, it } from "vitest";
import { classifySentence, type MatchedRule } from "../../core/claims/classify.ts";
import { MARKERS } from "../../core/claims/markers.ts";

type Row = [lang: "fr" | "en", sentence: string, rule: MatchedRule];

const TABLE: Row[] = [
  // scenario-marker
  [
    "fr",
    "Dans un scénario où l’écart de taux passerait sous 200 points de base, le carry deviendrait négatif.",
    "scenario-marker",
  ],
  [
    "fr",
    "Si le chômage reste sous 4,5 %, alors le mouvement d’avril devrait rester un épisode sans suite.",
    "scenario-marker",
  ],
  ["fr", "S’il franchit ce seuil en 2027, alors le Trésor réduira l’encours de bons.", "scenario-marker"],
  [
    "fr",
    "Dans l’hypothèse où la BCE reprendrait ses baisses de taux, la demande de BTP serait soutenue.",
    "scenario-marker",
  ],
  [
    "fr",
    "Selon nos estimations, si ce rythme se maintient, alors la marge serait épuisée vers la fin mai 2027.",
    "scenario-marker",
  ],
  ["en", "In a scenario where the spread falls below 200 basis points, carry turns negative.", "scenario-marker"],
  ["en", "If unemployment stays below 4.5%, then the April move should fade.", "scenario-marker"],
  ["en", "Under a scenario of mild recession, high-yield spreads could exceed 600 basis points.", "scenario-marker"],
  // estimate-marker
  ["fr", "Les positions de carry représentent environ 480 milliards de dollars.", "estimate-marker"],
  ["fr", "Selon nos estimations, le taux de défaut s’établissait à 3,6 % à la fin du T1 2026.", "estimate-marker"],
  ["fr", "Nous estimons l’encours exposé à 480 milliards de dollars.", "estimate-marker"],
  ["fr", "Le déficit italien est estimé à 3,4 % du PIB par la Commission.", "estimate-marker"],
  ["fr", "La prime ne représente plus qu’une trentaine de points de base.", "estimate-marker"],
  ["en", "We estimate the exposed positions at 480 billion dollars.", "estimate-marker"],
  ["en", "Reserves stood at approximately 2,950 billion dollars in October 2026.", "estimate-marker"],
  ["en", "Private credit is roughly 2 trillion dollars in the United States.", "estimate-marker"],
  // inference-marker
  ["fr", "On peut en déduire que le signal à surveiller est la volatilité implicite.", "inference-marker"],
  ["fr", "Le rendement du Bund est resté stable, ce qui suggère une prime propre à l’Italie.", "inference-marker"],
  ["fr", "Chaque hausse du compte du Trésor se traduit donc par une baisse des réserves.", "inference-marker"],
  ["fr", "C’est pourquoi notre signal combine le niveau des stocks et le prix.", "inference-marker"],
  ["en", "Bund yields stayed flat, which suggests an Italy-specific premium.", "inference-marker"],
  ["en", "Reserves are therefore close to their lowest comfortable level.", "inference-marker"],
  ["en", "Our reading is that contagion remains contained.", "inference-marker"],
  // unclassified-assertion, including false friends
  [
    "fr",
    "Le 30 juin 2026, la dette fédérale totale s’établissait à 39 284 milliards de dollars.",
    "unclassified-assertion",
  ],
  [
    "fr",
    "Les prix restent bas, même si la prime de risque hivernale est remontée en septembre.",
    "unclassified-assertion",
  ],
  [
    "fr",
    "Les options se sont concentrées autour de 161,94, le plus haut de clôture du 10 juillet 2026.",
    "unclassified-assertion",
  ],
  ["fr", "Les taux ont aussi monté, alors que le yen baissait.", "unclassified-assertion"],
  ["fr", "Si le Trésor émet davantage de bons, les réserves baissent.", "unclassified-assertion"],
  ["fr", "La réglementation de l’environnement financier a changé en 2025.", "unclassified-assertion"],
  ["fr", "Les scénaristes de la série ont été estimés par le public.", "unclassified-assertion"],
  [
    "fr",
    "Le marché réagit comme si la Fed allait baisser ses taux, alors même que l’inflation remonte.",
    "unclassified-assertion",
  ],
  ["en", "Stress is spreading from high-yield credit to leveraged loans.", "unclassified-assertion"],
  ["en", "Options clustered around 161.94, the July 10 closing high.", "unclassified-assertion"],
  ["en", "Henceforth the facility is used at every quarter end.", "unclassified-assertion"],
  ["en", "Even if the Fed cuts, then markets may still sell off.", "unclassified-assertion"],
  ["en", "The estimator was revised by the statistical office in 2025.", "unclassified-assertion"],
];

describe("classifySentence() (lexical-heuristic-v1)", () => {
  it.each(TABLE)("[%s] %s -> %s", (lang, sentence, rule) => {
    expect(classifySentence(sentence, lang).matchedRule).toBe(rule);
  });

  it("has a table of at least thirty sentences in both languages covering every rule", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
    for (const lang of ["fr", "en"] as const) {
      const rules = new Set(TABLE.filter((r) => r[0] === lang).map((r) => r[2]));
      expect([...rules].sort()).toEqual([
        "estimate-marker",
        "inference-marker",
        "scenario-marker",
        "unclassified-assertion",
      ]);
    }
  });

  it("never assigns the kind fait", () => {
    for (const [lang, sentence] of TABLE) expect(classifySentence(sentence, lang).kind).not.toBe("fait");
  });

  it("maps each rule to its kind", () => {
    expect(classifySentence("Dans un scénario où les taux montent, tout baisse.", "fr").kind).toBe("scénario");
    expect(classifySentence("Environ 30 points de base.", "fr").kind).toBe("estimation");
    expect(classifySentence("On en déduit que tout baisse.", "fr").kind).toBe("inférence");
    expect(classifySentence("Le taux est à 3 %.", "fr").kind).toBe("unclassified-assertion");
  });

  it("explains every classification with a French caveat naming the marker it found", () => {
    const hit = classifySentence("Les positions représentent environ 480 milliards de dollars.", "fr");
    expect(hit.marker).toBe("environ");
    expect(hit.caveat).toContain("« environ »");
    expect(hit.caveat).toContain("heuristique lexicale");
    const none = classifySentence("Le taux est à 3 %.", "fr");
    expect(none.marker).toBeNull();
    expect(none.caveat).toContain("seule une revue éditoriale");
  });

  it("prefers the scenario rule over the estimate rule over the inference rule", () => {
    const both = classifySentence(
      "Selon nos estimations, si le rythme tient, alors la marge sera épuisée, donc le risque monte.",
      "fr",
    );
    expect(both.matchedRule).toBe("scenario-marker");
    expect(classifySentence("Environ 30 points de base, ce qui suggère un canal limité.", "fr").matchedRule).toBe(
      "estimate-marker",
    );
  });

  it("ignores case, accents and typographic apostrophes", () => {
    expect(classifySentence("DANS UN SCENARIO OU les taux montent.", "fr").matchedRule).toBe("scenario-marker");
    expect(classifySentence("Dans l'hypothèse où les taux montent.", "fr").matchedRule).toBe("scenario-marker");
    expect(classifySentence("Dans l’hypothèse où les taux montent.", "fr").matchedRule).toBe("scenario-marker");
  });

  it("keeps every word list in one data file, in both languages", () => {
    for (const lang of ["fr", "en"] as const) {
      expect(MARKERS[lang].scenario.phrases.length).toBeGreaterThan(0);
      expect(MARKERS[lang].estimate.phrases.length).toBeGreaterThan(0);
      expect(MARKERS[lang].inference.phrases.length).toBeGreaterThan(0);
      expect(MARKERS[lang].falseFriends.length).toBeGreaterThan(0);
    }
    expect(MARKERS.fr.falseFriends).toContain("même si");
  });
});
