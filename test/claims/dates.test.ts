import { describe, expect, it } from "vitest";
import { findDates, frenchDay, impossibleDays, observationOf, type Precision } from "../../core/claims/dates.ts";

type Row = [text: string, date: string | null, precision: Precision, label: string, start?: string, end?: string];

const TABLE: Row[] = [
  ["Lors de la réunion du 2026-07-31, la BoJ a relevé son taux.", "2026-07-31", "day", "31 juillet 2026"],
  ["Le 12 mars 2026, le taux a atteint 3,58 %.", "2026-03-12", "day", "12 mars 2026"],
  ["Le 1er mars 2026, les stocks étaient pleins.", "2026-03-01", "day", "1er mars 2026"],
  ["On March 12, 2026, the rate reached 3.58%.", "2026-03-12", "day", "12 mars 2026"],
  ["On 12 March 2026, the rate reached 3.58%.", "2026-03-12", "day", "12 mars 2026"],
  ["En mars 2026, les recettes ont dépassé la moyenne.", "2026-03-01", "month", "mars 2026"],
  ["In March 2026, receipts beat the average.", "2026-03-01", "month", "mars 2026"],
  ["L’écart est passé à 236 points de base à la mi-août 2026.", "2026-08-15", "month", "mi-août 2026"],
  ["La marge serait épuisée vers la fin mai 2027.", "2027-05-31", "month", "fin mai 2027"],
  ["Le déficit atteignait 1 362 milliards à la fin du T2 2026.", "2026-04-01", "quarter", "T2 2026"],
  ["Defaults rose in Q1 2026.", "2026-01-01", "quarter", "T1 2026"],
  ["Le taux de défaut au premier trimestre 2026 était de 3,6 %.", "2026-01-01", "quarter", "T1 2026"],
  ["La charge d’intérêts a doublé depuis 2022.", "2022-01-01", "year", "2022"],
  [
    "Entre le 28 avril et le 27 mai 2026, l’écart s’est élargi de 87 à 112 points de base.",
    "2026-05-27",
    "range",
    "du 28 avril au 27 mai 2026",
    "2026-04-28",
    "2026-05-27",
  ],
  [
    "Le ministère est intervenu entre le 11 et le 12 juillet 2026.",
    "2026-07-12",
    "range",
    "du 11 au 12 juillet 2026",
    "2026-07-11",
    "2026-07-12",
  ],
  [
    "Du 28 décembre au 3 janvier 2027, le marché est resté fermé.",
    "2027-01-03",
    "range",
    "du 28 décembre 2026 au 3 janvier 2027",
    "2026-12-28",
    "2027-01-03",
  ],
  [
    "Between April 28 and May 27, 2026, the spread widened.",
    "2026-05-27",
    "range",
    "du 28 avril au 27 mai 2026",
    "2026-04-28",
    "2026-05-27",
  ],
  [
    "From 1 July to 30 September 2026, Norwegian flows averaged 321 mcm/d.",
    "2026-09-30",
    "range",
    "du 1er juillet au 30 septembre 2026",
    "2026-07-01",
    "2026-09-30",
  ],
  [
    "D’avril à mai 2026, l’écart s’est élargi.",
    "2026-05-31",
    "range",
    "d’avril à mai 2026",
    "2026-04-01",
    "2026-05-31",
  ],
  [
    "Au premier semestre 2026, le prix moyen était de 10,9 euros.",
    "2026-06-30",
    "range",
    "premier semestre 2026",
    "2026-01-01",
    "2026-06-30",
  ],
  // Several dates: the latest wins, with its own precision.
  ["L’écart est passé de 395 pb en janvier 2025 à 236 pb à la mi-août 2026.", "2026-08-15", "month", "mi-août 2026"],
  ["Le 13 octobre 2026, son plus bas niveau depuis 2010.", "2026-10-13", "day", "13 octobre 2026"],
  ["Le 2026-04-09, l’écart a atteint 412 pb, contre 298 pb le 27 février 2026.", "2026-04-09", "day", "9 avril 2026"],
  ["En 2026, et plus précisément en mars 2026, la dette a progressé.", "2026-03-01", "month", "mars 2026"],
  // Nothing that is a date.
  ["Les autorités sont intervenues pour 5 400 milliards de yens.", null, "unknown", "date d’observation non précisée"],
  ["Les options se sont concentrées autour de 161,94.", null, "unknown", "date d’observation non précisée"],
  [
    "Voir https://www.imf.org/en/Publications/GFSR/Issues/2026/10/14/report pour le détail.",
    null,
    "unknown",
    "date d’observation non précisée",
  ],
  ["Les réserves ont dépassé 2000 milliards de dollars.", null, "unknown", "date d’observation non précisée"],
];

describe("a day that does not exist", () => {
  const none = "date d’observation non précisée";
  it.each([
    "Le 31 février 2026 n’existe pas.",
    "Le 30 février 2026, rien.",
    "Le 0 mars 2026, rien.",
    "Le 32 mars 2026, rien.",
    "Le 31 avril 2026, rien.",
    "Le 29 février 2025, rien.",
    "On February 30, 2026, nothing.",
    "Le 2026-02-30, rien.",
  ])("is read as no date, not as its month or year: %s", (text) => {
    const o = observationOf(text);
    expect(o.date).toBeNull();
    expect(o.label).toBe(none);
    expect(impossibleDays(text)).toHaveLength(1);
  });
  it("leaves the other dates of the sentence as they are, and a leap day is a day", () => {
    expect(observationOf("Le 31 février 2026, après le 12 janvier 2026.").date).toBe("2026-01-12");
    expect(observationOf("Le 29 février 2028, rien.").date).toBe("2028-02-29");
    expect(impossibleDays("Le 29 février 2028 et le 31 mars 2026.")).toEqual([]);
  });
});

describe("observationOf()", () => {
  it.each(TABLE)("%s -> %s (%s)", (text, date, precision, label, start, end) => {
    const o = observationOf(text);
    expect(o.date).toBe(date);
    expect(o.precision).toBe(precision);
    expect(o.label).toBe(label);
    expect(o.start).toBe(start ?? null);
    expect(o.end).toBe(end ?? null);
  });

  it("has a table of at least fifteen date cases", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(15);
  });

  it("reads no date inside a URL", () => {
    expect(findDates("https://www.ecb.europa.eu/press/pr/date/2026/html/index.en.html")).toEqual([]);
  });

  it("lists every date of a sentence in text order with its offsets", () => {
    const text = "De janvier 2025 à la mi-août 2026.";
    const dates = findDates("L’écart est passé de 395 pb en janvier 2025 à 236 pb à la mi-août 2026.");
    expect(dates.map((d) => d.label)).toEqual(["janvier 2025", "mi-août 2026"]);
    const [d] = findDates(text).slice(-1);
    expect(text.slice(d.index, d.index + d.length)).toBe("mi-août 2026");
  });
});

describe("frenchDay()", () => {
  it("labels the first of a month 1er and the others by their number", () => {
    expect(frenchDay("2026-08-01")).toBe("1er août 2026");
    expect(frenchDay("2026-08-18")).toBe("18 août 2026");
  });
});

describe("lint on a day that does not exist", () => {
  it("warns with the file, the line and the day as written", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const { loadPublication } = await import("../../core/inputs/publication.ts");
    const { editorialFindings } = await import("../../core/editorial/lint.ts");
    const { nodeFs } = await import("../../cli/runtime/node.ts");
    const pub = demoCopy();
    const file = `${pub}/content/articles/fr/spread-btp-bund-2026.md`;
    let line = 0;
    editFile(file, (t) => {
      line = t.split("\n").length + 1;
      return `${t}\nLe 31 février 2026, l’écart a bondi.\n`;
    });
    const p = await loadPublication(nodeFs, pub);
    const findings = editorialFindings(p, "2026-11-21T10:00:00Z", (path) => `https://x.example${path}`);
    const found = findings.filter((f) => f.code === "impossible-date");
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ file: "content/articles/fr/spread-btp-bund-2026.md", field: "(body)", line });
    expect(found[0]!.message).toMatch(/^"31 février 2026" is no day of the calendar/);
  });
});
