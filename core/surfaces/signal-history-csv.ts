import { z } from "zod";
import { instrumentsOf, type Publication } from "../inputs/publication.ts";
import type { InstrumentKey } from "../schemas/primitives.ts";
import { signalHistoryKey, signalHistoryAfter, observationRows, type ObservationRow } from "../signal-history/rows.ts";
import { csvText } from "../render/text.ts";
import { seriesCsvPath } from "./signal-history.ts";
import { defineSurface, type BuildContext, type Surface } from "./types.ts";

/** Columns after seriesDate, the first column (the index a backtest parses as dates). */
const COLUMNS = [
  "value",
  "scale",
  "level",
  "tone",
  "rawValue",
  "rawUnit",
  "observedAt",
  "sourceStatus",
  "qualityStatus",
  "fallbackUsed",
  "evidenceTier",
  "frameId",
  "publishedAt",
] as const satisfies readonly (keyof ObservationRow)[];

export const HISTORY_CSV_HEADER = ["seriesDate", "seriesId", "instrument", ...COLUMNS];
export const SERIES_CSV_HEADER = ["seriesDate", ...COLUMNS];

const CsvText = z
  .string()
  .describe(
    "RFC 4180 CSV, UTF-8, LF line ends, a header row first; fields with a comma, a quote or a line break are quoted; a text field starting with =, +, -, @, a tab or a carriage return is prefixed with an apostrophe; observedAt is always an RFC 3339 date-time (a date-only observation is written at T00:00:00Z)",
  );

/**
 * The row's cells after seriesDate. observedAt is always a date-time in the CSV (one format per
 * column, so that pandas parses it as dates): an upstream that gives only a date is written as
 * the start of that UTC day, T00:00:00Z.
 */
const rest = (r: ObservationRow) =>
  COLUMNS.map((c) =>
    c === "observedAt" && typeof r.observedAt === "string" && r.observedAt.length === 10
      ? `${r.observedAt}T00:00:00Z`
      : r[c],
  );

/**
 * The text of the combined CSV and of each series' CSV, as their surfaces publish them (the
 * downloads put the same bytes in their zips).
 */
export function seriesCsvTexts(ctx: BuildContext): { all: string; series: Map<InstrumentKey, string> } {
  const rows = observationRows(ctx.publication, signalHistoryAfter(ctx).daily);
  const series = new Map<InstrumentKey, string>();
  for (const [key] of instrumentsOf(ctx.publication))
    series.set(
      key,
      csvText(
        SERIES_CSV_HEADER,
        rows.filter((r) => r.instrument === key).map((r) => [r.seriesDate, ...rest(r)]),
      ),
    );
  return {
    all: csvText(
      HISTORY_CSV_HEADER,
      rows.map((r) => [r.seriesDate, r.seriesId, r.instrument, ...rest(r)]),
    ),
    series,
  };
}

export const signalHistoryCsv = defineSurface({ format: "text", schema: CsvText })({
  path: "/api/v1/signals/history.csv",
  mediaType: "text/csv; charset=utf-8; header=present",
  schemaName: "SignalHistoryCsv",
  summary:
    "Flat observations of every series (the last point of each closed UTC day) for spreadsheets and data-analysis tools",
  reuseKey: signalHistoryKey,
  reads: { signalHistory: true },
  build: (ctx: BuildContext) => seriesCsvTexts(ctx).all,
});

/**
 * One CSV per configured series at /api/v1/signals/<seriesId>/history.csv. Loads with
 * `pandas.read_csv(path, parse_dates=["seriesDate"], index_col="seriesDate")`.
 */
export const seriesHistoryCsv = defineSurface({ format: "text", schema: CsvText })({
  path: seriesCsvPath("{seriesId}"),
  mediaType: "text/csv; charset=utf-8; header=present",
  schemaName: "SignalSeriesHistoryCsv",
  summary: "Flat observations of one named series, one row per closed UTC day, indexed by seriesDate",
  build: () => "",
  expand(p: Publication): Surface[] {
    return instrumentsOf(p).map(([key, config]) =>
      defineSurface({ format: "text", schema: CsvText })({
        ...seriesHistoryCsv,
        expand: undefined,
        path: seriesCsvPath(config.seriesId),
        summary: `Flat observations of the series ${config.seriesId}, one row per closed UTC day, indexed by seriesDate`,
        reuseKey: signalHistoryKey,
        reads: { signalHistory: true },
        build: (ctx: BuildContext) => seriesCsvTexts(ctx).series.get(key)!,
      }),
    );
  },
});
