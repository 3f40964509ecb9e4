/**
 * The claims engine reads Markdown with its own small reader (core/claims/markdown.ts) because a
 * full CommonMark parse costs more than the whole editorial budget at the real scale. This test
 * keeps it honest: on the demo corpus and on the generated real-scale corpus, it must find the
 * same links (label and address) and the same headings as mdast-util-from-markdown.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { fromMarkdown } from "mdast-util-from-markdown";
import { toString } from "mdast-util-to-string";
import type { Link, Nodes } from "mdast";
import { afterAll, describe, expect, it } from "vitest";
import { parseBlocks, parseInline } from "../../core/claims/markdown.ts";
import { splitFrontmatter } from "../../core/inputs/locate.ts";
import { generatePublication } from "../../bench/generate.ts";
import { ROOT } from "../helpers/cli.ts";

function mdastView(body: string) {
  const links: string[] = [];
  const headings: string[] = [];
  const walk = (node: Nodes) => {
    if (node.type === "link")
      links.push(
        `${toString(node as Link)
          .replace(/\s+/g, " ")
          .trim()} -> ${(node as Link).url}`,
      );
    if (node.type === "heading") headings.push(toString(node).trim());
    if ("children" in node) for (const child of node.children) walk(child as Nodes);
  };
  walk(fromMarkdown(body));
  return { links, headings };
}

function ownView(body: string) {
  const parsed = parseBlocks(body);
  const links: string[] = [];
  const headings: string[] = [];
  for (const block of parsed.blocks) {
    if (block.type === "code" || block.type === "html") continue;
    const inline = parseInline(block.raw, parsed.definitions);
    for (const l of inline.links) links.push(`${l.label.replace(/\s+/g, " ").trim()} -> ${l.href}`);
    if (block.type === "heading") headings.push(inline.text.trim());
  }
  return { links, headings };
}

const bodies = (dir: string) =>
  ["articles/fr", "articles/en", "guides/fr", "guides/en"].flatMap((sub) =>
    readdirSync(`${dir}/content/${sub}`)
      .filter((n) => n.endsWith(".md"))
      .map((n) => {
        const file = `${dir}/content/${sub}/${n}`;
        return { file, body: splitFrontmatter(file, readFileSync(file, "utf8")).body };
      }),
  );

describe("the claims engine's Markdown reader", () => {
  it("finds the same links and headings as mdast-util-from-markdown on the demo corpus", () => {
    const docs = bodies(`${ROOT}demo`);
    expect(docs.length).toBe(17);
    for (const { file, body } of docs) expect(ownView(body), file).toEqual(mdastView(body));
  });

  it("reads an inline link whose destination holds a space as text, as CommonMark does, with no link", () => {
    for (const body of [
      "[page](https://example.org/a b)",
      'Voir [la page](https://example.org/a b "titre") ici.',
      "![graphique](https://example.org/c d.png)",
    ]) {
      expect(mdastView(body).links, body).toEqual([]);
      expect(ownView(body), body).toEqual(mdastView(body));
      expect(parseInline(body, new Map()).text, body).toBe(body);
    }
    // The same address between angle brackets is a link, and a bare URL in text stays one.
    const angled = "[page](<https://example.org/a b>)";
    expect(ownView(angled)).toEqual(mdastView(angled));
    expect(ownView("voir (https://example.org/a) ici").links).toEqual([
      "https://example.org/a -> https://example.org/a",
    ]);
  });

  const generated = generatePublication({
    scale: { articlesPerLang: 20, guidesPerLang: 5, glossary: 30, primarySources: 10 },
  });
  afterAll(() => rmSync(generated.dir, { recursive: true, force: true }));
  it("finds the same links and headings on generated articles", () => {
    const docs = bodies(generated.dir);
    expect(docs.length).toBeGreaterThan(40);
    for (const { file, body } of docs) expect(ownView(body), file).toEqual(mdastView(body));
  });
});
