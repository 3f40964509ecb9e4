import { describe, expect, it } from "vitest";
import { loadPublication, readPublicationFiles } from "../../core/inputs/publication.ts";
import { nodeFs } from "../../cli/runtime/node.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { ROOT } from "../helpers/cli.ts";

async function loadError(edit: (dir: string) => void): Promise<string> {
  const dir = demoCopy();
  edit(dir);
  try {
    await loadPublication(nodeFs, dir);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("the publication loaded without error");
}

describe("loadPublication", () => {
  it("loads the demo publication with its whole corpus", async () => {
    const p = await loadPublication(nodeFs, `${ROOT}demo`);
    expect(p.articles.filter((a) => a.lang === "fr").length).toBeGreaterThanOrEqual(6);
    expect(p.articles.filter((a) => a.lang === "en").length).toBeGreaterThanOrEqual(6);
    expect(p.guides.length).toBeGreaterThanOrEqual(4);
    expect(p.glossary.length).toBeGreaterThanOrEqual(20);
    expect(p.glossary.some((g) => g.atlas)).toBe(true);
    expect(p.primarySources.length).toBeGreaterThanOrEqual(5);
    expect(p.methodologies.map((m) => m.instrument).sort()).toEqual(["debt", "energie", "eu", "us", "yen"]);
    expect(p.claimReviews.entries.length).toBeGreaterThanOrEqual(2);
  });

  it("names the file, line and field of an unknown frontmatter key", async () => {
    const message = await loadError((dir) =>
      editFile(`${dir}/content/articles/fr/spread-btp-bund-2026.md`, (t) => t.replace(/^title:/m, "titel: x\ntitle:")),
    );
    expect(message).toMatch(/spread-btp-bund-2026\.md:2 \(field titel\): unknown key "titel"/);
  });

  it("names the line of a missing required field inside a list", async () => {
    const message = await loadError((dir) =>
      editFile(`${dir}/content/glossary.yaml`, (t) => t.replace(/^(\s+)name: .*\n/m, "")),
    );
    expect(message).toMatch(/glossary\.yaml:1 \(field 0\.name\): the field is required \(string expected\)/);
  });

  it("explains a malformed date with what is expected", async () => {
    const message = await loadError((dir) =>
      editFile(`${dir}/content/articles/fr/carry-trade-yen-boj.md`, (t) =>
        t.replace(/^date: .*$/m, "date: 12/03/2026"),
      ),
    );
    expect(message).toMatch(
      /carry-trade-yen-boj\.md:\d+ \(field date\): .*expected format date, got string "12\/03\/2026"/,
    );
  });

  it("reports YAML syntax errors with their line", async () => {
    const message = await loadError((dir) =>
      editFile(`${dir}/content/topics.yaml`, (t) => `${t}\n- slug: [unclosed\n`),
    );
    expect(message).toMatch(/topics\.yaml:\d+: invalid YAML/);
  });

  it("refuses a topic that topics.yaml does not define", async () => {
    const message = await loadError((dir) =>
      editFile(`${dir}/content/articles/fr/carry-trade-yen-boj.md`, (t) =>
        t.replace(/^topics: \[/m, "topics: [inconnu, "),
      ),
    );
    expect(message).toContain('unknown topic "inconnu"');
  });

  it("refuses an unknown instrument key in the configuration", async () => {
    const message = await loadError((dir) =>
      editFile(`${dir}/risk.config.yaml`, (t) =>
        t.replace(/^instruments:\n/m, "instruments:\n  btc:\n    label: {fr: a, en: b}\n"),
      ),
    );
    expect(message).toMatch(/risk\.config\.yaml:\d+ \(field instruments\.btc\): unknown key "btc"/);
  });

  it("names risk.config.yaml when the whole publication is missing, whichever read ends first", async () => {
    // The configuration's existence check answers last: the error must still be about it.
    const slowFs = {
      readText: async () => "",
      listFiles: async () => [],
      listDirs: async () => [],
      exists: (path: string) =>
        new Promise<boolean>((done) => setTimeout(() => done(false), path.endsWith("risk.config.yaml") ? 30 : 0)),
    };
    await expect(readPublicationFiles(slowFs, "/nowhere")).rejects.toMatchObject({
      code: "E_INPUT",
      data: { file: "risk.config.yaml" },
    });
  });
});

describe("the default layout without content globs", () => {
  it("reads .mdx articles and guides beside the .md ones, as the globs mode does", async () => {
    const { writeFileSync: write } = await import("node:fs");
    const pub = demoCopy();
    const head = (title: string) =>
      `---\ntitle: "${title}"\ndescription: "Un essai en MDX."\ndate: 2026-08-20\n---\n\n`;
    write(
      `${pub}/content/articles/fr/essai-mdx.mdx`,
      `${head("Essai MDX")}import X from "./x"\n\nLe taux a atteint 3 % le 3 mars 2026.{/* note */}\n`,
    );
    write(`${pub}/content/guides/fr/guide-mdx.mdx`, `${head("Guide MDX")}Un guide.\n`);
    const p = await loadPublication(nodeFs, pub);
    const article = p.articles.find((d) => d.slug === "essai-mdx");
    expect(article?.body).toContain("Le taux a atteint 3 % le 3 mars 2026.");
    expect(article?.body).not.toMatch(/import|note/);
    expect(p.guides.some((d) => d.slug === "guide-mdx")).toBe(true);
  });
});
