import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { seriesChartSvg, type ChartSeries } from "../../core/render/chart.ts";
import { numberText } from "../../core/render/number.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

/** The text a person reads in a page or a chart: no JSON-LD, no tags, no attributes. */
const readable = (markup: string) =>
  markup
    .replace(/<script[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<style>[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]*>/g, " ")
    .replace(/&quot;/g, '"');

const chart = (points: ChartSeries["points"], lang: "fr" | "en" = "fr") =>
  seriesChartSvg({
    lang,
    seriesId: "s",
    title: "Série",
    scale: 100,
    thresholds: { moderate: 25, elevated: 50.5, crisis: 75 },
    points,
    source: "https://example.org/",
    attribution: "Observatoire",
    license: "CC BY 4.0",
    levels: ["Détendu", "Modéré", "Élevé", "Crise"],
    empty: "Aucun jour",
  });

describe("numbers in French text", () => {
  it("are written with a decimal comma and grouped thousands in French, as fr-FR does, and as JSON in English", () => {
    const fr = new Intl.NumberFormat("fr-FR", { maximumFractionDigits: 20 });
    for (const n of [0, 50, 52.5, 0.5, 999, 1000, 12345.6, 1234567.25, -1.5])
      expect(numberText(n, "fr"), String(n)).toBe(fr.format(n));
    expect(numberText(52.5, "fr")).toBe("52,5");
    expect(numberText(1000, "fr")).toBe("1\u202F000");
    for (const n of [0, 50, 52.5, 1000, -1.5]) expect(numberText(n, "en")).toBe(JSON.stringify(n));
  });

  it("print in a French chart as on the French pages: 52,5 and 50, never 52.5 or 50.0", () => {
    const svg = chart([
      { date: "2026-11-20", value: 52.5 },
      { date: "2026-11-21", value: 50 },
    ]);
    const text = readable(svg);
    expect(text).toContain("s · 50 / 100 (2026-11-21)");
    expect(text).toContain("dernière valeur 50.");
    expect(text).toContain("Bandes à 25, 50,5 et 75.");
    expect(text).toMatch(/\s50,5\s/); // the band's tick
    expect(text.replaceAll("CC BY 4.0", "")).not.toMatch(/\d\.\d/);
    expect(readable(chart([{ date: "2026-11-21", value: 52.5 }]))).toContain("s · 52,5 / 100 (2026-11-21)");
    // The coordinates keep their point; an English chart keeps it in its text too.
    expect(svg).toMatch(/<path d="M90\.0 [\d.]+ L1040\.0 [\d.]+"/);
    expect(readable(chart([{ date: "2026-11-21", value: 52.5 }], "en"))).toContain("Bands at 25, 50.5 and 75.");
  });

  it("are the same on every French page, chart and feed of an assembly, while JSON, CSV and the English press page keep the point", async () => {
    const pub = demoCopy();
    const dir = tempDir("risk-fr-numbers-");
    const site = `${dir}/site`;
    const run = (now: string) => runAssemble({ publication: pub, site, archive: `${dir}/archive`, now, json: true });
    await run("2026-11-21T09:00:00Z");
    // A level change, for the feed: 31.4 (Modéré) to 52.5 (Élevé/Tendu), raw 1.25.
    editFile(`${pub}/upstream/us.json`, (t) =>
      t
        .replace('"value": 31.4', '"value": 52.5')
        .replace('"rawValue": 0.42', '"rawValue": 1.25')
        .replace('"observedAt": "2026-11-20T21:00:00Z"', '"observedAt": "2026-11-21T21:00:00Z"')
        .replace('"publishedAt": "2026-11-21T05:30:00Z"', '"publishedAt": "2026-11-22T05:30:00Z"'),
    );
    await run("2026-11-22T09:00:00Z");
    const read = (path: string) => readFileSync(`${site}${path}`, "utf8");
    const current = JSON.parse(read("/api/v1/signals/current.json"));
    const registry = readable(read("/series/index.html"));
    const press = readable(read("/en/press-resources/index.html"));
    let decimals = 0;
    for (const s of current.signals) {
      if (typeof s.value !== "number") continue;
      const id = s.seriesId;
      const french = numberText(s.value, "fr");
      if (french.includes(",")) decimals++;
      const page = readable(read(`/series/${id}/index.html`));
      expect(page, id).toContain(`${french} / 100 — `);
      expect(registry, id).toContain(`${french} / 100 (`);
      // The last closed day (2026-11-21) in the citation, BibTeX and CSL-JSON, and in the chart.
      const closed = numberText(id === "us-financial-stress" ? 31.4 : s.value, "fr");
      expect(page.match(new RegExp(`${closed} / 100 le 2026-11-21,`, "g")), id).toHaveLength(3);
      expect(readable(read(`/series/${id}/chart.svg`)), id).toContain(`${id} · ${closed} / 100 (2026-11-21)`);
      expect(press, id).toContain(`${closed.replace(",", ".")} / 100 on 2026-11-21,`);
    }
    expect(decimals).toBeGreaterThan(0);
    expect(read("/api/v1/signals/us-financial-stress/history.csv")).toContain(",31.4,");
    expect(JSON.parse(read("/api/v1/signals/current.json")).signals[0].value).toBe(52.5);
    for (const s of current.signals) {
      if (typeof s.value !== "number") continue;
      // Dates, times, versions and addresses aside, no number in a French page's text has a point.
      const text = (readable(read(`/series/${s.seriesId}/index.html`)) + registry).replaceAll("CC BY 4.0", "");
      expect(text.replace(/\S*(https?:|\d{4}-\d\d-\d\d|\d+\.\d+\.\d+)\S*/g, "")).not.toMatch(/\d\.\d/);
    }
    const feed = read("/api/v1/risk.xml");
    expect(feed).toContain("<title>Stress financier US / US financial stress : Modéré → Élevé/Tendu (52,5)</title>");
    expect(feed).toContain("passe de Modéré (31,4) à Élevé/Tendu (52,5) à ");
    expect(feed).toContain("; valeur brute 1,25 écarts-types");
  });
});
