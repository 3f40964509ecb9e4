/**
 * /api/v1/human-traffic.json: how much the publication is read by people, per closed UTC day, from
 * the publisher's access logs, with k=5 and no identifier (core/traffic/counts.ts gives the rules).
 * A day, once published, is copied from frame to frame unchanged; only newly closed days are
 * added, and the last 91 are kept. Today is never published: it is not closed; nor a closed day
 * before the logs read hold a line of a later day (see `settledDays`).
 */
import { z } from "zod";
import { type DayCounts, K, publishDay, type PublishedDay } from "../traffic/counts.ts";
import { IsoDate, IsoDateTime } from "../schemas/primitives.ts";
import { CONTRACT_VERSION } from "./common.ts";
import { defineSurface, previousCopy, type BuildContext } from "./types.ts";

export const HUMAN_TRAFFIC_PATH = "/api/v1/human-traffic.json";
const WINDOW_DAYS = 91;

const Count = z.strictObject({
  reads: z.int().min(K).nullable(),
  suppressed: z.boolean(),
});
const Breakdown = z.strictObject({
  cells: z.array(z.strictObject({ key: z.string(), reads: z.int().min(K) })),
  other: z
    .strictObject({ cells: z.int().nonnegative(), reads: z.int().nonnegative() })
    .refine((o) => o.reads === 0 || o.reads >= K, { message: "an other bucket under k" }),
});
const MachineCounts = z.strictObject({ api: Count, mcp: Count, feed: Count, text: Count, download: Count });
export const TrafficDay = z.strictObject({
  date: IsoDate,
  human: z.strictObject({
    total: Count,
    languages: Breakdown.nullable(),
    pages: z.record(z.string(), Breakdown).nullable(),
    referrers: Breakdown.nullable(),
  }),
  machine: MachineCounts,
  previews: Count,
  robots: Count,
  scans: Count,
  late: Count,
});

export const HumanTrafficSurface = z.strictObject({
  version: z.string(),
  generated: IsoDateTime,
  k: z.literal(K),
  windowDays: z.literal(WINDOW_DAYS),
  /** True when the publisher gives access logs; false: no day is counted, none is invented. */
  source: z.enum(["access-logs", "none"]),
  policy: z.array(z.string()),
  days: z.array(TrafficDay),
});

const POLICY = [
  "A human read is a successful GET (2xx or 304) of an HTML page of the publication by a client that is not a robot, a link preview or a scanner; API, MCP, feed, text-corpus and download requests are machine reads, counted per family.",
  "Link previews (facebookexternalhit, Twitterbot, Slackbot, LinkedInBot, WhatsApp, Discordbot, TelegramBot...) and robots (the isbot list, and any request for /robots.txt) are counted apart; probes for paths that are not pages (wp-admin, .env, .php...) and every request of a client with ten or more 404s in a batch are scans; other methods and failed requests are dropped.",
  "Counts are of reads per closed UTC day; no address, user agent, cookie, referrer path or per-visitor key is kept anywhere, the archive included; referrers are given by domain only.",
  "A request's path and referrer are the client's to choose: a page is named only when it is a page of the publication, any other path counts under (other pages); a referrer is named by its domain only when that is a valid domain name, an IP address or invalid host counts under (address or invalid host).",
  "k=5: a count under 5 is never published. In each breakdown the cells under 5 are not named but merged into other, and when other would be under 5 the smallest named cells join it, so that no subtraction of published figures gives a count under 5. Pages are broken down within each published language.",
  "A suppressed count is null with suppressed true, never 0. A day, once published, never changes: log lines that arrive later for it are dropped and counted as late on the day they arrived.",
  "Today is never published, nor a closed day before a log line of a later day has been read (so that a log read at its rotation counts the day whole), or a week after it closed when none comes; the last 91 closed days are kept.",
];

/** How long a closed day waits for a log line of a later day before it is published without one. */
const WAIT_DAYS = 7;

/**
 * The pending days that may be published at `now`: closed, and whole in the logs read, which a
 * line of a later day shows (a log ingested at its daily rotation holds a day's last lines only
 * the next morning); a day with no later line is published WAIT_DAYS after it closed.
 */
function settledDays(ctx: BuildContext): [string, DayCounts][] {
  const today = ctx.now.slice(0, 10);
  const waited = new Date(Date.parse(`${today}T00:00:00Z`) - WAIT_DAYS * 86_400_000).toISOString().slice(0, 10);
  const seen = ctx.traffic?.seenThrough ?? null;
  return Object.entries(ctx.traffic?.days ?? {})
    .filter(([date]) => date < today && ((seen !== null && date < seen) || date < waited))
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

export const humanTraffic = defineSurface({ format: "json", schema: HumanTrafficSurface })({
  path: HUMAN_TRAFFIC_PATH,
  mediaType: "application/json",
  schemaName: "HumanTrafficSurface",
  summary:
    "Counts of human reads of the pages per closed UTC day, apart from machine reads, previews, robots and scans; k=5, no identifier",
  previousCopies: [HUMAN_TRAFFIC_PATH],
  // It changes only when a day is settled or the pending counts of a settled day change.
  reuseKey(ctx: BuildContext) {
    const today = ctx.now.slice(0, 10);
    const pending = ctx.hash.sha256Parts([JSON.stringify(settledDays(ctx))]);
    return `traffic/2 ${ctx.toolVersion} ${ctx.inputs} ${today} ${pending}`;
  },
  build(ctx: BuildContext) {
    const before = previousCopy(ctx, HUMAN_TRAFFIC_PATH, HumanTrafficSurface);
    const today = ctx.now.slice(0, 10);
    const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - WINDOW_DAYS * 86_400_000).toISOString().slice(0, 10);
    const published = new Map<string, PublishedDay>();
    for (const d of before?.days ?? []) published.set(d.date, d as PublishedDay);
    const last = [...published.keys()].sort().pop() ?? "";
    for (const [date, counts] of settledDays(ctx))
      if (date > last && !published.has(date)) published.set(date, publishDay(date, counts));
    const days = [...published.values()]
      .filter((d) => d.date >= oldest)
      .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
    return {
      version: CONTRACT_VERSION,
      generated: ctx.now,
      k: K,
      windowDays: WINDOW_DAYS,
      source:
        ctx.publication.config.traffic || before?.source === "access-logs" || days.length ? "access-logs" : "none",
      policy: POLICY,
      days,
    };
  },
});

/** The last day a built surface publishes: the state's days up to it leave the pending counts. */
export function lastPublishedDay(surface: z.infer<typeof HumanTrafficSurface>): string | null {
  return surface.days[0]?.date ?? null;
}
