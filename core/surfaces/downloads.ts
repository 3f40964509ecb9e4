/**
 * The downloads of the press resources: a zip per series and one of every series, each holding
 * the CSVs and a `datapackage.json` (Frictionless Data Package v2) whose resources give every
 * file's byte size, SHA-256 and table schema. Made with fflate, deterministic: entries in a fixed
 * order with a fixed timestamp and compression level, so an unchanged series gives the same bytes.
 *
 * One vintage per series: the series are indexed by the day they were published (seriesDate), and
 * a closed day's point is never revised, so the value first published for a date is the value
 * published for it now. The package says so instead of shipping two identical files.
 */
import { zipSync } from "fflate";
import { z } from "zod";
import { instrumentsOf, type Publication } from "../inputs/publication.ts";
import { canonicalJson } from "../canonical/jcs.ts";
import { seriesCsvTexts, HISTORY_CSV_HEADER, SERIES_CSV_HEADER } from "./signal-history-csv.ts";
import { defineSurface, type BuildContext, type Surface } from "./types.ts";
import { signalHistoryKey } from "../signal-history/rows.ts";

const ZipBytes = z
  .custom<Uint8Array>((v) => v instanceof Uint8Array, { message: "bytes" })
  .refine((b) => b.byteLength > 22 && b[0] === 0x50 && b[1] === 0x4b, { message: "a zip archive" })
  .describe("A zip archive (fflate, deterministic) holding CSVs and a Frictionless datapackage.json");

export const seriesZipPath = (seriesId: string) => `/series/${seriesId}/${seriesId}.zip`;
export const ALL_SERIES_ZIP = "/series/all-series.zip";

/**
 * Every entry's time: the zip format's own epoch, so that the bytes do not depend on the clock.
 * A zip stores local date and time fields, which fflate reads from the Date in the machine's
 * time zone: a Date built from local fields gives 1980-01-01 00:00 in every zone (one built in UTC
 * would be 1979 west of Greenwich, which the format cannot hold, and another time east of it).
 */
const ZIP_TIME = new Date(1980, 0, 1, 0, 0, 0);
const encoder = new TextEncoder();

/** Frictionless types of the CSV columns. */
const FIELD_TYPES: Record<string, string> = {
  seriesDate: "date",
  value: "number",
  scale: "number",
  rawValue: "number",
  fallbackUsed: "boolean",
  observedAt: "datetime",
  publishedAt: "datetime",
};

function tableSchema(header: readonly string[]) {
  return {
    fields: header.map((name) => ({ name, type: FIELD_TYPES[name] ?? "string" })),
    primaryKey: header.includes("seriesId") ? ["seriesDate", "seriesId"] : ["seriesDate"],
  };
}

function zipOf(
  ctx: BuildContext,
  name: string,
  title: string,
  csvs: { path: string; text: string; header: readonly string[] }[],
) {
  const p = ctx.publication;
  const files: Record<string, [Uint8Array, { mtime: Date; level: 6 }]> = {};
  const resources = csvs.map((c) => {
    const bytes = encoder.encode(c.text);
    files[c.path] = [bytes, { mtime: ZIP_TIME, level: 6 }];
    return {
      name: c.path.replace(/\.csv$/, "").replace(/[^a-z0-9._-]/g, "-"),
      path: c.path,
      format: "csv",
      mediatype: "text/csv",
      encoding: "utf-8",
      bytes: bytes.byteLength,
      hash: `sha256:${ctx.hash.sha256(bytes)}`,
      schema: tableSchema(c.header),
    };
  });
  const datapackage = {
    $schema: "https://datapackage.org/profiles/2.0/datapackage.json",
    name,
    title,
    description:
      "Daily points of the series, one row per closed UTC day, indexed by seriesDate (the day it was published). A closed day is never revised: this first-release vintage is also the latest.",
    homepage: ctx.url("/series/"),
    licenses: [{ name: p.config.license, path: p.config.licenseUrl, title: p.config.attribution }],
    contributors: [{ title: p.config.name, roles: ["publisher"] }],
    resources,
  };
  files["datapackage.json"] = [
    encoder.encode(`${canonicalJson(datapackage, "datapackage.json")}\n`),
    { mtime: ZIP_TIME, level: 6 },
  ];
  // Entries in name order: the same inputs give the same bytes.
  const ordered = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return zipSync(ordered);
}

export const seriesZip = defineSurface({ format: "bytes", schema: ZipBytes })({
  path: seriesZipPath("{seriesId}"),
  mediaType: "application/zip",
  schemaName: "SeriesDownload",
  summary: "Download of one series: its CSV and a Frictionless datapackage.json with each file's size and SHA-256",
  build: () => new Uint8Array(),
  expand(p: Publication): Surface[] {
    return instrumentsOf(p).map(([key, config]) =>
      defineSurface({ format: "bytes", schema: ZipBytes })({
        ...seriesZip,
        expand: undefined,
        path: seriesZipPath(config.seriesId),
        summary: `Download of the series ${config.seriesId}: CSV and Frictionless datapackage.json`,
        reuseKey: signalHistoryKey,
        reads: { signalHistory: true },
        build(ctx: BuildContext) {
          const csv = seriesCsvTexts(ctx).series.get(key)!;
          return zipOf(ctx, config.seriesId.replace(/[^a-z0-9._-]/g, "-"), config.label.en, [
            { path: `${config.seriesId}.csv`, text: csv, header: SERIES_CSV_HEADER },
          ]);
        },
      }),
    );
  },
});

export const allSeriesZip = defineSurface({ format: "bytes", schema: ZipBytes })({
  path: ALL_SERIES_ZIP,
  mediaType: "application/zip",
  schemaName: "AllSeriesDownload",
  summary: "Download of every series: one CSV each, the combined CSV, and a Frictionless datapackage.json",
  reuseKey: signalHistoryKey,
  reads: { signalHistory: true },
  build(ctx: BuildContext) {
    const texts = seriesCsvTexts(ctx);
    const csvs = instrumentsOf(ctx.publication).map(([key, config]) => ({
      path: `${config.seriesId}.csv`,
      text: texts.series.get(key)!,
      header: SERIES_CSV_HEADER,
    }));
    csvs.push({ path: "history.csv", text: texts.all, header: HISTORY_CSV_HEADER });
    return zipOf(ctx, "all-series", `${ctx.publication.config.name}: every series`, csvs);
  },
});
