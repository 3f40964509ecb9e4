import { z } from "zod";

/** ISO 8601 full-date. */
export const IsoDate = z.iso.date();
/** ISO 8601 date-time in UTC with a `Z` (no offsets, no naive times). */
export const IsoDateTime = z.iso.datetime({ offset: false });
/**
 * Whether `s` is written as RFC 3986 writes a URI, which is what JSON Schema's `format: uri`
 * (openapi.json's declaration of every URI field) checks: ASCII only, `%` only before two hex
 * digits, one `#`, `[ ]` only around an IPv6 host. WHATWG parsing (`z.url`, `new URL`) accepts and
 * keeps more (`é`, a space, `|`, `{`, `100%`, `a#b#c`), which a client's validator would refuse.
 */
export function isRfc3986Uri(s: string): boolean {
  if (!/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/.test(s) || /%(?![0-9A-Fa-f]{2})/.test(s)) return false;
  const hash = s.indexOf("#");
  if (hash !== -1 && s.includes("#", hash + 1)) return false;
  return !/[[\]]/.test(s.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, ""));
}

/**
 * A parsed URL written as an RFC 3986 URI naming the same resource: WHATWG's serialisation (host in
 * punycode, non-ASCII percent-encoded), then every character it leaves that a URI cannot hold
 * where it stands percent-encoded too (a `%` not starting an escape, a second `#`, `[ ] | { } ^`).
 */
export function rfc3986Href(url: URL): string {
  const href = url.href;
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(href)?.[0] ?? "";
  const rest = href.slice(authority.length);
  let out = authority;
  let fragment = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    const escape = c === "%" && /^[0-9A-Fa-f]{2}$/.test(rest.slice(i + 1, i + 3));
    const firstHash = c === "#" && !fragment;
    if (firstHash) fragment = true;
    out += escape || firstHash || /[A-Za-z0-9\-._~:/?@!$&'()*+,;=]/.test(c) ? c : encodeURIComponent(c);
  }
  return out;
}

/**
 * An absolute http or https URI: every link the publication carries must be one a reader can
 * open safely, never `javascript:`, `data:` or `file:` (from an upstream or the configuration), and
 * one a JSON Schema validator takes as `format: uri`, as openapi.json declares it.
 */
export const Uri = z.url({ protocol: /^https?$/ }).refine(isRfc3986Uri, {
  error: (issue) => {
    const written =
      typeof issue.input === "string" && URL.canParse(issue.input) ? rfc3986Href(new URL(issue.input)) : null;
    return `a URI as RFC 3986 writes it: percent-encode spaces, accented letters and the characters a URI cannot hold${written ? `, as ${written}` : ""}`;
  },
});

export const ClaimKind = z.enum(["fait", "estimation", "inférence", "scénario", "unclassified-assertion"]);
export const CLAIM_KINDS = ClaimKind.options;
export const TemporalPrecision = z.enum(["day", "month", "quarter", "year", "range", "unknown"]);
export const DepthId = z.enum(["mention", "reference", "linked-source", "direct-proof", "reproduction"]);
export const Level = z.enum(["Détendu", "Modéré", "Élevé/Tendu", "Crise"]);
export const Tone = z.enum(["calm", "moderate", "elevated", "crisis"]);
export type Tone = z.infer<typeof Tone>;
export const InstrumentKey = z.enum(["us", "eu", "yen", "energie", "debt"]);
export type InstrumentKey = z.infer<typeof InstrumentKey>;
export const INSTRUMENT_KEYS = InstrumentKey.options;

export const EvidenceLocator = z.strictObject({
  type: z.enum(["page", "section", "table", "series", "cell", "form", "calculation", "other"]),
  value: z.string(),
});

export const RiskBandScaleCaveat = z.strictObject({
  title: z.string(),
  summary: z.string(),
  correctLabel: z.string(),
  wrongLabel: z.string(),
  details: z.array(z.string()),
});

export const Dataset = z.strictObject({
  name: z.string(),
  role: z.string(),
  cadence: z.string().optional(),
  delay: z.string().optional(),
  url: Uri,
});

export const ProofDepthLevel = z.strictObject({
  id: DepthId,
  label: z.string(),
  meaning: z.string(),
  status: z.enum(["automatique", "semi-structuré", "objectif"]),
});

export const EditorialPrecisionGuard = z.strictObject({
  title: z.string(),
  summary: z.string(),
  warning: z.string(),
  requirements: z.array(z.string()),
});

export const EditorialLink = z.strictObject({ label: z.string(), href: z.string() });
export const EditorialPrinciple = z.strictObject({ id: z.string(), title: z.string(), text: z.string() });
export const EditorialStep = z.strictObject({ id: z.string(), title: z.string(), checks: z.array(z.string()) });
export const EditorialEvidenceLevel = z.strictObject({
  label: z.string(),
  rank: z.string(),
  description: z.string(),
});
export const EditorialCorrectionType = z.strictObject({ label: z.string(), description: z.string() });
export const EditorialCorrectionPolicy = z.strictObject({
  title: z.string(),
  summary: z.string(),
  correctionTypes: z.array(EditorialCorrectionType),
  revisionRules: z.array(z.string()),
});
export const ChangelogKind = z.enum(["protocole", "traçabilité", "sources", "données", "sécurité", "méthode"]);

/** A published signal value with its level, as every signal record carries it (current, history rows, daily points). */
export const SIGNAL_VALUE_FIELDS = {
  value: z.number(),
  scale: z.number(),
  level: Level,
  tone: Tone,
  rawValue: z.number().nullable(),
  rawUnit: z.string().nullable(),
};
