import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stringify as tomlStringify } from "smol-toml";
import { parse as parseYaml, stringify as yamlStringify } from "yaml";
import { ROOT } from "./cli.ts";
import { tempDir } from "./tmp.ts";

export type SiteStyle = "astro" | "hugo" | "jekyll";

interface DemoDoc {
  kind: "article" | "guide";
  lang: "fr" | "en";
  slug: string;
  meta: Record<string, unknown>;
  body: string;
}

function demoDocs(): DemoDoc[] {
  const out: DemoDoc[] = [];
  for (const [folder, kind] of [
    ["articles", "article"],
    ["guides", "guide"],
  ] as const)
    for (const lang of ["fr", "en"] as const) {
      const dir = join(ROOT, "demo/content", folder, lang);
      for (const name of readdirSync(dir)) {
        const text = readFileSync(join(dir, name), "utf8");
        const end = text.indexOf("\n---", 3);
        out.push({
          kind,
          lang,
          slug: name.replace(/\.md$/, ""),
          meta: parseYaml(text.slice(4, end + 1)),
          body: text.slice(end + 5),
        });
      }
    }
  return out;
}

/** MDX an Astro article holds: imports, components with and without text, inline SVG, a style block. */
export const MDX_BLOCK = `import Chart from "../../components/Chart.astro";
import { Figure, Note } from "../../components";
export const meta = { chart: true };

<Chart data={[1, 2, 3]} height={240} />

<Figure caption="Écart BTP-Bund sur dix ans" source="BCE, Bundesbank" />

<figure>
  <svg viewBox="0 0 100 40" xmlns="http://www.w3.org/2000/svg">
    <title>Courbe de l’écart en points de base</title>
    <style>.line { stroke: #c00; fill: none; }</style>
    <path class="line" d="M0 30 L20 25 L40 28 L60 12 L80 18 L100 10" />
  </svg>
  <figcaption>Figure 1 : l’écart a culminé en mai.</figcaption>
</figure>

<style>
  .prose figure { margin: 2rem 0; }
</style>

<Note>Les données de mai sont provisoires.</Note>
`;

/** The Markdown body of a draft: it must never be published. */
export const DRAFT_MARK = "BROUILLON-CONFIDENTIEL";

/**
 * The demo corpus laid out as a publisher's Astro, Hugo or Jekyll site would hold it: that
 * generator's folders, file names and frontmatter keys (pubDate date-times with an offset, TOML,
 * Jekyll's dated file names), plus a draft and, for Astro, an MDX article with components, inline
 * SVG and a style block. The registries are not there: `init --detect` brings them.
 */
export function siteFromDemo(style: SiteStyle): string {
  const root = `${tempDir(`risk-${style}-`)}/site`;
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  const docs = demoDocs();
  const yamlDoc = (meta: Record<string, unknown>, body: string) =>
    `---\n${yamlStringify(meta, { lineWidth: 0 })}---\n${body}`;
  if (style === "astro") {
    write("astro.config.mjs", "export default {};\n");
    write("src/components/Chart.astro", "<div />\n");
    for (const d of docs) {
      const { date, updated, translationOf, translatedFrom, ...rest } = d.meta;
      const meta: Record<string, unknown> = {
        ...rest,
        pubDate: `${date}T08:30:00+02:00`,
        ...(updated ? { updatedDate: `${updated}T18:00:00+01:00` } : {}),
        ...(translationOf ? { sourceArticle: translationOf } : {}),
        draft: false,
        seoTitle: `${String(rest.title)} | Observatoire`,
      };
      const folder =
        d.kind === "article"
          ? d.lang === "fr"
            ? "src/content/posts"
            : "src/content/analysis"
          : `src/content/guides/${d.lang}`;
      const mdx = d.slug === "spread-btp-bund-2026";
      // MDX takes no HTML comment: a claim marker is an MDX comment there.
      const body = mdx ? d.body.replace(/<!--\s*(claim-id:[^>]*?)\s*-->/g, "{/* $1 */}") : d.body;
      write(`${folder}/${d.slug}.${mdx ? "mdx" : "md"}`, yamlDoc(meta, mdx ? `${MDX_BLOCK}\n${body}` : body));
    }
    write(
      "src/content/posts/brouillon.md",
      yamlDoc(
        { title: "Brouillon", description: "Pas encore publié.", pubDate: "2026-11-01T09:00:00+01:00", draft: true },
        `${DRAFT_MARK}\n`,
      ),
    );
  } else if (style === "hugo") {
    write("hugo.toml", 'baseURL = "https://risques.example.org/"\n');
    const frSlug = new Map(docs.filter((d) => d.lang === "en").map((d) => [d.slug, String(d.meta.translationOf)]));
    for (const d of docs) {
      const { date, updated, translationOf, translatedFrom, ...rest } = d.meta;
      const meta: Record<string, unknown> = {
        ...rest,
        date: new Date(`${date}T08:30:00+02:00`),
        ...(updated ? { lastmod: new Date(`${updated}T18:00:00Z`) } : {}),
        draft: false,
      };
      const slug = d.lang === "en" ? frSlug.get(d.slug)! : d.slug;
      const section = d.kind === "article" ? "posts" : "guides";
      write(`content/${d.lang}/${section}/${slug}.md`, `+++\n${tomlStringify(meta)}\n+++\n${d.body}`);
    }
    write(
      "content/fr/posts/brouillon.md",
      `+++\ntitle = "Brouillon"\ndescription = "Pas encore publié."\ndate = 2026-11-01T09:00:00+01:00\ndraft = true\n+++\n${DRAFT_MARK}\n`,
    );
  } else {
    write("_config.yml", "title: Observatoire\n");
    for (const d of docs) {
      const { date, updated, translationOf, translatedFrom, ...rest } = d.meta;
      const meta: Record<string, unknown> = {
        layout: d.kind === "article" ? "post" : "guide",
        ...rest,
        date: `${date} 08:30:00 +0200`,
        ...(updated ? { last_modified_at: `${updated}` } : {}),
        ...(translationOf ? { original: translationOf, lang: "en" } : {}),
      };
      const folder = d.kind === "article" ? "_posts" : "_guides";
      const prefix = d.kind === "article" ? `${date}-` : "";
      write(`${d.lang === "en" ? "en/" : ""}${folder}/${prefix}${d.slug}.md`, yamlDoc(meta, d.body));
    }
  }
  return root;
}
