/**
 * openapi.json declares every URI field `format: uri`, which a client's JSON Schema validator reads
 * as RFC 3986. WHATWG URL parsing accepts more (`é`, a space, `|`, `100%`, `a#b#c`), so a URL the
 * inputs give, or an article links, must be refused or percent-encoded before it is published.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRfc3986Uri, rfc3986Href } from "../../core/schemas/primitives.ts";
import { runCli } from "../helpers/cli.ts";
import { assembleInto, demoCopy, editFile } from "../helpers/publication.ts";

const ajvUri = fullFormats.uri as (s: string) => boolean;

const WRITTEN = [
  "https://risques.example.org/api/v1/risk.json",
  "https://[::1]:8080/a?b=c#d",
  "https://example.org/a%20b?q=%C3%A9#x",
  "https://exämple.org/é",
  "https://example.org/a b",
  "https://example.org/100%",
  "https://example.org/r%zz",
  "https://example.org/q?a=[1]|{b}^c",
  "https://example.org/x#a#b",
  "https://example.org/wiki/Crédit_(finance)",
  "https://example.org/a\\b`c\"d'e<f>",
];

describe("URIs as RFC 3986 writes them", () => {
  it("isRfc3986Uri agrees with ajv-formats' uri, and rfc3986Href always gives one", () => {
    for (const u of WRITTEN) {
      expect(isRfc3986Uri(u), u).toBe(ajvUri(u));
      const href = rfc3986Href(new URL(u));
      expect(ajvUri(href), `${u} -> ${href}`).toBe(true);
      expect(isRfc3986Uri(href), href).toBe(true);
      // The same resource: WHATWG reads the encoded form back to what it read the original as, or its escapes.
      expect(new URL(href).host).toBe(new URL(u).host);
    }
    expect(rfc3986Href(new URL("https://example.org/100%"))).toBe("https://example.org/100%25");
    expect(rfc3986Href(new URL("https://example.org/q?a=[1]|{b}^c#f#g"))).toBe(
      "https://example.org/q?a=%5B1%5D%7C%7Bb%7D%5Ec#f%23g",
    );
  });

  it("refuses an input URL that is not one, naming file, line and field and the form to write", () => {
    const pub = demoCopy();
    editFile(join(pub, "content/primary-sources.yaml"), (t) =>
      t.replace("officialUrl: https://home.treasury.gov/", "officialUrl: https://exämple.org/é"),
    );
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /content\/primary-sources\.yaml:\d+ \(field [\w.]*officialUrl\): a URI as RFC 3986 writes it: percent-encode .*, as https:\/\/xn--exmple-cua\.org\/%C3%A9/,
    );

    const pub2 = demoCopy();
    editFile(join(pub2, "content/methodologies/stress-financier-us.yaml"), (t) =>
      t.replace(/^repo: .*$/m, 'repo: "https://git.example.org/r%zz"'),
    );
    const a = assembleInto(pub2, "2026-11-22T12:00:00Z");
    expect(a.status, a.stderr).toBe(3);
    expect(a.stderr).toMatch(/stress-financier-us\.yaml:\d+ \(field repo\): a URI as RFC 3986.*r%25zz/);

    // A glossary atlas link, absolute or site-relative, is published resolved as a URI too.
    const pub3 = demoCopy();
    editFile(join(pub3, "content/glossary.yaml"), (t) =>
      t.replace("href: /guides/lire-les-spreads/", 'href: "/guides/lire les spreads/é"'),
    );
    const g = runCli(["lint", "--publication", pub3]);
    expect(g.status, g.stderr).toBe(3);
    expect(g.stderr).toMatch(/glossary\.yaml:\d+ \(field [\w.]*href\): .*as \/guides\/lire%20les%20spreads\/%C3%A9/);
  });

  it("publishes an article's links percent-encoded, so every surface passes openapi.json with a JSON Schema validator", () => {
    const pub = demoCopy();
    editFile(join(pub, "content/articles/fr/liquidite-bancaire-repo.md"), (t) =>
      t.replace(
        "[taux de référence publiés par la Fed de New York](https://www.newyorkfed.org/markets/reference-rates/sofr)",
        "[taux](https://example.org/100%), [série](https://example.org/q?a=[1]|{b}^c#f#g) et [Wikipédia](https://fr.wikipedia.org/wiki/Crédit_(finance))",
      ),
    );
    const { status, stderr, site } = assembleInto(pub, "2026-11-22T12:00:00Z");
    expect(status, stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(site, "openapi.json"), "utf8"));
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    addFormats(ajv);
    ajv.addSchema({ $id: "https://risk-cli.test/openapi.json", components: doc.components });
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      const [mediaType, content] = Object.entries(item.get.responses["200"].content as Record<string, any>)[0]!;
      if (!content.schema.$ref || !/json/.test(mediaType)) continue;
      const validate = ajv.getSchema(`https://risk-cli.test/openapi.json${content.schema.$ref}`)!;
      const text = readFileSync(join(site, path), "utf8");
      const values = mediaType === "application/x-ndjson" ? text.split("\n").filter(Boolean) : [text];
      for (const v of values) {
        expect(validate(JSON.parse(v)), `${path}: ${JSON.stringify(validate.errors?.[0])}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
    const claims = readFileSync(join(site, "api/v1/claims.json"), "utf8");
    expect(claims).toContain('"href":"https://example.org/100%25"');
    expect(claims).toContain('"href":"https://example.org/q?a=%5B1%5D%7C%7Bb%7D%5Ec#f%23g"');
    expect(claims).toContain('"href":"https://fr.wikipedia.org/wiki/Cr%C3%A9dit_(finance)"');
  });
});
