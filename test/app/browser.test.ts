import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteServer } from "../../app/serve.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { hostHeadersFor } from "../helpers/host-headers.ts";
import { tempDir } from "../helpers/tmp.ts";

/**
 * A browser page on another origin reads the publication, as a journalist's page or a dashboard
 * would: Debian's chromium driven by playwright-core, against risk-cli serve and against a static
 * host that applies only the site's _headers file (as Netlify or Cloudflare Pages do).
 */
// Debian's chromium (.ci/run installs it); GitHub's Ubuntu runners have Google Chrome instead.
const CHROMIUM = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/google-chrome"].find(
  (p): p is string => !!p && existsSync(p),
)!;
const SURFACES = [
  { path: "/api/v1/risk.json", type: "application/json" },
  { path: "/api/v1/changes.ndjson", type: "application/x-ndjson" },
  { path: "/api/v1/risk.xml", type: "application/atom+xml; charset=utf-8" },
  { path: "/llms.txt", type: "text/plain; charset=utf-8" },
];

let site = "";
let browser: Browser;
const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A host that knows nothing of risk-cli: the file's bytes, and the headers _headers gives for its path. */
function staticHost(dir: string): Server {
  const rules = readFileSync(join(dir, "_headers"), "utf8");
  return createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = join(dir, path);
    if (path.includes("..") || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    const headers = hostHeadersFor(rules, path);
    if (req.method === "OPTIONS") {
      res.writeHead(204, { ...headers, "access-control-allow-methods": "GET, HEAD, OPTIONS" });
      res.end();
      return;
    }
    res.writeHead(200, headers);
    res.end(readFileSync(file));
  });
}

/** Where the page lives: another origin (another port), serving one empty HTML page. */
function pageOrigin(): Server {
  return createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>reader</title><p>reader</p>");
  });
}

beforeAll(async () => {
  const dir = tempDir("risk-browser-");
  site = `${dir}/site`;
  await runAssemble({ site, archive: `${dir}/archive`, now: "2026-11-21T12:00:00Z", json: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  for (const s of servers) s.close();
});

// A static host answers preflight requests by its own rules, not by _headers: only risk-cli serve
// is asked to pass one.
describe.each([
  ["risk-cli serve", () => siteServer(site), true],
  ["a static host applying _headers", () => staticHost(site), false],
])("a page on another origin reads the publication through %s", (_name, make, preflight) => {
  it("fetches risk.json, changes.ndjson, the Atom feed and llms.txt with their types", async () => {
    const publication = await listen(make());
    const page = await browser.newPage();
    await page.goto(`${await listen(pageOrigin())}/`);
    const results = await page.evaluate(
      async ({ base, paths, preflight }) =>
        Promise.all(
          paths.map(async (path) => {
            try {
              const simple = await fetch(base + path);
              const body = await simple.text();
              // A header outside the CORS safelist makes the browser send a preflight first.
              const preflighted = preflight ? await fetch(base + path, { headers: { "X-Reader": "1" } }) : simple;
              return {
                path,
                status: simple.status,
                type: simple.headers.get("content-type"),
                body,
                preflighted: preflighted.status,
              };
            } catch (e) {
              return { path, status: 0, type: null, body: String(e), preflighted: 0 };
            }
          }),
        ),
      { base: publication, paths: SURFACES.map((s) => s.path), preflight },
    );
    await page.close();
    for (const [i, r] of results.entries()) {
      const expected = SURFACES[i]!;
      expect(r.status, `${r.path}: ${r.body.slice(0, 200)}`).toBe(200);
      expect(r.type, r.path).toBe(expected.type);
      expect(r.body, r.path).toBe(readFileSync(join(site, r.path), "utf8"));
      expect(r.preflighted, r.path).toBe(200);
    }
    // French text arrives intact: the charset is declared, so no mojibake.
    expect(results[3]!.body).toContain("Publication bilingue (français, anglais)");
  });
});

describe("the check can fail", () => {
  it("a host without CORS headers is refused by the browser", async () => {
    const bare = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      }),
    );
    const page = await browser.newPage();
    await page.goto(`${await listen(pageOrigin())}/`);
    const outcome = await page.evaluate(async (url) => {
      try {
        await fetch(url);
        return "read";
      } catch {
        return "refused";
      }
    }, `${bare}/api/v1/risk.json`);
    await page.close();
    expect(outcome).toBe("refused");
  });
});
