import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeFs, nodeHasher, nodeHttp } from "../../cli/runtime/node.ts";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { docLocations, locate, readFrontmatter, slugOf, splitDocument } from "../../core/inputs/documents.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { Config as ConfigSchema, ContentConfig, UrlsConfig } from "../../core/inputs/schemas.ts";
import { runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { DRAFT_MARK, siteFromDemo, type SiteStyle } from "../helpers/sites.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

/** The page patterns init --detect proposes for each layout, which every published URL must follow. */
const EXPECTED_URLS: Record<SiteStyle, Record<string, RegExp>> = {
  astro: {
    "article fr": /^https:\/\/risques\.example\.org\/posts\/[a-z0-9-]+\/$/,
    "article en": /^https:\/\/risques\.example\.org\/en\/analysis\/[a-z0-9-]+\/$/,
  },
  hugo: {
    "article fr": /^https:\/\/risques\.example\.org\/posts\/[a-z0-9-]+\/$/,
    "article en": /^https:\/\/risques\.example\.org\/en\/posts\/[a-z0-9-]+\/$/,
  },
  jekyll: {
    // Jekyll's default permalink (date), the folder above en/_posts a category.
    "article fr": /^https:\/\/risques\.example\.org\/\d{4}\/\d{2}\/\d{2}\/[a-z0-9-]+\.html$/,
    "article en": /^https:\/\/risques\.example\.org\/en\/\d{4}\/\d{2}\/\d{2}\/[a-z0-9-]+\.html$/,
  },
};

describe.each(["astro", "hugo", "jekyll"] as const)("a %s site read where it lives", (style) => {
  it("init --detect maps it, lint and assemble read it without touching a file, and every page URL follows the pattern", () => {
    const site = siteFromDemo(style);
    const before = treeDigest(site);
    const detect = runCli(["init", "--detect", site, "--json"]);
    expect(detect.status, detect.stderr).toBe(0);
    const report = JSON.parse(detect.stdout);
    expect(report.generator).toBe(style);
    // Nothing of the site was moved, renamed or rewritten: only new files were added.
    const after = treeDigest(site);
    for (const [file, digest] of Object.entries(before)) expect(after[file], file).toBe(digest);
    expect(Object.keys(after)).toContain("risk.config.yaml");

    const lint = runCli(["lint", "--publication", site, "--json"]);
    expect([0, 1], lint.stderr).toContain(lint.status);
    const findings = JSON.parse(lint.stdout);
    expect(findings.findings.filter((f: { severity: string }) => f.severity === "error")).toEqual([]);

    const out = tempDir("risk-own-");
    const assemble = runCli([
      "assemble",
      "--publication",
      site,
      "--site",
      `${out}/site`,
      "--archive",
      `${out}/archive`,
    ]);
    expect(assemble.status, assemble.stderr).toBe(0);
    expect(treeDigest(site)).toEqual(after);

    const catalog = JSON.parse(readFileSync(`${out}/site/api/v1/catalog.json`, "utf8"));
    const articles = catalog.articles as { url: string; language: string; slug: string }[];
    expect(articles.filter((a) => a.language === "fr")).toHaveLength(7);
    expect(articles.filter((a) => a.language === "en")).toHaveLength(6);
    for (const a of articles) expect(a.url, a.slug).toMatch(EXPECTED_URLS[style][`article ${a.language}`]!);
    const llms = readFileSync(`${out}/site/llms.txt`, "utf8");
    for (const a of articles.filter((x) => x.language === "fr")) expect(llms).toContain(a.url);
    // The draft is left out of everything.
    for (const file of ["llms-full.txt", "api/v1/search-index.json", "api/v1/catalog.json"])
      expect(readFileSync(`${out}/site/${file}`, "utf8"), file).not.toContain(DRAFT_MARK);
  }, 60_000);
});

describe("MDX and inline HTML", () => {
  it("never reach a text corpus: components keep their text, SVG its title, figures their caption", () => {
    const site = siteFromDemo("astro");
    expect(runCli(["init", "--detect", site]).status).toBe(0);
    const out = tempDir("risk-mdx-");
    const r = runCli(["assemble", "--publication", site, "--site", `${out}/site`, "--archive", `${out}/archive`]);
    expect(r.status, r.stderr).toBe(0);
    for (const file of ["llms-full.txt", "llms-full-en.txt", "api/v1/search-index.json", "api/v1/claims.json"]) {
      const text = readFileSync(`${out}/site/${file}`, "utf8");
      expect(text, file).not.toMatch(/<svg|<style|<path|<Chart|<Figure|^import /m);
      expect(text, file).not.toContain("stroke: #c00");
    }
    const full = readFileSync(`${out}/site/llms-full.txt`, "utf8");
    expect(full).toContain("Écart BTP-Bund sur dix ans — BCE, Bundesbank");
    expect(full).toContain("Courbe de l’écart en points de base");
    expect(full).toContain("Figure 1 : l’écart a culminé en mai.");
    expect(full).toContain("Les données de mai sont provisoires.");
    const lint = JSON.parse(runCli(["lint", "--publication", site, "--json"]).stdout);
    const dropped = lint.findings.filter((f: { code: string }) => f.code === "dropped-markup");
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ file: "src/content/posts/spread-btp-bund-2026.mdx", severity: "warning" });
    expect(dropped[0].message).toContain("<Chart>");
    const lines = readFileSync(join(site, "src/content/posts/spread-btp-bund-2026.mdx"), "utf8").split("\n");
    expect(lines[dropped[0].line - 1]).toContain("<Chart");
  }, 60_000);
});

describe("undeclared frontmatter keys", () => {
  it("name the file, line and field, and say how to map or declare the key", () => {
    const site = siteFromDemo("astro");
    expect(runCli(["init", "--detect", site]).status).toBe(0);
    const config = join(site, "risk.config.yaml");
    const text = readFileSync(config, "utf8");
    // Without the mapping, pubDate is unknown: the message says to map it to date.
    writeFileSync(config, text.replace(/\n\s+pubDate: date/, ""));
    let r = runCli(["lint", "--publication", site]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /src\/content\/[a-z0-9/-]+\.mdx?:\d+ \(field pubDate\): unknown key "pubDate": if it is your date, map it to date in risk\.config\.yaml/,
    );
    // A key nobody declared: declare it as yours.
    writeFileSync(config, text);
    const article = join(site, "src/content/posts/carry-trade-yen-boj.md");
    writeFileSync(
      article,
      readFileSync(article, "utf8").replace("draft: false", "draft: false\nheroImage: /img/yen.png"),
    );
    r = runCli(["lint", "--publication", site]);
    expect(r.status).toBe(3);
    const line =
      readFileSync(article, "utf8")
        .split("\n")
        .findIndex((l) => l.startsWith("heroImage")) + 1;
    expect(r.stderr).toContain(
      `src/content/posts/carry-trade-yen-boj.md:${line} (field heroImage): unknown key "heroImage": declare it as yours in risk.config.yaml (content.frontmatter.ignore: [heroImage])`,
    );
  }, 60_000);
});

describe("identifiers and upstream readings", () => {
  it("keeps a series id the publisher already publishes, dots included, and refuses one unsafe as a path", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) =>
      t.replace("seriesId: us-financial-stress", "seriesId: l0g.signal.us-macro-stress"),
    );
    const out = tempDir("risk-series-");
    const r = runCli(["assemble", "--publication", pub, "--site", `${out}/site`, "--archive", `${out}/archive`]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(`${out}/site/api/v1/signals/l0g.signal.us-macro-stress/history.csv`, "utf8")).toMatch(
      /^seriesDate,value,/,
    );
    const current = JSON.parse(readFileSync(`${out}/site/api/v1/signals/current.json`, "utf8"));
    expect(current.signals.map((s: { seriesId: string }) => s.seriesId)).toContain("l0g.signal.us-macro-stress");
    const good = readFileSync(`${pub}/risk.config.yaml`, "utf8");
    for (const bad of ["a..b", "series.", ".hidden", "nul.x", "Upper.Case"]) {
      writeFileSync(
        `${pub}/risk.config.yaml`,
        good.replace("seriesId: l0g.signal.us-macro-stress", `seriesId: "${bad}"`),
      );
      const l = runCli(["lint", "--publication", pub]);
      expect(l.status, bad).toBe(3);
      expect(l.stderr, bad).toMatch(/risk\.config\.yaml:\d+ \(field instruments\.us\.seriesId\)/);
    }
  }, 60_000);

  it("lint refuses a broken holdings-confluence synthesis as assemble does, and warns of a local reading assemble would not publish", () => {
    const pub = demoCopy();
    writeFileSync(`${pub}/upstream/yen.json`, "{ not json");
    let r = runCli(["lint", "--publication", pub, "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const warning = JSON.parse(r.stdout).findings.find((f: { code: string }) => f.code === "upstream-fallback");
    expect(warning).toMatchObject({ file: "upstream/yen.json", field: "instruments.yen", severity: "warning" });
    expect(warning.message).toMatch(/invalid-json/);
    writeFileSync(`${pub}/upstream/confluence.json`, '{"version": 1}');
    r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/confluence\.json/);
    const out = tempDir("risk-conf-");
    const a = runCli(["assemble", "--publication", pub, "--site", `${out}/site`, "--archive", `${out}/archive`]);
    expect(a.status).toBe(3);
  }, 60_000);
});

describe("an upstream that cannot say everything", () => {
  it("publishes a reading of unknown quality and without a publication time as such, inventing nothing", () => {
    const pub = demoCopy();
    const reading = JSON.parse(readFileSync(`${pub}/upstream/us.json`, "utf8"));
    delete reading.publishedAt;
    reading.qualityStatus = "unknown";
    writeFileSync(`${pub}/upstream/us.json`, JSON.stringify(reading));
    const out = tempDir("risk-unknown-");
    const r = runCli(["assemble", "--publication", pub, "--site", `${out}/site`, "--archive", `${out}/archive`]);
    expect(r.status, r.stderr).toBe(0);
    const current = JSON.parse(readFileSync(`${out}/site/api/v1/signals/current.json`, "utf8"));
    const us = current.signals.find((s: { instrument: string }) => s.instrument === "us");
    expect(us).toMatchObject({
      sourceStatus: "ok",
      qualityStatus: "unknown",
      sourceUpdatedAt: null,
      fallbackUsed: false,
    });
    const risk = JSON.parse(readFileSync(`${out}/site/api/v1/risk.json`, "utf8"));
    expect(risk.indices.us.sourceUpdatedAt).toBeNull();
    const freshness = JSON.parse(readFileSync(`${out}/site/api/v1/freshness.json`, "utf8"));
    const entry = JSON.stringify(freshness);
    expect(entry).toContain('"timeliness":"unknown"');
  }, 60_000);
});

describe("frontmatter and file names as publishers write them", () => {
  const content = (extra: Record<string, unknown> = {}) =>
    ContentConfig.parse({ frontmatter: { map: { pubDate: "date" }, ...extra } });
  const head = (lines: string[]) => `${lines.join("\n")}\n`;

  it("reads a TOML offset date-time as the UTC instant it names, as YAML does", () => {
    for (const [toml, yaml, date] of [
      ["2026-03-01T23:30:00-05:00", "2026-03-01T23:30:00-05:00", "2026-03-02"],
      ["2026-03-01T01:00:00+02:00", "2026-03-01T01:00:00+02:00", "2026-02-28"],
    ] as const) {
      const fromToml = readFrontmatter(
        "a.md",
        "toml",
        head(['title = "T"', 'description = "D"', `date = ${toml}`]),
        content(),
      );
      const fromYaml = readFrontmatter(
        "a.md",
        "yaml",
        head(["title: T", "description: D", `date: ${yaml}`]),
        content(),
      );
      expect(fromToml.meta.date, toml).toBe(date);
      expect(fromToml.publishedAt).toBe(fromYaml.publishedAt);
    }
    const local = readFrontmatter(
      "a.md",
      "toml",
      head(['title = "T"', 'description = "D"', "date = 2026-03-01"]),
      content(),
    );
    expect(local).toMatchObject({ meta: { date: "2026-03-01" }, publishedAt: null });
  });

  it("refuses a date-time without a time zone, naming the line and saying to add Z or an offset", () => {
    for (const [format, lines, where] of [
      ["yaml", ["title: T", "description: D", "date: 2026-03-01T10:00:00"], "a.md:4 (field date)"],
      ["yaml", ["title: T", "description: D", 'date: "2026-03-01 10:00"'], "a.md:4 (field date)"],
      [
        "yaml",
        ["title: T", "pubDate: 2026-03-01T10:00:00.5", "description: D"],
        "a.md:3 (field pubDate (read as date))",
      ],
      [
        "yaml",
        ["title: T", "description: D", "date: 2026-03-01", "updated: 2026-03-02T08:00:00"],
        "a.md:5 (field updated)",
      ],
      ["toml", ['title = "T"', 'description = "D"', "date = 2026-03-01T10:00:00"], "a.md:4 (field date)"],
      ["toml", ['title = "T"', 'description = "D"', "date = 2026-03-01 10:00:00"], "a.md:4 (field date)"],
    ] as const) {
      const read = () => readFrontmatter("a.md", format, head([...lines]), content());
      expect(read, lines.join(" ")).toThrow(where);
      expect(read, lines.join(" ")).toThrow(/no time zone.*add Z \(UTC\) or an offset/);
    }
    // With a zone, or a date alone, it is read.
    for (const date of ["2026-03-01T10:00:00Z", "2026-03-01T10:00:00+01:00", "2026-03-01 10:00:00 +0100", "2026-03-01"])
      expect(
        readFrontmatter("a.md", "yaml", head(["title: T", "description: D", `date: ${date}`]), content()).meta.date,
      ).toBe("2026-03-01");
  });

  it("reads a date-time without a zone in the site's zone when the config names one (content.timezone), as Jekyll and Hugo do", () => {
    const paris = ContentConfig.parse({ frontmatter: { map: { pubDate: "date" } }, timezone: "Europe/Paris" });
    for (const [format, line, date, instant] of [
      // Winter (+01:00), summer (+02:00), and a late evening that is the next day nowhere but in UTC.
      ["yaml", "date: 2026-03-01T10:00:00", "2026-03-01", "2026-03-01T09:00:00Z"],
      ["yaml", 'date: "2026-07-01 10:00"', "2026-07-01", "2026-07-01T08:00:00Z"],
      ["yaml", "pubDate: 2026-07-01T00:30:00", "2026-06-30", "2026-06-30T22:30:00Z"],
      ["toml", "date = 2026-03-01T10:00:00", "2026-03-01", "2026-03-01T09:00:00Z"],
      // A reading the change to summer time skips is read with the winter offset.
      ["yaml", "date: 2026-03-29T02:30:00", "2026-03-29", "2026-03-29T01:30:00Z"],
      // A zone written in the date-time wins over the config's.
      ["yaml", "date: 2026-03-01T10:00:00Z", "2026-03-01", "2026-03-01T10:00:00Z"],
    ] as const) {
      const lines =
        format === "toml" ? ['title = "T"', 'description = "D"', line] : ["title: T", "description: D", line];
      expect(readFrontmatter("a.md", format, head(lines), paris), line).toMatchObject({
        meta: { date },
        publishedAt: instant,
      });
    }
    expect(() => ContentConfig.parse({ timezone: "Mars/Olympus" })).toThrow(/IANA name/);
    expect(() =>
      readFrontmatter("a.md", "yaml", head(["title: T", "description: D", "date: 2026-03-01T10:00:00"]), content()),
    ).toThrow(/content: \{ timezone: Europe\/Paris \}/);
  });

  it("refuses a date-time that is not a real one instead of rolling it over to the next month", () => {
    for (const [format, line, field] of [
      ["yaml", "date: 2026-02-30T10:00:00Z", "date"],
      ["yaml", "date: 2026-02-29 10:00:00 +0100", "date"],
      ["yaml", "date: 2026-04-31T23:30:00+02:00", "date"],
      ["yaml", "date: 2026-03-01T24:00:00Z", "date"],
      ["yaml", "date: 2026-03-01T10:00:00+25:00", "date"],
      ["yaml", "date: 9999-12-31T23:59:59-14:00", "date"],
      ["yaml", "updated: '2026-02-31T10:00:00Z'", "updated"],
      ["yaml", "pubDate: 2026-02-30T10:00:00Z", "pubDate (read as date)"],
      ["toml", 'date = "2026-02-30T10:00:00Z"', "date"],
    ] as const) {
      const lines =
        format === "toml"
          ? ['title = "T"', 'description = "D"', line]
          : ["title: T", "description: D", ...(line.startsWith("updated") ? ["date: 2026-03-01"] : []), line];
      const read = () => readFrontmatter("a.md", format, head(lines), content());
      expect(read, line).toThrow(`(field ${field})`);
      expect(read, line).toThrow(/is not a real date-time/);
    }
  });

  it("names the line of the top-level key, not a nested one of the same name, and refuses __proto__ and constructor as keys", () => {
    const nested = [
      "seo:",
      "  title: fine",
      "  date: 2026-01-01",
      "title: T",
      "description: D",
      "date: 2026-03-01T10:00:00",
    ];
    const withSeo = ContentConfig.parse({ frontmatter: { ignore: ["seo"] } });
    expect(() => readFrontmatter("a.md", "yaml", head(nested), withSeo)).toThrow("a.md:7 (field date)");
    for (const [line, where] of [
      ["__proto__: x", "a.md:4 (field __proto__)"],
      ['"__proto__": { title: Evil }', "a.md:4 (field __proto__)"],
      ["constructor: x", 'unknown key "constructor": declare it'],
    ] as const)
      expect(
        () => readFrontmatter("a.md", "yaml", head(["title: T", "description: D", line]), content()),
        line,
      ).toThrow(where);
  });

  it("names an empty or null key by its line, and says what a TOML time, a !!binary or a !!set value is", () => {
    for (const line of ["null: x", "~: x", ": x"])
      expect(
        () => readFrontmatter("a.md", "yaml", head(["title: T", "description: D", line]), content()),
        line,
      ).toThrow(/^Cannot read a\.md:4: a key written null, ~ or nothing at all is read as an empty key/);
    for (const [format, line, got] of [
      ["toml", "date = 10:00:00", "got a time of day without a date"],
      ["yaml", "date: !!binary aGVsbG8=", "got binary data (a !!binary value)"],
      ["yaml", "date: !!set {a, b}", "got a mapping of a kind JSON cannot hold"],
    ] as const) {
      const lines =
        format === "toml" ? ['title = "T"', 'description = "D"', line] : ["title: T", "description: D", line];
      expect(() => readFrontmatter("a.md", format, head(lines), content()), line).toThrow(
        `a.md:4 (field date): string expected, ${got}`,
      );
    }
  });

  it("leaves out drafts whatever the way they are written, and refuses a draft flag that is neither true nor false", () => {
    const read = (flag: string, extra: Record<string, unknown>) =>
      readFrontmatter("a.md", "yaml", head(["title: T", "description: D", "date: 2026-03-01", flag]), content(extra));
    for (const flag of ["draft: true", 'draft: "true"', "draft: yes", "draft: True"])
      expect(read(flag, { draft: "draft" }).draft, flag).toBe(true);
    expect(read("draft: false", { draft: "draft" }).draft).toBe(false);
    // Jekyll's published: false is a draft too.
    expect(read("published: false", { published: "published" }).draft).toBe(true);
    expect(read("published: true", { published: "published" }).draft).toBe(false);
    expect(() => read("draft: 1", { draft: "draft" })).toThrow(/a\.md:5 \(field draft\).*true or false/);
    expect(() => read("draft: maybe", { draft: "draft" })).toThrow(/true or false/);
  });

  it("takes a Jekyll post's date and slug from its file name, short months and days included", () => {
    const jekyll = ContentConfig.parse({ slug: "jekyll" });
    const read = readFrontmatter("_posts/2026-3-1-short.md", "yaml", head(["title: T", "description: D"]), jekyll);
    expect(read.meta.date).toBe("2026-03-01");
    expect(slugOf("_posts/2026-3-1-short.md", jekyll, null)).toBe("short");
  });

  it("gives a file without the slug key its file name's slug, and leaves out files whose name starts with _", () => {
    const keyed = ContentConfig.parse({ slug: { key: "slug" }, articles: { fr: ["posts/**/*.md"], en: [] } });
    expect(slugOf("posts/mon-billet.md", keyed, null)).toBe("mon-billet");
    expect(slugOf("posts/mon-billet.md", keyed, "titre-choisi")).toBe("titre-choisi");
    const where = docLocations(keyed);
    expect(locate("posts/mon-billet.md", where)).toEqual({ kind: "article", lang: "fr" });
    expect(locate("posts/_index.md", where)).toBeNull();
    expect(locate("posts/_draft.md", where)).toBeNull();
  });

  it("refuses a page pattern with another placeholder, a doubled brace or a .. segment", () => {
    for (const pattern of [
      "/blog/{slug}/{week}/",
      "/blog/{{slug}}/",
      "/{{year}}/{slug}/",
      "/../../{slug}",
      "/a/./{slug}/",
    ]) {
      const urls = UrlsConfig.safeParse({ article: { fr: pattern } });
      expect(urls.success, pattern).toBe(false);
    }
    expect(UrlsConfig.safeParse({ article: { fr: "/blog/{slug}/" } }).success).toBe(true);
    // A document's date may be in its address; a source or a methodology has none.
    expect(UrlsConfig.safeParse({ article: { fr: "/{year}/{month}/{day}/{slug}/" } }).success).toBe(true);
    expect(UrlsConfig.safeParse({ methodology: "/{year}/{slug}/" }).success).toBe(false);
  });

  it("reads frontmatter fences followed by spaces or tabs, as editors leave them", () => {
    const doc = splitDocument("a.md", "---  \ntitle: T\n---\t\nBody.\n");
    expect(doc).toMatchObject({ format: "yaml", head: "title: T\n", body: "Body.\n", bodyLine: 4 });
    expect(splitDocument("a.md", "+++\ntitle = 'T'\n+++ \r\nBody.").body).toBe("Body.");
    expect(() => splitDocument("a.md", "---\ntitle: T\n----\nBody.\n")).toThrow(/not closed/);
  });

  it("takes YAML's document end `...` as the closing fence, as Jekyll does", () => {
    expect(splitDocument("a.md", "---\ntitle: T\n...\nBody.\n")).toMatchObject({
      format: "yaml",
      head: "title: T\n",
      body: "Body.\n",
      bodyLine: 4,
    });
  });

  it("refuses a TOML date the calendar does not have, instead of rolling it over", () => {
    const head = 'title = "T"\ndescription = "D"\ndate = 2026-02-30\n';
    expect(() => readFrontmatter("a.md", "toml", head, content())).toThrow(/a\.md:4 \(field date\).*not a day/);
    const ok = 'title = "T"\ndescription = "D"\ndate = 2028-02-29\n';
    expect(readFrontmatter("a.md", "toml", ok, content()).meta.date).toBe("2028-02-29");
  });

  it("refuses config values that would break out of where they are published", () => {
    const base = ConfigSchema.shape;
    expect(base.confluence.safeParse("../outside.json").success).toBe(false);
    expect(base.confluence.safeParse("/etc/passwd").success).toBe(false);
    expect(base.confluence.safeParse("https://127.0.0.1:1/x.json").success).toBe(false);
    expect(base.confluence.safeParse("upstream/confluence.json").success).toBe(true);
    // Not a URL at all, or a branch read as an option by git: refused, never an internal error.
    for (const url of ["", "git.example.org/o.git", "--upload-pack=touch /tmp/x"])
      expect(base.archive.safeParse({ url }).success, url).toBe(false);
    expect(base.archive.safeParse({ url: "https://git.example.org/o.git", branch: "-b" }).success).toBe(false);
    expect(base.name.safeParse("a\u0085b").success).toBe(false);
    expect(UrlsConfig.safeParse({ article: { fr: "/blog/%2e%2e/{slug}/" } }).success).toBe(false);
    expect(UrlsConfig.safeParse({ article: { fr: "/blog/{slug}/\u0000" } }).success).toBe(false);
  });

  it("names a missing or linked-out confluence file by its place in the publication (exit 3, never 70)", async () => {
    const pub = demoCopy();
    const config = readFileSync(join(pub, "risk.config.yaml"), "utf8");
    const rel = /^confluence: (\S+)$/m.exec(config)?.[1] ?? "upstream/confluence.json";
    if (!/^confluence:/m.test(config)) writeFileSync(join(pub, "risk.config.yaml"), `${config}\nconfluence: ${rel}\n`);
    rmSync(join(pub, rel), { force: true });
    const p = await loadPublication(nodeFs, pub);
    const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher };
    await expect(collectUpstream(p, ports, { attemptedAt: "2026-11-21T10:00:00Z" })).rejects.toMatchObject({
      code: "E_INPUT",
      message: expect.stringMatching(new RegExp(`^Cannot read ${rel.replace(/[.]/g, "\\.")}: the file is missing`)),
    });
    const outside = join(tempDir("risk-outside-"), "secret.json");
    writeFileSync(outside, '{"conviction":"SECRETOUTSIDE"}');
    symlinkSync(outside, join(pub, rel));
    const error = await collectUpstream(p, ports, { attemptedAt: "2026-11-21T10:00:00Z" }).catch((e: Error) => e);
    expect(String((error as Error).message)).toMatch(/leading out of the publication/);
    expect(String((error as Error).message)).not.toContain(outside);
  });

  it("refuses a registry kept both as YAML and as JSON, naming both", async () => {
    const pub = demoCopy();
    writeFileSync(join(pub, "content/topics.json"), "[]\n");
    await expect(loadPublication(nodeFs, pub)).rejects.toThrow(
      /content\/topics\.yaml.*content\/topics\.json holds the same registry/,
    );
  });

  it("does not publish the translation of a draft, nor name the draft", async () => {
    const pub = demoCopy();
    const dir = join(pub, "content/articles/fr");
    const original = readdirSync(dir).find((n) => n.endsWith(".md"))!;
    const slug = original.replace(/\.md$/, "");
    editFile(join(pub, "risk.config.yaml"), (t) => `${t}\ncontent:\n  frontmatter:\n    draft: draft\n`);
    editFile(join(dir, original), (t) => t.replace(/^---\n/, "---\ndraft: true\n"));
    const p = await loadPublication(nodeFs, pub);
    expect(p.articles.some((d) => d.slug === slug)).toBe(false);
    expect(p.articles.some((d) => d.meta.translationOf === slug)).toBe(false);
  });
});

describe("frontmatter as other editors and generators write it", () => {
  it("reads YAML merge keys (<<: *defaults) as Jekyll, Hugo and Astro do, and names a key written twice with both lines", async () => {
    const head = (yaml: string) =>
      readFrontmatter("posts/a.md", "yaml", yaml, ContentConfig.parse({ frontmatter: { ignore: ["defaults"] } }));
    const merged = head(
      'defaults: &defaults\n  description: "Partagée par ancre."\n  tags: [dette]\ntitle: "Ancres"\n<<: *defaults\ndate: 2026-03-04\n',
    );
    expect(merged.meta).toMatchObject({
      title: "Ancres",
      description: "Partagée par ancre.",
      tags: ["dette"],
      date: "2026-03-04",
    });
    const pub = demoCopy();
    writeFileSync(
      `${pub}/content/articles/fr/doublon.md`,
      '---\ntitle: "Premier titre"\ndescription: "x"\ndate: 2026-03-05\ntitle: "Second titre"\n---\nTexte.\n',
    );
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(
      'content/articles/fr/doublon.md:5: the key "title" is written twice (first on line 2): YAML takes a key once',
    );
  });
});
