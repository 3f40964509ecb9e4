/** Schemas of the input files of a publication, as documented in docs/inputs.md. */
import { z } from "zod";
import { isTimeZone, parseDateTime } from "../dates.ts";
import { durationSeconds } from "../durations.ts";
import { ClaimReviewEntry, EditorialProtocol, PrimarySource, Topic } from "../schemas/contract.ts";
import {
  ChangelogKind,
  Dataset,
  InstrumentKey,
  IsoDate,
  isRfc3986Uri,
  rfc3986Href,
  Uri,
} from "../schemas/primitives.ts";

export const Slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase ASCII letters, digits and single hyphens")
  // A slug names a published file or folder: Windows cannot create these names.
  .refine((s) => !/^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/.test(s), {
    message: "a name Windows reserves for a device (con, prn, aux, nul, com1-9, lpt1-9); choose another",
  });
/**
 * A one-line text that is published as a heading, a link label or a citation (llms.txt,
 * llms-full.txt, the feeds, the pages): no line break and no control character, which would inject
 * sections or links there, and no bidirectional override, which would show a hash or a command
 * in another order than it is copied.
 */
export const Line = z
  .string()
  .regex(
    /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/,
    "one line without control characters or bidirectional overrides; remove line breaks",
  )
  .refine((s) => s.isWellFormed(), { message: "a lone UTF-16 surrogate (\\uD800...) is no character; remove it" });
/** The characters no text of the inputs may hold: controls other than tab and line breaks, bidirectional overrides. */
const HIDDEN_CHARACTERS = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069";

/**
 * A text of one or more lines: no control character other than tab and line breaks, and no
 * bidirectional override or isolate (U+202A to U+202E, U+2066 to U+2069), which would show a
 * text in another order than it is copied wherever it is published (llms.txt, the search index).
 */
export const Prose = z
  .string()
  .regex(
    new RegExp(`^[^${HIDDEN_CHARACTERS}]*$`),
    "no control characters (NUL, BEL, ESC...) and no bidirectional overrides (U+202A to U+202E, U+2066 to U+2069)",
  )
  .refine((s) => s.isWellFormed(), { message: "a lone UTF-16 surrogate (\\uD800...) is no character; remove it" });

const HIDDEN = new RegExp(`[${HIDDEN_CHARACTERS}]`);

function firstHidden(
  value: unknown,
  path: (string | number)[],
): { path: (string | number)[]; char: string } | undefined {
  if (typeof value === "string") {
    const m = HIDDEN.exec(value);
    return m ? { path, char: m[0] } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = firstHidden(v, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      const found = firstHidden(v, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * A whole input file whose every text, whatever its field, is free of control characters other
 * than tab and line breaks and of bidirectional overrides: a field without a rule of its own is
 * still published somewhere (a page, a corpus, a surface), where such a character would inject
 * or reorder text. The error names the field and the code point.
 */
function withoutHiddenText<S extends z.ZodType>(schema: S): S {
  return schema.superRefine((value, ctx) => {
    const found = firstHidden(value, []);
    if (!found) return;
    const code = `U+${found.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    ctx.addIssue({
      code: "custom",
      path: found.path,
      message: `a control character or bidirectional override (${code}) would inject or reorder text where it is published; remove it`,
    });
  }) as S;
}

/** Something to read: not empty, and not only spaces or invisible characters (zero-width, format marks). */
const written = { message: "only spaces or invisible characters; write the text" };
const visible = (s: string) => /[^\s\p{Cf}\u115f\u1160\u3164\uffa0\u2800]/u.test(s);
/** A one-line text someone reads as a name, a heading or a label: something must be written. */
const Written = Line.min(1).refine(visible, written);
/** A text of one or more lines someone reads as a description: something must be written. */
const WrittenProse = Prose.min(1).refine(visible, written);

/**
 * How to read a risk level (the contract's RiskBandScaleCaveat), as the publisher writes it:
 * each text one line, published as a heading or a sentence of the pages and corpora.
 */
const ScaleCaveat = z.strictObject({
  title: Line.max(300),
  summary: Line.max(2000),
  correctLabel: Line.max(1000),
  wrongLabel: Line.max(1000),
  details: z.array(Line.max(1000)).max(50),
});

/** A dataset of a methodology or a primary source: its name and timing are one line each. */
const DatasetInput = Dataset.extend({
  name: Line,
  role: Prose,
  cadence: Line.optional(),
  delay: Line.optional(),
});
/** An absolute URI or a site-relative path starting with `/`. */
export const Href = z
  .string()
  .refine((s) => (s.startsWith("/") && !s.startsWith("//")) || (/^https?:\/\//i.test(s) && URL.canParse(s)), {
    message: "an http(s) URL or a path starting with / (never javascript:, data: or another scheme)",
  })
  .refine((s) => !URL.canParse(s, "https://h") || isRfc3986Uri(s.startsWith("/") ? `https://h${s}` : s), {
    // Published as `format: uri` once resolved against baseUrl.
    error: (issue) => {
      const s = String(issue.input);
      const written = rfc3986Href(new URL(s, "https://h"));
      return `a URI or path as RFC 3986 writes them: percent-encode spaces, accented letters and the characters a URI cannot hold, as ${s.startsWith("/") ? written.slice("https://h".length) : written}`;
    },
  });

export const Thresholds = z
  .strictObject({ moderate: z.number(), elevated: z.number(), crisis: z.number() })
  .refine((t) => t.moderate < t.elevated && t.elevated < t.crisis, {
    message: "thresholds must rise: moderate < elevated < crisis",
  });

/** Where an upstream document is collected: a path relative to the publication, or a file:, http: or https: URL. */
export const SourceLocation = z
  .string()
  .min(1)
  .refine((s) => !/^[a-z][a-z0-9+.-]*:/i.test(s) || (/^(https?|file):/i.test(s) && URL.canParse(s)), {
    message: "a path relative to the publication, or an http:, https: or file: URL",
  })
  .refine((s) => !/^https?:/i.test(s) || !URL.canParse(s) || withoutCredentials(s), {
    // fetch refuses such a URL, and the credentials would reach logs: upstreams are public documents.
    message: "an http(s) URL without a user name or password (user:password@): an upstream is a public document",
  });

/** Whether a URL (one that parses) names no user and no password. */
function withoutCredentials(url: string): boolean {
  const { username, password } = new URL(url);
  return username === "" && password === "";
}

/** An ISO 8601 duration in weeks, days, hours, minutes or seconds (years and months have no fixed length). */
/**
 * The longest fixed duration: ten years (3,660 days). A longer `staleAfter` would mean "never
 * stale", and one far longer puts the instant it ends outside the calendar dates can be written in.
 */
const MAX_FIXED_DURATION_SECONDS = 3660 * 86_400;

export const FixedDuration = z.iso
  .duration()
  .refine((d) => !/^P(?:[^T]*[YM])/.test(d), {
    message: "an ISO 8601 duration without years or months, such as PT6H or P2D",
  })
  .refine(
    (d) => {
      try {
        return durationSeconds(d) <= MAX_FIXED_DURATION_SECONDS;
      } catch {
        return false;
      }
    },
    { message: "at most ten years (P3660D), in weeks, days, hours, minutes or seconds, such as PT6H or P2D" },
  );

/**
 * A series identifier as the publisher already publishes it (`l0g.signal.us-macro-stress`): safe
 * as a URL path segment and a file name. Lowercase letters, digits, hyphens, dots and underscores,
 * starting with a letter or digit; no `..` and no final dot (Windows drops it).
 */
export const SeriesId = z
  .string()
  .max(120)
  .regex(
    /^[a-z0-9][a-z0-9._-]*$/,
    "lowercase ASCII letters, digits, hyphens, dots and underscores, starting with a letter or digit",
  )
  .refine((s) => !s.includes("..") && !s.endsWith("."), { message: "no .. and no final dot" })
  .refine((s) => !/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/.test(s), {
    message: "a name Windows reserves for a device (con, prn, aux, nul, com1-9, lpt1-9); choose another",
  });

export const InstrumentConfig = z.strictObject({
  label: z.strictObject({ fr: Written.max(200), en: Written.max(200) }),
  source: SourceLocation,
  dashboard: Uri,
  methodology: Slug,
  // Values are scaled to it and back: a scale near the largest number overflows to Infinity.
  scale: z.number().positive().max(1e9, { message: "at most 1,000,000,000" }).default(100),
  thresholds: Thresholds,
  staleAfter: FixedDuration,
  seriesId: SeriesId,
  slug: Slug,
});
export type InstrumentConfig = z.infer<typeof InstrumentConfig>;

/**
 * A page path on the publisher's site: starts with /, no spaces, quotes or angle brackets, and no
 * placeholder but those `placeholders` matches (`which` names them for the message).
 */
const pagePathWith = (placeholders: RegExp, which: string) =>
  z
    .string()
    .regex(/^\/[^\s"'<>\\]*$/, "a path on the site starting with /, as /posts/")
    .refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), { message: "no control characters" })
    .refine((s) => !/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(s), {
      message: "no . or .. segment (written plainly or as %2e); give the page's own path",
    })
    .refine((s) => !/[{}]/.test(s.replace(placeholders, "")), {
      message: `${which}; write the rest of the path as it is`,
    });
/** Where a page path must say where the page's slug goes. */
const withSlug = {
  message: "a pattern with {slug} where the page's slug goes, as /posts/{slug}/",
};
const PagePath = pagePathWith(/\{slug\}/g, "{slug} is the only placeholder (the page's slug)");
/** A page path with a {slug} placeholder, as /posts/{slug}/. */
const SlugPagePath = PagePath.refine((s) => s.includes("{slug}"), withSlug);
/**
 * An article's or a guide's page path: {slug}, the document's date as {year}, {month} and {day}
 * if the site puts it in its addresses (/{year}/{month}/{day}/{slug}/), and the folders between
 * its globs' start and the page as {folder}, a whole segment of its own (/posts/{folder}/{slug}/).
 */
const DocPagePath = pagePathWith(
  /\{(slug|year|month|day|folder)\}/g,
  "{slug}, {year}, {month}, {day} and {folder} are the only placeholders (the page's slug, its date's parts, its folder)",
)
  .refine((s) => s.includes("{slug}"), withSlug)
  .refine((s) => s.split("{folder}").length <= 2 && !/[^/]\{folder\}|\{folder\}(?!\/)/.test(s), {
    message:
      "{folder} stands once, as a whole segment between two slashes (/posts/{folder}/{slug}/): a page at the globs' start leaves it out",
  });
const LangPatterns = z.strictObject({ fr: DocPagePath.optional(), en: DocPagePath.optional() });

export const UrlsConfig = z.strictObject({
  article: LangPatterns.optional(),
  guide: LangPatterns.optional(),
  methodology: SlugPagePath.optional(),
  glossary: PagePath.optional(),
  glossaryEntry: SlugPagePath.optional(),
  sources: PagePath.optional(),
  source: SlugPagePath.optional(),
  protocol: PagePath.optional(),
  changelog: PagePath.optional(),
  agents: PagePath.optional(),
  home: PagePath.optional(),
  /**
   * The zone whose calendar gives an address's {year}, {month} and {day} (Jekyll's `timezone`).
   * When unset: the day as the frontmatter writes it for a Hugo site (`content.templates: hugo`),
   * whose permalinks keep a date-time's own offset; else content.timezone, else UTC.
   */
  timezone: z
    .string()
    .refine(isTimeZone, { message: "a time zone by its IANA name, as Europe/Paris or UTC" })
    .optional(),
});

/** A glob relative to the publication's root, as src/content/posts/**\/*.{md,mdx}. */
const Glob = z
  .string()
  .min(1)
  .refine((g) => !g.startsWith("/") && !g.split("/").includes(".."), {
    message: "a pattern inside the publication: relative, without ..",
  });
const LangGlobs = z.strictObject({ fr: z.array(Glob).min(1), en: z.array(Glob).default([]) });

/** The frontmatter keys risk-cli reads, which a publisher's own keys may be mapped to. */
export const FRONTMATTER_KEYS = [
  "title",
  "description",
  "summary",
  "date",
  "updated",
  "tags",
  "topics",
  "translationOf",
  "translatedFrom",
] as const;

export const ContentConfig = z.strictObject({
  /** Where the articles and guides of each language are, as globs (default: content/<kind>/<lang>/*.{md,mdx}). */
  articles: LangGlobs.optional(),
  guides: LangGlobs.optional(),
  /**
   * How a document's slug is made: `file` (the file name, or the folder's for index.md),
   * `jekyll` (the file name without its YYYY-MM-DD- prefix), or a frontmatter key.
   */
  slug: z.union([z.enum(["file", "jekyll"]), z.strictObject({ key: z.string().min(1) })]).default("file"),
  /**
   * How a translation names its original: the frontmatter key translationOf (after mapping);
   * `same-slug` (an English document translates the French one with its file name, else its
   * slug); or a key every language version holds with one value (Hugo's `translationKey`), a
   * document without it paired as `same-slug` pairs it.
   */
  translations: z
    .union([z.enum(["translationOf", "same-slug"]), z.strictObject({ key: z.string().min(1) })])
    .default("translationOf"),
  /**
   * The time zone (IANA name) in which the frontmatter writes date-times that carry none, as
   * Jekyll's `timezone` and Hugo's `timeZone` say; without it such a date-time is refused.
   */
  timezone: z
    .string()
    .refine(isTimeZone, { message: "a time zone by its IANA name, such as Europe/Paris or UTC" })
    .optional(),
  /**
   * The template syntax the site's generator evaluates in a body before the Markdown: `hugo`
   * (shortcodes), `liquid` (Jekyll, Eleventy) or `nunjucks` (Eleventy's `njk`). What it fills in
   * is never published as written; without it, braces are text.
   */
  templates: z.enum(["hugo", "liquid", "nunjucks"]).optional(),
  frontmatter: z
    .strictObject({
      /** The publisher's keys renamed to risk-cli's: { pubDate: date, updatedDate: updated }. */
      map: z.record(z.string(), z.enum(FRONTMATTER_KEYS)).default({}),
      /** A key whose true value leaves the document out (drafts). */
      draft: z.string().optional(),
      /** A key whose false value leaves the document out (Jekyll's `published: false`). */
      published: z.string().optional(),
      /**
       * A key whose value is the page's own address, a path from the site's root (Hugo's `url`,
       * Jekyll's and Eleventy's `permalink`), used instead of the `urls:` pattern of its kind.
       */
      address: z.string().optional(),
      /** The publisher's other keys, declared once and then ignored. */
      ignore: z.array(z.string()).default([]),
    })
    .default({ map: {}, ignore: [] }),
});
export type ContentConfig = z.infer<typeof ContentConfig>;

/**
 * A URL the publication prints into its pages, the embed code journalists paste, llms.txt and
 * agents.json: http(s), without a user name or password (which every reader would see), and
 * without the characters that end an attribute or a line (quotes, spaces, < >, backslashes).
 */
const PublishedUrl = Uri.refine((u) => URL.canParse(u) && withoutCredentials(u), {
  message: "an http(s) URL without a user name or password: it is published",
}).refine((u) => !/["'<>\\\s`]/.test(u), {
  message: "a URL without quotes, spaces, < >, backslashes or backquotes (write them percent-encoded)",
});

/** The site's own address, under which every page and surface is published: no query or fragment either. */
export const SiteAddress = PublishedUrl.refine(
  (u) => URL.canParse(u) && !new URL(u).search && !new URL(u).hash && !u.includes("?") && !u.includes("#"),
  {
    message: "the site's address, without a query (?) or a fragment (#)",
  },
);

/**
 * The publication's configuration. Its texts are bounded: each is repeated in the head of llms.txt
 * (which must stay under 64 KB), the pages and every surface's attribution, so a longer one is
 * refused here, naming its line, rather than failing a published file's schema.
 */
export const Config = withoutHiddenText(
  z.strictObject({
    name: Written.max(200, "at most 200 characters (it heads llms.txt and every attribution)"),
    baseUrl: SiteAddress.max(500).refine((u) => !u.endsWith("/"), { message: "no trailing slash" }),
    description: z.strictObject({ fr: Written.max(2000), en: Written.max(2000) }),
    license: Line.min(1).max(200, "at most 200 characters (it is named in llms.txt and the pages)"),
    licenseUrl: PublishedUrl.max(2000),
    attribution: Line.min(1).max(300, "at most 300 characters (it is repeated in every surface)"),
    language: z.literal("fr"),
    contact: PublishedUrl.max(2000).optional(),
    /**
     * Where the archive is published, for strangers to clone: an https Git URL without credentials
     * and the branch that holds the frames. Named in black-box.json, agents.json, llms.txt and the
     * archive's own README.
     */
    archive: z
      .strictObject({
        url: z
          .url({ protocol: /^https$/ })
          .max(2000)
          .refine((u) => URL.canParse(u) && withoutCredentials(u) && !new URL(u).search, {
            message: "an https URL without credentials or query",
          })
          // Published inside a shell command that readers paste (the citations' replay command).
          .refine((u) => /^https:\/\/[A-Za-z0-9._~:/%+=,@-]+$/.test(u), {
            message: "an https URL of letters, digits and . _ ~ : / % + = , @ - only (no spaces, quotes, ; $ or #)",
          }),
        branch: z
          .string()
          .regex(/^[A-Za-z0-9._/-]+$/)
          .max(200)
          .refine((b) => !b.includes("..") && !b.startsWith("/") && !b.startsWith("-"), {
            message: "a branch name (not starting with / or -, no ..)",
          })
          .default("risk-archive"),
      })
      .optional(),
    /**
     * Where an MCP server answers for this publication, when the publisher runs one: agents.json
     * advertises an MCP endpoint only then (a client's first connection must not fail).
     */
    mcp: z.strictObject({ url: Uri.max(2000), documentation: Uri.max(2000).optional() }).optional(),
    /**
     * The web server's access logs, counted into /api/v1/human-traffic.json at each assembly: globs
     * (absolute, or relative to the publication), plain or gzip, rotated files included; `host` is
     * the site's own host name when it differs from baseUrl's (referrers from it are internal).
     */
    traffic: z.strictObject({ logs: z.array(z.string().min(1)).min(1), host: z.string().min(1).optional() }).optional(),
    /** Where the corpus lives and how its frontmatter reads (docs/inputs.md, "Bring your own site"). */
    content: ContentConfig.optional(),
    /** The patterns of the publisher's page addresses; the defaults are the demo's (core/inputs/pages.ts). */
    urls: UrlsConfig.optional(),
    riskBandScaleCaveat: ScaleCaveat,
    instruments: z
      .strictObject({
        us: InstrumentConfig.optional(),
        eu: InstrumentConfig.optional(),
        yen: InstrumentConfig.optional(),
        energie: InstrumentConfig.optional(),
        debt: InstrumentConfig.optional(),
      })
      .refine((i) => Object.keys(i).length > 0, { message: "at least one instrument" }),
    debtSource: z.strictObject({ url: Uri.max(2000) }),
    /** The editorial corpus as a producer in freshness.json: stale when nothing was published for this long. */
    editorial: z.strictObject({ staleAfter: FixedDuration }).optional(),
    /** The holdings-confluence synthesis: an input of the publication, so a file inside it. */
    confluence: z
      .string()
      .min(1)
      .refine((s) => !s.startsWith("/") && !/^[a-z][a-z0-9+.-]*:/i.test(s) && !s.split("/").includes(".."), {
        message: "a path inside the publication, as upstream/confluence.json (no URL, no absolute path, no ..)",
      })
      .optional(),
    /** Limits of upstream collection (README, "Risk signals"). */
    collection: z
      .strictObject({
        timeoutSeconds: z.number().positive().max(120).optional(),
        maxBytes: z.int().positive().max(100_000_000).optional(),
      })
      .optional(),
  }),
);
export type Config = z.infer<typeof Config>;

export const Frontmatter = z.strictObject({
  title: Written,
  description: WrittenProse,
  summary: Prose.nullable().optional(),
  date: IsoDate,
  updated: IsoDate.nullable().optional(),
  tags: z.array(Written).optional(),
  topics: z.array(Slug).optional(),
  translationOf: Slug.optional(),
  translatedFrom: IsoDate.optional(),
});
export type Frontmatter = z.infer<typeof Frontmatter>;

export const MethodologyFile = withoutHiddenText(
  z.strictObject({
    title: Written,
    label: Written,
    description: Prose,
    question: Prose,
    updated: IsoDate,
    version: z.string().regex(/^\d+\.\d+\.\d+$/, "a semantic version such as 2.1.0"),
    /** The instrument it measures; absent for a methodology of the publisher's that no instrument uses. */
    instrument: InstrumentKey.optional(),
    dashboard: Uri.nullable().optional(),
    repo: Uri.nullable().optional(),
    scaleCaveat: ScaleCaveat.nullable().optional(),
    sources: z.array(DatasetInput).optional(),
  }),
);
export type MethodologyFile = z.infer<typeof MethodologyFile>;

export const TopicsFile = withoutHiddenText(z.array(Topic.extend({ slug: Slug, label: Written, blurb: WrittenProse })));

const AtlasLinkInput = z.strictObject({
  label: Line,
  href: Href,
  detail: Line.optional(),
  kind: z.enum(["article", "guide", "dataset", "signal", "source", "methodology"]).optional(),
});

export const GlossaryFile = withoutHiddenText(
  z.array(
    z.strictObject({
      slug: Slug,
      sigle: Line.nullable().optional(),
      name: Written,
      definition: Prose,
      category: Line,
      guide: Slug.nullable().optional(),
      atlas: z
        .strictObject({
          intuition: z.string().nullable(),
          formula: z.string().nullable(),
          whyNow: z.string().nullable(),
          related: z.array(Slug),
          articles: z.array(AtlasLinkInput),
          guides: z.array(AtlasLinkInput),
          datasets: z.array(AtlasLinkInput),
          signals: z.array(AtlasLinkInput),
          sources: z.array(AtlasLinkInput),
        })
        .nullable(),
    }),
  ),
);
export type GlossaryFile = z.infer<typeof GlossaryFile>;

/** Input records are the contract's, less the URLs the tool computes from the base URL. */
export const PrimarySourcesFile = withoutHiddenText(
  z.array(
    PrimarySource.omit({ url: true }).extend({
      slug: Slug,
      name: Written,
      shortName: Written.optional(),
      category: Written,
      description: WrittenProse,
      datasets: z.array(DatasetInput.extend({ name: Written, role: WrittenProse })).optional(),
      limits: z.array(WrittenProse).optional(),
      verification: z.array(WrittenProse).optional(),
    }),
  ),
);

export const ProtocolFile = withoutHiddenText(EditorialProtocol.omit({ url: true }));

export const ChangelogFile = withoutHiddenText(
  z.array(
    z.strictObject({
      id: Slug,
      date: IsoDate,
      title: Line,
      kind: ChangelogKind,
      summary: Line,
      links: z.array(z.strictObject({ label: Line, href: Href })),
    }),
  ),
);

const NAIVE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

function toUtc(s: string): string {
  if (s.endsWith("Z")) return s;
  const iso = new Date(Date.parse(s)).toISOString();
  return iso.endsWith(".000Z") ? iso.replace(".000Z", "Z") : iso;
}

/**
 * A date-time in the publication's own files (claim reviews, the confluence synthesis): it must
 * carry a zone, `Z` or an offset, and is read as the UTC instant it names. One without a zone
 * names no instant, and is refused with what to write.
 */
export const ZonedDateTime = z
  .string()
  .refine((s) => !NAIVE.test(s.trim()), {
    message:
      "a date-time without a time zone names no instant; add Z (UTC) or an offset such as +01:00, as 2026-11-02T10:00:00Z",
  })
  .pipe(z.iso.datetime({ offset: true }))
  .refine((s) => parseDateTime(s) !== null, {
    message: "not a day and time of the calendar (a 30 February, a 25th hour); write a real one",
  })
  .transform((s) => toUtc(s));

export const ClaimReviewsFile = withoutHiddenText(
  z.strictObject({
    version: z.string(),
    updated: IsoDate,
    policy: z.string(),
    entries: z
      .array(
        ClaimReviewEntry.extend({
          claimId: z.string().regex(/^[a-z0-9-]+#[a-z0-9-]+$/, "<article slug>#<claim id>"),
          reviewedAt: ZonedDateTime,
          reviewedBy: Line,
          // Published in claims.json and the catalog, where readers follow it.
          reproductionArtifact: Href.optional(),
        }),
      )
      // A claim has one review state: a second entry would silently replace the first.
      .superRefine((entries, ctx) => {
        const first = new Map<string, number>();
        entries.forEach((entry, i) => {
          const earlier = first.get(entry.claimId);
          if (earlier === undefined) first.set(entry.claimId, i);
          else
            ctx.addIssue({
              code: "custom",
              path: [i, "claimId"],
              message: `"${entry.claimId}" is reviewed a second time (first in entry ${earlier + 1}); keep one entry per claim, with its latest review`,
            });
        });
      }),
  }),
);
export type ClaimReviewsFile = z.infer<typeof ClaimReviewsFile>;

/**
 * A date-time in an upstream document: it must carry a zone (Z or an offset) and is published in
 * UTC with a Z. A naive date-time is an upstream error: its instant cannot be known.
 */
export const UpstreamDateTime = z
  .string()
  .refine((s) => !NAIVE.test(s), { message: "a date-time without a time zone; the upstream must give Z or an offset" })
  .pipe(z.iso.datetime({ offset: true }))
  .transform((s) => toUtc(s))
  // Dates a publication can reason about: anything else (9999-12-31T23:59:59Z) is a broken
  // upstream, and adding a staleness window to it would overflow the calendar.
  .refine((s) => s >= "1970-01-01" && s < "3000-01-01", { message: "a date-time outside 1970..2999" });

export const DashboardReading = z.strictObject({
  format: z.literal("risk-dashboard-reading/1"),
  instrument: InstrumentKey,
  value: z.number(),
  scale: z.number().positive(),
  rawValue: z.number().optional(),
  rawUnit: z.string().optional(),
  observedAt: UpstreamDateTime.optional(),
  /** Absent or null when the upstream does not say when it published: the surfaces then say so. */
  publishedAt: UpstreamDateTime.nullable().optional(),
  /** `unknown` when the upstream cannot tell the quality of its reading. */
  qualityStatus: z.enum(["nominal", "official-delayed", "unknown"]),
});
export type DashboardReading = z.infer<typeof DashboardReading>;

export const DebtLatest = z.strictObject({
  format: z.literal("debt-risk-latest/1"),
  generatedAt: UpstreamDateTime,
  observedAt: IsoDate.optional(),
  scoreRaw: z.number(),
  scale: z.number().positive(),
  excludesBudgetOfficeProjections: z.boolean(),
  // As debt-risk.json publishes them: a count the surface's schema would refuse stops here, as an
  // upstream error, and never stops the publication.
  coverage: z.strictObject({
    observed: z.number().min(0).max(1),
    families: z.int().nonnegative(),
    familiesObserved: z.int().nonnegative(),
    imputation: z.string(),
  }),
  buckets: z.array(
    z.strictObject({ id: z.string(), label: z.string(), score: z.number(), weight: z.number(), imputed: z.boolean() }),
  ),
  sources: z.array(z.strictObject({ name: z.string(), url: Uri, retrievedAt: UpstreamDateTime.optional() })),
  topSignals: z.array(
    z.strictObject({
      id: z.string(),
      label: z.string(),
      value: z.number(),
      unit: z.string().optional(),
      direction: z.enum(["up", "down", "flat"]).optional(),
    }),
  ),
});
export type DebtLatest = z.infer<typeof DebtLatest>;

/** The publisher's own synthesis: its texts are published in risk.json, one line each, as the publisher's labels. */
export const ConfluenceFile = z.strictObject({
  updated: ZonedDateTime,
  count: z.int().nonnegative(),
  conviction: Line,
  top: z.strictObject({ ticker: Line, score: z.number(), quadrant: Line }),
});
export type ConfluenceFile = z.infer<typeof ConfluenceFile>;
