import type { z } from "zod";
import type { InstrumentKey } from "../schemas/primitives.ts";
import { RiskError } from "../errors.ts";
import { duplicateKey, parseWithSchema } from "./locate.ts";
import {
  DashboardReading as DashboardSchema,
  DebtLatest as DebtSchema,
  type ConfluenceFile as Confluence,
  type DebtLatest,
} from "./schemas.ts";

/**
 * How the collection of one upstream ended. `ok` is the only value that yields a fresh reading;
 * every other value is an upstream error, documented in the README ("Risk signals").
 */
export const SOURCE_STATUSES = [
  "ok",
  "unreachable",
  "timeout",
  "http-error",
  "redirect-error",
  "too-large",
  "unexpected-content",
  "invalid-json",
  "invalid-document",
  "out-of-range",
] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];
export type UpstreamErrorStatus = Exclude<SourceStatus, "ok">;

/** A normalised upstream reading of one instrument. */
export interface Reading {
  value: number;
  scale: number;
  rawValue?: number;
  rawUnit?: string;
  /** The upstream's economic observation: a date-time in UTC, or a full date when that is all it gives. */
  observedAt?: string;
  /** When the upstream published this reading (UTC); null when it does not say. */
  publishedAt: string | null;
  qualityStatus: "nominal" | "official-delayed" | "unknown";
  debt?: DebtLatest;
}

/**
 * How the collection of one instrument ended. `document` is the exact text the upstream sent,
 * when it sent one that could be read as UTF-8 (kept in the frame, so that a published value can
 * be checked against what the upstream said at that time).
 */
export type UpstreamResult =
  | { ok: true; source: string; reading: Reading; document?: string }
  | { ok: false; source: string; status: UpstreamErrorStatus; error: string; document?: string };

export interface UpstreamState {
  /** When collection was attempted (the assembly instant). */
  attemptedAt: string;
  instruments: Partial<Record<InstrumentKey, UpstreamResult>>;
  confluence: Confluence | null;
}

/** An upstream error: the instrument falls back, the assembly goes on. */
export class UpstreamError extends Error {
  readonly status: UpstreamErrorStatus;
  constructor(status: UpstreamErrorStatus, message: string) {
    super(message);
    this.name = "UpstreamError";
    this.status = status;
  }
}

/**
 * Reads an upstream document with the adapter of the instrument's format: the debt source's latest
 * file for `debt`, the generic dashboard reading for the others. Throws UpstreamError.
 */
export function adaptDocument(key: InstrumentKey, where: string, text: string, collectedAt?: string): Reading {
  const reading =
    key === "debt"
      ? fromDebt(where, validate(where, text, DebtSchema))
      : fromDashboard(where, key, validate(where, text, DashboardSchema));
  if (collectedAt !== undefined) checkNotFuture(reading, collectedAt);
  checkRange(reading.value, reading.scale, "value");
  if (reading.debt) for (const b of reading.debt.buckets) checkRange(b.score, reading.scale, `buckets.${b.id}.score`);
  return reading;
}

/**
 * Parses and checks an upstream document. Its failures name the line and field and the kind of
 * problem, never a value of the document: the reason is published.
 */
function validate<S extends z.ZodType>(where: string, text: string, schema: S): z.infer<S> {
  try {
    // The key given twice is told below in the words a published reason uses.
    const value = parseWithSchema(where, text, schema, { json: true, keysOnce: false });
    const twice = duplicateKey(text);
    if (twice !== null)
      throw new UpstreamError(
        "invalid-document",
        `field ${quotedField(twice.key)} at line ${twice.line}: a key given twice in one object (JSON keeps the last one silently), so the document says two values`,
      );
    const bad = loneSurrogateAt(value, "");
    if (bad !== null)
      throw new UpstreamError(
        "invalid-document",
        `field ${quotedField(bad) || "(document)"}: a string that is not valid Unicode (a lone surrogate)`,
      );
    const unpublishable = unpublishableAt(value, "");
    if (unpublishable !== null)
      throw new UpstreamError(
        "invalid-document",
        `field ${quotedField(unpublishable.path) || "(document)"}: ${unpublishable.why}, which is never published`,
      );
    return value;
  } catch (e) {
    if (e instanceof UpstreamError) throw e;
    if (!(e instanceof RiskError)) throw e;
    const { line, field, problem } = e.data as { line?: number; field?: string; problem?: string };
    const at = line !== undefined ? ` at line ${line}` : "";
    if (/invalid JSON/.test(e.message)) throw new UpstreamError("invalid-json", `not valid JSON${at}`);
    throw new UpstreamError(
      "invalid-document",
      `field ${(field && quotedField(field)) || "(document)"}${at}: ${problem ?? "invalid"}`,
    );
  }
}

/** How many characters of a field's dotted name a reason quotes: the name holds the upstream's own keys. */
const FIELD_QUOTE_MAX = 60;

/**
 * A field's dotted name as a published reason quotes it: its keys are the upstream's text, which
 * may be two megabytes long or hold a bidirectional override, and a reason is published in every
 * frame while the fallback lasts.
 */
function quotedField(path: string): string {
  return publishableExcerpt(path, FIELD_QUOTE_MAX);
}

/** Line breaks, which an excerpt keeps as a space between words. */
const BREAKS = /[\t\n\r\u0085\u2028\u2029]/g;
/** Every other character no reason publishes: controls, bidirectional overrides, isolates and marks. */
const DROPPED = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Third-party text as a published reason may quote it: without control or bidirectional
 * characters, and at most `max` characters (code points, so no surrogate pair is cut), the cut
 * marked with an ellipsis.
 */
export function publishableExcerpt(text: string, max: number): string {
  const chars = Array.from(text.replace(BREAKS, " ").replace(DROPPED, ""));
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string holding a lone surrogate (which no UTF-8 file can carry), or null. */
function loneSurrogateAt(value: unknown, path: string): string | null {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const at = loneSurrogateAt(v, `${path}${path ? "." : ""}${i}`);
      if (at !== null) return at;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (LONE_SURROGATE.test(k)) return path || "(a key)";
      const at = loneSurrogateAt(v, `${path}${path ? "." : ""}${k}`);
      if (at !== null) return at;
    }
  }
  return null;
}

/**
 * What an upstream's text (a unit, a label, a name) may not hold, as the publisher's own one-line
 * texts may not: a control character (C0, DEL, C1: ESC would drive a terminal), a line or
 * paragraph separator, or a bidirectional override or isolate (U+202E shows text in another order
 * than it is copied).
 */
const UNPUBLISHABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The first string value holding an unpublishable character: its path and what it holds (by code point). */
function unpublishableAt(value: unknown, path: string): { path: string; why: string } | null {
  if (typeof value === "string") {
    const m = UNPUBLISHABLE.exec(value);
    if (!m) return null;
    const code = m[0].codePointAt(0)!;
    const name = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    return {
      path,
      why:
        code >= 0x202a
          ? `a bidirectional override or isolate (${name})`
          : code >= 0x2028
            ? `a line or paragraph separator (${name})`
            : `a control character (${name})`,
    };
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const at = unpublishableAt(v, `${path}${path ? "." : ""}${i}`);
      if (at) return at;
    }
    return null;
  }
  if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      const at = unpublishableAt(v, `${path}${path ? "." : ""}${k}`);
      if (at) return at;
    }
  return null;
}

/** How far ahead of the collection a reading's time may be (clock skew between machines). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/**
 * A reading dated after its own collection (published in 2030) is never counted fresh: it is
 * refused, and the instrument falls back with that reason.
 */
function checkNotFuture(reading: Reading, collectedAt: string): void {
  const limit = Date.parse(collectedAt) + FUTURE_TOLERANCE_MS;
  const times: [string, string | undefined][] = [
    // Named as the upstream's own format names it: the debt snapshot says generatedAt.
    [reading.debt ? "generatedAt" : "publishedAt", reading.publishedAt ?? undefined],
    ["observedAt", reading.observedAt],
  ];
  for (const [field, t] of times) {
    if (t === undefined) continue;
    // A date-only observation is in the future only when its whole day is.
    const ms = t.length === 10 ? Date.parse(`${t}T00:00:00Z`) : Date.parse(t);
    if (ms > limit)
      throw new UpstreamError(
        "invalid-document",
        `field ${field}: ${t} is after the collection at ${collectedAt}; a reading from the future is never published as fresh`,
      );
  }
}

function checkRange(value: number, scale: number, field: string): void {
  if (!Number.isFinite(value) || value < 0 || value > scale) {
    throw new UpstreamError("out-of-range", `${field} ${value} is outside 0..${scale}`);
  }
}

function fromDashboard(where: string, key: InstrumentKey, r: DashboardReading): Reading {
  if (r.instrument !== key)
    throw new UpstreamError("invalid-document", `field instrument: a reading of another instrument, not "${key}"`);
  return {
    value: r.value,
    scale: r.scale,
    rawValue: r.rawValue,
    rawUnit: r.rawUnit,
    observedAt: r.observedAt,
    publishedAt: r.publishedAt ?? null,
    qualityStatus: r.qualityStatus,
  };
}

type DashboardReading = z.infer<typeof DashboardSchema>;

function fromDebt(where: string, d: DebtLatest): Reading {
  if (!d.excludesBudgetOfficeProjections) {
    // The published current stress excludes them (the contract's debt-risk rule); a score that includes them is another measure.
    throw new UpstreamError(
      "invalid-document",
      "field excludesBudgetOfficeProjections is false; the current stress must exclude the budget office's projections",
    );
  }
  return {
    value: d.scoreRaw,
    scale: d.scale,
    rawValue: d.scoreRaw,
    observedAt: d.observedAt,
    publishedAt: d.generatedAt,
    qualityStatus: "nominal",
    debt: d,
  };
}

/**
 * The one rounding rule of the tool: published values have one decimal, half away from zero.
 * It rounds the decimal the number stands for, read to 12 significant digits: 2.25 (binary
 * 2.2499999…) and 4.995 / 10 × 100 (49.949999999999996) are the halves they stand for and round
 * up, while a value an upstream wrote just under a half (49.9499999999) rounds down, as the rule
 * says; a fixed nudge added before rounding would push it over.
 */
export function roundValue(x: number): number {
  const [mantissa, exponent] = Math.abs(x).toExponential(11).split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  // How many of the 12 digits lie before the one decimal kept: units and above, plus one.
  const keep = Number(exponent) + 2;
  let r: number;
  if (keep < 0) r = 0;
  else if (keep >= digits.length) r = Math.round(Math.abs(x) * 10) / 10;
  else r = (Number(digits.slice(0, keep) || "0") + (digits[keep]! >= "5" ? 1 : 0)) / 10;
  return x < 0 ? -r : r;
}

/** A reading's value on the instrument's published scale, rounded by the one rule. */
export function normalisedValue(reading: Pick<Reading, "value" | "scale">, scale: number): number {
  return roundValue(reading.scale === scale ? reading.value : (reading.value / reading.scale) * scale);
}
