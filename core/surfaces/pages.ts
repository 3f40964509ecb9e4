/**
 * The pages the contract names, built at each assembly from the same data as the surfaces: the
 * agent pages in French and English, the registry of series, a page and a chart per series, and
 * the press resources. Each page is a file `<path>index.html`, served at its folder's URL.
 */
import { shellWord } from "../shell.ts";
import { z } from "zod";
import { instrumentsOf, type Publication } from "../inputs/publication.ts";
import type { InstrumentConfig } from "../inputs/schemas.ts";
import { pageOf } from "../inputs/pages.ts";
import type { InstrumentKey } from "../schemas/primitives.ts";
import { seriesChartSvg } from "../render/chart.ts";
import { esc, htmlPage, PAGE_CSS } from "../render/html.ts";
import { numberText } from "../render/number.ts";
import { observationRows, signalHistoryAfter, signalHistoryKey } from "../signal-history/rows.ts";
import type { PresentSignal } from "../signals.ts";
import { CONTRACT_VERSION, byCodeUnits } from "./common.ts";
import { seriesCsvPath } from "./signal-history.ts";
import { ALL_SERIES_ZIP, seriesZipPath } from "./downloads.ts";
import { defineSurface, type BuildContext, type Surface } from "./types.ts";
import { pageFile } from "../render/page-url.ts";
import { EDITORIAL_STALE_AFTER, FRESHNESS_PATH, signalFreshness } from "./freshness.ts";

const HtmlText = z
  .string()
  .refine((t) => t.startsWith("<!DOCTYPE html>\n") && !/<script(?![^>]*application\/ld\+json)/i.test(t), {
    message: "an HTML5 document without executable script",
  })
  .describe("An HTML5 page: no script (only JSON-LD data), a strict Content-Security-Policy, escaped text");
const SvgText = z
  .string()
  .refine((t) => t.startsWith("<svg ") && !/<script|<[^>]*\son[a-z]+\s*=/i.test(t), {
    message: "an SVG image without script (no script element, no event attribute)",
  })
  .describe("An SVG 1.1 image, 1200x630, with <title> and <desc>, without script or external resource");

const HTML = "text/html; charset=utf-8";
const SVG = "image/svg+xml";
export const AGENTS_PAGE = "/donnees/agents/";
/** The agent page's section on MCP, which agents.json names when no MCP server is configured. */
export const MCP_SECTION = "mcp";
export const AGENTS_PAGE_EN = "/en/agent-surface/";
export const SERIES_PAGE = "/series/";
export const PRESS_PAGE = "/en/press-resources/";
export const seriesPage = (seriesId: string) => `/series/${seriesId}/`;
export const seriesChartPath = (seriesId: string) => `/series/${seriesId}/chart.svg`;

/** A site path as a link relative to a page's folder (`/en/x/`, `/series/a.svg` gives `../../series/a.svg`). */
const relativeTo = (page: string, path: string) => `${"../".repeat(page.split("/").length - 2)}${path.slice(1)}`;

const LEVELS_FR = ["Détendu", "Modéré", "Élevé/Tendu", "Crise"] as const;
const LEVELS_EN = ["Calm", "Moderate", "Elevated", "Crisis"] as const;

interface SeriesFacts {
  key: InstrumentKey;
  config: InstrumentConfig;
  methodology: { slug: string; title: string; version: string; updated: string } | null;
  /** The editorial changelog's entries that link the methodology's page: its version history. */
  revisions: { id: string; date: string; title: string; summary: string }[];
  signal: PresentSignal | null;
  /** The closed days' points, oldest first, each with the frame that published it and whether that frame retained it. */
  points: { date: string; value: number; frameId: string; publishedAt: string; retained: boolean }[];
}

function seriesFacts(ctx: BuildContext): SeriesFacts[] {
  const p = ctx.publication;
  const rows = observationRows(p, signalHistoryAfter(ctx).daily);
  return instrumentsOf(p).map(([key, config]) => {
    const m = p.methodologies.find((x) => x.slug === config.methodology);
    const s = ctx.signals.find((x) => x.instrument === key);
    const page = m ? pageOf(p.pages.methodology, m.slug) : null;
    const revisions = page
      ? p.changelog
          .filter((c) => (c.links ?? []).some((l) => l.href === page || l.href === ctx.url(page)))
          .map((c) => ({ id: c.id, date: c.date, title: c.title, summary: c.summary }))
          .sort((a, b) => byCodeUnits(b.date, a.date) || byCodeUnits(a.id, b.id))
      : [];
    return {
      key,
      config,
      revisions,
      methodology: m ? { slug: m.slug, title: m.title, version: m.version, updated: m.updated } : null,
      signal: s?.present ? s : null,
      points: rows
        .filter((r) => r.instrument === key && typeof r.value === "number")
        .map((r) => ({
          date: r.seriesDate,
          value: r.value as number,
          frameId: r.frameId,
          publishedAt: r.publishedAt,
          retained: r.fallbackUsed === true,
        })),
    };
  });
}

/**
 * What a page that shows current values depends on besides the inputs and the closed days: each
 * signal's value, level and whether it was retained. Equal keys reuse the previous bytes.
 */
const valuesKey = (ctx: BuildContext) =>
  `${signalHistoryKey(ctx)} ${ctx.signals.map((s) => (s.present ? `${s.value}|${s.level}|${s.fallbackUsed}${s.qualityStatus === "stale" ? `|${stateNote(s, ctx.now)}` : ""}` : "-")).join(",")}`;

/**
 * What a page showing a current value must add so that it is never read as fresh when
 * signals/current.json says it is not: retained after an upstream failure, or stale (as old as
 * staleAfter, from freshness.json's expiresAt on). Null for a fresh value.
 */
function stateNote(s: PresentSignal, now: string): string | null {
  if (s.fallbackUsed) return "valeur conservée après une panne amont : non fraîche";
  if (s.qualityStatus === "stale")
    return `valeur périmée : publiée en amont le ${s.sourceUpdatedAt}, fraîche jusqu’au ${signalFreshness(s, now).expiresAt}`;
  return null;
}

/** A value's state note, escaped, between `before` and `after`; nothing for a fresh value. */
const noteOf = (s: PresentSignal, now: string, before: string, after: string) => {
  const note = stateNote(s, now);
  return note === null ? "" : `${before}${esc(note)}${after}`;
};

/** The UTC day a citation's replay command names (see `citations`). */
const citationDay = (ctx: BuildContext) => ctx.now.slice(0, 10);

const cssHash = (ctx: BuildContext) => ctx.hash.sha256(new TextEncoder().encode(PAGE_CSS));

/** A citation's words in the language of the page that shows it. */
const CITATION_WORDS = {
  en: {
    value: (value: string, date: string, frame: string, at: string) =>
      `${value} on ${date}, measured by frame ${frame} at ${at}`,
    retained: (value: string, date: string, frame: string, at: string) =>
      `${value} on ${date}, a value retained after an upstream failure, published by frame ${frame} at ${at}`,
    none: "no closed day published yet",
    data: (day: string, sha256: string) => `series CSV as published on ${day}: sha256 ${sha256}`,
    replay: "Replay:",
  },
  fr: {
    value: (value: string, date: string, frame: string, at: string) =>
      `${value} le ${date}, mesurée par la frame ${frame} le ${at}`,
    retained: (value: string, date: string, frame: string, at: string) =>
      `${value} le ${date}, valeur conservée après une panne amont, publiée par la frame ${frame} le ${at}`,
    none: "aucun jour clos publié à ce jour",
    data: (day: string, sha256: string) => `CSV de la série tel que publié le ${day} : sha256 ${sha256}`,
    replay: "Rejeu :",
  },
};

/**
 * The citation of a series' last closed day, in plain text, BibTeX and CSL-JSON: the value, the
 * frame that measured it and when, the SHA-256 of the series' CSV (checkable against
 * integrity.json), and the replay command that gives that CSV back. The CSV changes when a day
 * closes, so every frame of one UTC day publishes the same one, and `replay --date <that day>`
 * (the day's last frame) gives it back; the citation changes with the day, not with every frame.
 */
function citations(ctx: BuildContext, f: SeriesFacts, lang: "fr" | "en") {
  const p = ctx.publication;
  const csv = ctx.produced.find((x) => x.path === seriesCsvPath(f.config.seriesId));
  const last = f.points.at(-1);
  const url = ctx.url(seriesPage(f.config.seriesId));
  const day = citationDay(ctx);
  const replay = p.config.archive
    ? `git clone --bare --branch ${shellWord(p.config.archive.branch)} ${shellWord(p.config.archive.url)} archive.git && risk-cli replay --archive archive.git --date ${day} --out ${f.config.seriesId}-${day}`
    : `risk-cli replay --archive <archive> --date ${day} --out ${f.config.seriesId}-${day}`;
  const w = CITATION_WORDS[lang];
  // A value the frame retained after an upstream failure was not measured then: cited as such.
  const what = last
    ? (last.retained ? w.retained : w.value)(
        `${numberText(last.value, lang)} / ${numberText(f.config.scale, lang)}`,
        last.date,
        last.frameId,
        last.publishedAt,
      )
    : w.none;
  const data = csv ? w.data(day, csv.sha256) : "";
  const text = `${p.config.attribution}. « ${f.config.label.fr} » [${f.config.seriesId}], ${what}${data ? `, ${data}` : ""}. ${url}. ${w.replay} ${replay}`;
  const issued = (last?.publishedAt ?? ctx.indexedAt).slice(0, 10).split("-").map(Number);
  const bibtex =
    `@misc{${f.config.seriesId.replace(/[^A-Za-z0-9]/g, "_")}_${(last?.date ?? "none").replace(/-/g, "")},\n` +
    `  author = {{${bibtexText(p.config.name)}}},\n` +
    `  title = {{${bibtexText(f.config.label.fr)}} [${bibtexText(f.config.seriesId)}]},\n` +
    `  year = {${issued[0]}},\n  howpublished = {\\url{${bibtexUrl(url)}}},\n` +
    `  note = {${bibtexText(`${what}${data ? `; ${data}` : ""}; ${p.config.license}`)}}\n}`;
  const csl = {
    id: `${f.config.seriesId}@${last?.frameId ?? "none"}`,
    type: "dataset",
    title: `${f.config.label.fr} [${f.config.seriesId}]`,
    author: [{ literal: p.config.name }],
    issued: { "date-parts": [issued] },
    URL: url,
    version: last?.frameId ?? null,
    note: `${what}${data ? `; ${data}` : ""}; ${w.replay.toLowerCase()} ${replay}`,
    license: p.config.license,
  };
  return { text, bibtex, csl: JSON.stringify(csl, null, 2) };
}

const BIBTEX_SPECIALS: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  "%": "\\%",
  "&": "\\&",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "^": "\\textasciicircum{}",
  "~": "\\textasciitilde{}",
};

/** Text in a BibTeX field: LaTeX's special characters escaped, so braces stay balanced and no command runs. */
const bibtexText = (text: string) => text.replace(/[\\{}%&$#_^~]/g, (c) => BIBTEX_SPECIALS[c]!);

/** A URL inside `\url{}`: only the characters that \url does not take as they are. */
const bibtexUrl = (url: string) => url.replace(/[\\{}%#]/g, (c) => `\\${c}`);

function exportsOf(ctx: BuildContext, f: SeriesFacts, lang: "fr" | "en"): string {
  const links: [string, string][] = [
    [ctx.url(seriesCsvPath(f.config.seriesId)), lang === "fr" ? "CSV de la série" : "Series CSV"],
    [ctx.url("/api/v1/signals/history.json"), "JSON"],
    [ctx.url("/api/v1/signals/history.ndjson"), "NDJSON"],
    [ctx.url(seriesChartPath(f.config.seriesId)), "SVG"],
    [
      ctx.url(seriesZipPath(f.config.seriesId)),
      lang === "fr" ? "Archive zip (CSV et datapackage.json)" : "Zip (CSV and datapackage.json)",
    ],
    [ctx.url(ALL_SERIES_ZIP), lang === "fr" ? "Toutes les séries (zip)" : "Every series (zip)"],
  ];
  return `<ul>${links.map(([href, label]) => `<li><a href="${esc(href)}">${esc(label)}</a></li>`).join("")}</ul>`;
}

const seriesDataset = (ctx: BuildContext, f: SeriesFacts) => ({
  "@context": "https://schema.org",
  "@type": "Dataset",
  name: `${f.config.label.fr} [${f.config.seriesId}]`,
  alternateName: f.config.label.en,
  identifier: f.config.seriesId,
  description: `${f.config.label.fr}: ${ctx.publication.config.description.fr}`,
  url: ctx.url(seriesPage(f.config.seriesId)),
  license: ctx.publication.config.licenseUrl,
  creator: { "@type": "Organization", name: ctx.publication.config.name },
  dateModified: f.points.at(-1)?.publishedAt ?? ctx.indexedAt,
  version: f.methodology?.version,
  distribution: [
    { "@type": "DataDownload", encodingFormat: "text/csv", contentUrl: ctx.url(seriesCsvPath(f.config.seriesId)) },
    {
      "@type": "DataDownload",
      encodingFormat: "image/svg+xml",
      contentUrl: ctx.url(seriesChartPath(f.config.seriesId)),
    },
  ],
});

function chartOf(ctx: BuildContext, f: SeriesFacts, lang: "fr" | "en"): string {
  const p = ctx.publication;
  return seriesChartSvg({
    lang,
    seriesId: f.config.seriesId,
    title: lang === "fr" ? f.config.label.fr : f.config.label.en,
    scale: f.config.scale,
    thresholds: f.config.thresholds,
    points: f.points,
    source: f.config.dashboard,
    attribution: p.config.attribution,
    license: p.config.license,
    levels: lang === "fr" ? LEVELS_FR : LEVELS_EN,
    empty: lang === "fr" ? "Aucun jour clos publié pour l’instant" : "No closed day published yet",
  });
}

export const seriesChart = defineSurface({ format: "text", schema: SvgText })({
  path: seriesChartPath("{seriesId}"),
  mediaType: SVG,
  schemaName: "SeriesChart",
  summary: "Chart of one series: its daily values with the level bands, the source and the licence in the image",
  build: () => "",
  expand(p: Publication): Surface[] {
    return instrumentsOf(p).map(([, config]) =>
      defineSurface({ format: "text", schema: SvgText })({
        ...seriesChart,
        expand: undefined,
        path: seriesChartPath(config.seriesId),
        summary: `Chart of the series ${config.seriesId}: daily values, level bands, source and licence`,
        reuseKey: signalHistoryKey,
        reads: { signalHistory: true },
        build(ctx: BuildContext) {
          const f = seriesFacts(ctx).find((x) => x.config.seriesId === config.seriesId)!;
          return chartOf(ctx, f, "fr");
        },
      }),
    );
  },
});

export const seriesPages = defineSurface({ format: "text", schema: HtmlText })({
  path: pageFile(seriesPage("{seriesId}")),
  mediaType: HTML,
  schemaName: "SeriesPage",
  summary: "Page of one series: chart, current value and level, thresholds, methodology, exports and citation",
  build: () => "",
  expand(p: Publication): Surface[] {
    return instrumentsOf(p).map(([, config]) =>
      defineSurface({ format: "text", schema: HtmlText })({
        ...seriesPages,
        expand: undefined,
        path: pageFile(seriesPage(config.seriesId)),
        summary: `Page of the series ${config.seriesId}: chart, value, thresholds, methodology, exports, citation`,
        reuseKey: (ctx: BuildContext) => `${valuesKey(ctx)} ${citationDay(ctx)}`,
        // The methodologies and the editorial changelog (the methodology's version history).
        reads: { signalHistory: true, corpus: true },
        build(ctx: BuildContext) {
          const f = seriesFacts(ctx).find((x) => x.config.seriesId === config.seriesId)!;
          const c = citations(ctx, f, "fr");
          const t = f.config.thresholds;
          const m = f.methodology;
          const body =
            `<nav><ul><li><a href="${esc(ctx.url(SERIES_PAGE))}">Toutes les séries</a></li><li><a href="${esc(ctx.url(PRESS_PAGE))}" hreflang="en" lang="en">Press resources</a></li></ul></nav>\n` +
            `<h1>${esc(f.config.label.fr)}</h1>\n<p>Identifiant stable : <code>${esc(f.config.seriesId)}</code> · instrument <code>${esc(f.key)}</code></p>\n` +
            `<figure><img src="chart.svg" width="1200" height="630" alt="${esc(`Graphique de ${f.config.label.fr} (${f.config.seriesId}) avec les bandes de niveau`)}"><figcaption>${esc(`Valeurs quotidiennes (jours UTC clos), échelle 0–${numberText(f.config.scale, "fr")}. Source : ${f.config.dashboard}. ${ctx.publication.config.license}.`)}</figcaption></figure>\n` +
            `<h2>Valeur actuelle</h2>\n<p>${f.signal ? `${esc(numberText(f.signal.value, "fr"))} / ${esc(numberText(f.signal.scale, "fr"))} — ${esc(f.signal.level)}${noteOf(f.signal, ctx.now, " (", ")")}` : "Aucune valeur publiée."} (la valeur de chaque assemblage : <a href="${esc(ctx.url("/api/v1/signals/current.json"))}">signals/current.json</a>)</p>\n` +
            `<table><caption>Seuils de niveau (borne basse incluse)</caption><thead><tr><th scope="col">Niveau</th><th scope="col">À partir de</th></tr></thead><tbody>` +
            `<tr><td>Détendu</td><td>0</td></tr><tr><td>Modéré</td><td>${esc(numberText(t.moderate, "fr"))}</td></tr><tr><td>Élevé/Tendu</td><td>${esc(numberText(t.elevated, "fr"))}</td></tr><tr><td>Crise</td><td>${esc(numberText(t.crisis, "fr"))}</td></tr></tbody></table>\n` +
            `<h2>Méthodologie</h2>\n<p>${m ? `<a href="${esc(ctx.url(pageOf(ctx.publication.pages.methodology, m.slug)))}">${esc(m.title)}</a>, version ${esc(m.version)} (mise à jour le ${esc(m.updated)}) ; historique des versions dans le <a href="${esc(ctx.url(ctx.publication.pages.changelog))}">journal éditorial</a>.` : "Non renseignée."}</p>\n` +
            (f.revisions.length
              ? `<table><caption>Historique de la méthodologie</caption><thead><tr><th scope="col">Date</th><th scope="col">Changement</th></tr></thead><tbody>${f.revisions
                  .map(
                    (r) =>
                      `<tr><td>${esc(r.date)}</td><td><a href="${esc(`${ctx.url(ctx.publication.pages.changelog)}#${r.id}`)}">${esc(r.title)}</a> : ${esc(r.summary)}</td></tr>`,
                  )
                  .join("")}</tbody></table>\n`
              : "") +
            `<h2>Exports</h2>\n${exportsOf(ctx, f, "fr")}\n` +
            `<h2>Citer cette valeur</h2>\n<pre>${esc(c.text)}</pre>\n<h3>BibTeX</h3>\n<pre>${esc(c.bibtex)}</pre>\n<h3>CSL-JSON</h3>\n<pre>${esc(c.csl)}</pre>`;
          return htmlPage({
            lang: "fr",
            title: `${f.config.label.fr} (${f.config.seriesId}) — ${ctx.publication.config.name}`,
            description: `Série ${f.config.seriesId} : valeur, niveau, seuils, méthodologie, exports et citation.`,
            canonical: ctx.url(seriesPage(f.config.seriesId)),
            data: seriesDataset(ctx, f),
            body,
            cssSha256: cssHash(ctx),
          });
        },
      }),
    );
  },
});

export const seriesRegistryPage = defineSurface({ format: "text", schema: HtmlText })({
  path: pageFile(SERIES_PAGE),
  mediaType: HTML,
  schemaName: "SeriesRegistryPage",
  summary:
    "Registry of citable series: names, stable identifiers, instruments, methodology versions, current values and exports",
  reuseKey: valuesKey,
  reads: { signalHistory: true, corpus: true },
  build(ctx: BuildContext) {
    const facts = seriesFacts(ctx);
    const rows = facts
      .map(
        (f) =>
          `<tr><th scope="row"><a href="${esc(ctx.url(seriesPage(f.config.seriesId)))}">${esc(f.config.label.fr)}</a></th>` +
          `<td><code>${esc(f.config.seriesId)}</code></td><td>${esc(f.key)}</td>` +
          `<td>${f.methodology ? `${esc(f.methodology.title)} v${esc(f.methodology.version)}` : "—"}</td>` +
          `<td>${f.signal ? `${esc(numberText(f.signal.value, "fr"))} / ${esc(numberText(f.signal.scale, "fr"))} (${esc(f.signal.level)})${noteOf(f.signal, ctx.now, "<br>", "")}` : "—"}</td>` +
          `<td><a href="${esc(ctx.url(seriesCsvPath(f.config.seriesId)))}">CSV</a> · <a href="${esc(ctx.url(seriesChartPath(f.config.seriesId)))}">SVG</a></td></tr>`,
      )
      .join("\n");
    const body =
      `<h1>Séries citables</h1>\n<p>Chaque série a un identifiant stable, une méthodologie versionnée et ses exports. Les valeurs sont propres à chaque instrument : ne les agrégez pas en un indice unique.</p>\n` +
      `<table><caption>Registre des séries</caption><thead><tr><th scope="col">Série</th><th scope="col">Identifiant</th><th scope="col">Instrument</th><th scope="col">Méthodologie</th><th scope="col">Valeur actuelle</th><th scope="col">Exports</th></tr></thead><tbody>\n${rows}\n</tbody></table>\n` +
      `<p><a href="${esc(ctx.url(PRESS_PAGE))}" hreflang="en" lang="en">Press resources (charts, embed code, citations)</a> · <a href="${esc(ctx.url(AGENTS_PAGE))}">Surface pour les agents</a></p>`;
    return htmlPage({
      lang: "fr",
      title: `Séries citables — ${ctx.publication.config.name}`,
      description: "Registre des séries citables : identifiants stables, méthodologies, valeurs actuelles et exports.",
      canonical: ctx.url(SERIES_PAGE),
      data: {
        "@context": "https://schema.org",
        "@type": "DataCatalog",
        name: `Séries — ${ctx.publication.config.name}`,
        url: ctx.url(SERIES_PAGE),
        license: ctx.publication.config.licenseUrl,
        dataset: facts.map((f) => seriesDataset(ctx, f)),
      },
      body,
      cssSha256: cssHash(ctx),
    });
  },
});

export const pressPage = defineSurface({ format: "text", schema: HtmlText })({
  path: pageFile(PRESS_PAGE),
  mediaType: HTML,
  schemaName: "PressResourcesPage",
  summary: "Press resources: a chart per series, embed code, the recommended citation and downloads",
  reuseKey: (ctx: BuildContext) => `${signalHistoryKey(ctx)} ${citationDay(ctx)}`,
  reads: { signalHistory: true },
  build(ctx: BuildContext) {
    const p = ctx.publication;
    const sections = seriesFacts(ctx)
      .map((f) => {
        const chart = ctx.url(seriesChartPath(f.config.seriesId));
        const alt = `Chart of ${f.config.label.en} (${f.config.seriesId}) with its level bands`;
        // The code a journalist pastes into a page: every attribute escaped as in our own pages.
        const embed = `<a href="${esc(ctx.url(seriesPage(f.config.seriesId)))}"><img src="${esc(chart)}" width="600" height="315" alt="${esc(alt)}"></a>`;
        const c = citations(ctx, f, "en");
        return (
          `<section>\n<h2>${esc(f.config.label.en)} <small>(${esc(f.config.seriesId)})</small></h2>\n` +
          // Relative to the page, as a series page's `chart.svg`: a memento or a replayed folder
          // of this page shows the charts published with it, not today's.
          `<img src="${esc(relativeTo(PRESS_PAGE, seriesChartPath(f.config.seriesId)))}" width="600" height="315" alt="${esc(alt)}">\n` +
          `<h3>Embed code</h3>\n<pre>${esc(embed)}</pre>\n<h3>Citation</h3>\n<pre>${esc(c.text)}</pre>\n` +
          `<h3>Downloads</h3>\n${exportsOf(ctx, f, "en")}\n</section>`
        );
      })
      .join("\n");
    const body =
      `<h1>Press resources</h1>\n<p>Charts you may embed and reuse under ${esc(p.config.license)} with attribution “${esc(p.config.attribution)}”. Each chart is an SVG file of 1200×630 pixels, readable at 600 pixels wide; each citation names the frame it comes from, so the figure can be replayed from the public archive.</p>\n` +
      `<p>A level is a reading on the instrument's own scale, not a probability; never compare two instruments' values.</p>\n${sections}`;
    return htmlPage({
      lang: "en",
      title: `Press resources — ${p.config.name}`,
      description: "Reusable SVG charts, embed code, citations and downloads for every series.",
      canonical: ctx.url(PRESS_PAGE),
      data: {
        "@context": "https://schema.org",
        "@type": "WebPage",
        name: "Press resources",
        url: ctx.url(PRESS_PAGE),
        inLanguage: "en",
        license: p.config.licenseUrl,
      },
      body,
      cssSha256: cssHash(ctx),
    });
  },
});

/**
 * What an agent page shows besides the inputs and the tool: each producer's last publication and
 * source status, which move when an upstream publishes or fails, not with the clock (the page
 * gives until when each value is fresh, not whether it still is).
 */
const agentPageKey = (ctx: BuildContext) =>
  `agents/1 ${ctx.toolVersion} ${ctx.inputs} ${ctx.signals
    .map(
      (s) =>
        `${s.instrument}|${signalFreshness(s, ctx.now).updatedAt}|${s.sourceStatus}|${s.present && s.fallbackUsed}`,
    )
    .join(",")}`;

/**
 * The parts of the agent contract the pages describe besides the endpoints: each producer's
 * freshness (as freshness.json gives it), the named series, and how to cite them.
 */
function agentContractParts(ctx: BuildContext, lang: "fr" | "en"): string {
  const p = ctx.publication;
  const fr = lang === "fr";
  const t = (frText: string, enText: string) => (fr ? frText : enText);
  const link = (path: string, text: string) => `<a href="${esc(ctx.url(path))}">${esc(text)}</a>`;
  const producers = ctx.signals
    .map((s) => {
      const f = signalFreshness(s, ctx.now);
      const state = !s.present
        ? t(`aucune valeur (${s.sourceStatus})`, `no value (${s.sourceStatus})`)
        : s.fallbackUsed
          ? t(
              `valeur conservée après une panne amont (${s.sourceStatus}) : non fraîche`,
              `value retained after an upstream failure (${s.sourceStatus}): not fresh`,
            )
          : s.sourceStatus;
      return (
        `<tr><th scope="row">${esc(s.config.label[lang])}</th><td>${esc(f.updatedAt ?? "—")}</td>` +
        `<td>${esc(s.config.staleAfter)}</td><td>${esc(f.expiresAt ?? "—")}</td><td>${esc(state)}</td></tr>`
      );
    })
    .join("\n");
  const editorialStale = p.config.editorial?.staleAfter ?? EDITORIAL_STALE_AFTER;
  const series = instrumentsOf(p)
    .map(
      ([key, c]) =>
        `<tr><th scope="row"><a href="${esc(ctx.url(seriesPage(c.seriesId)))}"><code>${esc(c.seriesId)}</code></a></th>` +
        `<td>${esc(c.label[lang])}</td><td>${esc(key)}</td>` +
        `<td>${link(seriesCsvPath(c.seriesId), "CSV")} · ${link(seriesChartPath(c.seriesId), "SVG")}</td></tr>`,
    )
    .join("\n");
  const rules = [
    t(
      `Attribution obligatoire : « ${p.config.attribution} », sous licence ${p.config.license} (${p.config.licenseUrl}).`,
      `Attribution is required: “${p.config.attribution}”, under ${p.config.license} (${p.config.licenseUrl}).`,
    ),
    t(
      "Citez une valeur par l’identifiant stable de sa série, le jour UTC clos et la frame qui l’a mesurée : chaque page de série donne cette citation en texte, BibTeX et CSL-JSON.",
      "Cite a value by its series' stable identifier, the closed UTC day and the frame that measured it: each series page gives that citation as text, BibTeX and CSL-JSON.",
    ),
    t(
      "Joignez l’empreinte SHA-256 du fichier cité (/api/v1/integrity.json) : la commande replay --date de la citation redonne ces octets depuis l’archive publique.",
      "Give the SHA-256 of the file you cite (/api/v1/integrity.json): the citation's replay --date command gives those bytes back from the public archive.",
    ),
    t(
      "Datez une valeur par seriesDate (sa publication) et observedAt (l’observation amont), jamais par l’heure de lecture ; une valeur conservée (fallbackUsed) se cite comme telle.",
      "Date a value by seriesDate (its publication) and observedAt (the upstream observation), never by when you read it; cite a retained value (fallbackUsed) as retained.",
    ),
  ];
  return (
    `<h2 id="${t("fraicheur", "freshness")}">${t("Fraîcheur par producteur", "Freshness per producer")}</h2>\n` +
    `<table><caption>${t("Fraîcheur de chaque producteur : la valeur publiée est périmée à partir de « Frais jusqu’à »", "Each producer's freshness: the value shown is stale from “Fresh until” on")}</caption><thead><tr>` +
    `<th scope="col">${t("Producteur", "Producer")}</th><th scope="col">${t("Publié en amont", "Published upstream")}</th>` +
    `<th scope="col">${t("Périmé après", "Stale after")}</th><th scope="col">${t("Frais jusqu’à", "Fresh until")}</th>` +
    `<th scope="col">${t("Statut de la source", "Source status")}</th></tr></thead><tbody>\n${producers}\n</tbody></table>\n` +
    `<p>${esc(t(`Le corpus éditorial est périmé quand aucun article ni guide n’a paru ni n’a été mis à jour depuis ${editorialStale}.`, `The editorial corpus is stale when no article or guide was published or updated for ${editorialStale}.`))} ${t("Le détail, avec la couverture de chaque producteur :", "The details, with each producer's coverage:")} ${link(FRESHNESS_PATH, FRESHNESS_PATH)}.</p>\n` +
    `<h2 id="${t("series", "series")}">${t("Séries nommées", "Named series")}</h2>\n` +
    `<table><caption>${t("Séries citables et leurs identifiants stables", "Citable series and their stable identifiers")}</caption><thead><tr>` +
    `<th scope="col">${t("Identifiant", "Identifier")}</th><th scope="col">${t("Série", "Series")}</th><th scope="col">Instrument</th>` +
    `<th scope="col">Exports</th></tr></thead><tbody>\n${series}\n</tbody></table>\n` +
    `<h2 id="${t("citation", "citation")}">${t("Règles de citation", "Citation rules")}</h2>\n<ul>${rules.map((r) => `<li>${esc(r)}</li>`).join("")}</ul>\n`
  );
}

/** The agent pages: what the publication offers to machines, in French and in English. */
function agentPage(lang: "fr" | "en") {
  const fr = lang === "fr";
  const path = fr ? AGENTS_PAGE : AGENTS_PAGE_EN;
  return defineSurface({ format: "text", schema: HtmlText })({
    path: pageFile(path),
    mediaType: HTML,
    // The inputs, the registry and the producers' freshness: an unchanged publication whose
    // upstreams published nothing new reuses the previous bytes.
    reuseKey: agentPageKey,
    schemaName: fr ? "AgentPage" : "AgentPageEnglish",
    summary: fr
      ? "Description of the agent contract for people (French): per-producer freshness, named series, citation rules, guardrails, endpoints"
      : "Description of the agent contract for people (English): per-producer freshness, named series, citation rules, guardrails, endpoints",
    build(ctx: BuildContext) {
      const p = ctx.publication;
      // The surfaces' summaries are written in English: marked so on the French page, for a screen reader.
      const summaryLang = fr ? ' lang="en"' : "";
      const rows = [...ctx.registry]
        .filter((s) => !s.path.endsWith(".html") && !s.path.endsWith(".svg"))
        .sort((a, b) => byCodeUnits(a.path, b.path))
        .map(
          (s) =>
            `<tr><th scope="row"><a href="${esc(ctx.url(s.path))}">${esc(s.path)}</a></th><td>${esc(s.mediaType)}</td><td${summaryLang}>${esc(s.summary)}</td></tr>`,
        )
        .join("\n");
      const order = [
        "/agents.json",
        "/llms.txt",
        "/api/v1/integrity.json",
        "/api/v1/signals/current.json",
        "/api/v1/catalog.json",
      ];
      const t = (frText: string, enText: string) => (fr ? frText : enText);
      const body =
        `<nav><ul><li><a href="${esc(ctx.url(fr ? AGENTS_PAGE_EN : AGENTS_PAGE))}" hreflang="${fr ? "en" : "fr"}" lang="${fr ? "en" : "fr"}">${fr ? "English" : "Français"}</a></li><li><a href="${esc(ctx.url(SERIES_PAGE))}">${t("Séries", "Series")}</a></li></ul></nav>\n` +
        `<h1>${t("Surface pour les agents", "Agent surface")}</h1>\n` +
        `<p>${esc(t(`Contrat version ${CONTRACT_VERSION}. Tous les documents sont statiques, lisibles depuis toute origine (CORS *), sans clé ni suivi, sous licence ${p.config.license} avec attribution « ${p.config.attribution} ».`, `Contract version ${CONTRACT_VERSION}. Every document is static, readable from any origin (CORS *), with no key and no tracking, under ${p.config.license} with attribution “${p.config.attribution}”.`))}</p>\n` +
        `<h2>${t("Ordre de lecture recommandé", "Recommended reading order")}</h2>\n<ol>${order.map((o) => `<li><a href="${esc(ctx.url(o))}">${esc(o)}</a></li>`).join("")}</ol>\n` +
        `<h2>${t("Garde-fous", "Guardrails")}</h2>\n<ul>` +
        [
          t(
            "Vérifiez chaque fichier contre son empreinte SHA-256 dans /api/v1/integrity.json.",
            "Check each file against its SHA-256 in /api/v1/integrity.json.",
          ),
          t(
            "Utilisez seriesDate comme date de publication : pas d’anticipation dans un backtest.",
            "Use seriesDate as the publication date: no look-ahead in a backtest.",
          ),
          t("Une valeur conservée (fallbackUsed) n’est pas fraîche.", "A retained value (fallbackUsed) is not fresh."),
          t(
            "Un niveau n’est pas une probabilité ; n’agrégez pas les instruments.",
            "A level is not a probability; never aggregate instruments.",
          ),
        ]
          .map((g) => `<li>${esc(g)}</li>`)
          .join("") +
        "</ul>\n" +
        agentContractParts(ctx, lang) +
        `<h2>${t("Exemple", "Example")}</h2>\n<pre>${esc(`curl -s ${ctx.url("/api/v1/signals/current.json")} | sha256sum\ncurl -s ${ctx.url("/api/v1/integrity.json")}`)}</pre>\n` +
        `<h2 id="${MCP_SECTION}">MCP</h2>\n<p>${esc(
          p.config.mcp
            ? t(
                `Un serveur MCP (Streamable HTTP) répond à ${p.config.mcp.url} : chaque outil accepte asOf et ne répond qu’avec ce qui était publié à cet instant.`,
                `An MCP server (Streamable HTTP) answers at ${p.config.mcp.url}: every tool takes asOf and answers only with what was published then.`,
              )
            : t(
                "Aucun serveur MCP ne répond en HTTP pour cette publication ; agents.json renvoie ici. Lancez-en un sur ce site (risk-cli mcp --site DOSSIER, sur l’entrée et la sortie standard) ou sur son archive (--archive ARCHIVE) : chaque outil accepte asOf et ne répond qu’avec ce qui était publié à cet instant.",
                "No MCP server answers over HTTP for this publication; agents.json points here. Run one over this site (risk-cli mcp --site FOLDER, on standard input and output) or over its archive (--archive ARCHIVE): every tool takes asOf and answers only with what was published then.",
              ),
        )}</p>\n` +
        `<table><caption>${t("Points d’accès machine", "Machine endpoints")}</caption><thead><tr><th scope="col">${t("Chemin", "Path")}</th><th scope="col">Format</th><th scope="col">${t("Rôle", "Purpose")}</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
      return htmlPage({
        lang,
        title: `${t("Surface pour les agents", "Agent surface")} — ${p.config.name}`,
        description: t(
          "Ce que la publication offre aux machines : points d’accès, ordre de lecture, garde-fous.",
          "What the publication offers to machines: endpoints, reading order, guardrails.",
        ),
        canonical: ctx.url(path),
        alternates: [
          { lang: "fr", href: ctx.url(AGENTS_PAGE) },
          { lang: "en", href: ctx.url(AGENTS_PAGE_EN) },
        ],
        data: {
          "@context": "https://schema.org",
          "@type": "TechArticle",
          headline: t("Surface pour les agents", "Agent surface"),
          inLanguage: lang,
          url: ctx.url(path),
          license: p.config.licenseUrl,
          publisher: { "@type": "Organization", name: p.config.name },
          dateModified: ctx.indexedAt,
        },
        body,
        cssSha256: cssHash(ctx),
      });
    },
  });
}

export const agentsPage = agentPage("fr");
export const agentsPageEnglish = agentPage("en");
