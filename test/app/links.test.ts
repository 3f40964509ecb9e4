import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { pagesOf } from "../../core/inputs/pages.ts";
import { tempDir } from "../helpers/tmp.ts";

const BASE = "https://risques.example.org";

/** Every file of a folder, as site paths. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(`/${relative(dir, p)}`);
    }
  };
  walk(dir);
  return out;
}

/** The publisher's own pages: the demo's page patterns, {slug} standing for any slug. */
function publisherPage(path: string): boolean {
  const pages = pagesOf(undefined);
  const patterns = [
    pages.article.fr,
    pages.article.en,
    pages.guide.fr,
    pages.guide.en,
    pages.methodology,
    pages.glossary,
    pages.glossaryEntry,
    pages.sources,
    pages.source,
    pages.protocol,
    pages.changelog,
    pages.home,
    // The contact page the config names (risk.config.yaml `contact`).
    "/contact/",
  ];
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return patterns.some((p) => new RegExp(`^${p.split("{slug}").map(escape).join("[a-z0-9._-]+")}$`).test(path));
}

describe("no dead link", () => {
  it("every URL a surface or a page publishes under the site's address is a file of the site or a page of the publisher's", async () => {
    const dir = tempDir("risk-links-");
    const site = `${dir}/site`;
    for (const now of ["2026-11-21T09:00:00Z", "2026-11-22T09:00:00Z"])
      await runAssemble({ site, archive: `${dir}/archive`, now, json: true });
    const served = new Set(files(site));
    const resolves = (path: string) =>
      served.has(path) || (path.endsWith("/") && served.has(`${path}index.html`)) || publisherPage(path);
    // A URL ends at a quote, a bracket, a brace (BibTeX), a space or an HTML entity (`&quot;` in escaped code).
    const url = new RegExp(`${BASE.replace(/[.]/g, "\\.")}(/[^\\s"'<>&{}\\\\)\\]]*)?`, "g");
    const dead: string[] = [];
    let checked = 0;
    for (const path of served) {
      const text = readFileSync(join(site, path), "utf8");
      for (const m of text.matchAll(url)) {
        // An evidence-graph edge id (`<url>->host:…`) holds a URL followed by its arrow.
        const target = (m[1] ?? "/")
          .replace(/[#?].*$/, "")
          .replace(/[.,;:]+$/, "")
          .replace(/\/-$/, "/");
        checked++;
        // The MCP endpoint the config names is answered by a server, not a file.
        if (target === "/mcp") continue;
        if (!resolves(target)) dead.push(`${path} -> ${target}`);
      }
      // Site-relative links of the pages (href and src attributes).
      if (path.endsWith(".html"))
        for (const m of text.matchAll(/(?:href|src)="(\/[^"]*)"/g)) {
          checked++;
          const target = m[1]!.replace(/[#?].*$/, "");
          if (!resolves(target)) dead.push(`${path} -> ${target}`);
        }
    }
    expect(checked).toBeGreaterThan(200);
    expect(dead).toEqual([]);
  }, 60_000);

  it("the check fails on a link that leads nowhere", () => {
    expect(publisherPage("/articles/spread-btp-bund-2026/")).toBe(true);
    expect(publisherPage("/nowhere/at-all/")).toBe(false);
  });
});
