import { z } from "zod";
import { CHANGES_PATH, changefeedOf, type Changefeed } from "../changes/feed.ts";
import { BLACK_BOX_PATH, firstFrameAt } from "./black-box.ts";
import type { BaselineFrame, FrameSignal } from "../frame.ts";
import { InstrumentKey, IsoDateTime, Level, Tone } from "../schemas/primitives.ts";
import type { Signal } from "../signals.ts";
import { defineSurface, type BuildContext } from "./types.ts";
import { CONTRACT_VERSION, byCodeUnits } from "./common.ts";

/** The risk-diff windows, in days (contract, Limits). */
export const RISK_DIFF_WINDOWS = [1, 7, 30] as const;
/** A baseline this close to the window start is exact; the cadence is 15 minutes. */
const EXACT_LAG_SECONDS = 3600;

const Point = z.strictObject({ value: z.number(), level: Level, tone: Tone });

const SignalMove = z.strictObject({
  instrument: InstrumentKey,
  from: Point.nullable(),
  to: Point.nullable(),
  /** to.value − from.value, rounded to one decimal; null when either is missing. */
  change: z.number().nullable(),
  direction: z.enum(["up", "down", "unchanged", "appeared", "disappeared", "missing"]),
  levelChanged: z.boolean(),
});

const SourceMove = z.strictObject({
  instrument: InstrumentKey,
  /** The upstream published a value after the baseline's (sourceUpdatedAt advanced). */
  newData: z.boolean(),
  sourceUpdatedAtFrom: IsoDateTime.nullable(),
  sourceUpdatedAtTo: IsoDateTime.nullable(),
  sourceStatus: z.string().nullable(),
  qualityStatus: z.string().nullable(),
  stale: z.boolean(),
  fallbackUsed: z.boolean(),
});

const ContentRef = z.strictObject({
  id: z.string(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  at: IsoDateTime,
});

export const RiskDiffWindow = z.strictObject({
  window: z.enum(["P1D", "P7D", "P30D"]),
  days: z.int().positive(),
  baseline: z
    .strictObject({
      frameId: z.string(),
      at: IsoDateTime,
      frameHash: z.string().regex(/^[0-9a-f]{64}$/),
      commit: z.string().regex(/^[0-9a-f]{40}$/),
      lagSeconds: z.int().nonnegative(),
    })
    .nullable(),
  /** Why there is no baseline, or null. */
  reason: z.string().nullable(),
  signals: z.array(SignalMove),
  sources: z.array(SourceMove),
  claims: z.strictObject({
    added: z.array(z.string()),
    reviewed: z.array(z.string()),
    corrected: z.array(z.string()),
    complete: z.boolean(),
  }),
  models: z.array(z.strictObject({ slug: z.string(), from: z.string().nullable(), to: z.string().nullable() })),
  articles: z.strictObject({
    added: z.array(ContentRef),
    updated: z.array(ContentRef),
    removed: z.array(ContentRef),
    complete: z.boolean(),
  }),
  confidence: z.strictObject({ level: z.enum(["high", "medium", "low", "none"]), basis: z.array(z.string()) }),
});

export const RiskDiffSurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  policy: z.strictObject({ baseline: z.string(), signals: z.string(), content: z.string(), confidence: z.string() }),
  windows: z.array(RiskDiffWindow),
  license: z.string(),
  attribution: z.string(),
});
export type RiskDiffSurface = z.infer<typeof RiskDiffSurface>;

export const riskDiff = defineSurface({ format: "json", schema: RiskDiffSurface })({
  path: "/api/v1/risk-diff.json",
  mediaType: "application/json",
  schemaName: "RiskDiffSurface",
  operationId: "riskDiffSurface",
  summary:
    "Risk diff over 1, 7 and 30 days against the archive's frames: signal moves and level changes, sources, claims, models, articles, and the confidence of each window",
  // The changefeed gains entries only when the inputs changed; then it diffs object manifests.
  reads: ({ inputsUnchanged }) =>
    inputsUnchanged
      ? { archiveWindows: RISK_DIFF_WINDOWS }
      : { archiveWindows: RISK_DIFF_WINDOWS, corpus: true, objects: true },
  previousCopies: [CHANGES_PATH, BLACK_BOX_PATH],
  build(ctx) {
    const { publication: p, now, url } = ctx;
    const feed = changefeedOf(ctx);
    return {
      schema: url("/openapi.json#/components/schemas/RiskDiffSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      policy: {
        baseline:
          "A window runs from generated minus its days to generated. Each compares this assembly with the archive's last frame at or before the window start, found through the archive's day index; lagSeconds is how long before the start that frame was. Without such a frame the window has no baseline and says why.",
        signals:
          "change is to.value − from.value on the instrument's own scale; values of different instruments are not comparable. levelChanged compares the published levels.",
        content:
          "claims, articles: each object once, as the changefeed entries published after the baseline frame leave it against the baseline (an object removed and put back as it was is not listed). added: absent at the baseline, present now; removed: the reverse; reviewed: claim reviews added or revised; corrected (claims), updated (articles): present at both, changed in meaning. complete is false when the bounded changefeed no longer reaches back to the baseline.",
        confidence:
          "high: an exact baseline, every instrument collected fresh now and then, the changefeed complete; medium: a retained (fallback) or stale value, or a baseline more than an hour before the window start; low: an instrument missing, or a baseline more than a quarter of the window early; none: no baseline.",
      },
      windows: RISK_DIFF_WINDOWS.map((days) => windowOf(ctx, days, feed, modelsOf(p.methodologies))),
      license: p.config.license,
      attribution: p.config.attribution,
    };
  },
});

type Window = z.input<typeof RiskDiffWindow>;

function windowOf(ctx: BuildContext, days: number, feed: Changefeed, models: Record<string, string>): Window {
  const { now, previous, signals } = ctx;
  const from = new Date(Date.parse(now) - days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const id = `P${days}D` as Window["window"];
  const found = previous?.windows?.now === now ? (previous.windows.baselines[days] ?? null) : null;
  if (!found) {
    // The first frame says what the next ones will, so that the surface changes only with a baseline.
    const first = firstFrameAt(ctx);
    const reason =
      previous && (!previous.windows || previous.windows.now !== now)
        ? "the archive's frames were not consulted for this window"
        : `the archive is younger than ${days} day${days > 1 ? "s" : ""}: its first frame is at ${first}`;
    return {
      window: id,
      days,
      baseline: null,
      reason,
      signals: [],
      sources: [],
      claims: { added: [], reviewed: [], corrected: [], complete: false },
      models: [],
      articles: { added: [], updated: [], removed: [], complete: false },
      confidence: { level: "none", basis: [`no baseline: ${reason}`] },
    };
  }
  const base = found.frame;
  const lagSeconds = Math.round((Date.parse(from) - Date.parse(base.at)) / 1000);
  const moves = signalMoves(signals, base);
  const sources = sourceMoves(signals, base);
  const after = feed.entries.filter((e) => e.at > base.at);
  const oldest = feed.entries.at(-1);
  // Complete when the feed tracked objects at the baseline and no dropped entry can be after it.
  const complete = feed.since.at <= base.at && (!oldest || oldest.seq === 1 || oldest.at <= base.at);
  const ref = (n: NetChange) => ({ id: n.id, title: n.latest.title, url: n.latest.url, at: n.latest.at });
  const docs = netChanges(after.filter((e) => e.kind === "article" || e.kind === "guide"));
  const claims = netChanges(after.filter((e) => e.kind === "claim"));
  const reviews = netChanges(after.filter((e) => e.kind === "claim-review")).filter(
    (n) => n.status === "added" || n.status === "modified",
  );
  const modelChanges = [...new Set([...Object.keys(base.models), ...Object.keys(models)])]
    .sort(byCodeUnits)
    .filter((slug) => base.models[slug] !== models[slug])
    .map((slug) => ({ slug, from: base.models[slug] ?? null, to: models[slug] ?? null }));

  const basis: string[] = [];
  let level: "high" | "medium" | "low" = "high";
  const lower = (to: "medium" | "low") => {
    if (to === "low" || level === "high") level = to;
  };
  if (lagSeconds <= EXACT_LAG_SECONDS)
    basis.push(`exact baseline: frame ${base.frameId}, ${lagSeconds} s before the window start`);
  else {
    basis.push(`baseline frame ${base.frameId} is ${hours(lagSeconds)} before the window start (no frame in between)`);
    lower(lagSeconds > (days * 86_400) / 4 ? "low" : "medium");
  }
  const fallback = moves
    .filter(
      (m) =>
        sources.find((s) => s.instrument === m.instrument)?.fallbackUsed || base.signals[m.instrument]?.fallbackUsed,
    )
    .map((m) => m.instrument);
  if (fallback.length) {
    basis.push(`retained values (fallbackUsed) now or at the baseline: ${fallback.join(", ")}`);
    lower("medium");
  } else basis.push("no retained (fallback) value now or at the baseline");
  const stale = sources.filter((s) => s.stale).map((s) => s.instrument);
  if (stale.length) {
    basis.push(`stale upstream now: ${stale.join(", ")}`);
    lower("medium");
  }
  const missing = moves.filter((m) => m.from === null || m.to === null).map((m) => m.instrument);
  if (missing.length) {
    basis.push(`no value now or at the baseline: ${missing.join(", ")}`);
    lower("low");
  }
  if (complete) basis.push("the changefeed covers the whole window");
  else {
    basis.push(
      feed.since.at > base.at
        ? `objects are tracked only since frame ${feed.since.frameId}`
        : "the bounded changefeed no longer reaches back to the baseline",
    );
    lower("medium");
  }
  return {
    window: id,
    days,
    baseline: { frameId: base.frameId, at: base.at, frameHash: base.frameHash, commit: found.commit, lagSeconds },
    reason: null,
    signals: moves,
    sources,
    claims: {
      added: claims.filter((n) => n.status === "added").map((n) => n.id.slice("claim/".length)),
      reviewed: reviews.map((n) => n.id.slice("claim-review/".length)),
      corrected: claims.filter((n) => n.status === "modified" && n.semantic).map((n) => n.id.slice("claim/".length)),
      complete,
    },
    models: modelChanges,
    articles: {
      added: docs.filter((n) => n.status === "added").map(ref),
      updated: docs.filter((n) => n.status === "modified" && n.semantic).map(ref),
      removed: docs.filter((n) => n.status === "removed").map(ref),
      complete,
    },
    confidence: { level, basis },
  };
}

type FeedEntry = Changefeed["entries"][number];

/** One object's change from the baseline to now, whatever the steps between. */
interface NetChange {
  id: string;
  status: "added" | "modified" | "removed";
  semantic: boolean;
  /** The newest entry: the object as it stands now (or as it was removed). */
  latest: FeedEntry;
}

/**
 * Folds the entries after the baseline (newest first) into one change per object, so that a
 * window compares the baseline with now: two edits are one update, and an object removed and put
 * back as it was is no change at all.
 */
function netChanges(entries: readonly FeedEntry[]): NetChange[] {
  const byId = new Map<string, FeedEntry[]>();
  for (const e of entries) {
    const list = byId.get(e.id);
    if (list) list.push(e);
    else byId.set(e.id, [e]);
  }
  const out: NetChange[] = [];
  for (const [id, list] of byId) {
    const latest = list[0]!;
    const oldest = list.at(-1)!;
    const before = oldest.status !== "added";
    const now = latest.status !== "removed";
    if (!before && !now) continue;
    if (before && now) {
      if (oldest.previousHash === latest.hash) continue;
      out.push({ id, status: "modified", semantic: list.some((e) => e.semantic), latest });
    } else out.push({ id, status: now ? "added" : "removed", semantic: true, latest });
  }
  return out;
}

function signalMoves(signals: readonly Signal[], base: BaselineFrame): z.input<typeof SignalMove>[] {
  const keys = new Set<string>([...signals.map((s) => s.instrument), ...Object.keys(base.signals)]);
  return [...keys].sort(byCodeUnits).map((key) => {
    const instrument = key as z.infer<typeof InstrumentKey>;
    const now = signals.find((s) => s.instrument === instrument);
    const to = now?.present ? { value: now.value, level: now.level, tone: now.tone } : null;
    const from = pointOf(base.signals[instrument]);
    const change = from && to ? Math.round((to.value - from.value) * 10) / 10 : null;
    const direction =
      from && to
        ? change! > 0
          ? "up"
          : change! < 0
            ? "down"
            : "unchanged"
        : to
          ? "appeared"
          : from
            ? "disappeared"
            : "missing";
    return {
      instrument,
      from,
      to,
      change: change === 0 ? 0 : change,
      direction,
      levelChanged: !!from && !!to && from.level !== to.level,
    };
  });
}

function pointOf(s: FrameSignal | undefined): z.input<typeof Point> | null {
  if (!s || s.value === null || s.level === null || s.tone === null) return null;
  const parsed = Point.safeParse({ value: s.value, level: s.level, tone: s.tone });
  return parsed.success ? parsed.data : null;
}

function sourceMoves(signals: readonly Signal[], base: BaselineFrame): z.input<typeof SourceMove>[] {
  return signals.map((s) => {
    const before = base.signals[s.instrument];
    const to = s.present ? s.sourceUpdatedAt : null;
    const fromAt = before?.sourceUpdatedAt ?? null;
    return {
      instrument: s.instrument,
      newData: to !== null && (fromAt === null || to > fromAt),
      sourceUpdatedAtFrom: fromAt,
      sourceUpdatedAtTo: to,
      sourceStatus: s.sourceStatus,
      qualityStatus: s.present ? s.qualityStatus : null,
      stale: s.present && s.qualityStatus === "stale",
      fallbackUsed: s.present && s.fallbackUsed,
    };
  });
}

/** The methodology versions an assembly records in its frame. */
export function modelsOf(methodologies: readonly { slug: string; version: string }[]): Record<string, string> {
  return Object.fromEntries(
    [...methodologies].sort((a, b) => byCodeUnits(a.slug, b.slug)).map((m) => [m.slug, m.version]),
  );
}

function hours(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return h >= 48 ? `${Math.round(h / 24)} days` : `${h} h ${m} min`;
}
