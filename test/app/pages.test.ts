import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteServer } from "../../app/serve.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runReplay } from "../../cli/commands/replay.ts";
import { seriesChartSvg } from "../../core/render/chart.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

/**
 * The pages in a real browser (Debian's chromium through playwright-core): each loads with no
 * console error and no failed request, each chart has a box, axe-core finds no serious or critical
 * violation, and a screenshot of each is kept in .tmp/screenshots for CI to show.
 */
const CHROMIUM = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/google-chrome"].find(
  (p): p is string => !!p && existsSync(p),
)!;
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SHOTS = join(ROOT, ".tmp/screenshots");
const DAYS = ["2026-11-21T09:00:00Z", "2026-11-22T09:00:00Z", "2026-11-23T09:00:00Z"];

let site = "";
let base = "";
let server: Server;
let browser: Browser;

beforeAll(async () => {
  const dir = tempDir("risk-pages-");
  site = `${dir}/site`;
  for (const now of DAYS) await runAssemble({ site, archive: `${dir}/archive`, now, json: true });
  server = siteServer(site);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  mkdirSync(SHOTS, { recursive: true });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  server?.close();
});

const PAGES = [
  "/donnees/agents/",
  "/en/agent-surface/",
  "/series/",
  "/series/us-financial-stress/",
  "/series/us-debt-risk/",
  "/en/press-resources/",
];

describe("the pages in a browser", () => {
  it.each(PAGES)(
    "%s loads without error, its images render, and axe finds nothing serious",
    async (path) => {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") problems.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`error: ${e.message}`));
      page.on("requestfailed", (r) => problems.push(`failed: ${r.url()}`));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
      });
      const response = await page.goto(`${base}${path}`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
      // Every image, the charts included, has a rendered box.
      const images = await page.$$eval("img", (imgs) =>
        imgs.map((i) => ({ src: i.src, w: i.naturalWidth, box: i.getBoundingClientRect().width })),
      );
      for (const i of images) {
        expect(i.w, i.src).toBeGreaterThan(0);
        expect(i.box, i.src).toBeGreaterThan(0);
      }
      await page.screenshot({
        path: join(SHOTS, `${path.replace(/\//g, "_").replace(/^_|_$/g, "") || "index"}.png`),
        fullPage: true,
      });
      await page.close();
      // Nothing refused, the Content-Security-Policy's style hash included.
      expect(problems).toEqual([]);
      // axe-core needs to run a script, which the page's policy forbids: a second visit lets it.
      const context = await browser.newContext({ bypassCSP: true });
      const audited = await context.newPage();
      await audited.goto(`${base}${path}`, { waitUntil: "load" });
      await audited.addScriptTag({ content: AXE });
      const violations = await audited.evaluate(async () => {
        const w = window as unknown as {
          axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> };
        };
        return (await w.axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact }));
      });
      await context.close();
      expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
    },
    30_000,
  );
});

describe("the pages' content", () => {
  it("cites each series with its frame, the data's fingerprint and the replay command that gives that data back", async () => {
    const html = readFileSync(`${site}/series/us-financial-stress/index.html`, "utf8");
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    const csv = integrity.surfaces.find(
      (s: { path: string }) => s.path === "/api/v1/signals/us-financial-stress/history.csv",
    );
    expect(html).toContain(`CSV de la série tel que publié le 2026-11-23 : sha256 ${csv.sha256}`);
    // The last closed day (2026-11-22), with the frame that measured its value.
    expect(html).toMatch(
      /\d+(,\d)? \/ 100 le 2026-11-22, mesurée par la frame 000002-20261122T090000Z le 2026-11-22T09:00:00Z/,
    );
    const command = "risk-cli replay --archive archive.git --date 2026-11-23 --out us-financial-stress-2026-11-23";
    expect(html).toContain(command);
    // What the cited command gives back is the CSV the citation fingerprints.
    const out = `${tempDir("risk-pages-cite-")}/replayed`;
    await runReplay({ archive: `${site}/../archive`, date: "2026-11-23", out, json: true });
    const replayed = readFileSync(`${out}/api/v1/signals/us-financial-stress/history.csv`);
    expect(createHash("sha256").update(replayed).digest("hex")).toBe(csv.sha256);
    expect(html).toContain("@misc{us_financial_stress_");
    expect(html).toContain("&quot;type&quot;: &quot;dataset&quot;");
    // The methodology's version history comes from the editorial changelog's entries that link it.
    const energy = readFileSync(`${site}/series/eu-energy-stress/index.html`, "utf8");
    expect(energy).toContain("<caption>Historique de la méthodologie</caption>");
    expect(energy).toMatch(
      /<td>2026-10-02<\/td><td><a href="[^"]+#2026-10-02-seuils-energie">Saisonnalité du stress énergétique<\/a>/,
    );
    const ld = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)![1]!);
    expect(ld).toMatchObject({ "@type": "Dataset", identifier: "us-financial-stress" });
  });

  it("writes a citation in the language of its page: French on a series page, English on the press page", () => {
    const fr = readFileSync(`${site}/series/us-financial-stress/index.html`, "utf8");
    const citation = (html: string, heading: string) =>
      new RegExp(`<h[23]>${heading}</h[23]>\n<pre>([^<]*)</pre>`).exec(html)?.[1] ?? "";
    const french = citation(fr, "Citer cette valeur");
    expect(french).toMatch(
      / le 2026-11-22, mesurée par la frame 000002-\S+ le 2026-11-22T09:00:00Z, CSV de la série tel que publié le 2026-11-23 : sha256 [0-9a-f]{64}\. \S+\. Rejeu : /,
    );
    for (const english of ["measured by", "series CSV", "published on", "Replay:", " on 2026-"])
      expect(french).not.toContain(english);
    const csl = JSON.parse(
      /<h3>CSL-JSON<\/h3>\n<pre>([^<]*)<\/pre>/.exec(fr)![1]!.replaceAll("&quot;", '"').replaceAll("&amp;", "&"),
    );
    expect(csl.note).toMatch(/mesurée par la frame .*; rejeu : git clone /);
    expect(fr).toMatch(/note = \{[^}]*mesurée par la frame/);
    const en = citation(readFileSync(`${site}/en/press-resources/index.html`, "utf8"), "Citation");
    expect(en).toMatch(
      / on 2026-11-22, measured by frame 000002-\S+ at 2026-11-22T09:00:00Z, series CSV as published on 2026-11-23: sha256 [0-9a-f]{64}\. \S+\. Replay: /,
    );
  });

  it("says on a series page and in the series registry when a value is stale or retained, as signals/current.json does", async () => {
    // At the last of DAYS, every demo reading is more than a day old: stale in signals/current.json.
    const current = JSON.parse(readFileSync(`${site}/api/v1/signals/current.json`, "utf8"));
    const eu = current.signals.find((s: { instrument: string }) => s.instrument === "eu");
    expect(eu).toMatchObject({ qualityStatus: "stale", fallbackUsed: false });
    const note = `valeur périmée : publiée en amont le ${eu.sourceUpdatedAt}, fraîche jusqu’au 2026-11-22T05:40:00Z`;
    expect(readFileSync(`${site}/series/eu-sovereign-stress/index.html`, "utf8")).toContain(
      `${String(eu.value).replace(".", ",")} / 100 — ${eu.level} (${note})`,
    );
    expect(readFileSync(`${site}/series/index.html`, "utf8")).toContain(
      `${String(eu.value).replace(".", ",")} / 100 (${eu.level})<br>${note}`,
    );
    // A value retained after an upstream failure says so in the registry too, not only on its page.
    const { demoCopy } = await import("../helpers/publication.ts");
    const pub = demoCopy();
    const out = tempDir("risk-pages-states-");
    const run = (now: string) =>
      runAssemble({ publication: pub, site: `${out}/site`, archive: `${out}/archive`, now, json: true });
    await run("2026-11-21T12:00:00Z");
    rmSync(`${pub}/upstream/yen.json`);
    await run("2026-11-21T12:15:00Z");
    const retained = "57,9 / 100 (Élevé/Tendu)<br>valeur conservée après une panne amont : non fraîche";
    expect(readFileSync(`${out}/site/series/index.html`, "utf8")).toContain(retained);
    expect(readFileSync(`${out}/site/series/index.html`, "utf8")).toContain("31,4 / 100 (Modéré)</td>");
  });

  it("cites a closed day's value its frame retained after an upstream failure as retained, not as measured", async () => {
    const { demoCopy } = await import("../helpers/publication.ts");
    const pub = demoCopy();
    const out = tempDir("risk-pages-retained-");
    const run = (now: string) =>
      runAssemble({ publication: pub, site: `${out}/site`, archive: `${out}/archive`, now, json: true });
    await run("2026-11-21T12:00:00Z");
    rmSync(`${pub}/upstream/yen.json`);
    await run("2026-11-21T23:45:00Z");
    await run("2026-11-22T00:00:00Z");
    const fr = readFileSync(`${out}/site/series/yen-carry-stress/index.html`, "utf8");
    expect(fr).toContain(
      "57,9 / 100 le 2026-11-21, valeur conservée après une panne amont, publiée par la frame 000002-20261121T234500Z le 2026-11-21T23:45:00Z",
    );
    const en = readFileSync(`${out}/site/en/press-resources/index.html`, "utf8");
    expect(en).toContain(
      "57.9 / 100 on 2026-11-21, a value retained after an upstream failure, published by frame 000002-20261121T234500Z at 2026-11-21T23:45:00Z",
    );
    // A value measured by its frame keeps the plain wording.
    expect(en).toContain("31.4 / 100 on 2026-11-21, measured by frame 000002-20261121T234500Z");
    // The chart a journalist embeds says it too, in the image and in its description.
    const svg = readFileSync(`${out}/site/series/yen-carry-stress/chart.svg`, "utf8");
    expect(svg).toContain("yen-carry-stress · 57,9 / 100 (2026-11-21) · valeur conservée après une panne amont</text>");
    expect(svg).toContain("dernière valeur 57,9 (valeur conservée après une panne amont).");
    expect(readFileSync(`${out}/site/series/us-financial-stress/chart.svg`, "utf8")).not.toContain("conservée");
  });

  it("shows on a memento of the press page the charts published with it, not today's", async () => {
    const archived = siteServer(site, { archive: `${site}/../archive` });
    await new Promise<void>((ok) => archived.listen(0, "127.0.0.1", ok));
    try {
      const origin = `http://127.0.0.1:${(archived.address() as AddressInfo).port}`;
      // The first frame, before any day had closed: its charts say so.
      const page = `${origin}/memento/000001-20261121T090000Z/en/press-resources/`;
      const html = await (await fetch(page)).text();
      const charts = [...html.matchAll(/<section>\n<h2>[^\n]*\n<img src="([^"]+)"/g)].map((m) => new URL(m[1]!, page));
      expect(charts).toHaveLength(5);
      for (const chart of charts) {
        expect(chart.pathname).toMatch(/^\/memento\/000001-20261121T090000Z\/series\/[a-z-]+\/chart\.svg$/);
        const svg = await fetch(chart);
        expect(svg.status).toBe(200);
        expect(await svg.text()).toContain("Aucun jour clos publié");
      }
    } finally {
      archived.close();
    }
  });

  it("describes on both agent pages each producer's freshness, the named series and the citation rules, as the contract lists", async () => {
    const freshness = JSON.parse(readFileSync(`${site}/api/v1/freshness.json`, "utf8"));
    const producers = freshness.producers.filter((x: { instrument: string | null }) => x.instrument !== null);
    expect(producers).toHaveLength(5);
    for (const [path, words] of [
      ["donnees/agents", ["Fraîcheur par producteur", "Séries nommées", "Règles de citation"]],
      ["en/agent-surface", ["Freshness per producer", "Named series", "Citation rules"]],
    ] as const) {
      const html = readFileSync(`${site}/${path}/index.html`, "utf8");
      for (const heading of words) expect(html, path).toMatch(new RegExp(`<h2 id="[a-z]+">${heading}</h2>`));
      // Each producer's row holds what freshness.json says of it.
      for (const x of producers)
        expect(html, `${path} ${x.id}`).toMatch(
          new RegExp(
            `<td>${x.updatedAt}</td><td>${x.staleAfter}</td><td>${x.expiresAt}</td><td>${x.sourceStatus}</td>`,
          ),
        );
      for (const id of [
        "us-financial-stress",
        "eu-sovereign-stress",
        "yen-carry-stress",
        "eu-energy-stress",
        "us-debt-risk",
      ])
        expect(html, `${path} ${id}`).toContain(
          `<a href="https://risques.example.org/series/${id}/"><code>${id}</code></a>`,
        );
      expect(html, path).toContain("Observatoire des risques macro-financiers (CC BY 4.0)");
      expect(html, path).toContain("SHA-256");
    }
    // The readings went stale between the first frame and the last, with nothing else changed: the
    // page gives until when each is fresh, so it did not change with the clock.
    const out = `${tempDir("risk-pages-agents-")}/first`;
    await runReplay({ archive: `${site}/../archive`, date: "2026-11-21", out, json: true });
    expect(readFileSync(`${out}/donnees/agents/index.html`, "utf8")).toBe(
      readFileSync(`${site}/donnees/agents/index.html`, "utf8"),
    );
  });

  it("marks the English parts of a French page with lang=\"en\": the endpoints' descriptions, the press page's link, the language switch", () => {
    const agents = readFileSync(`${site}/donnees/agents/index.html`, "utf8");
    const rows = [
      ...agents.matchAll(/<tr><th scope="row"><a href="[^"]+">[^<]+<\/a><\/th><td>[^<]+<\/td><td( lang="en")?>/g),
    ];
    expect(rows.length).toBeGreaterThan(30);
    for (const row of rows) expect(row[0]).toContain('lang="en"');
    expect(agents).toMatch(/hreflang="en" lang="en">English<\/a>/);
    const english = readFileSync(`${site}/en/agent-surface/index.html`, "utf8");
    expect(english).toMatch(/hreflang="fr" lang="fr">Français<\/a>/);
    expect(english).not.toContain('<td lang="en">');
    for (const page of ["series/index.html", "series/us-financial-stress/index.html"]) {
      const html = readFileSync(`${site}/${page}`, "utf8");
      expect(html, page).toMatch(/<a href="[^"]+\/en\/press-resources\/" hreflang="en" lang="en">Press resources/);
    }
  });

  it("draws each chart at 1200x630 with title, description, source, licence and level bands, without script", () => {
    const svg = readFileSync(`${site}/series/us-financial-stress/chart.svg`, "utf8");
    expect(svg).toMatch(/^<svg [^>]*width="1200" height="630"/);
    expect(svg).toMatch(/<title id="t">Stress financier US \(us-financial-stress\)<\/title>/);
    expect(svg).toMatch(/<desc id="d">.*2 valeur\(s\) quotidienne\(s\) du 2026-11-21 au 2026-11-22/);
    expect(svg).toContain("CC BY 4.0");
    expect(svg).toContain("Source : https://dashboards.example.org/us/");
    expect(svg.match(/<rect x="90"/g)).toHaveLength(4);
    expect(svg).toMatch(/<path d="M90\.0 [\d.]+ L1040\.0 [\d.]+"/);
    expect(svg).not.toMatch(/<script|\son[a-z]+=/i);
  });

  it("declares the chart's language and writes its description in it, as its title, bands and source line", () => {
    const svg = readFileSync(`${site}/series/us-financial-stress/chart.svg`, "utf8");
    expect(svg).toMatch(/^<svg [^>]*xml:lang="fr"/);
    const desc = /<desc id="d">([^<]*)<\/desc>/.exec(svg)![1]!;
    expect(desc).toMatch(/^Stress financier US \(us-financial-stress\) : 2 valeur\(s\) quotidienne\(s\) du /);
    expect(desc).toContain("sur une échelle de 0 à 100 ; dernière valeur ");
    expect(desc).toContain("Bandes à 25, 50 et 75. Source : https://dashboards.example.org/us/.");
    for (const english of ["daily value", " from ", "latest", "Bands at", "Source:"])
      expect(desc).not.toContain(english);
    expect(svg).toContain(">Détendu</text>");
  });

  it("escapes publisher text everywhere: a title with markup stays text", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) =>
      t.replace("label: { fr: Stress financier US,", 'label: { fr: "Stress <script>alert(1)</script> & co",'),
    );
    const out = tempDir("risk-pages-esc-");
    await runAssemble({ publication: pub, site: `${out}/site`, archive: `${out}/archive`, now: DAYS[0], json: true });
    for (const file of [
      "series/us-financial-stress/index.html",
      "series/index.html",
      "series/us-financial-stress/chart.svg",
    ]) {
      const text = readFileSync(`${out}/site/${file}`, "utf8");
      expect(text, file).not.toContain("<script>alert");
      expect(text, file).toContain("Stress &lt;script&gt;alert(1)&lt;/script&gt; &amp; co");
    }
  });

  it("fits a phone's width with a 150-letter word in a series label and a methodology title", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const pub = demoCopy();
    const word = "Anticonstitutionnellement".repeat(6);
    editFile(`${pub}/risk.config.yaml`, (t) =>
      t.replace("label: { fr: Stress financier US,", `label: { fr: "Stress ${word}",`),
    );
    editFile(`${pub}/content/methodologies/stress-financier-us.yaml`, (t) =>
      t.replace("title: Méthodologie du stress financier américain", `title: ${word}`),
    );
    const out = tempDir("risk-pages-long-");
    await runAssemble({ publication: pub, site: `${out}/site`, archive: `${out}/archive`, now: DAYS[0], json: true });
    const server = siteServer(`${out}/site`);
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ["/series/us-financial-stress/", "/series/", "/donnees/agents/"]) {
        await page.goto(`${origin}${path}`, { waitUntil: "load" });
        const { scroll, client } = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth,
        }));
        expect(scroll, path).toBeLessThanOrEqual(client);
      }
    } finally {
      await page.close();
      server.close();
    }
  }, 30_000);

  it("places chart points by date: a missing day leaves a gap in the line", () => {
    const svg = seriesChartSvg({
      lang: "en",
      seriesId: "s",
      title: "S",
      scale: 100,
      thresholds: { moderate: 25, elevated: 50, crisis: 75 },
      points: [
        { date: "2026-11-01", value: 10 },
        { date: "2026-11-02", value: 20 },
        { date: "2026-11-05", value: 30 },
      ],
      source: "https://example.org/",
      attribution: "A",
      license: "CC BY 4.0",
      levels: ["a", "b", "c", "d"],
      empty: "none",
    });
    // Four days span the plot (90 to 1040): the 2nd is a quarter of the way, the 5th at the end, alone.
    expect(svg).toMatch(/<path d="M90\.0 [\d.]+ L327\.5 [\d.]+ M1040\.0 [\d.]+"/);
    expect(svg).toMatch(/<circle cx="1040\.0" cy="[\d.]+" r="4"/);
  });

  it("keeps citations and charts sound under a hostile publisher's text", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const pub = demoCopy();
    const long = "Observatoire ".repeat(22).trim(); // under the 300 characters an attribution may have
    editFile(`${pub}/risk.config.yaml`, (t) =>
      t
        .replace("label: { fr: Stress financier US,", 'label: { fr: "Stress {unbalanced % & $x_1^2~ \\\\textbf{x}",')
        .replace('attribution: "Observatoire des risques macro-financiers (CC BY 4.0)"', `attribution: "${long}"`)
        // Text that looks like an event attribute is only text.
        .replace(
          "dashboard: https://dashboards.example.org/us/",
          "dashboard: https://dashboards.example.org/us/?onglet=stress&lang=fr",
        ),
    );
    const out = tempDir("risk-pages-hostile-");
    await runAssemble({ publication: pub, site: `${out}/site`, archive: `${out}/archive`, now: DAYS[0], json: true });
    const html = readFileSync(`${out}/site/series/us-financial-stress/index.html`, "utf8");
    const bibtex = /(@misc\{[^]*?\n\})/.exec(html)![1]!.replace(/&amp;/g, "&").replace(/&lt;/g, "<");
    let depth = 0;
    for (const [i, c] of [...bibtex].entries()) {
      if ((c === "{" || c === "}") && bibtex[i - 1] === "\\") continue;
      depth += c === "{" ? 1 : c === "}" ? -1 : 0;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
    expect(bibtex).toContain(
      "Stress \\{unbalanced \\% \\& \\$x\\_1\\textasciicircum{}2\\textasciitilde{} \\textbackslash{}textbf\\{x\\}",
    );
    const svg = readFileSync(`${out}/site/series/us-financial-stress/chart.svg`, "utf8");
    const footer = /<text x="90" y="602"[^>]*>([^<]*)<\/text>/.exec(svg)![1]!;
    expect(footer.length).toBeLessThan(130);
    expect(footer).toMatch(/… · CC BY 4\.0$/);
    // The source's whole address stays in the description.
    expect(svg).toMatch(
      /<desc id="d">[^<]*Source : https:\/\/dashboards\.example\.org\/us\/\?onglet=stress&amp;lang=fr\./,
    );
  });

  it("refuses control characters in labels and attribution, a shell-unsafe archive URL, and a site address with quotes, a password or a query (exit 3)", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    for (const [from, to, field] of [
      ["label: { fr: Stress financier US,", 'label: { fr: "Stress\\u001b[31m US",', "label.fr"],
      ['attribution: "Observatoire', 'attribution: "Obs\\u202eervatoire', "attribution"],
      [
        "url: https://git.risques.example.org/observatoire.git",
        'url: "https://git.example.org/o.git;touch${IFS}x;#"',
        "archive.url",
      ],
      // The site's address is printed into the embed code journalists paste, and into every surface.
      [
        "baseUrl: https://risques.example.org",
        `baseUrl: 'https://risques.example.org/x"onmouseover="alert(1)'`,
        "baseUrl",
      ],
      ["baseUrl: https://risques.example.org", "baseUrl: https://user:s3cret@risques.example.org", "baseUrl"],
      ["baseUrl: https://risques.example.org", "baseUrl: https://risques.example.org/?x=1", "baseUrl"],
    ] as const) {
      const pub = demoCopy();
      editFile(`${pub}/risk.config.yaml`, (t) => t.replace(from, to));
      const out = tempDir("risk-pages-refused-");
      const error = await runAssemble({
        publication: pub,
        site: `${out}/site`,
        archive: `${out}/archive`,
        now: DAYS[0],
        json: true,
      }).then(
        () => null,
        (e: unknown) => e as { code?: string; message: string },
      );
      expect(error?.code, field).toBe("E_INPUT");
      expect(error?.message, field).toContain("risk.config.yaml");
      expect(error?.message, field).toContain(field);
      expect(existsSync(`${out}/site`), field).toBe(false);
    }
  });
});

describe("the embed code", () => {
  it("escapes every attribute, as the pages do, so that a journalist pastes exactly the link and the chart", async () => {
    const { demoCopy, editFile } = await import("../helpers/publication.ts");
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) =>
      t.replace("baseUrl: https://risques.example.org", "baseUrl: https://risques.example.org/a&b"),
    );
    const out = tempDir("risk-pages-embed-");
    await runAssemble({ publication: pub, site: `${out}/site`, archive: `${out}/archive`, now: DAYS[0], json: true });
    const page = readFileSync(`${out}/site/en/press-resources/index.html`, "utf8");
    const embeds = [...page.matchAll(/<h3>Embed code<\/h3>\n<pre>(.*?)<\/pre>/g)].map((m) => m[1]!);
    expect(embeds.length).toBeGreaterThan(0);
    for (const shown of embeds) {
      // Shown as text in the page: once unescaped, it is the code to paste, its & written &amp;.
      const code = shown
        .replaceAll("&lt;", "<")
        .replaceAll("&gt;", ">")
        .replaceAll("&quot;", '"')
        .replaceAll("&amp;", "&");
      expect(code).toMatch(
        /^<a href="https:\/\/risques\.example\.org\/a&amp;b\/series\/[a-z0-9.-]+\/"><img src="https:\/\/risques\.example\.org\/a&amp;b\/[^"]+\.svg"/,
      );
    }
  });
});

describe("the downloads", () => {
  it("are the same bytes, and the frame the same commit, in every time zone", () => {
    const heads = new Set<string>();
    const zips = new Set<string>();
    for (const tz of ["UTC", "America/New_York", "Asia/Tokyo", "Pacific/Kiritimati"]) {
      const out = tempDir("risk-pages-tz-");
      const r = runCli(
        ["assemble", "--site", `${out}/site`, "--archive", `${out}/archive`, "--now", DAYS[0]!, "--json"],
        {
          env: { TZ: tz },
        },
      );
      expect(r.status, `${tz}: ${r.stderr}`).toBe(0);
      heads.add(JSON.parse(r.stdout).commit);
      const zip = readFileSync(`${out}/site/series/all-series.zip`);
      zips.add(createHash("sha256").update(zip).digest("hex"));
    }
    expect(zips.size).toBe(1);
    expect(heads.size).toBe(1);
  });

  it("open with Python's zipfile, and every file hashes to what datapackage.json declares", () => {
    const check = `
import hashlib, json, sys, zipfile
for path in sys.argv[1:]:
    z = zipfile.ZipFile(path)
    assert z.testzip() is None
    dp = json.loads(z.read("datapackage.json"))
    assert dp["$schema"].endswith("/2.0/datapackage.json")
    names = set(z.namelist()) - {"datapackage.json"}
    assert names == {r["path"] for r in dp["resources"]}, names
    for r in dp["resources"]:
        b = z.read(r["path"])
        assert len(b) == r["bytes"] and r["hash"] == "sha256:" + hashlib.sha256(b).hexdigest(), r["path"]
        header = b.decode("utf-8").split("\\n")[0].split(",")
        assert header == [f["name"] for f in r["schema"]["fields"]], r["path"]
    print(path.split("/")[-1], len(dp["resources"]))
`;
    const out = execFileSync(
      "python3",
      ["-c", check, `${site}/series/all-series.zip`, `${site}/series/us-debt-risk/us-debt-risk.zip`],
      {
        encoding: "utf8",
      },
    );
    expect(out).toBe("all-series.zip 6\nus-debt-risk.zip 1\n");
    // The CSV inside is the one the site serves.
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    expect(integrity.surfaces.map((s: { path: string }) => s.path)).toContain("/series/all-series.zip");
  });

  it("hold a datapackage.json that follows the Data Package v2 profile's rules for what it declares", async () => {
    const { unzipSync } = await import("fflate");
    const Ajv2020 = (await import("ajv/dist/2020.js")).default;
    // The profile's constraints on the fields the package uses (the published JSON Schema is not
    // reachable offline): names, paths, sizes, hashes, licences and table schemas.
    const profile = {
      type: "object",
      required: ["resources"],
      properties: {
        $schema: { const: "https://datapackage.org/profiles/2.0/datapackage.json" },
        name: { type: "string", pattern: "^([-a-z0-9._/])+$" },
        title: { type: "string" },
        homepage: { type: "string", format: "uri" },
        licenses: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: { name: { type: "string" }, path: { type: "string" } },
            anyOf: [{ required: ["name"] }, { required: ["path"] }],
          },
        },
        contributors: {
          type: "array",
          items: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
        },
        resources: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            required: ["name", "path"],
            properties: {
              name: { type: "string", pattern: "^([-a-z0-9._/])+$" },
              path: {
                type: "string",
                pattern: "^((?=[^./~])(?!file:)((?!\\/\\.\\.\\/)(?!\\\\)(?!:\\/\\/).)*|(http|ftp)s?:\\/\\/.*)$",
              },
              bytes: { type: "integer", minimum: 0 },
              hash: { type: "string", pattern: "^(\\w+:)?([a-fA-F0-9]+)$" },
              schema: {
                type: "object",
                required: ["fields"],
                properties: {
                  fields: {
                    type: "array",
                    items: {
                      type: "object",
                      required: ["name"],
                      properties: {
                        name: { type: "string" },
                        type: { enum: ["string", "number", "integer", "boolean", "date", "datetime", "any"] },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const { default: addFormats } = await import("ajv-formats");
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(profile);
    const packaged = unzipSync(readFileSync(`${site}/series/all-series.zip`));
    const dp = JSON.parse(new TextDecoder().decode(packaged["datapackage.json"]));
    expect(validate(dp), JSON.stringify(validate.errors)).toBe(true);
    // The check can fail: a resource with a path that leaves the package is refused.
    expect(validate({ ...dp, resources: [{ ...dp.resources[0], path: "../x.csv" }] })).toBe(false);
  });

  it("are the same bytes when the same data is assembled again", async () => {
    const again = tempDir("risk-pages-again-");
    for (const now of DAYS) await runAssemble({ site: `${again}/site`, archive: `${again}/archive`, now, json: true });
    for (const file of [
      "series/all-series.zip",
      "series/us-financial-stress/us-financial-stress.zip",
      "series/us-financial-stress/chart.svg",
    ])
      expect(readFileSync(`${again}/site/${file}`).equals(readFileSync(`${site}/${file}`)), file).toBe(true);
  }, 60_000);
});
