import { z } from "zod";
import { editorialOf } from "../editorial/analysis.ts";
import { InstrumentKey, IsoDate, IsoDateTime, Uri } from "../schemas/primitives.ts";
import { sameDay } from "../durations.ts";
import { durationSeconds, type Signal } from "../signals.ts";
import { defineSurface, previousCopy, type BuildContext } from "./types.ts";
import { DEBT_RISK_PATH, DebtRiskSnapshot } from "./debt-risk.ts";
import { CONTRACT_VERSION, docPath, sortDocs } from "./common.ts";

/** How long the editorial corpus stays fresh without a new or updated article or guide, unless configured. */
export const EDITORIAL_STALE_AFTER = "P30D";
const LATEST = 5;

const LatestContent = z.strictObject({
  slug: z.string(),
  language: z.enum(["fr", "en"]),
  title: z.string(),
  url: Uri,
  date: IsoDate,
  updated: IsoDate.nullable(),
});

const Coverage = z.strictObject({
  /** Share of what the producer should cover that it did cover, 0..1; null when nothing is known. */
  ratio: z.number().min(0).max(1).nullable(),
  basis: z.string(),
});

export const Producer = z.strictObject({
  id: z.string(),
  kind: z.enum(["dashboard", "debt-source", "editorial-corpus"]),
  instrument: InstrumentKey.nullable(),
  label: z.string(),
  source: Uri,
  staleAfter: z.string(),
  /** When the producer last published what is shown (upstream publication; newest content date). */
  updatedAt: IsoDateTime.nullable(),
  /** updatedAt + staleAfter: from then on the producer is stale. */
  expiresAt: IsoDateTime.nullable(),
  timeliness: z.enum(["fresh", "stale", "unknown"]),
  sourceStatus: z.string().nullable(),
  fallbackUsed: z.boolean().nullable(),
  coverage: Coverage,
});

const Corpus = z.strictObject({
  latest: z.strictObject({ articles: z.array(LatestContent).max(LATEST), guides: z.array(LatestContent).max(LATEST) }),
  counts: z.strictObject({
    articles: z.int().nonnegative(),
    guides: z.int().nonnegative(),
    topics: z.int().nonnegative(),
    methodologies: z.int().nonnegative(),
    glossary: z.int().nonnegative(),
    primarySources: z.int().nonnegative(),
    editorialChangelog: z.int().nonnegative(),
    claims: z.int().nonnegative(),
    reviewedClaims: z.int().nonnegative(),
  }),
  editorial: z.strictObject({ updatedAt: IsoDateTime.nullable(), coverage: Coverage }),
});
type Corpus = z.infer<typeof Corpus>;

export const FreshnessSurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  policy: z.strictObject({
    cadence: z.string(),
    timeliness: z.string(),
    expiresAt: z.string(),
    retained: z.string(),
    editorial: z.string(),
  }),
  corpus: Corpus,
  endpoints: z.array(z.strictObject({ path: z.string(), url: Uri, mediaType: z.string() })),
  producers: z.array(Producer),
  license: z.string(),
  attribution: z.string(),
});
export type FreshnessSurface = z.infer<typeof FreshnessSurface>;

export const FRESHNESS_PATH = "/api/v1/freshness.json";

export const freshness = defineSurface({ format: "json", schema: FreshnessSurface })({
  path: FRESHNESS_PATH,
  mediaType: "application/json",
  schemaName: "FreshnessSurface",
  operationId: "freshnessSurface",
  summary:
    "Freshness: latest contents, corpus counters, endpoints, the freshness policy, and per producer staleAfter, expiresAt, timeliness and coverage",
  // The corpus part depends on the input files and the day: with both unchanged, the head frame's copy has it.
  reads: ({ inputsUnchanged, sameDay, hasCopy }) =>
    inputsUnchanged && sameDay && hasCopy(FRESHNESS_PATH) ? {} : { corpus: true },
  previousCopies: [FRESHNESS_PATH, DEBT_RISK_PATH],
  build(ctx) {
    const { publication: p, now, signals, registry, url } = ctx;
    const corpus = corpusOf(ctx);
    const editorialStale = p.config.editorial?.staleAfter ?? EDITORIAL_STALE_AFTER;
    const producers: z.input<typeof Producer>[] = signals.map((s) => producerOf(s, ctx));
    const expires = corpus.editorial.updatedAt ? plus(corpus.editorial.updatedAt, editorialStale) : null;
    producers.push({
      id: "editorial",
      kind: "editorial-corpus",
      instrument: null,
      label: "Corpus éditorial (articles et guides)",
      source: url(p.pages.home),
      staleAfter: editorialStale,
      updatedAt: corpus.editorial.updatedAt,
      expiresAt: expires,
      timeliness: timeliness(expires, now),
      sourceStatus: null,
      fallbackUsed: null,
      coverage: corpus.editorial.coverage,
    });
    return {
      schema: url("/openapi.json#/components/schemas/FreshnessSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      policy: {
        cadence: "PT15M: an assembly every 15 minutes, best-effort, with no real-time guarantee.",
        timeliness:
          "fresh until expiresAt, stale from then on; unknown when the producer has nothing published (a missing instrument, an empty corpus).",
        expiresAt:
          "expiresAt = updatedAt + staleAfter; updatedAt is the upstream's publication of the value shown (sourceUpdatedAt), or for the corpus the start (UTC) of the newest article or guide date that is not after the day of the assembly.",
        retained:
          "fallbackUsed true: the upstream failed and the value shown is an earlier one; its updatedAt is that earlier publication, so it ages and expires like any other.",
        editorial: `The editorial corpus is stale when no article or guide was published or updated for staleAfter (risk.config.yaml editorial.staleAfter, default ${EDITORIAL_STALE_AFTER}).`,
      },
      corpus,
      endpoints: registry
        .map((s) => ({ path: s.path, url: url(s.path), mediaType: s.mediaType }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      producers,
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});

/**
 * The corpus part depends on the input files and the day (a document dated ahead counts from its
 * day on). With both unchanged the head frame's is taken as is, so a steady-state assembly needs
 * no corpus (the plan then loads only the configuration, protocol and methodologies).
 */
function corpusOf(ctx: BuildContext): Corpus {
  const reuse = ctx.inputsUnchanged && ctx.previous !== null && sameDay(ctx.previous.frame.at, ctx.now);
  const before = reuse ? previousCopy(ctx, FRESHNESS_PATH, FreshnessSurface) : null;
  if (before) return before.corpus;
  const { publication: p, indexedAt, now, url, memo } = ctx;
  const latest = (docs: typeof p.articles) =>
    sortDocs(docs)
      .slice(0, LATEST)
      .map((d) => ({
        slug: d.slug,
        language: d.lang,
        title: d.meta.title,
        url: url(docPath(d)),
        date: d.meta.date,
        updated: d.meta.updated ?? null,
      }));
  const editorial = editorialOf(p, indexedAt, url, memo);
  // A document dated after the day of the assembly (announced, or a typo such as 2062 for 2026)
  // does not make the corpus fresh until that day: lint warns about it.
  const today = now.slice(0, 10);
  let newest: string | null = null;
  for (const d of [...p.articles, ...p.guides]) {
    for (const day of [d.meta.date, d.meta.updated]) {
      if (day && day <= today && (newest === null || day > newest)) newest = day;
    }
  }
  const fr = p.articles.filter((a) => a.lang === "fr");
  const translated = new Set(p.articles.filter((a) => a.lang === "en").map((a) => a.meta.translationOf));
  const withTranslation = fr.filter((a) => translated.has(a.slug)).length;
  const withClaims = new Set(editorial.claims.map((c) => c.articleSlug)).size;
  return {
    latest: { articles: latest(p.articles), guides: latest(p.guides) },
    counts: {
      articles: p.articles.length,
      guides: p.guides.length,
      topics: p.topics.length,
      methodologies: p.methodologies.length,
      glossary: p.glossary.length,
      primarySources: p.primarySources.length,
      editorialChangelog: p.changelog.length,
      claims: editorial.claims.length,
      reviewedClaims: editorial.claims.filter((c) => c.reviewStatus === "reviewed").length,
    },
    editorial: {
      updatedAt: newest === null ? null : `${newest}T00:00:00Z`,
      coverage: {
        ratio: fr.length === 0 ? null : round3(withTranslation / fr.length),
        basis: `${withTranslation} of ${fr.length} French articles have an English translation; ${withClaims} have structural claims`,
      },
    },
  };
}

function producerOf(s: Signal, ctx: BuildContext): z.input<typeof Producer> {
  const debt = s.instrument === "debt";
  const common = {
    id: s.instrument,
    kind: debt ? ("debt-source" as const) : ("dashboard" as const),
    instrument: s.instrument,
    label: s.config.label.fr,
    source: debt ? ctx.publication.config.debtSource.url : s.config.dashboard,
    staleAfter: s.config.staleAfter,
  };
  if (!s.present) {
    return {
      ...common,
      updatedAt: null,
      expiresAt: null,
      timeliness: "unknown",
      sourceStatus: s.sourceStatus,
      fallbackUsed: false,
      coverage: { ratio: 0, basis: "no value published: the upstream failed and no earlier frame had one" },
    };
  }
  const { expiresAt } = signalFreshness(s, ctx.now);
  let coverage: z.input<typeof Coverage> = s.fallbackUsed
    ? { ratio: 1, basis: "the value shown was retained from an earlier assembly (fallbackUsed)" }
    : { ratio: 1, basis: "the value shown was collected by the last attempt" };
  if (debt) {
    const c =
      s.debt?.coverage ??
      (s.fallbackUsed ? previousCopy(ctx, DEBT_RISK_PATH, DebtRiskSnapshot)?.provenance?.coverage : undefined);
    coverage = c
      ? {
          ratio: c.observed,
          basis: `${c.familiesObserved} of ${c.families} families observed before neutral imputation`,
        }
      : { ratio: null, basis: "the debt file's coverage is not known for the value shown" };
  }
  return {
    ...common,
    updatedAt: s.sourceUpdatedAt,
    expiresAt,
    timeliness: timeliness(expiresAt, ctx.now),
    sourceStatus: s.sourceStatus,
    fallbackUsed: s.fallbackUsed,
    coverage,
  };
}

/** When the value shown was published upstream, until when it is fresh (`staleAfter` later), and whether it still is. */
export function signalFreshness(s: Signal, now: string) {
  const updatedAt = s.present ? s.sourceUpdatedAt : null;
  const expiresAt = updatedAt === null ? null : plus(updatedAt, s.config.staleAfter);
  return { updatedAt, expiresAt, timeliness: timeliness(expiresAt, now) };
}

function plus(instant: string, duration: string): string {
  // A fraction of a second is kept (an upstream may publish one): expiresAt is exactly
  // updatedAt + staleAfter, the instant from which signals call the value stale too.
  return new Date(Date.parse(instant) + durationSeconds(duration) * 1000).toISOString().replace(/\.000Z$/, "Z");
}

function timeliness(expiresAt: string | null, now: string): "fresh" | "stale" | "unknown" {
  if (expiresAt === null) return "unknown";
  return Date.parse(now) < Date.parse(expiresAt) ? "fresh" : "stale";
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
