import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import { detectSite } from "../../app/detect.ts";
import { runInitDetect } from "../../cli/commands/init.ts";
import { runLint } from "../../cli/commands/lint.ts";
import { report } from "../../cli/exit.ts";
import { nodeFs } from "../../cli/runtime/node.ts";
import { demoPublication } from "../../cli/paths.ts";
import { docLocations, locate } from "../../core/inputs/documents.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { ContentConfig } from "../../core/inputs/schemas.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { siteFromDemo } from "../helpers/sites.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A site made of these files (path inside the site -> text). */
function site(files: Record<string, string>): string {
  const root = `${tempDir("risk-detect-")}/site`;
  mkdirSync(root, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const md = (meta: string, body = "Un texte.\n") => `---\n${meta}\n---\n${body}`;
const toml = (meta: string, body = "Un texte.\n") => `+++\n${meta}\n+++\n${body}`;
const post = (title: string, extra = "") =>
  md(`title: ${title}\ndescription: Un article sur ${title}.\npubDate: 2026-09-01${extra ? `\n${extra}` : ""}`);
const hugoPost = (title: string, extra = "") =>
  toml(`title = "${title}"\ndescription = "Un article."\ndate = 2026-09-01${extra ? `\n${extra}` : ""}`);

/** What init --detect printed on standard error while `run` ran, and what it returned or threw. */
async function captured<T>(run: () => Promise<T>): Promise<{ stderr: string; result?: T; error?: unknown }> {
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const result = await run();
    return { stderr, result };
  } catch (error) {
    return { stderr, error };
  } finally {
    spy.mockRestore();
  }
}

/** The exit status and message risk-cli gives for an error. */
function exitOf(error: unknown): { status: number; stderr: string } {
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { status: report(error, false), stderr };
  } finally {
    spy.mockRestore();
  }
}

const config = (root: string) => parseYaml(readFileSync(join(root, "risk.config.yaml"), "utf8"));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("init --detect on the folder it is given", () => {
  it("refuses an empty DIR (exit 2) and never initialises the current folder", async () => {
    const cwd = site({ "astro.config.mjs": "export default {};\n", "src/content/posts/a.md": post("A") });
    vi.spyOn(process, "cwd").mockReturnValue(cwd);
    for (const dir of ["", "  "]) {
      const { error } = await captured(() => runInitDetect({ dir, json: true }));
      expect(error, JSON.stringify(dir)).toBeDefined();
      expect(exitOf(error).status).toBe(2);
    }
    expect(readdirSync(cwd).sort()).toEqual(["astro.config.mjs", "src"]);
  });

  it("skips a nested folder holding its own risk.config.yaml", () => {
    const root = site({
      "docs/a.md": post("A"),
      "docs/other/risk.config.yaml": "name: x\n",
      "docs/other/content/articles/fr/b.md": post("B"),
    });
    const d = detectSite(root);
    expect(d.documents.map((x) => x.files)).toEqual([1]);
    const locations = docLocations(ContentConfig.parse(d.content));
    expect(locate("docs/a.md", locations)).not.toBeNull();
    expect(locate("docs/other/content/articles/fr/b.md", locations)).toBeNull();
    expect(d.leftOut.join("\n")).toContain("docs/other/: holds its own risk.config.yaml");
  });
});

describe("init --detect and symbolic links in the site", () => {
  const minimal = () =>
    site({ "astro.config.mjs": "export default {};\n", "src/content/posts/premier.md": post("Premier") });

  for (const rel of [
    "content/topics.yaml",
    "content/glossary.yaml",
    "content/claim-reviews.yaml",
    "content/methodologies",
    "upstream",
    "content",
    "risk.config.yaml",
  ])
    it(`a broken one at ${rel}: exit 3 naming it inside the site, never an internal error or the install path; nothing written`, async () => {
      const root = minimal();
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      symlinkSync("/nonexistent/x", join(root, rel));
      const before = readdirSync(root).sort();
      const { error } = await captured(() => runInitDetect({ dir: root, json: false }));
      const { status, stderr } = exitOf(error);
      expect(status, stderr).toBe(3);
      expect(stderr).toContain(`${rel}: a broken symbolic link`);
      expect(stderr).not.toContain(demoPublication());
      expect(stderr).not.toContain(ROOT);
      expect(readdirSync(root).sort()).toEqual(before);
    });

  it("never writes through one leading out of the site", async () => {
    const root = minimal();
    const outside = tempDir("risk-outside-");
    symlinkSync(outside, join(root, "content"));
    const { error } = await captured(() => runInitDetect({ dir: root, json: false }));
    const { status, stderr } = exitOf(error);
    expect(status, stderr).toBe(3);
    expect(stderr).toContain("content: a symbolic link leading out of the site");
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(root, "risk.config.yaml"))).toBe(false);
  });
});

describe("init --detect and files that are not plain files", () => {
  it("reads no generator config that is a FIFO or a link to /dev/zero, and leaves out a page over the input limit", async () => {
    for (const plant of [
      (root: string) => execFileSync("mkfifo", [join(root, "hugo.toml")]),
      (root: string) => symlinkSync("/dev/zero", join(root, "hugo.toml")),
    ]) {
      const root = site({ "content/posts/premier.md": hugoPost("Premier") });
      plant(root);
      const { stderr, error } = await captured(() => runInitDetect({ dir: root, json: false }));
      expect(error).toBeUndefined();
      expect(stderr).toContain(
        "hugo.toml: it is not a regular file (a FIFO, a device or a folder); nothing was read from it",
      );
    }
    const root = site({
      "hugo.toml": 'baseURL = "https://x.example.org/"\n',
      "content/posts/premier.md": hugoPost("Premier"),
      "content/posts/big.md": "",
    });
    // Sparse: no disk is filled, and the size is over the limit an assembly reads a page under.
    truncateSync(join(root, "content/posts/big.md"), 64 * 1024 * 1024);
    const { stderr, error } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(error).toBeUndefined();
    expect(stderr).toContain("content/posts/big.md: it is over the 4194304-byte limit; left out");
    expect(config(root).baseUrl).toBe("https://x.example.org");
  }, 30_000);
});

describe("the registries init --detect writes", () => {
  it("stand alone: a minimal Astro site loads and lints clean, naming no demo article or guide", async () => {
    const root = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/premier.md": post("Premier"),
      "src/content/posts/second.md": post("Second"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result, stderr).toBeDefined();
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(lint.counts.articles).toBe(2);
    const glossary = readFileSync(join(root, "content/glossary.yaml"), "utf8");
    const demo = readdirSync(join(demoPublication(), "content/articles/fr"))
      .concat(readdirSync(join(demoPublication(), "content/guides/fr")))
      .map((f) => f.replace(/\.md$/, ""));
    for (const file of readdirSync(join(root, "content"), { recursive: true }).map(String))
      if (/\.(yaml|json)$/.test(file)) {
        const text = readFileSync(join(root, "content", file), "utf8");
        for (const slug of demo) expect(text, `${file} names ${slug}`).not.toContain(slug);
      }
    expect(parseYaml(glossary).every((e: { guide: unknown }) => e.guide === null)).toBe(true);
    expect(parseYaml(readFileSync(join(root, "content/claim-reviews.yaml"), "utf8")).entries).toEqual([]);
  });

  it("say which topics the documents name that the written content/topics.yaml lacks", async () => {
    const root = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/premier.md": post("Premier", "topics: [credit, jardinage]"),
      "src/content/posts/_brouillon.md": post("Brouillon"),
    });
    const { result } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.documents).toEqual([expect.objectContaining({ files: 1, slugs: ["premier"] })]);
    expect(result?.unmapped.find((u) => u.startsWith("topics:"))).toContain("lacks (jardinage)");
    expect(readFileSync(join(root, "risk.config.yaml"), "utf8")).toContain("# TODO topics:");
  });

  it("keep a glossary's link to a guide the site has, at the site's address for it", async () => {
    const root = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/premier.md": post("Premier"),
      "src/content/guides/lire-les-spreads.md": post("Lire les spreads"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const glossary = parseYaml(readFileSync(join(root, "content/glossary.yaml"), "utf8"));
    const hy = glossary.find((e: { slug: string }) => e.slug === "spread-high-yield");
    expect(hy.guide).toBe("lire-les-spreads");
    expect(hy.atlas.guides).toEqual([expect.objectContaining({ href: "/guides/lire-les-spreads/" })]);
    expect(hy.atlas.articles).toEqual([]);
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("are never written when the site has them in the other format (.json)", async () => {
    const root = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/premier.md": post("Premier", "topics: [maison]"),
      "content/topics.json": JSON.stringify([{ slug: "maison", label: "Maison", blurb: "Les sujets de la maison." }]),
      "content/editorial/changelog.json": "[]",
    });
    const { result } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(existsSync(join(root, "content/topics.yaml"))).toBe(false);
    expect(existsSync(join(root, "content/editorial/changelog.yaml"))).toBe(false);
    expect(result?.copied).not.toContain("content/topics.yaml");
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  for (const style of ["astro", "hugo", "jekyll"] as const)
    it(`read a ${style} site holding the demo's corpus, which lints without an error`, async () => {
      const root = siteFromDemo(style);
      const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
      expect(result, stderr).toBeDefined();
      const lint = await runLint({ publication: root, json: true });
      expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
      expect(lint.counts.articles).toBe(7);
      const glossary = parseYaml(readFileSync(join(root, "content/glossary.yaml"), "utf8"));
      expect(glossary.filter((e: { guide: unknown }) => e.guide).length).toBeGreaterThan(0);
    }, 60_000);
});

describe("frontmatter keys that name a page", () => {
  it("Hugo's and Astro's slug: slug: {key: slug}, the file name standing in where a file has none", async () => {
    const hugo = site({
      "hugo.toml": "",
      "content/posts/a.md": hugoPost("A", 'slug = "article-a"'),
      "content/posts/b.md": hugoPost("B"),
    });
    const astro = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/a.md": post("A", "slug: article-a"),
      "src/content/posts/b.md": post("B"),
    });
    for (const root of [hugo, astro]) {
      const d = detectSite(root);
      expect(d.content.slug).toEqual({ key: "slug" });
      expect(d.content.frontmatter.ignore).not.toContain("slug");
      expect(d.documents[0]!.slugs).toEqual(["article-a", "b"]);
      await captured(() => runInitDetect({ dir: root, json: false }));
      const lint = await runLint({ publication: root, json: true });
      expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    }
  });

  it("Hugo's url and Jekyll's and Eleventy's permalink: declared, with a notice that those pages must be checked", () => {
    // An address the generator computes from placeholders: declared, and said.
    const sites = {
      url: site({ "hugo.toml": "", "content/posts/a.md": hugoPost("A", 'url = "/ailleurs/:slug/"') }),
      permalink: site({ "_config.yml": "", "_posts/2026-09-01-a.md": post("A", "permalink: /ailleurs/:title/") }),
      eleventy: site({
        ".eleventy.js": "module.exports = {};\n",
        "posts/a.md": post("A", 'permalink: "/x/{{ page.fileSlug }}/"'),
      }),
    };
    for (const [name, root] of Object.entries(sites)) {
      const key = name === "url" ? "url" : "permalink";
      const d = detectSite(root);
      expect(d.content.frontmatter.ignore, name).toContain(key);
      expect(d.content.frontmatter.address, name).toBeUndefined();
      const notice = d.unmapped.find((u) => u.startsWith(`${key}:`));
      expect(notice, name).toMatch(/1 page\(s\) give their own address \([^)]*a\.md\).*urls: pattern/);
    }
    // A path as written: the page's address.
    const literal = detectSite(
      site({ "_config.yml": "", "_posts/2026-09-01-a.md": post("A", "permalink: /ailleurs/a/") }),
    );
    expect(literal.content.frontmatter.address).toBe("permalink");
  });
});

describe("Hugo languages with content folders of their own (contentDir)", () => {
  it("read each folder's pages in its language, at addresses below the folder, as the Hugo docs' example builds them", () => {
    const root = site({
      "hugo.toml":
        'baseURL = "https://ex.example.org/"\ndefaultContentLanguage = "fr"\n[languages.fr]\n  weight = 1\n  contentDir = "content/french"\n[languages.en]\n  weight = 2\n  contentDir = "content/english"\n',
      "content/french/posts/dette.md": hugoPost("Dette"),
      "content/english/posts/dette.md": hugoPost("Debt"),
    });
    const d = detectSite(root);
    expect(d.content.articles).toEqual({
      fr: ["content/french/posts/**/[^_]*.md"],
      en: ["content/english/posts/**/[^_]*.md"],
    });
    expect(d.urls.article).toEqual({ fr: "/posts/{slug}/", en: "/en/posts/{slug}/" });
  });
});

describe("a Hugo page's own url", () => {
  it("is published as the folder Hugo builds when it names no file, and as written when it does", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://ex.example.org/"\n',
      "content/posts/energie.md": hugoPost("Énergie", 'url = "/analyses/energie-2026"'),
      "content/posts/flux.md": hugoPost("Flux", 'url = "/flux/rss.xml"'),
      "content/posts/dette.md": hugoPost("Dette"),
    });
    expect(detectSite(root).content.frontmatter.address).toBe("url");
    await captured(() => runInitDetect({ dir: root, json: false }));
    const p = await loadPublication(nodeFs, root);
    const addresses = Object.fromEntries(p.articles.map((a) => [a.slug, a.path]));
    expect(addresses).toMatchObject({ energie: "/analyses/energie-2026/", flux: "/flux/rss.xml" });
  });
});

describe("Hugo pages in a subfolder of their section", () => {
  it("are published at Hugo's address, the subfolder in it ({folder}), the pages at the section's top where they were", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/dette.md": hugoPost("Dette"),
      "content/posts/2026/taux.md": hugoPost("Taux"),
      "content/posts/2026/q1/spread/index.md": hugoPost("Spread"),
      "content/posts/2026/q1/spread/note.md": hugoPost("Une ressource du bundle"),
      "content/posts/2026/flux.md": hugoPost("Flux", 'slug = "flux-mars"'),
      "content/posts/2026/energie.md": hugoPost("Énergie", 'url = "/analyses/energie/"'),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.urls.article, stderr).toEqual({ fr: "/posts/{folder}/{slug}/" });
    expect(result?.unmapped.filter((u) => u.startsWith("urls.article"))).toEqual([]);
    const p = await loadPublication(nodeFs, root);
    // Each is identified by the folders it is filed in and its slug; one with its own address too.
    expect(Object.fromEntries(p.articles.map((a) => [a.slug, a.path]))).toEqual({
      dette: "/posts/dette/",
      "2026-taux": "/posts/2026/taux/",
      "2026-q1-spread": "/posts/2026/q1/spread/",
      "2026-flux-mars": "/posts/2026/flux-mars/",
      "2026-energie": "/analyses/energie/",
    });
  });

  it("filed by year under one file name are two pages, each identified by its folders and slug, which adding a page never changes", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/dette.md": hugoPost("Dette"),
      "content/posts/2025/bilan.md": hugoPost("Bilan 2025"),
      "content/posts/2025/bilan.en.md": hugoPost("Review 2025"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const ids = async () =>
      (await loadPublication(nodeFs, root)).articles.map((a) => [a.lang, a.slug, a.path, a.meta.translationOf ?? null]);
    const before = await ids();
    expect(before).toContainEqual(["fr", "2025-bilan", "/posts/2025/bilan/", null]);
    // Hugo serves both at their folders (hugo 0.111: public/posts/2025/bilan/, public/posts/2026/bilan/).
    mkdirSync(join(root, "content/posts/2026"), { recursive: true });
    writeFileSync(join(root, "content/posts/2026/bilan.md"), hugoPost("Bilan 2026"));
    const after = await ids();
    expect(after).toEqual(
      expect.arrayContaining([
        ["fr", "dette", "/posts/dette/", null],
        ["fr", "2025-bilan", "/posts/2025/bilan/", null],
        ["fr", "2026-bilan", "/posts/2026/bilan/", null],
        ["en", "2025-bilan", "/en/posts/2025/bilan/", "2025-bilan"],
      ]),
    );
    expect(after).toHaveLength(4);
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("that still share an identity are refused (exit 3), naming both files and what to do", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/2025/bilan.md": hugoPost("Bilan 2025"),
      "content/posts/2025-bilan.md": hugoPost("Bilan de 2025"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const { status, stderr } = exitOf(await loadPublication(nodeFs, root).catch((e: unknown) => e));
    expect(status, stderr).toBe(3);
    expect(stderr).toMatch(/content\/posts\/(2025-bilan|2025\/bilan)\.md/);
    expect(stderr).toMatch(/content\/posts\/(2025\/bilan|2025-bilan)\.md has the same identity "2025-bilan"/);
    expect(stderr).toContain("give one of them its own slug");
  });

  it("under a pattern without {folder} are refused as one page, saying that {folder} tells them apart", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/dette.md": hugoPost("Dette"),
      "content/posts/2025/bilan.md": hugoPost("Bilan 2025"),
      "content/posts/2026/bilan.md": hugoPost("Bilan 2026"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const file = join(root, "risk.config.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("/posts/{folder}/{slug}/", "/posts/{slug}/"));
    const { status, stderr } = exitOf(await loadPublication(nodeFs, root).catch((e: unknown) => e));
    expect(status, stderr).toBe(3);
    expect(stderr).toContain(
      'content/posts/2026/bilan.md: content/posts/2025/bilan.md has the same slug "bilan"; each article needs its own (its address shows no date to tell them apart); if your site serves each at an address that shows its folders (/posts/2026/bilan/), as Hugo and Eleventy do by default, write {folder} before {slug} in urls.article.fr',
    );
  });

  it("filed in year folders only are read by one glob from the section, a later year's pages with them", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/2025/bilan.md": hugoPost("Bilan 2025"),
      "content/posts/2026/taux.md": hugoPost("Taux"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.content.articles?.fr, stderr).toEqual(["content/posts/**/[^_]*.md"]);
    expect(result?.urls.article).toEqual({ fr: "/posts/{folder}/{slug}/" });
    expect(result?.unmapped.filter((u) => u.startsWith("urls.article"))).toEqual([]);
    mkdirSync(join(root, "content/posts/2027"));
    writeFileSync(join(root, "content/posts/2027/dette.md"), hugoPost("Dette 2027"));
    const p = await loadPublication(nodeFs, root);
    expect(p.articles.map((a) => a.path).sort()).toEqual([
      "/posts/2025/bilan/",
      "/posts/2026/taux/",
      "/posts/2027/dette/",
    ]);
  });

  it("are refused (exit 3) in a folder an address cannot hold as written, naming the page", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/dette.md": hugoPost("Dette"),
      "content/posts/2026/taux.md": hugoPost("Taux"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    mkdirSync(join(root, "content/posts/Mes Notes"));
    writeFileSync(join(root, "content/posts/Mes Notes/bilan.md"), hugoPost("Bilan"));
    const { status, stderr } = exitOf(await loadPublication(nodeFs, root).catch((e: unknown) => e));
    expect(status, stderr).toBe(3);
    expect(stderr).toContain(
      'content/posts/Mes Notes/bilan.md: the page\'s address shows its folder ({folder} in urls.article.fr), and the folder "Mes Notes"',
    );
  });

  it("are said under # TODO when they sit in another section than the pattern's", () => {
    const d = detectSite(
      site({
        "hugo.toml": 'baseURL = "https://h.example.org/"\n',
        "content/notes/a.md": hugoPost("A"),
        "content/posts/2026/b.md": hugoPost("B"),
      }),
    );
    expect(d.urls.article).toEqual({ fr: "/notes/{slug}/" });
    expect(d.unmapped.find((u) => u.startsWith("urls.article.fr:"))).toContain(
      "content/posts/2026/b.md (/posts/2026/b/)",
    );
  });

  it("have {folder} only as a whole segment of an article's or a guide's pattern", async () => {
    const { UrlsConfig } = await import("../../core/inputs/schemas.ts");
    const ok = (urls: unknown) => UrlsConfig.safeParse(urls).success;
    expect(ok({ article: { fr: "/posts/{folder}/{slug}/" } })).toBe(true);
    expect(ok({ guide: { en: "/{folder}/{slug}.html" } })).toBe(true);
    expect(ok({ article: { fr: "/posts/x{folder}/{slug}/" } })).toBe(false);
    expect(ok({ article: { fr: "/posts/{folder}{slug}/" } })).toBe(false);
    expect(ok({ article: { fr: "/{folder}/{folder}/{slug}/" } })).toBe(false);
    expect(ok({ source: "/sources/{folder}/{slug}/" })).toBe(false);
  });
});

describe("a Jekyll site", () => {
  it("leaves _drafts out of the globs and the addresses, reads published: false as a draft, and publishes a collection without its _", async () => {
    const root = site({
      "_config.yml": "title: x\n",
      "_posts/2026-09-01-premier.md": md("title: Premier\ndescription: Un article.\nlayout: post"),
      "_posts/2026-09-02-cache.md": md("title: Caché\ndescription: Pas publié.\npublished: false"),
      "_drafts/brouillon.md": md("title: Brouillon\ndescription: Un brouillon."),
      "_guides/lire.md": md("title: Lire\ndescription: Un guide.\ndate: 2026-09-01"),
    });
    const d = detectSite(root);
    expect(JSON.stringify(d.content)).not.toContain("_drafts");
    // Jekyll's default permalink (date): /:categories/:year/:month/:day/:title.html, no category here.
    expect(d.urls).toEqual({
      article: { fr: "/{year}/{month}/{day}/{slug}.html" },
      guide: { fr: "/guides/{slug}.html" },
    });
    expect(d.content.frontmatter.published).toBe("published");
    expect(d.content.frontmatter.map).not.toHaveProperty("published");
    expect(d.documents[0]!.slugs).toEqual(["premier"]);
    await captured(() => runInitDetect({ dir: root, json: false }));
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(lint.counts.articles).toBe(1);
  });
});

describe("Hugo's config folder split into one file per key", () => {
  it("reads languages and permalinks from config/_default/languages.toml and permalinks.toml", () => {
    const root = site({
      "config/_default/hugo.toml":
        'baseURL = "https://ex.example.org/"\ndefaultContentLanguage = "en"\ndefaultContentLanguageInSubdir = true\n',
      "config/_default/languages.toml": "[en]\n  weight = 1\n[fr]\n  weight = 2\n",
      "config/_default/permalinks.toml": 'posts = "/:year/:month/:slugorfilename/"\n',
      "content/posts/dette-us.fr.md": hugoPost("Dette"),
      "content/posts/dette-us.en.md": hugoPost("Debt"),
    });
    const d = detectSite(root);
    expect(d.urls.article).toEqual({ fr: "/fr/{year}/{month}/{slug}/", en: "/en/{year}/{month}/{slug}/" });
    expect(d.siteAddress).toBe("https://ex.example.org");
  });
});

describe("a Jekyll collection's own permalink", () => {
  it("gives its pages' addresses, over the site-wide one", () => {
    const root = site({
      "_config.yml":
        "url: https://ex.example.org\ncollections:\n  guides:\n    output: true\n    permalink: /apprendre/:name/\n",
      "_posts/2026-01-02-dette.md": md("title: Dette\ndescription: Un article."),
      "_guides/lire-les-spreads.md": md("title: Lire\ndescription: Un guide.\ndate: 2026-01-01"),
    });
    expect(detectSite(root).urls.guide).toEqual({ fr: "/apprendre/{slug}/" });
    const withCollection = site({
      "_config.yml": "collections:\n  guides:\n    output: true\n    permalink: /:collection/:path:output_ext\n",
      "_posts/2026-01-02-dette.md": md("title: Dette\ndescription: Un article."),
      "_guides/lire.md": md("title: Lire\ndescription: Un guide.\ndate: 2026-01-01"),
    });
    expect(detectSite(withCollection).urls.guide).toEqual({ fr: "/guides/{slug}.html" });
  });

  // What `jekyll build` (4.3) serves for _guides/lire.md, _guides/2026/x.md and
  // _guides/2026/q1/y.md: /guides/lire.html, /guides/2026/x.html and /guides/2026/q1/y.html by
  // default (/:collection/:path:output_ext); /guides/2026/x/ under `permalink: pretty`; /g/x/
  // under the collection's `permalink: /g/:name/` (:name is the file's name alone).
  it("keeps a page's subfolders in its address where :path shows them, at Jekyll's address", async () => {
    const guides = {
      "_posts/2026-01-02-dette.md": md("title: Dette\ndescription: Un article."),
      "_guides/lire.md": md("title: Lire\ndescription: Un guide.\ndate: 2026-01-01"),
      "_guides/2026/x.md": md("title: X\ndescription: Un guide.\ndate: 2026-01-01"),
      "_guides/2026/q1/y.md": md("title: Y\ndescription: Un guide.\ndate: 2026-01-01"),
    };
    const collection = "collections:\n  guides:\n    output: true\n";
    const byDefault = site({ "_config.yml": collection, ...guides });
    const d = detectSite(byDefault);
    expect(d.content.guides).toEqual({ fr: ["_guides/**/*.md"], en: [] });
    expect(d.urls.guide).toEqual({ fr: "/guides/{folder}/{slug}.html" });
    await captured(() => runInitDetect({ dir: byDefault, json: false }));
    const p = await loadPublication(nodeFs, byDefault);
    expect(p.guides.map((g) => [g.slug, g.path]).sort()).toEqual([
      ["2026-q1-y", "/guides/2026/q1/y.html"],
      ["2026-x", "/guides/2026/x.html"],
      ["lire", "/guides/lire.html"],
    ]);
    const pretty = site({ "_config.yml": `permalink: pretty\n${collection}`, ...guides });
    expect(detectSite(pretty).urls.guide).toEqual({ fr: "/guides/{folder}/{slug}/" });
    const ownPath = site({ "_config.yml": `${collection}    permalink: /:collection/:path/\n`, ...guides });
    expect(detectSite(ownPath).urls.guide).toEqual({ fr: "/guides/{folder}/{slug}/" });
    const ownName = site({ "_config.yml": `${collection}    permalink: /g/:name/\n`, ...guides });
    expect(detectSite(ownName).urls.guide).toEqual({ fr: "/g/{slug}/" });
    // Filed in year folders only: read from the collection, so a later year's guides are read too.
    const yearsOnly = site({
      "_config.yml": collection,
      "_posts/2026-01-02-dette.md": guides["_posts/2026-01-02-dette.md"],
      "_guides/2026/x.md": guides["_guides/2026/x.md"],
    });
    expect(detectSite(yearsOnly).content.guides).toEqual({ fr: ["_guides/**/*.md"], en: [] });
    expect(detectSite(yearsOnly).urls.guide).toEqual({ fr: "/guides/{folder}/{slug}.html" });
  });
});

describe("Jekyll's :categories", () => {
  it("takes the folder above _posts, and says when posts in other folders would get another prefix", () => {
    const permalink = "permalink: /:categories/:year/:month/:day/:title:output_ext\n";
    const obligations = md("title: Obligations\ndescription: Un article.");
    const alone = detectSite(
      site({ "_config.yml": permalink, "finance/_posts/2026-03-03-obligations.md": obligations }),
    );
    expect(alone.urls.article).toEqual({ fr: "/finance/{year}/{month}/{day}/{slug}.html" });
    expect(alone.unmapped.join("\n")).not.toContain(":categories");
    const mixed = detectSite(
      site({
        "_config.yml": permalink,
        "finance/_posts/2026-03-03-obligations.md": obligations,
        "_posts/2026-03-04-autre.md": md("title: Autre\ndescription: Un article."),
      }),
    );
    expect(mixed.unmapped.join("\n")).toContain(
      "urls.article.fr: Jekyll's :categories puts the folders above _posts in the address, and these posts sit in folders that give other ones (_posts/**/*.md, finance/_posts/**/*.md)",
    );
  });
});

describe("Jekyll posts sharing a title on different dates", () => {
  const files = (permalink: string) => ({
    "_config.yml": `permalink: ${permalink}\n`,
    "_posts/2026-01-01-point-mensuel.md": md("title: Point de janvier\ndescription: Un point."),
    "_posts/2026-02-01-point-mensuel.md": md("title: Point de février\ndescription: Un point."),
    "en/_posts/2026-02-01-point-mensuel.md": md("title: February\ndescription: A review."),
  });

  it("are two pages when their address shows the date: the later one told apart by that date", async () => {
    const root = site(files("date"));
    await captured(() => runInitDetect({ dir: root, json: false }));
    const p = await loadPublication(nodeFs, root);
    expect(p.articles.map((a) => [a.lang, a.slug, a.path, a.meta.translationOf ?? null])).toEqual([
      ["fr", "point-mensuel", "/2026/01/01/point-mensuel.html", null],
      ["fr", "point-mensuel-2026-02-01", "/2026/02/01/point-mensuel.html", null],
      ["en", "point-mensuel", "/en/2026/02/01/point-mensuel.html", "point-mensuel-2026-02-01"],
    ]);
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("are one page when their address shows no date: refused, naming both files", async () => {
    const root = site(files("/:title/"));
    await captured(() => runInitDetect({ dir: root, json: false }));
    const { error } = await captured(() => runLint({ publication: root, json: true }));
    const { status, stderr } = exitOf(error);
    expect(status).toBe(3);
    expect(stderr).toContain("_posts/2026-02-01-point-mensuel.md");
    expect(stderr).toContain('_posts/2026-01-01-point-mensuel.md has the same slug "point-mensuel"');
  });
});

describe("the site's address", () => {
  it("is read from Hugo's baseURL, Jekyll's url and baseurl, Astro's site, Eleventy's global data and pathPrefix; the demo's stays, with a TODO, when there is none or it cannot be published", async () => {
    const cases: [Record<string, string>, string | undefined][] = [
      [
        {
          "hugo.toml": 'baseURL = "https://hugo.example.net/"\n',
          "content/posts/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        "https://hugo.example.net",
      ],
      [
        {
          "_config.yml": "url: https://jekyll.example.net\nbaseurl: /blog/\n",
          "_posts/2026-09-01-a.md": md("title: A\ndescription: D."),
        },
        "https://jekyll.example.net/blog",
      ],
      [
        {
          "astro.config.mjs": "export default defineConfig({ site: 'https://astro.example.net/' });\n",
          "src/content/blog/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        "https://astro.example.net",
      ],
      [
        {
          "astro.config.mjs": "export default defineConfig({ site: 'https://astro.example.net', base: '/fr/' });\n",
          "src/content/blog/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        "https://astro.example.net/fr",
      ],
      // Eleventy keeps no address of its own: its base blog writes it in the global data (`metadata`),
      // and every page is served under the config's pathPrefix.
      [
        {
          "eleventy.config.js":
            'export default function () {}\nexport const config = { dir: { input: "content" }, pathPrefix: "/blog/" };\n',
          "content/_data/metadata.js":
            'export default {\n\ttitle: "Un blog",\n\tauthor: { name: "A", url: "https://a.example.net/moi/" },\n\turl: "https://eleventy.example.net/",\n\tlanguage: "fr",\n};\n',
          "content/blog/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        "https://eleventy.example.net/blog",
      ],
      [
        {
          ".eleventy.js": 'module.exports = () => ({ dir: { input: "src", data: "data" } });\n',
          "src/data/site.json": '{ "title": "Un blog", "baseUrl": "https://eleventy.example.org" }\n',
          "src/posts/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        "https://eleventy.example.org",
      ],
      // A data file outside the input folder is not the site's; a file without an address gives none.
      [
        {
          ".eleventy.js": 'module.exports = () => ({ dir: { input: "src", data: "../elsewhere" } });\n',
          "elsewhere/site.json": '{ "url": "https://elsewhere.example.org" }\n',
          "src/posts/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        undefined,
      ],
      [
        {
          ".eleventy.js": "module.exports = () => ({});\n",
          "_data/metadata.json": '{ "title": "Un blog", "url": 42 }\n',
          "posts/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        undefined,
      ],
      // A password, or a quote, is never copied into a published address.
      [
        {
          "hugo.toml": 'baseURL = "https://user:secret@hugo.example.net/"\n',
          "content/posts/a.md": md("title: A\ndescription: D.\ndate: 2026-09-01"),
        },
        undefined,
      ],
      [{ "_config.yml": "title: x\n", "_posts/2026-09-01-a.md": md("title: A\ndescription: D.") }, undefined],
    ];
    for (const [files, address] of cases) {
      const root = site(files);
      const d = detectSite(root);
      expect(d.siteAddress, Object.keys(files)[0]).toBe(address);
      await captured(() => runInitDetect({ dir: root, json: false }));
      const written = readFileSync(join(root, "risk.config.yaml"), "utf8");
      expect(config(root).baseUrl, Object.keys(files)[0]).toBe(address ?? "https://risques.example.org");
      if (!address) expect(written).toMatch(/# TODO baseUrl: your site's address was not found/);
      expect(written).not.toContain("secret");
    }
  });
});

describe("a Jekyll site's permalink", () => {
  it("gives the posts' addresses, dates in the site's timezone, as Jekyll computes them", async () => {
    const root = site({
      "_config.yml": "title: x\npermalink: /:year/:month/:day/:title/\ntimezone: Asia/Tokyo\n",
      "_posts/2026-3-5-second.md": md("title: Second\ndescription: Un article.\ndate: 2026-03-05 10:00:00 +0100"),
      // 20:30 UTC on March 5th is March 6th in Tokyo: Jekyll's address says 06.
      "_posts/2026-03-05-tard.md": md("title: Tard\ndescription: Un article.\ndate: 2026-03-05 20:30:00 +0000"),
      "_posts/2026-3-7-seul.md": md("title: Seul\ndescription: Un article."),
    });
    const d = detectSite(root);
    expect(d.urls).toEqual({ article: { fr: "/{year}/{month}/{day}/{slug}/" }, timezone: "Asia/Tokyo" });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const { loadPublication } = await import("../../core/inputs/publication.ts");
    const { nodeFs } = await import("../../cli/runtime/node.ts");
    const pub = await loadPublication(nodeFs, root);
    expect(Object.fromEntries(pub.articles.map((a) => [a.slug, a.path]))).toEqual({
      second: "/2026/03/05/second/",
      tard: "/2026/03/06/tard/",
      seul: "/2026/03/07/seul/",
    });
  });

  it("translates the named styles and custom patterns, and says what it cannot write", () => {
    const urlOf = (config: string, extra = "") => {
      const d = detectSite(
        site({ "_config.yml": config, "_posts/2026-03-05-a.md": md(`title: A\ndescription: Un article.${extra}`) }),
      );
      return { url: d.urls.article?.fr, todo: d.unmapped.find((u) => u.startsWith("urls.article.fr:")) };
    };
    expect(urlOf("permalink: pretty\ntimezone: UTC\n").url).toBe("/{year}/{month}/{day}/{slug}/");
    expect(urlOf("permalink: date\n").url).toBe("/{year}/{month}/{day}/{slug}.html");
    expect(urlOf("permalink: none\n").url).toBe("/{slug}.html");
    expect(urlOf("permalink: /blog/:year/:slug\n").url).toBe("/blog/{year}/{slug}");
    const months = urlOf("permalink: /:year/:i_month/:title/\n");
    expect(months.todo).toMatch(/permalink "\/:year\/:i_month\/:title\/".*:i_month cannot be written/);
    const categories = urlOf("permalink: pretty\n", "\ncategories: [marchés]");
    expect(categories.todo).toMatch(/permalink "pretty" \(\/:categories.*\).*:categories cannot be written/);
    // Without a timezone in _config.yml, Jekyll dates addresses in the building machine's zone.
    const d = detectSite(site({ "_config.yml": "", "_posts/2026-03-05-a.md": md("title: A\ndescription: B.") }));
    expect(d.urls.timezone).toBeUndefined();
    expect(d.unmapped.some((u) => u.startsWith("urls.timezone:"))).toBe(true);
  });

  it("is refused in a urls: pattern with another placeholder than {slug}, {year}, {month} and {day}", async () => {
    const { UrlsConfig } = await import("../../core/inputs/schemas.ts");
    expect(UrlsConfig.safeParse({ article: { fr: "/{year}/{month}/{day}/{slug}/" } }).success).toBe(true);
    expect(UrlsConfig.safeParse({ article: { fr: "/{year}/{week}/{slug}/" } }).success).toBe(false);
    expect(UrlsConfig.safeParse({ source: "/{year}/{slug}/" }).success).toBe(false);
  });
});

describe("a file whose name gives a slug risk-cli cannot publish", () => {
  it("is listed under # TODO, and refused saying the slug comes from the file name and which key to add, never to rename it", async () => {
    const sites = [
      {
        rel: "content/posts/Spread BTP été.fr.md",
        slug: "spread-btp-ete",
        root: site({
          "hugo.toml": "",
          "content/posts/Spread BTP été.fr.md": hugoPost("Spread"),
          "content/posts/Spread BTP été.en.md": hugoPost("Spread"),
          "content/posts/autre.fr.md": hugoPost("Autre"),
        }),
        others: ["content/posts/Spread BTP été.en.md"],
      },
      {
        rel: "_posts/2026-03-01-Mon Article Été.md",
        slug: "mon-article-ete",
        root: site({
          "_config.yml": "title: x\n",
          "_posts/2026-03-01-Mon Article Été.md": md("title: Mon article\ndescription: Un article."),
        }),
        others: [],
      },
      {
        rel: "src/content/posts/Énergie-TTF.mdx",
        slug: "energie-ttf",
        root: site({
          "astro.config.mjs": "export default {};\n",
          "src/content/posts/Énergie-TTF.mdx": post("Énergie"),
          "src/content/posts/autre.md": post("Autre"),
        }),
        others: [],
      },
    ];
    for (const { rel, slug, root, others } of sites) {
      const todo = detectSite(root).unmapped.find((u) => u.startsWith(`${rel}:`));
      expect(todo, rel).toMatch(/comes from the file name/);
      expect(todo, rel).toContain(`slug: ${slug}`);
      await captured(() => runInitDetect({ dir: root, json: false }));
      expect(readFileSync(join(root, "risk.config.yaml"), "utf8")).toContain(`# TODO ${rel}: the slug`);
      const refused = await runLint({ publication: root, json: true }).catch((e: unknown) => e);
      expect(refused, rel).toMatchObject({ code: "E_INPUT" });
      const { stderr, status } = exitOf(refused);
      expect(status).toBe(3);
      expect(stderr).toContain("comes from the file name");
      expect(stderr).toContain(`slug: ${slug}`);
      expect(stderr).not.toMatch(/rename the (file|key)/);
      // The key it names is the one the written config reads: with it, the site lints clean.
      for (const file of [rel, ...others]) {
        const text = readFileSync(join(root, file), "utf8");
        writeFileSync(
          join(root, file),
          text.startsWith("+++")
            ? text.replace("+++\n", `+++\nslug = "${slug}"\n`)
            : text.replace("---\n", `---\nslug: ${slug}\n`),
        );
      }
      const lint = await runLint({ publication: root, json: true });
      expect(
        lint.findings.filter((f) => f.severity === "error"),
        rel,
      ).toEqual([]);
    }
  });
});

describe("a site whose frontmatter writes times without a zone", () => {
  it("reads them as the generator does: UTC for Jekyll (its timezone only changes how times are shown), Hugo's top-level timeZone in any case, else UTC", async () => {
    const jekyll = site({
      "_config.yml": "title: x\ntimezone: Europe/Paris # how Jekyll shows times, not how it reads them\n",
      "_posts/2026-09-01-premier.md": md("title: Premier\ndescription: Un article.\ndate: 2026-09-01 00:30:00"),
    });
    expect(detectSite(jekyll).content.timezone).toBe("UTC");
    await captured(() => runInitDetect({ dir: jekyll, json: false }));
    const lint = await runLint({ publication: jekyll, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);

    const zoneOf = (files: Record<string, string>) =>
      detectSite(site({ ...files, "content/posts/a.md": hugoPost("A") })).content.timezone;
    expect(zoneOf({ "hugo.toml": 'title = "x"\ntimeZone = "America/New_York"\n' })).toBe("America/New_York");
    expect(zoneOf({ "hugo.toml": 'timezone = "Asia/Tokyo"\n' })).toBe("Asia/Tokyo");
    expect(zoneOf({ "hugo.yaml": "TimeZone: Europe/Oslo\n" })).toBe("Europe/Oslo");
    // A theme parameter of the same name is not Hugo's setting; a zone Hugo would refuse is no guess.
    expect(zoneOf({ "hugo.toml": 'title = "x"\n[params]\ntimeZone = "Asia/Tokyo"\n' })).toBe("UTC");
    expect(zoneOf({ "hugo.toml": 'timeZone = "Mars/Olympus"\n' })).toBeUndefined();
    expect(zoneOf({ "hugo.toml": 'title = "x"\n' })).toBe("UTC");
  });

  it("refuses them at assembly when no zone is named, saying what to write", async () => {
    const plain = site({
      "content/articles/fr/a.md": md("title: A\ndescription: Un article.\ndate: 2026-09-01 10:30:00"),
    });
    await captured(() => runInitDetect({ dir: plain, json: false }));
    await expect(runLint({ publication: plain, json: true })).rejects.toMatchObject({
      code: "E_INPUT",
      message: expect.stringContaining("(field date)"),
    });
    await expect(runLint({ publication: plain, json: true })).rejects.toThrow("content: { timezone: Europe/Paris }");
  });
});

describe("a Hugo site", () => {
  it("reads its pages only: no section page (_index.md), no page-bundle resource", async () => {
    const root = site({
      "hugo.toml": "",
      "content/posts/_index.md": toml('title = "Articles"'),
      "content/posts/simple.md": hugoPost("Simple"),
      "content/posts/bundle/index.md": hugoPost("Bundle"),
      "content/posts/bundle/notes.md": hugoPost("Notes"),
      "content/posts/bundle/annexe/detail.md": hugoPost("Détail"),
    });
    const d = detectSite(root);
    expect(d.documents).toEqual([expect.objectContaining({ kind: "article", lang: "fr", files: 2 })]);
    expect(d.content.articles!.fr).toEqual(["content/posts/[^_]*.md", "content/posts/**/index.md"]);
    const locations = docLocations(ContentConfig.parse(d.content));
    expect(locate("content/posts/simple.md", locations)).not.toBeNull();
    expect(locate("content/posts/bundle/index.md", locations)).not.toBeNull();
    expect(locate("content/posts/other/index.md", locations)).not.toBeNull();
    expect(locate("content/posts/next.md", locations)).not.toBeNull();
    for (const rel of [
      "content/posts/_index.md",
      "content/posts/bundle/notes.md",
      "content/posts/bundle/annexe/detail.md",
    ])
      expect(locate(rel, locations), rel).toBeNull();
    expect(d.urls.article).toEqual({ fr: "/posts/{slug}/" });
    expect(d.leftOut.join("\n")).toContain("content/posts/_index.md");
    expect(d.leftOut.join("\n")).toContain("content/posts/bundle/notes.md");
    await captured(() => runInitDetect({ dir: root, json: false }));
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(lint.counts.articles).toBe(2);
  });

  it("reads languages given by file name (x.fr.md, index.en.md), slugs without the suffix", async () => {
    const root = site({
      "hugo.toml": "",
      "content/posts/_index.fr.md": toml('title = "Articles"'),
      "content/posts/un.fr.md": hugoPost("Un"),
      "content/posts/un.en.md": hugoPost("One"),
      "content/posts/deux/index.fr.md": hugoPost("Deux"),
      "content/posts/deux/index.en.md": hugoPost("Two"),
      "content/posts/deux/notes.fr.md": hugoPost("Notes"),
    });
    const d = detectSite(root);
    expect(d.content.articles).toEqual({
      fr: ["content/posts/[^_]*.fr.md", "content/posts/**/index.fr.md"],
      en: ["content/posts/**/[^_]*.en.md"],
    });
    expect(d.content.slug).toBe("file");
    expect(d.content.translations).toBe("same-slug");
    expect(d.documents.map((x) => x.slugs)).toEqual([
      ["deux", "un"],
      ["deux", "un"],
    ]);
    expect(d.urls.article).toEqual({ fr: "/posts/{slug}/", en: "/en/posts/{slug}/" });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(lint.counts.articles).toBe(2);
  });

  it("pairs translations by file name while the pages' own slugs give their addresses", async () => {
    const root = site({
      "hugo.toml": "",
      "content/posts/dette.fr.md": hugoPost("Dette", 'slug = "dette-us"'),
      "content/posts/dette.en.md": hugoPost("Debt", 'slug = "us-debt"'),
      "content/posts/un.fr.md": hugoPost("Un", 'slug = "un-slug"'),
      "content/posts/un.en.md": hugoPost("One"),
    });
    const d = detectSite(root);
    expect(d.content.slug).toEqual({ key: "slug" });
    expect(d.content.translations).toBe("same-slug");
    expect(d.unmapped.join("\n")).not.toContain("translations:");
    await captured(() => runInitDetect({ dir: root, json: false }));
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(lint.counts.articles).toBe(2);
    const p = await loadPublication(nodeFs, root);
    const en = p.articles.filter((a) => a.lang === "en").map((a) => [a.path, a.meta.translationOf]);
    expect(en).toEqual([
      ["/en/posts/us-debt/", "dette-us"],
      ["/en/posts/un/", "un-slug"],
    ]);
    expect(p.articles.find((a) => a.slug === "dette-us")!.path).toBe("/posts/dette-us/");
  });

  it("pairs pages by the translationKey every language version shares, and keeps x.fr.md French", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://r1.example.org/"\n',
      "content/posts/dette.fr.md": hugoPost("Dette", 'translationKey = "dette"'),
      "content/posts/us-debt.en.md": hugoPost("Debt", 'translationKey = "dette"'),
      "content/posts/seul.en.md": hugoPost("Alone", 'translationKey = "nulle-part"'),
    });
    const d = detectSite(root);
    expect(d.documents.map((x) => [x.lang, x.files])).toEqual([
      ["fr", 1],
      ["en", 2],
    ]);
    expect(d.content.translations).toEqual({ key: "translationKey" });
    expect(d.content.frontmatter.map).toEqual({});
    expect(d.unmapped.join("\n")).toContain("content/posts/seul.en.md");
    await captured(() => runInitDetect({ dir: root, json: false }));
    const lint = await runLint({ publication: root, json: true });
    expect(lint.counts.articles).toBe(1);
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([
      expect.objectContaining({
        code: "missing-source",
        file: "content/posts/seul.en.md",
        line: 5,
        message: expect.stringContaining('no French article has its translationKey "nulle-part"'),
      }),
    ]);
    const p = await loadPublication(nodeFs, root);
    expect(p.articles.find((a) => a.file.endsWith("us-debt.en.md"))!.meta.translationOf).toBe("dette");
  });

  it("refuses two pages with one slug key at the line of the second's key", async () => {
    const root = site({
      "hugo.toml": "",
      "content/posts/a.md": hugoPost("A", 'slug = "meme"'),
      "content/posts/b.md": hugoPost("B", 'slug = "meme"'),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const { error } = await captured(() => runLint({ publication: root, json: true }));
    expect(exitOf(error).stderr).toContain(
      'Cannot read content/posts/b.md:5 (field slug): content/posts/a.md has the same slug "meme"',
    );
  });

  it("never lints clean with a config that reads no French article, naming the config's field", async () => {
    const root = site({ "hugo.toml": "", "content/posts/un.md": hugoPost("Un") });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const file = join(root, "risk.config.yaml");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, text.indexOf("# Read where it lives")));
    const lint = await runLint({ publication: root, json: true });
    expect(lint.ok).toBe(false);
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([
      expect.objectContaining({ code: "no-articles", file: "risk.config.yaml", field: "content.articles" }),
    ]);
    writeFileSync(file, text.replace("content/posts/**/[^_]*.md", "content/billets/**/[^_]*.md"));
    const typo = await runLint({ publication: root, json: true });
    expect(typo.findings.filter((f) => f.severity === "error")).toEqual([
      expect.objectContaining({ code: "no-articles", field: "content.articles.fr", line: expect.any(Number) }),
    ]);
  });

  it("keeps French files without a suffix apart from English ones with it", () => {
    const root = site({
      "hugo.toml": "",
      "content/posts/un.md": hugoPost("Un"),
      "content/posts/un.en.md": hugoPost("One"),
    });
    const d = detectSite(root);
    const locations = docLocations(ContentConfig.parse(d.content));
    expect(locate("content/posts/un.md", locations)).toEqual({ kind: "article", lang: "fr" });
    expect(locate("content/posts/un.en.md", locations)).toEqual({ kind: "article", lang: "en" });
    expect(locate("content/posts/trois.md", locations)).toEqual({ kind: "article", lang: "fr" });
  });
});

describe("a Hugo site's config", () => {
  it("is read from config.yaml, config.json or config/_default/hugo.toml: the generator, timeZone and address", () => {
    const page = hugoPost("Un", 'date = 2026-09-01T10:00:00\nslug = "un"').replace("date = 2026-09-01\n", "");
    for (const [name, text] of [
      ["config.yaml", "baseURL: https://h.example.org/\ntimeZone: Europe/Paris\n"],
      ["config.yml", "baseURL: https://h.example.org/\ntimeZone: Europe/Paris\n"],
      ["config.json", '{"baseURL": "https://h.example.org/", "timeZone": "Europe/Paris"}'],
      ["config/_default/hugo.toml", 'baseURL = "https://h.example.org/"\ntimeZone = "Europe/Paris"\n'],
    ]) {
      const d = detectSite(site({ [name!]: text!, "content/posts/un.md": page }));
      expect([d.generator, d.content.timezone, d.siteAddress], name).toEqual([
        "hugo",
        "Europe/Paris",
        "https://h.example.org",
      ]);
    }
  });

  it("gives a section's addresses by its [permalinks], and says what it cannot write", () => {
    const files = (permalinks: string) => ({
      "hugo.toml": `baseURL = "https://h.example.org/"\n[permalinks]\n${permalinks}\n`,
      "content/posts/un.fr.md": hugoPost("Un", 'slug = "un-slug"'),
      "content/posts/un.en.md": hugoPost("One", 'slug = "one"'),
    });
    const d = detectSite(site(files('posts = "/:year/:month/:slug/"')));
    expect(d.urls.article).toEqual({ fr: "/{year}/{month}/{slug}/", en: "/en/{year}/{month}/{slug}/" });
    const page = detectSite(site(files('[permalinks.page]\nposts = "/:section/:day/:slugorfilename/"')));
    expect(page.urls.article!.fr).toBe("/posts/{day}/{slug}/");
    const title = detectSite(site(files('posts = "/:title/"')));
    expect(title.unmapped.join("\n")).toContain(
      "urls.article.fr: Hugo's permalink \"/:title/\" for posts gives these pages' addresses, and :title cannot be written",
    );
  });

  it("gives a permalink's :year, :month and :day as Hugo does: the date as written, in its own offset", async () => {
    const root = site({
      "hugo.toml":
        'baseURL = "https://h.example.org/"\ntimeZone = "Asia/Tokyo"\n[permalinks]\nposts = "/:year/:month/:day/:filename/"\n',
      "content/posts/nouvel-an.md": hugoPost("Nouvel an").replace("2026-09-01", "2026-01-01T00:30:00+01:00"),
      "content/posts/veille.md": md("title: Veille\ndescription: Un article.\ndate: 2025-12-31T23:30:00-05:00"),
      // No offset: read in the site's timeZone, its day as written.
      "content/posts/tokyo.md": hugoPost("Tokyo").replace("2026-09-01", "2026-03-01T23:30:00"),
      "content/posts/jour.md": hugoPost("Jour"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.urls, stderr).toEqual({ article: { fr: "/{year}/{month}/{day}/{slug}/" } });
    const paths = async () =>
      Object.fromEntries((await loadPublication(nodeFs, root)).articles.map((a) => [a.slug, a.path]));
    expect(await paths()).toEqual({
      "nouvel-an": "/2026/01/01/nouvel-an/",
      veille: "/2025/12/31/veille/",
      tokyo: "/2026/03/01/tokyo/",
      jour: "/2026/09/01/jour/",
    });
    // A zone the config names for the addresses is taken as written.
    const file = join(root, "risk.config.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("\nurls:\n", "\nurls:\n  timezone: UTC\n"));
    expect(await paths()).toMatchObject({ "nouvel-an": "/2025/12/31/nouvel-an/", veille: "/2026/01/01/veille/" });
  });

  it("has its pages' publishDate and expiryDate named under # TODO, with the pages they hold back or remove today", () => {
    const d = detectSite(
      site({
        "hugo.toml": "",
        "content/posts/futur.md": hugoPost("Futur", "publishDate = 2999-01-01"),
        "content/posts/expire.md": hugoPost("Expiré", "expiryDate = 2000-01-01"),
        "content/posts/courant.md": hugoPost("Courant", "expiryDate = 2999-01-01"),
      }),
    );
    const todo = d.unmapped.join("\n");
    expect(todo).toContain(
      "publishDate: Hugo holds a page back until its publishDate; risk-cli does not read it (declared as yours), and these page(s) are concerned today: content/posts/futur.md; risk-cli would publish such a page at once",
    );
    expect(todo).toContain("expiryDate: Hugo removes a page once its expiryDate has passed");
    expect(todo).toContain("concerned today: content/posts/expire.md;");
  });

  it("is named under # TODO when it does not parse, as Jekyll's _config.yml", () => {
    const hugo = detectSite(
      site({ "hugo.toml": 'baseURL = "https://h.example.org/\n', "content/posts/un.md": hugoPost("Un") }),
    );
    expect(hugo.unmapped.join("\n")).toMatch(/^hugo\.toml: invalid TOML \(line 1\)/m);
    const jekyll = detectSite(
      site({
        "_config.yml": "url: [https://j.example.org\n",
        "_posts/2026-09-01-a.md": md("title: A\ndescription: D."),
      }),
    );
    expect(jekyll.unmapped.join("\n")).toMatch(/^_config\.yml: invalid YAML/m);
  });
});

describe("an Eleventy site", () => {
  for (const [file, text] of [
    [".eleventy.js", 'module.exports = function () {\n  return { dir: { input: "src", output: "_site" } };\n};\n'],
    ["eleventy.config.js", 'export const config = { dir: { input: "./src/", includes: "_includes" } };\n'],
  ] as const)
    it(`guesses addresses relative to its input folder (${file})`, () => {
      const root = site({ [file]: text, "src/posts/a.md": post("A"), "notes/todo.md": post("Todo") });
      const d = detectSite(root);
      expect(d.content.articles!.fr).toEqual(["src/posts/**/*.md"]);
      expect(d.urls.article).toEqual({ fr: "/posts/{slug}/" });
    });

  it("keeps the language folders in the addresses, as Eleventy serves them", () => {
    const root = site({
      ".eleventy.js": 'module.exports = () => ({ dir: { input: "src" } });\n',
      "src/fr/articles/energie-hiver.md": post("Énergie"),
      "src/en/articles/gas-winter.md": post("Gas", "translationOf: energie-hiver"),
    });
    const d = detectSite(root);
    expect(d.urls.article).toEqual({ fr: "/fr/articles/{slug}/", en: "/en/articles/{slug}/" });
  });
});

describe("an Eleventy site with pages in subfolders", () => {
  it("publishes them at the address Eleventy serves, their folders in it ({folder}), each identified by its folders and slug", async () => {
    const root = site({
      ".eleventy.js": 'module.exports = () => ({ dir: { input: "src" } });\n',
      "src/posts/2025/bilan.md": post("Bilan 2025"),
      "src/posts/2026/bilan.md": post("Bilan 2026"),
      "src/posts/2026/q1/taux.md": post("Taux"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    // One glob from the section: a later year's pages are read with them.
    expect(result?.content.articles?.fr, stderr).toEqual(["src/posts/**/*.md"]);
    expect(result?.urls.article, stderr).toEqual({ fr: "/posts/{folder}/{slug}/" });
    const p = await loadPublication(nodeFs, root);
    expect(Object.fromEntries(p.articles.map((a) => [a.slug, a.path]))).toEqual({
      "2025-bilan": "/posts/2025/bilan/",
      "2026-bilan": "/posts/2026/bilan/",
      "2026-q1-taux": "/posts/2026/q1/taux/",
    });
  });
});

describe("an Astro collection with pages in subfolders", () => {
  const files = (route: Record<string, string>) => ({
    "astro.config.mjs": "export default {};\n",
    "src/content/posts/dette.md": post("Dette"),
    "src/content/posts/2026/taux.md": post("Taux"),
    "src/content/posts/2026/q1/spread/index.md": post("Spread"),
    ...route,
  });

  it("publishes them at the address a rest route ([...slug].astro) gives, the entry's subfolders in it ({folder})", async () => {
    const root = site({
      ...files({ "src/pages/posts/[...slug].astro": "---\n---\n" }),
      "src/content/posts/2026/flux.md": post("Flux", "slug: flux-mars"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.urls.article, stderr).toEqual({ fr: "/posts/{folder}/{slug}/" });
    // Astro takes a slug key as the whole id, its subfolders left out: said.
    expect(result?.unmapped.find((u) => u.startsWith("urls.article.fr:"))).toContain(
      "name their slug (src/content/posts/2026/flux.md (/posts/flux-mars/)), which Astro takes as the whole id",
    );
    const p = await loadPublication(nodeFs, root);
    expect(Object.fromEntries(p.articles.map((a) => [a.slug, a.path]))).toMatchObject({
      dette: "/posts/dette/",
      "2026-taux": "/posts/2026/taux/",
      "2026-q1-spread": "/posts/2026/q1/spread/",
    });
  });

  it("keeps the pattern and says so under # TODO when the route is another one ([slug].astro) or there is none", () => {
    for (const [route, said] of [
      [{ "src/pages/posts/[slug].astro": "---\n---\n" }, "src/pages/posts/ holds a route other than [...slug].astro"],
      [{}, "src/pages/posts/ holds no route"],
    ] as const) {
      const d = detectSite(site(files(route)));
      expect(d.urls.article).toEqual({ fr: "/posts/{slug}/" });
      const todo = d.unmapped.find((u) => u.startsWith("urls.article.fr:"));
      expect(todo).toContain("2 page(s) sit in subfolders of their collection");
      expect(todo).toContain(said);
    }
  });
});

describe("an Astro collection with a language folder", () => {
  // Astro's id of src/content/posts/fr/2026/bilan.md is fr/2026/bilan: a rest route
  // (src/pages/posts/[...slug].astro) serves it at /posts/fr/2026/bilan/.
  const files = (src: string, extra: Record<string, string>) => ({
    [`${src}/content/posts/fr/taux.md`]: post("Taux"),
    [`${src}/content/posts/fr/2026/bilan.md`]: post("Bilan"),
    [`${src}/content/posts/en/taux.md`]: post("Rates"),
    ...extra,
  });

  it("reads each language folder as its language, and links the pages at a rest route's address, the language folder in it", async () => {
    for (const [src, config] of [
      ["src", "export default {};\n"],
      [
        "www",
        "import { defineConfig } from 'astro/config';\nexport default defineConfig({\n  srcDir: './www/',\n});\n",
      ],
    ] as const) {
      const root = site(
        files(src, { "astro.config.mjs": config, [`${src}/pages/posts/[...slug].astro`]: "---\n---\n" }),
      );
      const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
      expect(result?.content.articles, src).toEqual({
        fr: [`${src}/content/posts/fr/**/*.md`],
        en: [`${src}/content/posts/en/**/*.md`],
      });
      expect(result?.urls.article, stderr).toEqual({ fr: "/posts/fr/{folder}/{slug}/", en: "/posts/en/{slug}/" });
      expect(result?.unmapped.filter((u) => u.startsWith("urls.article"))).toEqual([]);
      const p = await loadPublication(nodeFs, root);
      expect(p.articles.map((a) => [a.lang, a.slug, a.path, a.meta.translationOf ?? null]).sort()).toEqual([
        ["en", "taux", "/posts/en/taux/", "taux"],
        ["fr", "2026-bilan", "/posts/fr/2026/bilan/", null],
        ["fr", "taux", "/posts/fr/taux/", null],
      ]);
    }
  });

  it("says under # TODO that the ids hold the language folder when no rest route serves them, or when srcDir is not a plain string", () => {
    const noRoute = detectSite(site(files("src", { "astro.config.mjs": "export default {};\n" })));
    for (const [lang, pattern] of [
      ["fr", "/posts/fr/{folder}/{slug}/"],
      ["en", "/posts/en/{slug}/"],
    ]) {
      const todo = noRoute.unmapped.find((u) => u.startsWith(`urls.article.${lang}:`));
      expect(todo).toContain(`sit in the language folder src/content/posts/${lang}/ of their collection`);
      expect(todo).toContain(`${pattern} when the route's parameter is the entry's id`);
    }
    const computed = detectSite(
      site(
        files("www", {
          "astro.config.mjs": "export default { srcDir: new URL('./www', import.meta.url) };\n",
          "www/pages/posts/[...slug].astro": "---\n---\n",
        }),
      ),
    );
    expect(computed.unmapped.join("\n")).toContain(
      "astro.config.mjs: srcDir is not a plain string (srcDir: new URL('./www', import.meta.url)); risk-cli read the collections and routes under src/",
    );
  });
});

describe("what a site's files say to the YAML library", () => {
  it("is never printed raw: a warning is reported with the file's name", () => {
    const root = site({ "posts/a.md": post("A", "extra: !custom valeur") });
    const warnings: unknown[] = [];
    vi.spyOn(process, "emitWarning").mockImplementation((w: unknown) => {
      warnings.push(w);
    });
    const d = detectSite(root);
    expect(warnings).toEqual([]);
    expect(d.unmapped.find((u) => u.startsWith("posts/a.md:"))).toContain("Unresolved tag: !custom");
  });

  it("says a frontmatter is broken, with its file and line, apart from a file that has none", () => {
    const root = site({
      "posts/a.md": post("A"),
      "posts/ouvert.md": "---\ntitle: Ouvert\npubDate: 2026-09-01\n\nUn texte.\n",
      "posts/yaml.md": md("title: Cassé\ndescription: [non fermé\npubDate: 2026-09-01"),
      "posts/toml.md": toml('title = "T"\ndate ='),
      "posts/liste.md": md("- un\n- deux"),
      "posts/sans.md": "Un texte sans frontmatter.\n",
    });
    const d = detectSite(root);
    const notice = (rel: string) => d.unmapped.find((u) => u.startsWith(`${rel}`)) ?? "";
    expect(notice("posts/ouvert.md")).toMatch(/^posts\/ouvert\.md:1: its frontmatter is broken: .*never closed/);
    expect(notice("posts/yaml.md")).toMatch(/^posts\/yaml\.md:4: its frontmatter is broken: invalid YAML/);
    expect(notice("posts/toml.md")).toMatch(/^posts\/toml\.md:3: its frontmatter is broken: invalid TOML/);
    expect(notice("posts/liste.md")).toMatch(/^posts\/liste\.md:2: its frontmatter is broken: .*not a mapping/);
    for (const rel of ["posts/ouvert.md", "posts/yaml.md", "posts/toml.md", "posts/liste.md"])
      expect(notice(rel)).not.toContain("no YAML or TOML frontmatter");
    expect(notice("posts/sans.md")).toBe(
      "posts/sans.md: no YAML or TOML frontmatter; left out (add one, or narrow the globs)",
    );
  });

  it("cannot write into risk.config.yaml through a file name's line break", async () => {
    const root = site({
      "posts/a.md": post("A"),
      "posts/x\nurls: {evil: 1}\n#.md": "no frontmatter\n",
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const written = config(root);
    expect(written.urls).not.toHaveProperty("evil");
    expect(readFileSync(join(root, "risk.config.yaml"), "utf8")).toContain("posts/x\\u000aurls");
  });
});

describe("the globs init --detect writes", () => {
  it("take the folder, not its files one by one, when it holds a file named _*, so later pages are read", async () => {
    const root = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/a.md": post("A"),
      "src/content/posts/b.md": post("B"),
      "src/content/posts/_draft.md": md("title: D"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result, stderr).toBeDefined();
    const config = parseYaml(readFileSync(join(root, "risk.config.yaml"), "utf8"));
    expect(config.content.articles.fr).toEqual(["src/content/posts/**/*.md"]);
    writeFileSync(join(root, "src/content/posts/nouveau.md"), post("Nouveau"));
    expect((await runLint({ publication: root, json: true })).counts.articles).toBe(3);
  });

  it("take Markdown beside MDX, so a later .md page of an MDX collection is read", async () => {
    const root = site({
      "astro.config.mjs": "export default {};\n",
      "src/content/posts/a.mdx": post("A"),
      "src/content/posts/b.mdx": post("B"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const config = parseYaml(readFileSync(join(root, "risk.config.yaml"), "utf8"));
    expect(config.content.articles.fr).toEqual(["src/content/posts/**/*.{md,mdx}"]);
    writeFileSync(join(root, "src/content/posts/c.md"), post("C"));
    expect((await runLint({ publication: root, json: true })).counts.articles).toBe(3);
  });
});

describe("a site whose generator evaluates template syntax in its bodies", () => {
  const SECRET = "NOTE-INTERNE";
  const bodies = {
    hugo: `Le 9 avril 2026, le spread est tombé à 98 points de base.\n\n{{< figure src="c.png" caption="Écart BTP-Bund" >}}\n\n{{% note %}}\nVoir [l'article]({{< ref "autre.md" >}}).\n{{% /note %}}\n\n{{< youtube abc >}}\n`,
    liquid: `Le 5 mars 2026, la BCE a maintenu son taux à 2 %.\n\n{% include figure.html caption="Taux de la BCE" %}\n\n{% comment %}${SECRET}{% endcomment %}\n\nSur {{ site.title }}, voir [le billet]({% post_url 2026-02-01-point %}).\n`,
    nunjucks: `Le 30 avril 2026, l'écart a dépassé 400 points de base.\n\n{# ${SECRET} #}\n{% set seuil = 400 %}Le seuil est de {{ seuil }} points.\n`,
  };
  const sites = {
    hugo: () =>
      site({
        "hugo.toml": 'baseURL = "https://h.example.org/"\n',
        "content/posts/spread.md": toml(
          'title = "Spread"\ndescription = "Un article."\ndate = 2026-04-10',
          bodies.hugo,
        ),
      }),
    liquid: () =>
      site({
        "_config.yml": "title: Site\n",
        "_posts/2026-03-05-taux.md": md("title: Taux\ndescription: Un article.", bodies.liquid),
      }),
    nunjucks: () =>
      site({
        ".eleventy.js": 'module.exports = () => ({ markdownTemplateEngine: "njk" });\n',
        "posts/credit.md": md("title: Crédit\ndescription: Un article.\ndate: 2026-05-02", bodies.nunjucks),
      }),
  };

  for (const syntax of ["hugo", "liquid", "nunjucks"] as const)
    it(`is read as its generator reads it (${syntax}): no shortcode, tag, output or comment in llms-full, the search index or the claims`, async () => {
      const root = sites[syntax]();
      const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
      expect(result?.content.templates, stderr).toBe(syntax);
      const out = tempDir("risk-templates-");
      const r = runCli(["assemble", "--publication", root, "--site", `${out}/site`, "--archive", `${out}/archive`]);
      expect(r.status, r.stderr).toBe(0);
      for (const file of ["llms-full.txt", "api/v1/search-index.json", "api/v1/claims.json", "api/v1/catalog.json"]) {
        const text = readFileSync(`${out}/site/${file}`, "utf8");
        expect(/\{\{[<% \w-]|\{%|\{#|%\}|[>%]\}\}/.exec(text)?.[0], file).toBeUndefined();
        expect(text.includes(SECRET), file).toBe(false);
      }
      const full = readFileSync(`${out}/site/llms-full.txt`, "utf8");
      if (syntax === "hugo") expect(full).toContain("Écart BTP-Bund");
      if (syntax === "hugo") expect(full).toContain("Voir l'article.");
      if (syntax === "liquid") expect(full).toContain("Taux de la BCE");
      if (syntax === "liquid") expect(full).toContain("voir le billet.");
      // What the generator fills in and risk-cli cannot is named, with its file and line.
      const lint = await runLint({ publication: root, json: true });
      const named = lint.findings
        .filter((f) => f.code === "dropped-markup")
        .map((f) => `${f.file}:${f.line} ${f.message}`);
      const expected = {
        hugo: "content/posts/spread.md:14 {{< youtube abc >}} is filled in by your site's generator",
        liquid: "_posts/2026-03-05-taux.md:11 {{ site.title }} is filled in by your site's generator",
        nunjucks: "posts/credit.md:9 {{ seuil }} is filled in by your site's generator",
      }[syntax];
      expect(
        named.some((n) => n.startsWith(expected)),
        named.join("\n"),
      ).toBe(true);
    }, 60_000);
});

describe("a Jekyll site following the lang and ref convention", () => {
  it("pairs translations by the ref every language version shares", async () => {
    const root = site({
      "_config.yml": "title: Site\n",
      "_posts/2026-03-05-taux-bce.md": md("title: Taux\ndescription: Un article.\nlang: fr\nref: taux-bce"),
      "en/_posts/2026-03-06-ecb-rates.md": md("title: Rates\ndescription: An article.\nlang: en\nref: taux-bce"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.content.translations, stderr).toEqual({ key: "ref" });
    expect(result?.content.frontmatter.ignore).not.toContain("ref");
    expect(result?.unmapped.filter((u) => u.startsWith("translations:"))).toEqual([]);
    const lint = await runLint({ publication: root, json: true });
    expect(lint.findings.filter((f) => f.severity === "error")).toEqual([]);
    const p = await loadPublication(nodeFs, root);
    expect(p.articles.find((a) => a.lang === "en")?.meta.translationOf).toBe("taux-bce");
  });
});

describe("a Jekyll site built with jekyll-polyglot", () => {
  const posts = {
    "_posts/2026-03-05-taux-bce.md": md("title: Taux\ndescription: Un article.\nlang: fr\nref: taux-bce"),
    "_posts/2026-03-06-ecb-rates.md": md("title: Rates\ndescription: An article.\nlang: en\nref: taux-bce"),
  };
  it("puts every language but the default under its own folder, as polyglot builds it", async () => {
    const cases: [Record<string, string>, Record<string, string>][] = [
      [
        { "_config.yml": 'plugins: [jekyll-polyglot]\nlanguages: ["fr", "en"]\ndefault_lang: fr\n' },
        { fr: "/{year}/{month}/{day}/{slug}.html", en: "/en/{year}/{month}/{day}/{slug}.html" },
      ],
      // Loaded from the Gemfile's jekyll_plugins group; English is polyglot's default language.
      [
        {
          "_config.yml": "permalink: pretty\nlanguages:\n  - fr-FR\n  - en\n",
          Gemfile: 'source "https://rubygems.org"\ngroup :jekyll_plugins do\n  gem "jekyll-polyglot"\nend\n',
        },
        { fr: "/fr-FR/{year}/{month}/{day}/{slug}/", en: "/{year}/{month}/{day}/{slug}/" },
      ],
      // Without the plugin, languages is only a setting: Jekyll adds no folder.
      [
        { "_config.yml": 'languages: ["fr", "en"]\ndefault_lang: fr\n' },
        { fr: "/{year}/{month}/{day}/{slug}.html", en: "/{year}/{month}/{day}/{slug}.html" },
      ],
    ];
    for (const [files, expected] of cases) {
      const root = site({ ...files, ...posts });
      const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
      expect(result?.urls.article, `${files["_config.yml"]}\n${stderr}`).toEqual(expected);
    }
  });
});

describe("an Eleventy page with permalink: false", () => {
  it("is left out as Eleventy leaves it unwritten, while a page with its own permalink is published", async () => {
    const root = site({
      ".eleventy.js": "module.exports = () => ({});\n",
      "posts/credit.md": md(
        'title: Crédit\ndescription: Un article.\ndate: 2026-05-02\npermalink: "/analyses/credit/"',
      ),
      "posts/technique.md": md("title: Technique\ndescription: Jamais écrite.\ndate: 2026-05-03\npermalink: false"),
      "posts/simple.md": md("title: Simple\ndescription: Un article.\ndate: 2026-05-04"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.content.frontmatter.published, stderr).toBe("permalink");
    expect(stderr).toContain("detected an eleventy site");
    expect(result?.content.frontmatter.address).toBe("permalink");
    const p = await loadPublication(nodeFs, root);
    expect(Object.fromEntries(p.articles.map((a) => [a.slug, a.path]))).toEqual({
      credit: "/analyses/credit/",
      simple: "/posts/simple/",
    });
  });
});

describe("a multilingual Hugo site", () => {
  const pages = {
    "content/posts/dette.fr.md": hugoPost("Dette"),
    "content/posts/dette.en.md": hugoPost("Debt"),
  };
  it("puts each language's pages where Hugo does: defaultContentLanguageInSubdir, and English by default", async () => {
    const cases: [string, Record<string, string>][] = [
      [
        "baseURL: https://h.example.org/\ndefaultContentLanguage: fr\ndefaultContentLanguageInSubdir: true\nlanguages:\n  fr: {weight: 1}\n  en: {weight: 2}\n",
        { fr: "/fr/posts/{slug}/", en: "/en/posts/{slug}/" },
      ],
      [
        "baseURL: https://h.example.org/\nlanguages:\n  fr: {weight: 2}\n  en: {weight: 1}\n",
        { fr: "/fr/posts/{slug}/", en: "/posts/{slug}/" },
      ],
      [
        "baseURL: https://h.example.org/\ndefaultContentLanguage: fr\nlanguages:\n  fr: {weight: 1}\n  en: {weight: 2}\n",
        { fr: "/posts/{slug}/", en: "/en/posts/{slug}/" },
      ],
    ];
    for (const [config, expected] of cases) {
      const root = site({ "hugo.yaml": config, ...pages });
      const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
      expect(result?.urls.article, `${config}\n${stderr}`).toEqual(expected);
    }
  });
});

describe("pages that give their own address", () => {
  it("are refused when two of them give one address, naming both files and the line", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/spread.md": hugoPost("Spread", 'url = "/analyses/spread-btp/"'),
      "content/posts/spread-bis.md": hugoPost("Spread bis", 'url = "/analyses/spread-btp/"'),
      // Its own address is another page's address by the pattern.
      "content/posts/taux.md": hugoPost("Taux", 'url = "/posts/dette/"'),
      "content/posts/dette.md": hugoPost("Dette"),
    });
    await captured(() => runInitDetect({ dir: root, json: false }));
    const { status, stderr } = exitOf(await loadPublication(nodeFs, root).catch((e: unknown) => e));
    expect(status).toBe(3);
    expect(stderr).toMatch(
      /content\/posts\/spread(-bis)?\.md:\d+ \(field url\): content\/posts\/spread(-bis)?\.md is published at the same address \(\/analyses\/spread-btp\/\)/,
    );
    rmSync(join(root, "content/posts/spread-bis.md"));
    const again = exitOf(await loadPublication(nodeFs, root).catch((e: unknown) => e));
    expect(again.status).toBe(3);
    expect(again.stderr).toMatch(
      /content\/posts\/(taux|dette)\.md.*is published at the same address \(\/posts\/dette\/\)/,
    );
  });

  it("are published at it (Hugo's url), while an address with placeholders stays a # TODO and is refused if mapped", async () => {
    const root = site({
      "hugo.toml": 'baseURL = "https://h.example.org/"\n',
      "content/posts/spread.md": hugoPost("Spread", 'url = "/analyses/spread-btp/"'),
      "content/posts/dette.md": hugoPost("Dette"),
    });
    const { result, stderr } = await captured(() => runInitDetect({ dir: root, json: false }));
    expect(result?.content.frontmatter.address, stderr).toBe("url");
    expect(result?.content.frontmatter.ignore).not.toContain("url");
    expect(result?.unmapped.find((u) => u.startsWith("url:"))).toBeUndefined();
    const p = await loadPublication(nodeFs, root);
    expect(Object.fromEntries(p.articles.map((a) => [a.slug, a.path]))).toEqual({
      spread: "/analyses/spread-btp/",
      dette: "/posts/dette/",
    });

    const jekyll = site({
      "_config.yml": "title: Site\n",
      "_posts/2026-03-05-taux.md": md("title: Taux\ndescription: Un article.\npermalink: /:categories/:title/"),
    });
    const detected = await captured(() => runInitDetect({ dir: jekyll, json: false }));
    expect(detected.result?.content.frontmatter.address).toBeUndefined();
    expect(detected.result?.unmapped.find((u) => u.startsWith("permalink:"))).toContain("give their own address");
    const config = join(jekyll, "risk.config.yaml");
    const yaml = parseYaml(readFileSync(config, "utf8"));
    yaml.content.frontmatter.address = "permalink";
    yaml.content.frontmatter.ignore = yaml.content.frontmatter.ignore.filter((k: string) => k !== "permalink");
    writeFileSync(config, JSON.stringify(yaml));
    const { status, stderr: refused } = exitOf(await loadPublication(nodeFs, jekyll).catch((e: unknown) => e));
    expect(status).toBe(3);
    expect(refused).toContain("_posts/2026-03-05-taux.md:4 (field permalink): permalink gives the page's address");
  });
});
