import { renameSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deadLinks } from "../../core/editorial/dead-links.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { nodeFs } from "../../cli/runtime/node.ts";
import { runCli } from "../helpers/cli.ts";
import { expectLinear } from "../helpers/linear.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";

/** The demo's own layout, reading `draft: true`. */
const WITH_DRAFTS = `
content:
  articles: { fr: ["content/articles/fr/*.md"], en: ["content/articles/en/*.md"] }
  guides: { fr: ["content/guides/fr/*.md"], en: ["content/guides/en/*.md"] }
  frontmatter: { draft: draft }
`;

const LINKS = [
  "---",
  'title: "Liens"',
  'description: "Des liens."',
  "date: 2026-11-01",
  "---",
  "",
  "Voir [le guide](https://risques.example.org/guides/guide-absent/) et [le spread](/articles/spread-btp-bund-2026).",
  "",
  "- [À propos](/a-propos/), [ailleurs](https://example.org/articles/absent/), [relatif](../article-relatif/)",
  "- [méthode](/methodologies/methode-absente/#section) et [source](/sources/bce/)",
  "",
  "```",
  "[dans du code](/articles/code-absent/)",
  "```",
  "",
].join("\n");

const deadIn = (stderr: string) => stderr.split("\n").filter((l) => l.includes("[dead-link]"));

describe("links to the publication's own pages that are gone", () => {
  it("warn dead-link naming file, line and link when an article is made a draft or given another slug", () => {
    const pub = demoCopy();
    editFile(`${pub}/risk.config.yaml`, (t) => t + WITH_DRAFTS);
    editFile(`${pub}/content/articles/fr/carry-trade-yen-boj.md`, (t) =>
      t.replace("\ntitle:", "\ndraft: true\ntitle:"),
    );
    renameSync(`${pub}/content/articles/fr/liquidite-bancaire-repo.md`, `${pub}/content/articles/fr/liquidite-repo.md`);
    writeFileSync(`${pub}/content/articles/fr/liens.md`, LINKS);
    const lint = runCli(["lint", "--publication", pub]);
    const dead = deadIn(lint.stderr);
    const at = (prefix: string, link: string) =>
      expect(
        dead.some((l) => l.startsWith(`warning: ${prefix}`) && l.includes(`"${link}"`)),
        `${prefix} ${link}\n${lint.stderr}`,
      ).toBe(true);
    at(
      "content/articles/fr/confluence-des-risques-automne-2026.md:36 (field (body))",
      "/articles/carry-trade-yen-boj/",
    );
    at(
      "content/articles/fr/confluence-des-risques-automne-2026.md:37 (field (body))",
      "/articles/liquidite-bancaire-repo/",
    );
    // The English translation of a draft is left out with it.
    at("content/articles/en/risk-confluence-autumn-2026.md:38 (field (body))", "/en/articles/yen-carry-trade-boj/");
    at("content/articles/en/risk-confluence-autumn-2026.md:39 (field (body))", "/articles/liquidite-bancaire-repo/");
    at("content/glossary.yaml:252 (field carry-trade.atlas.articles[0].href)", "/articles/carry-trade-yen-boj/");
    at("content/glossary.yaml:173 (field repo.atlas.articles[0].href)", "/articles/liquidite-bancaire-repo/");
    at("content/articles/fr/liens.md:7 (field (body))", "https://risques.example.org/guides/guide-absent/");
    at("content/articles/fr/liens.md:9 (field (body))", "../article-relatif/");
    at("content/articles/fr/liens.md:10 (field (body))", "/methodologies/methode-absente/#section");
    expect(dead.find((l) => l.includes("carry-trade.atlas"))).toContain(
      "leads to no French article of the publication (deleted, made a draft, or given another slug), yet it is published as written; fix the link's slug, or publish the French article",
    );
    // Pages that exist (with or without their closing slash), other pages of the site, other sites, code.
    for (const link of ["spread-btp-bund", "/a-propos/", "example.org/articles/absent", "/sources/bce/", "code-absent"])
      expect(
        dead.filter((l) => l.includes(link)),
        link,
      ).toEqual([]);
    expect(dead).toHaveLength(9);
    expect(lint.status, lint.stderr).toBe(0);
  });

  it("say nothing on the demo, whose links all lead to its pages", () => {
    const lint = runCli(["lint", "--publication", demoCopy()]);
    expect(deadIn(lint.stderr)).toEqual([]);
  });

  it("take a pattern's {folder} as any folders below the section, none included", async () => {
    const p = await loadPublication(nodeFs, demoCopy());
    const doc = p.articles[0]!;
    const pages = { ...p.pages, article: { ...p.pages.article, fr: "/articles/{folder}/{slug}/" } };
    const body = `[a](/articles/2026/q1/absent/) [b](/articles/absent/) [c](${doc.path}) [d](/ailleurs/absent/)`;
    const dead = deadLinks({ ...p, pages, articles: [{ ...doc, body }], guides: [], glossary: [] });
    expect(dead.map((d) => [d.href, d.kind])).toEqual([
      ["/articles/2026/q1/absent/", "French article"],
      ["/articles/absent/", "French article"],
    ]);
  });

  it("are found in time linear in the size of a body", async () => {
    const p = await loadPublication(nodeFs, demoCopy());
    const doc = p.articles[0]!;
    expectLinear("[x](/articles/absent/) et [y](/guides/lire-les-spreads/). ", (body) =>
      deadLinks({ ...p, articles: [{ ...doc, body }], guides: [], glossary: [] }),
    );
  });
});
