/**
 * Observation dates of a sentence, with French labels.
 *
 * Recognised (French and English): ISO dates, "12 mars 2026", "1er mars 2026", "March 12, 2026",
 * "12 March 2026", "mars 2026", "March 2026", "mi-août 2026" / "fin mai 2027" / "début mars 2026"
 * ("mid-August", "end of May", "early/late March"), "T1 2026" / "Q1 2026" / "premier trimestre 2026",
 * "premier semestre 2026" / "H1 2026", bare years, and ranges ("entre le 28 avril et le 27 mai 2026",
 * "entre le 11 et le 12 juillet 2026", "du … au …", "between … and …", "from … to …", "d’avril à mai
 * 2026", "2026-2027"). URLs are masked first, and a number followed by a unit ("2000 milliards")
 * is an amount, not a year.
 *
 * Which date wins when a sentence has several: the latest one, each compared by its `date`
 * (a day itself, a month or quarter or year from its first day — mid-month from the 15th, end of
 * month from its last day — a range from its end); on a tie, the finer precision, then the first
 * mentioned. So "le 13 octobre 2026, son plus bas depuis 2010" is dated 2026-10-13, and a bare
 * later year ("un déficit de 2,9 % en 2027", said on 30 September 2026) wins over an earlier day:
 * the claim is about 2027.
 */
import { MATERIAL_UNITS } from "./markers.ts";
import { fold, WORD_CLASS, wordSource } from "./text.ts";

export type Precision = "day" | "month" | "quarter" | "year" | "range" | "unknown";

export interface Observation {
  date: string | null;
  label: string;
  start: string | null;
  end: string | null;
  precision: Precision;
}

export interface DateMention extends Observation {
  date: string;
  /** Offsets of the mention in the text passed in. */
  index: number;
  length: number;
}

export const NO_OBSERVATION_LABEL = "date d’observation non précisée";

const _MONTHS_FR = [
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
];
const _MONTHS_EN = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const _MONTHS_EN_SHORT = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sept?", "oct", "nov", "dec"];

const _MONTH_NUMBERS = new Map<string, number>([
  ..._MONTHS_FR.map((m, i) => [fold(m), i + 1] as const),
  ..._MONTHS_EN.map((m, i) => [m, i + 1] as const),
  ..._MONTHS_EN_SHORT.map((m, i) => [m.replace("?", ""), i + 1] as const),
  ["sep", 9],
]);

/** Folded month name (or English abbreviation) -> 1..12, 0 if unknown. */
function _monthNumber(name: string): number {
  return _MONTH_NUMBERS.get(name.endsWith(".") ? name.slice(0, -1) : name) ?? 0;
}

const _W = WORD_CLASS;
const _B = `(?<![${_W}])`;
const _E = `(?![${_W}])`;
const _MFR = `(${_MONTHS_FR.map(fold).join("|")})`;
const _MEN = `(${_MONTHS_EN.join("|")}|(?:${_MONTHS_EN_SHORT.join("|")})\\.?)`;
const _M = `(${_MONTHS_FR.map(fold).join("|")}|${_MONTHS_EN.join("|")})`;
const _Y = "((?:19|20)\\d{2})(?!\\d)";
const _DFR = "(1er|[0-3]?\\d)";
const _DEN = "([0-3]?\\d)(?:st|nd|rd|th)?";
const _S = "[\\s]+";

type _Builder = (m: readonly string[]) => Observation | null;

interface _Pattern {
  source: string;
  /** Number of capture groups of `source`. */
  groups: number;
  build: _Builder;
  /** A day: one that does not exist ("31 février 2026") is no date, and no part of it is read as one. */
  day?: boolean;
}

function _p(source: string, build: _Builder, day = false): _Pattern {
  return { source, groups: new RegExp(`${source}|`).exec("")!.length - 1, build, day };
}

const _AMOUNT_AFTER = new RegExp(`^\\s*(?:${MATERIAL_UNITS.map(wordSource).join("|")})`);

// One regular expression tries these in order at each position, and the leftmost match wins: a
// range starts before its days ("entre le …"), a day before its month, a month before its year,
// so the order below only settles ties at one position (a range of months before a month).
const _PATTERNS: _Pattern[] = [
  // Ranges of ISO dates.
  _p(
    `${_B}(?:entre le|du|between|from)${_S}(\\d{4}-\\d{2}-\\d{2})${_S}(?:et le|et|au|and|to|until|through)${_S}(\\d{4}-\\d{2}-\\d{2})${_E}`,
    (m) => _range(_iso(m[1]), _iso(m[2])),
  ),
  // entre le 28 avril [2026] et le 27 mai 2026 / du 11 au 12 juillet 2026
  _p(
    `${_B}(?:entre le|entre|du)${_S}${_DFR}(?:${_S}${_MFR}(?:${_S}${_Y})?)?${_S}(?:et le|et|au)${_S}${_DFR}${_S}${_MFR}${_S}${_Y}`,
    (m) => _dayRange(m[1], m[2], m[3], m[4], m[5], m[6]),
  ),
  // between April 28[, 2026] and May 27, 2026 / from 28 April to 27 May 2026
  _p(
    `${_B}(?:between|from)${_S}(?:the${_S})?(?:${_MEN}${_S}${_DEN}|${_DEN}${_S}${_MEN})(?:,?${_S}${_Y})?${_S}(?:and|to|until|through)${_S}(?:the${_S})?(?:${_MEN}${_S}${_DEN}|${_DEN}${_S}${_MEN}),?${_S}${_Y}`,
    (m) => _dayRange(m[2] ?? m[3], m[1] ?? m[4], m[5], m[7] ?? m[8], m[6] ?? m[9], m[10]),
  ),
  // between 28 and 30 April 2026 / from 28 to 30 April 2026
  _p(`${_B}(?:between|from)${_S}${_DEN}${_S}(?:and|to)${_S}${_DEN}${_S}${_MEN},?${_S}${_Y}`, (m) =>
    _dayRange(m[1], undefined, undefined, m[2], m[3], m[4]),
  ),
  // entre avril et mai 2026 / d'avril à mai 2026 / avril-mai 2026 / between March and May 2026
  _p(
    `${_B}(?:(?:entre|de|d'|between|from)${_S}?)?${_M}(?:${_S}${_Y})?(?:${_S}(?:et|a|and|to)${_S}|-)${_M}${_S}${_Y}`,
    (m) => _monthRange(m[1], m[2], m[3], m[4]),
  ),
  // Days.
  _p(`(?<![\\d-])(\\d{4}-\\d{2}-\\d{2})(?!\\d)`, (m) => _day(_iso(m[1])), true),
  _p(`${_B}${_DFR}${_S}${_MFR}${_S}${_Y}`, (m) => _day(_ymd(m[3], m[2], m[1])), true),
  _p(`${_B}${_MEN}${_S}${_DEN},?${_S}${_Y}`, (m) => _day(_ymd(m[3], m[1], m[2])), true),
  _p(`${_B}${_DEN}${_S}${_MEN},?${_S}${_Y}`, (m) => _day(_ymd(m[3], m[2], m[1])), true),
  // Part of a month.
  _p(`${_B}(mi|fin|debut)(?:-|${_S})(?:(?:de|d')${_S}?)?${_MFR}${_S}${_Y}`, (m) => _partOfMonth(m[1], m[2], m[3])),
  _p(`${_B}(mid|end of|early|late|beginning of|start of)(?:-|${_S})${_MEN}${_S}${_Y}`, (m) =>
    _partOfMonth(m[1], m[2], m[3]),
  ),
  // Months.
  _p(`${_B}${_MFR}${_S}${_Y}`, (m) => _month(m[2], m[1])),
  _p(`${_B}${_MEN}${_S}${_Y}`, (m) => _month(m[2], m[1])),
  // Quarters and halves.
  _p(`${_B}[tq]([1-4])${_S}?${_Y}`, (m) => _quarter(m[2], m[1])),
  _p(`${_B}${_Y}${_S}?q([1-4])${_E}`, (m) => _quarter(m[1], m[2])),
  _p(
    `${_B}(premier|1er|deuxieme|2e|second|troisieme|3e|quatrieme|4e)${_S}trimestre${_S}(?:(?:de|d')${_S}?)?${_Y}`,
    (m) => _quarter(m[2], m[1]),
  ),
  _p(`${_B}(first|second|third|fourth|1st|2nd|3rd|4th)${_S}quarter${_S}(?:of${_S})?${_Y}`, (m) => _quarter(m[2], m[1])),
  _p(`${_B}(premier|1er|second|deuxieme|2e)${_S}semestre${_S}(?:(?:de|d')${_S}?)?${_Y}`, (m) => _half(m[2], m[1])),
  _p(`${_B}(first|second)${_S}half${_S}(?:of${_S})?${_Y}`, (m) => _half(m[2], m[1])),
  _p(`${_B}[sh]([12])${_S}?${_Y}`, (m) => _half(m[2], m[1])),
  // Years.
  _p(`(?<![${_W},.])${_Y}[-–/]${_Y}`, (m) => _yearRange(m[1], m[2])),
  _p(`(?<![${_W},.])${_Y}(?![,.]\\d)`, (m) => _year(m[1])),
];

// Every date starts at a word boundary: one look-behind rejects the positions inside words
// before any alternative is tried (each keeps its own, stricter, look-behind).
const _ALL = new RegExp(`(?<![${_W}])(?:${_PATTERNS.map((p) => `(${p.source})`).join("|")})`, "g");
const _YEAR_ANYWHERE = /(?:19|20)\d\d/;

/** Every date the text mentions, in text order (URLs are not read). */
export function findDates(text: string): DateMention[] {
  // Every pattern holds a year: most sentences are ruled out without folding them.
  return _YEAR_ANYWHERE.test(text) ? findDatesFolded(fold(text)) : [];
}

/** Where `text` writes a day that does not exist ("31 février 2026", "2026-02-30"), in text order. */
export function impossibleDays(text: string): { index: number; length: number }[] {
  const found: { index: number; length: number }[] = [];
  if (_YEAR_ANYWHERE.test(text)) findDatesFolded(fold(text), (index, length) => found.push({ index, length }));
  return found;
}

/**
 * findDates() of text already folded by fold() (offsets are the same in both); `impossible` is
 * told where a day that does not exist stands ("31 février 2026").
 */
export function findDatesFolded(folded: string, impossible?: (index: number, length: number) => void): DateMention[] {
  if (!_YEAR_ANYWHERE.test(folded)) return [];
  let work = folded;
  if (work.includes("http") || work.includes("www."))
    work = work.replace(/(?:https?:\/\/|www\.)\S+/gu, (s) => " ".repeat(s.length));
  const found: DateMention[] = [];
  // Only the text around years is read: the alternation costs ~100 ns at every word start, and a
  // date never starts more than ~60 characters before its (last) year.
  for (const [from, to] of _windows(work)) {
    const text = work.slice(from, to);
    // The shared instance, not a copy: V8 compiles a regular expression to native code only after
    // it has run a few times, per instance (this loop does not call itself, so sharing is safe).
    const re = _ALL;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      let at = 1;
      let pattern = _PATTERNS[0];
      for (const p of _PATTERNS) {
        if (m[at] !== undefined) {
          pattern = p;
          break;
        }
        at += p.groups + 1;
      }
      const obs = pattern.build(m.slice(at, at + pattern.groups + 1));
      const after = m.index + m[0].length;
      const amount = obs !== null && obs.precision === "year" && _AMOUNT_AFTER.test(text.slice(after, after + 24));
      if (obs === null && pattern.day) {
        // A day that does not exist is a typo, not its month: none of it is read as a date.
        impossible?.(from + m.index, m[0].length);
        re.lastIndex = m.index + m[0].length;
        continue;
      }
      if (obs === null || obs.date === null || amount) {
        // Not a date after all (a range that ends before it starts): let a shorter reading start further on.
        re.lastIndex = m.index + 1;
        continue;
      }
      found.push({ ...obs, date: obs.date, index: from + m.index, length: m[0].length });
    }
  }
  return found;
}

const _BEFORE_YEAR = 72;
const _AFTER_YEAR = 40;
const _YEARS = /(?:19|20)\d\d/g;
const _WORD_CHAR = new RegExp(`[${_W}]`);

/** Merged spans of `text` around its years, widened to word boundaries. */
function _windows(text: string): [number, number][] {
  const spans: [number, number][] = [];
  _YEARS.lastIndex = 0;
  for (let m = _YEARS.exec(text); m !== null; m = _YEARS.exec(text)) {
    let from = Math.max(0, m.index - _BEFORE_YEAR);
    while (from > 0 && _WORD_CHAR.test(text[from - 1])) from--;
    let to = Math.min(text.length, m.index + 4 + _AFTER_YEAR);
    while (to < text.length && _WORD_CHAR.test(text[to])) to++;
    const last = spans[spans.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else spans.push([from, to]);
  }
  return spans;
}

const _RANK: Record<Precision, number> = { day: 0, range: 1, month: 2, quarter: 3, year: 4, unknown: 5 };

/** The observation date of a sentence: the latest date it mentions (see the module comment). */
export function observationOf(text: string): Observation {
  return observationAmong(findDates(text));
}

/** The observation date among dates already found (the latest, see the module comment). */
export function observationAmong(dates: readonly DateMention[]): Observation {
  let best: DateMention | null = null;
  for (const d of dates) {
    if (best === null || d.date > best.date || (d.date === best.date && _RANK[d.precision] < _RANK[best.precision]))
      best = d;
  }
  if (best === null) return { date: null, label: NO_OBSERVATION_LABEL, start: null, end: null, precision: "unknown" };
  return { date: best.date, label: best.label, start: best.start, end: best.end, precision: best.precision };
}

/** "18 août 2026" for 2026-08-18, "1er mars 2026" for 2026-03-01. */
export function frenchDay(iso: string): string {
  const [y, m, d] = iso.split("-").map(Number);
  return `${d === 1 ? "1er" : d} ${_MONTHS_FR[m - 1]} ${y}`;
}

// --- builders ----------------------------------------------------------------------------------

interface _Ymd {
  y: number;
  m: number;
  d: number;
}

function _pad(n: number, w = 2): string {
  return String(n).padStart(w, "0");
}

function _isoOf(v: _Ymd): string {
  return `${_pad(v.y, 4)}-${_pad(v.m)}-${_pad(v.d)}`;
}

function _daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

function _valid(v: _Ymd | null): v is _Ymd {
  return v !== null && v.m >= 1 && v.m <= 12 && v.d >= 1 && v.d <= _daysIn(v.y, v.m);
}

function _iso(s: string): _Ymd | null {
  const [y, m, d] = s.split("-").map(Number);
  const v = { y, m, d };
  return _valid(v) ? v : null;
}

function _dayNumber(s: string): number {
  return s === "1er" ? 1 : Number(s);
}

function _ymd(y: string, month: string, day: string): _Ymd | null {
  const v = { y: Number(y), m: _monthNumber(month), d: _dayNumber(day) };
  return _valid(v) ? v : null;
}

function _day(v: _Ymd | null): Observation | null {
  if (!_valid(v)) return null;
  const iso = _isoOf(v);
  return { date: iso, label: frenchDay(iso), start: null, end: null, precision: "day" };
}

function _range(a: _Ymd | null, b: _Ymd | null): Observation | null {
  if (!_valid(a) || !_valid(b)) return null;
  const start = _isoOf(a);
  const end = _isoOf(b);
  if (start >= end) return null;
  return { date: end, label: _rangeLabel(a, b), start, end, precision: "range" };
}

/** A range whose start may omit its month and year, taken from the end (the year before if need be). */
function _dayRange(
  d1: string,
  m1: string | undefined,
  y1: string | undefined,
  d2: string,
  m2: string,
  y2: string,
): Observation | null {
  const end: _Ymd = { y: Number(y2), m: _monthNumber(m2), d: _dayNumber(d2) };
  const start: _Ymd = { y: y1 ? Number(y1) : end.y, m: m1 ? _monthNumber(m1) : end.m, d: _dayNumber(d1) };
  if (!y1 && _isoOf(start) > _isoOf(end)) start.y -= 1;
  return _range(start, end);
}

function _rangeLabel(a: _Ymd, b: _Ymd): string {
  const day = (v: _Ymd) => (v.d === 1 ? "1er" : String(v.d));
  if (a.y === b.y && a.m === b.m) return `du ${day(a)} au ${day(b)} ${_MONTHS_FR[b.m - 1]} ${b.y}`;
  if (a.y === b.y) return `du ${day(a)} ${_MONTHS_FR[a.m - 1]} au ${day(b)} ${_MONTHS_FR[b.m - 1]} ${b.y}`;
  return `du ${frenchDay(_isoOf(a))} au ${frenchDay(_isoOf(b))}`;
}

function _elided(word: string): string {
  return /^[aeiouyàâéèêîôû]/u.test(word) ? `d’${word}` : `de ${word}`;
}

function _monthRange(m1: string, y1: string | undefined, m2: string, y2: string): Observation | null {
  const b = { y: Number(y2), m: _monthNumber(m2) };
  const a = { y: y1 ? Number(y1) : b.y, m: _monthNumber(m1) };
  if (a.y * 12 + a.m >= b.y * 12 + b.m) return null;
  const start = _isoOf({ ...a, d: 1 });
  const end = _isoOf({ ...b, d: _daysIn(b.y, b.m) });
  const [na, nb] = [_MONTHS_FR[a.m - 1], _MONTHS_FR[b.m - 1]];
  const label = a.y === b.y ? `${_elided(na)} à ${nb} ${b.y}` : `${_elided(`${na} ${a.y}`)} à ${nb} ${b.y}`;
  return { date: end, label, start, end, precision: "range" };
}

function _partOfMonth(part: string, month: string, y: string): Observation | null {
  const year = Number(y);
  const m = _monthNumber(month);
  const p = part;
  const mid = p === "mi" || p === "mid";
  const end = p === "fin" || p === "end of" || p === "late";
  const d = mid ? 15 : end ? _daysIn(year, m) : 1;
  const prefix = mid ? "mi-" : end ? "fin " : "début ";
  return {
    date: _isoOf({ y: year, m, d }),
    label: `${prefix}${_MONTHS_FR[m - 1]} ${year}`,
    start: null,
    end: null,
    precision: "month",
  };
}

function _month(y: string, month: string): Observation | null {
  const m = _monthNumber(month);
  if (m < 1) return null;
  return {
    date: _isoOf({ y: Number(y), m, d: 1 }),
    label: `${_MONTHS_FR[m - 1]} ${y}`,
    start: null,
    end: null,
    precision: "month",
  };
}

function _ordinal(word: string): number {
  const w = word;
  const table: Record<string, number> = {
    premier: 1,
    "1er": 1,
    first: 1,
    "1st": 1,
    deuxieme: 2,
    second: 2,
    "2e": 2,
    "2nd": 2,
    troisieme: 3,
    "3e": 3,
    third: 3,
    "3rd": 3,
    quatrieme: 4,
    "4e": 4,
    fourth: 4,
    "4th": 4,
  };
  return table[w] ?? Number(w);
}

function _quarter(y: string, q: string): Observation | null {
  const n = _ordinal(q);
  return {
    date: _isoOf({ y: Number(y), m: (n - 1) * 3 + 1, d: 1 }),
    label: `T${n} ${y}`,
    start: null,
    end: null,
    precision: "quarter",
  };
}

function _half(y: string, h: string): Observation | null {
  const n = _ordinal(h);
  const year = Number(y);
  const start = _isoOf({ y: year, m: n === 1 ? 1 : 7, d: 1 });
  const end = _isoOf({ y: year, m: n === 1 ? 6 : 12, d: n === 1 ? 30 : 31 });
  return { date: end, label: `${n === 1 ? "premier" : "second"} semestre ${year}`, start, end, precision: "range" };
}

function _yearRange(a: string, b: string): Observation | null {
  if (Number(b) <= Number(a)) return null;
  return { date: `${b}-12-31`, label: `${a}-${b}`, start: `${a}-01-01`, end: `${b}-12-31`, precision: "range" };
}

function _year(y: string): Observation {
  return { date: `${y}-01-01`, label: y, start: null, end: null, precision: "year" };
}
