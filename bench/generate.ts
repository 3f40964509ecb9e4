import { slugify } from "../core/surfaces/common.ts";
/**
 * Writes a synthetic but valid publication at the real publication's scale: 175 French and 175
 * English articles, 50 + 50 guides, 470 glossary entries, 15 primary sources and the demo's 5
 * instruments. The demo's own articles, guides, glossary entries and primary sources are kept (so
 * its claim reviews stay valid) and the rest is generated deterministically from a seeded PRNG.
 *
 *   node dist/bench/generate.js [DIR]     writes the publication (default: a fresh temp folder)
 */
import * as fs from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import YAML from "yaml";
import { demoPublication } from "../cli/paths.ts";

export interface Scale {
  articlesPerLang: number;
  guidesPerLang: number;
  glossary: number;
  primarySources: number;
}

/** The real publication's scale: 450 bilingual documents with inline SVG figures, about 13 MB of surfaces. */
export const REAL_SCALE: Scale = { articlesPerLang: 175, guidesPerLang: 50, glossary: 470, primarySources: 15 };

export interface Generated {
  dir: string;
  counts: {
    articlesFr: number;
    articlesEn: number;
    guidesFr: number;
    guidesEn: number;
    glossary: number;
    primarySources: number;
    instruments: number;
  };
  /** Bytes of content/ (Markdown and YAML inputs). */
  inputBytes: number;
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    const out: T[] = [];
    while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(this.next() * copy.length), 1)[0]!);
    return out;
  }
  decimal(lo: number, hi: number, digits: number): number {
    return Number((lo + this.next() * (hi - lo)).toFixed(digits));
  }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const LINKS: readonly { fr: string; en: string; url: string }[] = [
  {
    fr: "Debt to the Penny",
    en: "Debt to the Penny",
    url: "https://fiscaldata.treasury.gov/datasets/debt-to-the-penny/debt-to-the-penny",
  },
  {
    fr: "rapport mensuel du Trésor",
    en: "Monthly Treasury Statement",
    url: "https://fiscaldata.treasury.gov/datasets/monthly-treasury-statement/",
  },
  { fr: "relevé H.4.1", en: "H.4.1 release", url: "https://www.federalreserve.gov/releases/h41/" },
  {
    fr: "rapport sur la stabilité financière de la Fed",
    en: "Fed Financial Stability Report",
    url: "https://www.federalreserve.gov/publications/financial-stability-report.htm",
  },
  {
    fr: "Congressional Budget Office",
    en: "Congressional Budget Office",
    url: "https://www.cbo.gov/topics/budget/federal-debt-and-statutory-limit",
  },
  { fr: "portail de données de la BCE", en: "ECB Data Portal", url: "https://data.ecb.europa.eu/data/datasets/YC" },
  {
    fr: "instrument de protection de la transmission",
    en: "Transmission Protection Instrument",
    url: "https://www.ecb.europa.eu/mopo/implement/tpi/html/index.en.html",
  },
  {
    fr: "déclaration de politique monétaire de la Banque du Japon",
    en: "Bank of Japan policy statement",
    url: "https://www.boj.or.jp/en/mopo/mpmdeci/index.htm",
  },
  {
    fr: "statistiques bancaires de la BRI",
    en: "BIS banking statistics",
    url: "https://www.bis.org/statistics/bankstats.htm",
  },
  {
    fr: "revue trimestrielle de la BRI",
    en: "BIS Quarterly Review",
    url: "https://www.bis.org/publ/qtrpdf/r_qt2609.htm",
  },
  {
    fr: "Global Financial Stability Report du FMI",
    en: "IMF Global Financial Stability Report",
    url: "https://www.imf.org/en/Publications/GFSR",
  },
  {
    fr: "plateforme de transparence d’ENTSOG",
    en: "ENTSOG Transparency Platform",
    url: "https://transparency.entsog.eu/",
  },
  { fr: "série AGSI+ des stockages", en: "AGSI+ storage series", url: "https://agsi.gie.eu/" },
  {
    fr: "taux SOFR de la Fed de New York",
    en: "New York Fed SOFR",
    url: "https://www.newyorkfed.org/markets/reference-rates/sofr",
  },
  {
    fr: "série FRED de l’écart high yield",
    en: "FRED high-yield spread series",
    url: "https://fred.stlouisfed.org/series/BAMLH0A0HYM2",
  },
  {
    fr: "données TIC du Trésor",
    en: "Treasury TIC data",
    url: "https://home.treasury.gov/data/treasury-international-capital-tic-system",
  },
  {
    fr: "statistiques du ministère japonais des Finances",
    en: "Japanese Ministry of Finance statistics",
    url: "https://www.mof.go.jp/english/policy/international_policy/reference/feio/index.html",
  },
  { fr: "Banque de France", en: "Banque de France", url: "https://www.banque-france.fr/fr/statistiques" },
];

const FR = {
  actors: [
    "la Réserve fédérale",
    "la BCE",
    "la Banque du Japon",
    "le Trésor américain",
    "le FMI",
    "la BRI",
    "le CBO",
    "ENTSOG",
    "les fonds monétaires",
    "les banques régionales américaines",
    "les assureurs japonais",
    "les gestionnaires d’actifs",
    "le ministère japonais des Finances",
    "la Bundesbank",
    "le Trésor italien",
    "les opérateurs de stockage",
  ],
  metrics: [
    "l’encours des bons du Trésor",
    "l’écart high yield",
    "l’écart BTP-Bund",
    "le taux SOFR",
    "le taux de remplissage des stockages de gaz",
    "le rendement à 10 ans japonais",
    "la dette fédérale",
    "les réserves bancaires",
    "la prime de terme",
    "le taux de défaut à douze mois",
    "la volatilité implicite du yen",
    "le compte général du Trésor",
    "le prix du gaz TTF",
    "l’écart OAT-Bund",
    "la facilité de prise en pension inversée",
    "la charge d’intérêts nette",
  ],
  units: ["milliards de dollars", "points de base", "milliards d’euros", "TWh", "billions de yens", "euros par MWh"],
  months: [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
  ],
  concepts: [
    "la stabilité des prix",
    "la liquidité du marché",
    "la transmission de la politique monétaire",
    "le refinancement de la dette",
    "la sécurité d’approvisionnement",
    "la solvabilité des emprunteurs",
    "la fragmentation des marchés",
    "la crédibilité budgétaire",
  ],
  templates: [
    "Une série publiée par {actor} le {day} {month} {year} montre que {metric} atteignait {num} {unit}.",
    "Selon {link}, {metric} a progressé de {pct} % sur un an, un rythme supérieur à la moyenne des cinq années précédentes.",
    "Ce niveau reste inférieur au pic de {year}, quand {metric} avait dépassé {num} {unit}.",
    "Dans un scénario de stress, l’arbitrage entre {concept} et {concept2} serait tranché par {actor}.",
    "Il faut distinguer ce qui relève des faits publiés de ce qui relève de nos propres estimations.",
    "L’écart s’est élargi de {bp} points de base en {month}, avant de se resserrer en partie les semaines suivantes.",
    "Nous lisons {metric} comme un indicateur avancé, mais son signal reste bruité d’une semaine à l’autre.",
    "D’après {link}, la part concernée représentait {pct} % du total à la fin du trimestre.",
    "Si ce rythme se maintient, alors {metric} franchirait le seuil de {num} {unit} avant la fin de {year2}.",
    "Ce mouvement n’a pas été commenté par {actor}, ce qui laisse ouverte la question de {concept}.",
    "Une révision des données de {month} pourrait modifier cette lecture de quelques points.",
    "La comparaison avec l’épisode de {year} est tentante, mais les conditions de financement étaient alors très différentes.",
    "Notre indicateur intègre cette composante avec une pondération de {pct} %, révisée lors de la dernière mise à jour de la méthodologie.",
    "Les données de {link} confirment cette tendance sur les trois derniers mois.",
    "En pratique, selon {actor}, des marges existent encore, mais elles se réduisent plus vite que prévu.",
    "On peut en déduire que {metric} restera sous surveillance tant que {concept} ne sera pas assurée.",
  ],
  headings: [
    "Où en sont les chiffres",
    "Ce que disent les données",
    "Le calendrier",
    "Ce que cela change pour le marché",
    "Les scénarios",
    "Les limites de la lecture",
    "Ce qu’il faut surveiller",
    "Le rôle des banques centrales",
    "Un signal à nuancer",
    "Comparaison historique",
  ],
  titleSubjects: [
    "Dette américaine",
    "Écart BTP-Bund",
    "Carry trade sur le yen",
    "Gaz européen",
    "Crédit à haut rendement",
    "Marché du repo",
    "Réserves bancaires",
    "Prime de terme",
    "Obligations japonaises",
    "Dette italienne",
    "Fonds monétaires",
    "Plafond de la dette",
    "Stockages de gaz",
    "Spreads souverains",
    "Liquidité en dollar",
    "Défauts d’entreprises",
  ],
  titleAngles: [
    "ce que révèlent les derniers chiffres",
    "un signal encore modéré",
    "la tension remonte",
    "les scénarios pour l’hiver",
    "un test pour la banque centrale",
    "ce qui a changé depuis le printemps",
    "une accalmie fragile",
    "le point sur les risques",
    "les chiffres à surveiller",
    "une lecture prudente",
    "l’alerte des marchés",
    "retour sur un trimestre agité",
  ],
  tags: [
    "dette",
    "états-unis",
    "zone-euro",
    "japon",
    "énergie",
    "crédit",
    "liquidité",
    "banques-centrales",
    "taux",
    "change",
    "spreads",
    "trésor",
    "gaz",
    "repo",
    "méthode",
    "stabilité-financière",
  ],
  guideSubjects: [
    "un spread",
    "un niveau de risque",
    "une courbe des taux",
    "le bilan d’une banque centrale",
    "une série de stockage",
    "une prime de terme",
    "un taux de défaut",
    "le marché du repo",
    "une intervention de change",
    "un score normalisé",
    "une source primaire",
    "une révision de données",
  ],
  words: ["le marché", "la série", "la donnée", "le niveau", "la tendance", "la source", "le signal", "l’écart"],
};

const EN = {
  actors: [
    "the Federal Reserve",
    "the ECB",
    "the Bank of Japan",
    "the US Treasury",
    "the IMF",
    "the BIS",
    "the CBO",
    "ENTSOG",
    "money market funds",
    "US regional banks",
    "Japanese life insurers",
    "asset managers",
    "Japan's Ministry of Finance",
    "the Bundesbank",
    "the Italian Treasury",
    "storage operators",
  ],
  metrics: [
    "the stock of Treasury bills",
    "the high-yield spread",
    "the BTP-Bund spread",
    "SOFR",
    "the gas storage fill rate",
    "the Japanese 10-year yield",
    "federal debt",
    "bank reserves",
    "the term premium",
    "the trailing twelve-month default rate",
    "implied yen volatility",
    "the Treasury General Account",
    "the TTF gas price",
    "the OAT-Bund spread",
    "the overnight reverse repo facility",
    "net interest outlays",
  ],
  units: ["billion dollars", "basis points", "billion euros", "TWh", "trillion yen", "euros per MWh"],
  months: [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
  ],
  concepts: [
    "price stability",
    "market liquidity",
    "monetary policy transmission",
    "debt refinancing",
    "security of supply",
    "borrower solvency",
    "market fragmentation",
    "fiscal credibility",
  ],
  templates: [
    "{Actor} published a series on {day} {month} {year} showing that {metric} stood at {num} {unit}.",
    "According to the {link}, {metric} grew by {pct}% over the year, faster than the average of the previous five years.",
    "That level remains below the {year} peak, when {metric} exceeded {num} {unit}.",
    "In a stress scenario, {actor} would have to trade off {concept} against {concept2}.",
    "Published facts have to be kept apart from our own estimates.",
    "The spread widened by {bp} basis points in {month} before partly narrowing in the following weeks.",
    "We read {metric} as a leading indicator, but its signal remains noisy from one week to the next.",
    "According to the {link}, the share concerned was {pct}% of the total at the end of the quarter.",
    "If this pace holds, {metric} would cross the {num} {unit} threshold before the end of {year2}.",
    "{Actor} did not comment on the move, which leaves the question of {concept} open.",
    "A revision of the {month} data could shift this reading by a few points.",
    "The comparison with the {year} episode is tempting, but funding conditions were very different then.",
    "Our indicator includes this component with a weight of {pct}%, revised at the last methodology update.",
    "Data from the {link} confirm the trend over the last three months.",
    "In practice, {actor} can still act, but the room is shrinking faster than expected.",
    "It follows that {metric} will stay under watch as long as {concept} is not secured.",
  ],
  headings: [
    "Where the numbers stand",
    "What the data say",
    "The timeline",
    "What it means for markets",
    "Scenarios",
    "Limits of the reading",
    "What to watch",
    "The role of central banks",
    "A signal to qualify",
    "Historical comparison",
  ],
  titleSubjects: [
    "US debt",
    "The BTP-Bund spread",
    "The yen carry trade",
    "European gas",
    "High-yield credit",
    "The repo market",
    "Bank reserves",
    "The term premium",
    "Japanese government bonds",
    "Italian debt",
    "Money market funds",
    "The debt ceiling",
    "Gas storage",
    "Sovereign spreads",
    "Dollar liquidity",
    "Corporate defaults",
  ],
  titleAngles: [
    "what the latest figures show",
    "a still moderate signal",
    "tension is rising again",
    "scenarios for the winter",
    "a test for the central bank",
    "what changed since the spring",
    "a fragile lull",
    "taking stock of the risks",
    "the numbers to watch",
    "a cautious reading",
    "the market's warning",
    "looking back at a volatile quarter",
  ],
  guideSubjects: [
    "a spread",
    "a risk level",
    "a yield curve",
    "a central bank balance sheet",
    "a storage series",
    "a term premium",
    "a default rate",
    "the repo market",
    "a currency intervention",
    "a normalised score",
    "a primary source",
    "a data revision",
  ],
};

type Lang = "fr" | "en";

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function uniqueSlug(base: string, taken: Set<string>): string {
  let slug = base.slice(0, 70).replace(/-+$/, "");
  for (let n = 2; taken.has(slug); n++) slug = `${base.slice(0, 66).replace(/-+$/, "")}-${n}`;
  taken.add(slug);
  return slug;
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

function sentence(rng: Rng, lang: Lang): string {
  const v = lang === "fr" ? FR : EN;
  const template = rng.pick(v.templates);
  const link = rng.pick(LINKS);
  const concept = rng.pick(v.concepts);
  const year = rng.int(2008, 2025);
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    switch (key) {
      case "Actor":
        return capitalise(rng.pick(v.actors));
      case "actor":
        return rng.pick(v.actors);
      case "metric":
        return rng.pick(v.metrics);
      case "unit":
        return rng.pick(v.units);
      case "num":
        return lang === "fr"
          ? rng.decimal(1, 2000, 1).toString().replace(".", ",")
          : rng.decimal(1, 2000, 1).toString();
      case "pct":
        return lang === "fr"
          ? rng.decimal(0.5, 40, 1).toString().replace(".", ",")
          : rng.decimal(0.5, 40, 1).toString();
      case "bp":
        return String(rng.int(3, 180));
      case "day":
        return String(rng.int(1, 28));
      case "month":
        return rng.pick(v.months);
      case "year":
        return String(year);
      case "year2":
        return String(rng.int(2026, 2028));
      case "concept":
        return concept;
      case "concept2":
        return rng.pick(v.concepts.filter((c) => c !== concept));
      case "link":
        return `[${lang === "fr" ? link.fr : link.en}](${link.url})`;
      default:
        return key;
    }
  });
}

/** Markdown prose of about `words` words: paragraphs under headings, links, claim-id markers, a source list. */
function body(rng: Rng, lang: Lang, words: number, claimIds: boolean): string {
  const v = lang === "fr" ? FR : EN;
  const parts: string[] = [];
  let count = 0;
  const paragraph = () => {
    const n = rng.int(3, 6);
    const s: string[] = [];
    for (let i = 0; i < n; i++) s.push(sentence(rng, lang));
    const text = s.join(" ");
    count += wordCount(text);
    return text;
  };
  parts.push(paragraph());
  const headings = rng.sample(v.headings, v.headings.length);
  let h = 0;
  let claim = 0;
  while (count < words) {
    const heading = headings[h++ % headings.length]!;
    parts.push(`## ${heading}`);
    count += wordCount(heading);
    for (let p = rng.int(1, 3); p > 0 && count < words; p--) {
      if (claimIds && rng.chance(0.15)) parts.push(`<!-- claim-id: ${slugify(heading)}-${++claim} -->\n${paragraph()}`);
      else parts.push(paragraph());
    }
    if (rng.chance(0.2)) {
      const items = rng.int(2, 4);
      const list: string[] = [];
      for (let i = 0; i < items; i++) list.push(`- ${sentence(rng, lang)}`);
      const text = list.join("\n");
      count += wordCount(text);
      parts.push(text);
    }
  }
  parts.push("## Sources");
  parts.push(
    rng
      .sample(LINKS, rng.int(2, 5))
      .map((l) => `- [${lang === "fr" ? l.fr : l.en}](${l.url})`)
      .join("\n"),
  );
  return `${parts.join("\n\n")}\n`;
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const DAY = 86_400_000;
const FIRST = Date.UTC(2024, 0, 8);
const LAST = Date.UTC(2026, 10, 15);

function frontmatter(meta: Record<string, unknown>): string {
  return `---\n${YAML.stringify(meta, { lineWidth: 0 })}---\n\n`;
}

interface GenDoc {
  slug: string;
  title: string;
  date: string;
  updated: string | null;
}

function writeDocs(
  rng: Rng,
  root: string,
  folder: "articles" | "guides",
  count: number,
  existingFr: GenDoc[],
  untranslatedFr: GenDoc[],
  topics: string[],
): { fr: GenDoc[]; en: GenDoc[] } {
  const frDir = join(root, "content", folder, "fr");
  const enDir = join(root, "content", folder, "en");
  fs.mkdirSync(frDir, { recursive: true });
  fs.mkdirSync(enDir, { recursive: true });
  const takenFr = new Set(fs.readdirSync(frDir).map((n) => n.replace(/\.md$/, "")));
  const takenEn = new Set(fs.readdirSync(enDir).map((n) => n.replace(/\.md$/, "")));
  const existingEnCount = takenEn.size;
  const frCount = count - existingFr.length;
  const words = folder === "articles" ? [440, 600] : [400, 560];
  const fr: GenDoc[] = [];
  for (let i = 0; i < frCount; i++) {
    const subjectIndex = rng.int(0, FR.titleSubjects.length - 1);
    const angleIndex = rng.int(0, FR.titleAngles.length - 1);
    const year = rng.int(2024, 2026);
    const title =
      folder === "articles"
        ? `${FR.titleSubjects[subjectIndex]} : ${FR.titleAngles[angleIndex]} (${year})`
        : `Comment lire ${rng.pick(FR.guideSubjects)}${rng.chance(0.5) ? ` : ${rng.pick(FR.titleAngles)}` : ""}`;
    const slug = uniqueSlug(slugify(title), takenFr);
    const dateMs = FIRST + rng.int(0, Math.floor((LAST - FIRST) / DAY) - 70) * DAY;
    const date = isoDate(dateMs);
    const updated = rng.chance(0.4) ? isoDate(dateMs + rng.int(1, 60) * DAY) : null;
    const meta: Record<string, unknown> = {
      title,
      description: sentence(rng, "fr").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1"),
      ...(rng.chance(0.7)
        ? { summary: [sentence(rng, "fr"), sentence(rng, "fr")].join(" ").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1") }
        : {}),
      date,
      ...(updated ? { updated } : {}),
      tags: rng.sample(FR.tags, rng.int(2, 5)),
      topics: rng.sample(topics, rng.int(1, 3)),
    };
    fs.writeFileSync(
      join(frDir, `${slug}.md`),
      frontmatter(meta) + body(rng, "fr", rng.int(words[0]!, words[1]!), folder === "articles"),
    );
    fr.push({ slug, title, date, updated });
  }
  // English translations: first the demo's untranslated originals, then every generated one,
  // until the English side reaches `count`.
  const originals = [...untranslatedFr, ...fr].slice(0, count - existingEnCount);
  const en: GenDoc[] = [];
  for (const o of originals) {
    const title =
      folder === "articles"
        ? `${rng.pick(EN.titleSubjects)}: ${rng.pick(EN.titleAngles)} (${o.date.slice(0, 4)})`
        : `How to read ${rng.pick(EN.guideSubjects)}`;
    const slug = uniqueSlug(slugify(title), takenEn);
    const frRevision = o.updated ?? o.date;
    const dateMs = Date.parse(o.date) + rng.int(0, 10) * DAY;
    const date = isoDate(dateMs);
    const updated = rng.chance(0.25) ? isoDate(dateMs + rng.int(1, 30) * DAY) : null;
    // About one translation in six follows an older French revision (a stale translation).
    const translatedFrom = o.updated && rng.chance(0.17) ? o.date : frRevision;
    const meta: Record<string, unknown> = {
      title,
      description: sentence(rng, "en").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1"),
      ...(rng.chance(0.7)
        ? { summary: [sentence(rng, "en"), sentence(rng, "en")].join(" ").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1") }
        : {}),
      date,
      ...(updated ? { updated } : {}),
      tags: rng.sample(
        [
          "debt",
          "united-states",
          "euro-area",
          "japan",
          "energy",
          "credit",
          "liquidity",
          "central-banks",
          "rates",
          "fx",
          "spreads",
          "treasury",
          "gas",
          "repo",
          "method",
        ],
        rng.int(2, 5),
      ),
      topics: rng.sample(topics, rng.int(1, 3)),
      translationOf: o.slug,
      translatedFrom,
    };
    fs.writeFileSync(
      join(enDir, `${slug}.md`),
      frontmatter(meta) + body(rng, "en", rng.int(words[0]! - 60, words[1]! - 60), folder === "articles"),
    );
    en.push({ slug, title, date, updated });
  }
  return { fr: [...existingFr, ...fr], en };
}

/** The demo's French documents of a folder, and those with no English translation. */
function demoDocs(root: string, folder: string): { fr: GenDoc[]; untranslated: GenDoc[] } {
  const read = (lang: Lang) =>
    fs
      .readdirSync(join(root, "content", folder, lang))
      .filter((n) => n.endsWith(".md"))
      .map((n) => {
        const text = fs.readFileSync(join(root, "content", folder, lang, n), "utf8");
        const meta = YAML.parse(text.split(/^---$/m)[1]!) as {
          title: string;
          date: string;
          updated?: string | null;
          translationOf?: string;
        };
        return {
          slug: n.slice(0, -3),
          title: meta.title,
          date: String(meta.date),
          updated: meta.updated ? String(meta.updated) : null,
          translationOf: meta.translationOf,
        };
      });
  const fr = read("fr");
  const translated = new Set(read("en").map((d) => d.translationOf));
  return { fr, untranslated: fr.filter((d) => !translated.has(d.slug)) };
}

const GLOSSARY_TERMS = [
  "taux",
  "spread",
  "prime",
  "courbe",
  "rendement",
  "duration",
  "convexité",
  "liquidité",
  "collatéral",
  "décote",
  "marge",
  "levier",
  "volatilité",
  "corrélation",
  "bilan",
  "réserve",
  "facilité",
  "adjudication",
  "émission",
  "refinancement",
  "maturité",
  "coupon",
  "indice",
  "swap",
  "option",
  "contrat à terme",
  "écart",
  "notation",
  "défaut",
  "recouvrement",
  "encours",
  "déficit",
  "solde",
  "stock",
  "flux",
  "capacité",
  "injection",
  "soutirage",
  "parité",
  "portage",
  "couverture",
  "change",
  "intervention",
  "inflation",
  "anticipation",
  "bascule",
  "seuil",
  "score",
  "pondération",
  "imputation",
  "couverture statistique",
  "révision",
  "série",
];
const GLOSSARY_QUALIFIERS = [
  "directeur",
  "réel",
  "nominal",
  "implicite",
  "souverain",
  "bancaire",
  "de marché",
  "à court terme",
  "à long terme",
  "ajusté",
  "interbancaire",
  "monétaire",
  "budgétaire",
  "énergétique",
  "européen",
  "américain",
  "japonais",
  "normalisé",
  "glissant",
  "effectif",
];
const CATEGORIES = [
  "taux",
  "crédit",
  "liquidité",
  "change",
  "énergie",
  "dette publique",
  "banque centrale",
  "marchés",
  "méthode",
  "statistique",
  "budget",
];

function glossary(
  rng: Rng,
  demo: GlossaryEntryIn[],
  n: number,
  ctx: { guides: string[]; articles: GenDoc[]; guideDocs: GenDoc[]; series: string[]; methodologies: string[] },
): GlossaryEntryIn[] {
  const taken = new Set(demo.map((g) => g.slug));
  const entries: GlossaryEntryIn[] = [...demo];
  const combos: string[] = [];
  for (const t of GLOSSARY_TERMS) for (const q of GLOSSARY_QUALIFIERS) combos.push(`${t} ${q}`);
  const names = rng.sample(combos, n - demo.length);
  const fresh: GlossaryEntryIn[] = names.map((raw) => {
    const name = capitalise(raw);
    const slug = uniqueSlug(slugify(name), taken);
    const words = raw.split(" ").filter((w) => w.length > 2);
    return {
      slug,
      sigle: rng.chance(0.2) ? words.map((w) => w[0]!.toUpperCase()).join("") : null,
      name,
      definition: [sentence(rng, "fr"), sentence(rng, "fr")].join(" ").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1"),
      category: rng.pick(CATEGORIES),
      guide: rng.chance(0.25) ? rng.pick(ctx.guides) : null,
      atlas: null,
    };
  });
  entries.push(...fresh);
  const allSlugs = entries.map((e) => e.slug);
  const link = (
    kind: "article" | "guide" | "dataset" | "signal" | "source" | "methodology",
    label: string,
    href: string,
  ) => ({
    label,
    href,
    ...(rng.chance(0.8) ? { detail: sentence(rng, "fr").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1") } : {}),
    kind,
  });
  for (const e of fresh) {
    if (!rng.chance(0.35)) continue;
    e.atlas = {
      intuition: rng.chance(0.9) ? sentence(rng, "fr").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1") : null,
      formula: rng.chance(0.5) ? `${e.name.toLowerCase()} = ${rng.pick(FR.metrics)} − ${rng.pick(FR.metrics)}` : null,
      whyNow: rng.chance(0.6) ? sentence(rng, "fr").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1") : null,
      related: rng.sample(
        allSlugs.filter((s) => s !== e.slug),
        rng.int(1, 4),
      ),
      articles: rng.sample(ctx.articles, rng.int(0, 3)).map((a) => link("article", a.title, `/articles/${a.slug}/`)),
      guides: rng.sample(ctx.guideDocs, rng.int(0, 2)).map((g) => link("guide", g.title, `/guides/${g.slug}/`)),
      datasets: rng.sample(LINKS, rng.int(0, 2)).map((l) => link("dataset", l.fr, l.url)),
      signals: rng.sample(ctx.series, rng.int(0, 1)).map((s) => link("signal", s, `/api/v1/signals/${s}/history.csv`)),
      sources: [
        ...rng.sample(LINKS, rng.int(0, 2)).map((l) => link("source", l.fr, l.url)),
        ...rng.sample(ctx.methodologies, rng.int(0, 1)).map((m) => link("methodology", m, `/methodologies/${m}/`)),
      ],
    };
  }
  return entries;
}

interface GlossaryEntryIn {
  slug: string;
  sigle?: string | null;
  name: string;
  definition: string;
  category: string;
  guide?: string | null;
  atlas: Record<string, unknown> | null;
}

const SOURCE_NAMES = [
  {
    slug: "bundesbank",
    name: "Deutsche Bundesbank",
    shortName: "Bundesbank",
    category: "banque centrale",
    url: "https://www.bundesbank.de/",
  },
  {
    slug: "banque-de-france",
    name: "Banque de France",
    shortName: "BdF",
    category: "banque centrale",
    url: "https://www.banque-france.fr/",
  },
  {
    slug: "fed-new-york",
    name: "Federal Reserve Bank of New York",
    shortName: "NY Fed",
    category: "banque centrale",
    url: "https://www.newyorkfed.org/",
  },
  {
    slug: "gie",
    name: "Gas Infrastructure Europe",
    shortName: "GIE",
    category: "infrastructure énergétique",
    url: "https://www.gie.eu/",
  },
  {
    slug: "mof-japon",
    name: "Ministère des Finances du Japon",
    shortName: "MoF",
    category: "trésor public",
    url: "https://www.mof.go.jp/english/",
  },
  {
    slug: "tesoro-italia",
    name: "Dipartimento del Tesoro",
    shortName: "Tesoro",
    category: "trésor public",
    url: "https://www.dt.mef.gov.it/",
  },
  {
    slug: "eurostat",
    name: "Eurostat",
    shortName: "Eurostat",
    category: "statistique publique",
    url: "https://ec.europa.eu/eurostat/",
  },
  {
    slug: "bls",
    name: "U.S. Bureau of Labor Statistics",
    shortName: "BLS",
    category: "statistique publique",
    url: "https://www.bls.gov/",
  },
  {
    slug: "ofr",
    name: "Office of Financial Research",
    shortName: "OFR",
    category: "supervision",
    url: "https://www.financialresearch.gov/",
  },
  {
    slug: "esma",
    name: "European Securities and Markets Authority",
    shortName: "ESMA",
    category: "supervision",
    url: "https://www.esma.europa.eu/",
  },
];

function primarySources(rng: Rng, demo: { slug: string }[], n: number): unknown[] {
  const taken = new Set(demo.map((s) => s.slug));
  const extra = SOURCE_NAMES.filter((s) => !taken.has(s.slug)).slice(0, Math.max(0, n - demo.length));
  if (demo.length + extra.length < n)
    throw new Error(`only ${demo.length + extra.length} primary sources available, ${n} asked`);
  return [
    ...demo,
    ...extra.map((s) => ({
      slug: s.slug,
      name: s.name,
      shortName: s.shortName,
      category: s.category,
      officialUrl: s.url,
      description: [sentence(rng, "fr"), sentence(rng, "fr")].join(" ").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1"),
      datasets: Array.from({ length: rng.int(2, 4) }, (_, i) => ({
        name: `${s.shortName} ${capitalise(rng.pick(FR.words).replace(/^l’|^la |^le /, ""))} ${i + 1}`,
        role: rng.pick(FR.metrics),
        cadence: rng.pick(["quotidienne", "hebdomadaire", "mensuelle", "trimestrielle"]),
        ...(rng.chance(0.7) ? { delay: rng.pick(["J+1", "M+1", "environ 6 semaines", "T+45 jours"]) } : {}),
        url: `${s.url}data/series-${i + 1}`,
      })),
      limits: Array.from({ length: rng.int(1, 3) }, () => sentence(rng, "fr").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1")),
      verification: Array.from({ length: rng.int(1, 2) }, () =>
        sentence(rng, "fr").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1"),
      ),
    })),
  ];
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

/** Writes the publication into `dir` (created; must be empty or absent) and returns what it holds. */
export function generatePublication(options: { dir?: string; seed?: number; scale?: Scale } = {}): Generated {
  const scale = options.scale ?? REAL_SCALE;
  const rng = new Rng(options.seed ?? 20261121);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "risk-bench-pub-"));
  const demo = demoPublication();
  fs.mkdirSync(dir, { recursive: true });
  if (fs.readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`);
  // Copied as they are: configuration, upstream readings, editorial files, claim reviews, topics,
  // methodologies, and the demo's own articles and guides (the claim reviews name its articles).
  fs.copyFileSync(join(demo, "risk.config.yaml"), join(dir, "risk.config.yaml"));
  for (const rel of ["upstream", "content/editorial", "content/methodologies", "content/articles", "content/guides"]) {
    fs.cpSync(join(demo, rel), join(dir, rel), { recursive: true });
  }
  for (const rel of ["content/claim-reviews.yaml", "content/topics.yaml"])
    fs.copyFileSync(join(demo, rel), join(dir, rel));

  const topics = (YAML.parse(fs.readFileSync(join(demo, "content/topics.yaml"), "utf8")) as { slug: string }[]).map(
    (t) => t.slug,
  );
  const config = YAML.parse(fs.readFileSync(join(demo, "risk.config.yaml"), "utf8")) as {
    instruments: Record<string, { seriesId: string }>;
  };
  const series = Object.values(config.instruments).map((i) => i.seriesId);
  const methodologies = fs
    .readdirSync(join(demo, "content/methodologies"))
    .filter((n) => n.endsWith(".yaml"))
    .map((n) => n.slice(0, -5));

  const demoArticles = demoDocs(dir, "articles");
  const demoGuides = demoDocs(dir, "guides");
  const articles = writeDocs(
    rng,
    dir,
    "articles",
    scale.articlesPerLang,
    demoArticles.fr,
    demoArticles.untranslated,
    topics,
  );
  const guides = writeDocs(rng, dir, "guides", scale.guidesPerLang, demoGuides.fr, demoGuides.untranslated, topics);

  const demoGlossary = YAML.parse(fs.readFileSync(join(demo, "content/glossary.yaml"), "utf8")) as GlossaryEntryIn[];
  const entries = glossary(rng, demoGlossary, scale.glossary, {
    guides: guides.fr.map((g) => g.slug),
    articles: articles.fr,
    guideDocs: guides.fr,
    series,
    methodologies,
  });
  fs.writeFileSync(join(dir, "content/glossary.yaml"), YAML.stringify(entries, { lineWidth: 100 }));
  const demoSources = YAML.parse(fs.readFileSync(join(demo, "content/primary-sources.yaml"), "utf8")) as {
    slug: string;
  }[];
  const sources = primarySources(rng, demoSources, scale.primarySources);
  fs.writeFileSync(join(dir, "content/primary-sources.yaml"), YAML.stringify(sources, { lineWidth: 100 }));

  const count = (folder: string, lang: Lang) =>
    fs.readdirSync(join(dir, "content", folder, lang)).filter((n) => n.endsWith(".md")).length;
  return {
    dir,
    counts: {
      articlesFr: count("articles", "fr"),
      articlesEn: count("articles", "en"),
      guidesFr: count("guides", "fr"),
      guidesEn: count("guides", "en"),
      glossary: entries.length,
      primarySources: sources.length,
      instruments: series.length,
    },
    inputBytes: dirBytes(join(dir, "content")),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const g = generatePublication({ dir: process.argv[2] });
  process.stdout.write(`${JSON.stringify(g, null, 2)}\n`);
}
