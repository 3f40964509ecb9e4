/**
 * The chart of one series as a standalone SVG a journalist can embed: 1200x630 (a social card's
 * size, readable at 600 px wide), the level bands of the instrument's thresholds, the daily line,
 * and in the image itself the series' name and id, the source line and the licence. No script,
 * no external font or image; a `<title>` and a `<desc>` that say what a screen reader needs.
 * Every coordinate is written with a fixed number of decimals, so Node and Deno give the same bytes;
 * every number a reader sees is written as the pages write it, in the image's language.
 * Points are placed by date, and the line breaks where a day is missing. Texts in the image are
 * cut to the width they have (the whole text stays in `<title>` and `<desc>`); the licence keeps
 * up to half of its line.
 */
import { numberText } from "./number.ts";
import { xmlText } from "./text.ts";

export interface ChartSeries {
  /** The language of every text in the image, declared on it for screen readers. */
  lang: "fr" | "en";
  seriesId: string;
  title: string;
  scale: number;
  thresholds: { moderate: number; elevated: number; crisis: number };
  /** Daily points, oldest first; `retained` when the frame kept that value after an upstream failure. */
  points: readonly { date: string; value: number; retained?: boolean }[];
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

/**
 * A text's width in ems, by DejaVu Sans's advance widths rounded up per class of character
 * (Arial's are narrower): narrow punctuation and letters about 0.3–0.4, wide letters about 0.9,
 * capitals and digits about 0.7, other letters about 0.6.
 */
const emOf = (c: string) =>
  /[ .,:;'’!|()[\]/ilIjtfr-]/.test(c) ? 0.4 : /[mwMW@%—]/.test(c) ? 1 : /[A-Z0-9]/.test(c) ? 0.75 : 0.63;

/** `text` if it fits in `width` pixels at `fontSize`, else cut to fit with an ellipsis. */
function fit(text: string, width: number, fontSize: number): string {
  const chars = [...text];
  const room = width / fontSize;
  if (chars.reduce((w, c) => w + emOf(c), 0) <= room) return text;
  let used = 1; // the ellipsis
  let i = 0;
  while (i < chars.length && used + emOf(chars[i]!) <= room) used += emOf(chars[i++]!);
  return `${chars.slice(0, i).join("")}…`;
}

const DAY_MS = 86_400_000;
const dayOf = (date: string) =>
  Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;

export function seriesChartSvg(s: ChartSeries): string {
  const num = (v: number) => numberText(v, s.lang);
  const y = (v: number) => PLOT.bottom - (Math.min(Math.max(v, 0), s.scale) / s.scale) * (PLOT.bottom - PLOT.top);
  const n = s.points.length;
  const days = s.points.map((p) => dayOf(p.date));
  const span = n > 1 ? days[n - 1]! - days[0]! : 0;
  const x = (i: number) =>
    span <= 0 ? (PLOT.left + PLOT.right) / 2 : PLOT.left + ((days[i]! - days[0]!) / span) * (PLOT.right - PLOT.left);
  // A point follows its predecessor on the line only when it is the next day.
  const joined = (i: number) => i > 0 && days[i]! - days[i - 1]! === 1;
  const alone = (i: number) => !joined(i) && !(i + 1 < n && joined(i + 1));
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
      `<text x="${PLOT.left - 12}" y="${f1(y(v) + 6)}" font-size="18" text-anchor="end" fill="#444">${num(v)}</text>`,
  );
  const last = s.points.at(-1);
  const line =
    n === 0
      ? `<text x="${(PLOT.left + PLOT.right) / 2}" y="${(PLOT.top + PLOT.bottom) / 2}" font-size="26" text-anchor="middle" fill="#444">${xmlText(s.empty)}</text>`
      : n === 1
        ? `<circle cx="${f1(x(0))}" cy="${f1(y(s.points[0]!.value))}" r="6" fill="#1a3d6d"/>`
        : `<path d="${s.points.map((p, i) => `${joined(i) ? "L" : "M"}${f1(x(i))} ${f1(y(p.value))}`).join(" ")}" fill="none" stroke="#1a3d6d" stroke-width="4" stroke-linejoin="round"/>` +
          s.points
            .map((p, i) => (alone(i) ? `<circle cx="${f1(x(i))}" cy="${f1(y(p.value))}" r="4" fill="#1a3d6d"/>` : ""))
            .join("");
  const dates =
    n === 0
      ? ""
      : `<text x="${PLOT.left}" y="${PLOT.bottom + 30}" font-size="18" fill="#444">${xmlText(s.points[0]!.date)}</text>` +
        (n > 1
          ? `<text x="${PLOT.right}" y="${PLOT.bottom + 30}" font-size="18" text-anchor="end" fill="#444">${xmlText(last!.date)}</text>`
          : "");
  // A retained last value says so in the image itself, as the citation beside an embed does.
  const kept = last?.retained
    ? s.lang === "fr"
      ? "valeur conservée après une panne amont"
      : "value retained after an upstream failure"
    : null;
  const latest = last ? `${num(last.value)} / ${num(s.scale)} (${last.date})${kept ? ` · ${kept}` : ""}` : s.empty;
  const t = s.thresholds;
  const desc =
    s.lang === "fr"
      ? last
        ? `${s.title} (${s.seriesId}) : ${n} valeur(s) quotidienne(s) du ${s.points[0]!.date} au ${last.date}, sur une échelle de 0 à ${num(s.scale)} ; dernière valeur ${num(last.value)}${kept ? ` (${kept})` : ""}. Bandes à ${num(t.moderate)}, ${num(t.elevated)} et ${num(t.crisis)}. Source : ${s.source}. ${s.license}.`
        : `${s.title} (${s.seriesId}) : ${s.empty}. Source : ${s.source}. ${s.license}.`
      : last
        ? `${s.title} (${s.seriesId}): ${n} daily value(s) from ${s.points[0]!.date} to ${last.date}, on a 0–${num(s.scale)} scale; latest ${num(last.value)}${kept ? ` (${kept})` : ""}. Bands at ${num(t.moderate)}, ${num(t.elevated)} and ${num(t.crisis)}. Source: ${s.source}. ${s.license}.`
        : `${s.title} (${s.seriesId}): ${s.empty}. Source: ${s.source}. ${s.license}.`;
  // A line of text may run to 30 px from the right edge.
  const lineWidth = WIDTH - PLOT.left - 30;
  const licence = ` · ${fit(s.license, lineWidth / 2, 17)}`;
  const licenceWidth = [...licence].reduce((w, c) => w + emOf(c) * 17, 0);
  const footer = `${fit(`${s.lang === "fr" ? "Source :" : "Source:"} ${s.source} · ${s.attribution}`, lineWidth - licenceWidth, 17)}${licence}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" xml:lang="${s.lang}" role="img" aria-labelledby="t d" font-family="DejaVu Sans, Arial, sans-serif">\n` +
    `<title id="t">${xmlText(`${s.title} (${s.seriesId})`)}</title>\n` +
    `<desc id="d">${xmlText(desc)}</desc>\n` +
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>\n` +
    `<text x="${PLOT.left}" y="56" font-size="34" font-weight="bold" fill="#111">${xmlText(fit(s.title, lineWidth, 34))}</text>\n` +
    `<text x="${PLOT.left}" y="96" font-size="22" fill="#333">${xmlText(fit(`${s.seriesId} · ${latest}`, lineWidth, 22))}</text>\n` +
    `${bands.join("\n")}\n${ticks.join("\n")}\n${line}\n${dates}\n` +
    `<text x="${PLOT.left}" y="${HEIGHT - 28}" font-size="17" fill="#333">${xmlText(footer)}</text>\n` +
    "</svg>\n"
  );
}
