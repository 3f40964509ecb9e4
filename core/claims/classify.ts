/**
 * The classifier `lexical-heuristic-v1`: a sentence's kind from the markers of ./markers.ts.
 * Rules are tried in the contract's order (scenario, estimate, inference): a conditional estimate
 * ("selon nos estimations, si …, alors …") is a scenario first. `fait` is never assigned here; only
 * a review can (see ./reviews.ts).
 */
import { MARKERS, type MarkerLang, type RuleMarkers } from "./markers.ts";
import { anyOf, fold, wordSource } from "./text.ts";

export type MatchedRule = "scenario-marker" | "estimate-marker" | "inference-marker" | "unclassified-assertion";
export type AutoKind = "scénario" | "estimation" | "inférence" | "unclassified-assertion";

export interface Classification {
  matchedRule: MatchedRule;
  kind: AutoKind;
  caveat: string;
  /** The marker as written in ./markers.ts ("si … alors" for a pair), or null. */
  marker: string | null;
}

interface _CompiledRule {
  rule: Exclude<MatchedRule, "unclassified-assertion">;
  kind: Exclude<AutoKind, "unclassified-assertion">;
  phrases: RegExp | null;
  phraseList: readonly string[];
  pairs: { re: RegExp; label: string }[];
}

interface _CompiledLang {
  mask: RegExp | null;
  rules: _CompiledRule[];
}

function _compileRule(rule: _CompiledRule["rule"], kind: _CompiledRule["kind"], markers: RuleMarkers): _CompiledRule {
  return {
    rule,
    kind,
    phrases: markers.phrases.length > 0 ? anyOf(markers.phrases) : null,
    phraseList: markers.phrases,
    pairs: markers.pairs.map((p) => ({
      re: new RegExp(`${wordSource(p.first)}[\\s\\S]*?${wordSource(p.then)}`),
      label: `${p.first} … ${p.then}`,
    })),
  };
}

function _compile(lang: MarkerLang): _CompiledLang {
  const m = MARKERS[lang];
  return {
    mask: m.falseFriends.length > 0 ? anyOf(m.falseFriends, "g") : null,
    rules: [
      _compileRule("scenario-marker", "scénario", m.scenario),
      _compileRule("estimate-marker", "estimation", m.estimate),
      _compileRule("inference-marker", "inférence", m.inference),
    ],
  };
}

const _COMPILED: Record<MarkerLang, _CompiledLang> = { fr: _compile("fr"), en: _compile("en") };

const _CAVEATS: Record<MatchedRule, (marker: string) => string> = {
  "scenario-marker": (m) =>
    `Nature déduite automatiquement (heuristique lexicale) du marqueur de scénario « ${m} » : ` +
    "l’affirmation décrit une hypothèse conditionnelle, pas une observation. Non vérifiée par une revue éditoriale.",
  "estimate-marker": (m) =>
    `Nature déduite automatiquement (heuristique lexicale) du marqueur d’estimation « ${m} » : ` +
    "le chiffre est approché ou calculé, pas lu tel quel dans une source. Non vérifiée par une revue éditoriale.",
  "inference-marker": (m) =>
    `Nature déduite automatiquement (heuristique lexicale) du marqueur d’inférence « ${m} » : ` +
    "l’affirmation tire une conclusion d’autres éléments. Non vérifiée par une revue éditoriale.",
  "unclassified-assertion": () =>
    "Aucun marqueur lexical de scénario, d’estimation ou d’inférence n’a été trouvé ; l’heuristique ne " +
    "qualifie jamais une phrase de « fait » : seule une revue éditoriale le peut.",
};

/** The kind of `text` under lexical-heuristic-v1, with a French caveat explaining how it was found. */
export function classifySentence(text: string, lang: MarkerLang): Classification {
  const compiled = _COMPILED[lang];
  let folded = fold(text);
  if (compiled.mask) folded = folded.replace(compiled.mask, (s) => " ".repeat(s.length));
  for (const rule of compiled.rules) {
    const marker = _firstMarker(rule, folded);
    if (marker !== null)
      return { matchedRule: rule.rule, kind: rule.kind, caveat: _CAVEATS[rule.rule](marker), marker };
  }
  return {
    matchedRule: "unclassified-assertion",
    kind: "unclassified-assertion",
    caveat: _CAVEATS["unclassified-assertion"](""),
    marker: null,
  };
}

function _firstMarker(rule: _CompiledRule, folded: string): string | null {
  if (rule.phrases) {
    const m = rule.phrases.exec(folded);
    if (m) {
      const hit = m[0].replace(/\s+/g, " ");
      return rule.phraseList.find((p) => fold(p) === hit) ?? hit;
    }
  }
  for (const pair of rule.pairs) if (pair.re.test(folded)) return pair.label;
  return null;
}
