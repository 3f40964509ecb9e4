/**
 * The chart of one series as a standalone SVG a journalist can embed: 1200x630 (a social card's
 * size, readable at 600 px wide), the level bands of the instrument's thresholds, the daily line,
 * and in the image itself the series' name and id, the source line and the licence. No script,
 * no external font or image; a `<title>` and a `<desc>` that say what a screen reader needs.
 * Every number is written with a fixed number of decimals, so Node and Deno give the same bytes.
 */
import { xmlText } from "./text.ts";

export interface ChartSeries {
  seriesId: string;
  title: string;
  scale: number;
  thresholds: { moderate: number; elevated: number; crisis: number };
  /** Daily points, oldest first. */
  points: readonly { date: string; value: number }[];
  source: string;
  attribution: string;
  license: string;
  /** The band labels, lowest first, in the page's language. */
  levels: readonly [string, string, string, string];
  /** "No closed day published yet", in the page's language. */
  empty: string;
}

const WIDTH = 1200;
const HEIGHT = 630;
const PLOT = { left: 90, right: 1040, top: 130, bottom: 520 };
const BAND_COLOURS = ["#e8f3ec", "#fdf5dc", "#fde6d2", "#f9d6d5"];
const f1 = (n: number) => n.toFixed(1);

export function seriesChartSvg(s: ChartSeries): string {
  const y = (v: number) => PLOT.bottom - (Math.min(Math.max(v, 0), s.scale) / s.scale) * (PLOT.bottom - PLOT.top);
  const n = s.points.length;
  const x = (i: number) =>
    n <= 1 ? (PLOT.left + PLOT.right) / 2 : PLOT.left + (i / (n - 1)) * (PLOT.right - PLOT.left);
  const bounds = [0, s.thresholds.moderate, s.thresholds.elevated, s.thresholds.crisis, s.scale];
  const bands = bounds.slice(0, 4).map((low, i) => {
    const high = bounds[i + 1]!;
    const top = y(high);
    return (
      `<rect x="${PLOT.left}" y="${f1(top)}" width="${PLOT.right - PLOT.left}" height="${f1(y(low) - top)}" fill="${BAND_COLOURS[i]}"/>` +
      `<text x="${PLOT.right + 12}" y="${f1((top + y(low)) / 2 + 6)}" font-size="18" fill="#444">${xmlText(s.levels[i]!)}</text>`
    );
  });
  const ticks = bounds.map(
    (v) =>
      `<text x="${PLOT.left - 12}" y="${f1(y(v) + 6)}" font-size="18" text-anchor="end" fill="#444">${f1(v).replace(/\.0$/, "")}</text>`,
  );
  const last = s.points.at(-1);
  const line =
    n === 0
      ? `<text x="${(PLOT.left + PLOT.right) / 2}" y="${(PLOT.top + PLOT.bottom) / 2}" font-size="26" text-anchor="middle" fill="#444">${xmlText(s.empty)}</text>`
      : n === 1
        ? `<circle cx="${f1(x(0))}" cy="${f1(y(s.points[0]!.value))}" r="6" fill="#1a3d6d"/>`
        : `<path d="${s.points.map((p, i) => `${i ? "L" : "M"}${f1(x(i))} ${f1(y(p.value))}`).join(" ")}" fill="none" stroke="#1a3d6d" stroke-width="4" stroke-linejoin="round"/>`;
  const dates =
    n === 0
      ? ""
      : `<text x="${PLOT.left}" y="${PLOT.bottom + 30}" font-size="18" fill="#444">${xmlText(s.points[0]!.date)}</text>` +
        (n > 1
          ? `<text x="${PLOT.right}" y="${PLOT.bottom + 30}" font-size="18" text-anchor="end" fill="#444">${xmlText(last!.date)}</text>`
          : "");
  const latest = last ? `${f1(last.value)} / ${s.scale} (${last.date})` : s.empty;
  const desc = last
    ? `${s.title} (${s.seriesId}): ${n} daily value(s) from ${s.points[0]!.date} to ${last.date}, on a 0–${s.scale} scale; latest ${f1(last.value)}. Bands at ${s.thresholds.moderate}, ${s.thresholds.elevated} and ${s.thresholds.crisis}. Source: ${s.source}. ${s.license}.`
    : `${s.title} (${s.seriesId}): ${s.empty}. Source: ${s.source}. ${s.license}.`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="t d" font-family="DejaVu Sans, Arial, sans-serif">\n` +
    `<title id="t">${xmlText(`${s.title} (${s.seriesId})`)}</title>\n` +
    `<desc id="d">${xmlText(desc)}</desc>\n` +
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>\n` +
    `<text x="${PLOT.left}" y="56" font-size="34" font-weight="bold" fill="#111">${xmlText(s.title)}</text>\n` +
    `<text x="${PLOT.left}" y="96" font-size="22" fill="#333">${xmlText(`${s.seriesId} · ${latest}`)}</text>\n` +
    `${bands.join("\n")}\n${ticks.join("\n")}\n${line}\n${dates}\n` +
    `<text x="${PLOT.left}" y="${HEIGHT - 28}" font-size="17" fill="#333">${xmlText(`Source : ${s.source} · ${s.attribution} · ${s.license}`)}</text>\n` +
    "</svg>\n"
  );
}
