import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestPath, siteServer } from "../../app/serve.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runServe } from "../../cli/commands/serve.ts";
import { at } from "../helpers/archive.ts";
import { hostHeadersFor } from "../helpers/host-headers.ts";
import { tempDir } from "../helpers/tmp.ts";

let base: string;
let site: string;
let close: () => void;

beforeAll(async () => {
  const dir = tempDir("risk-serve-");
  site = `${dir}/site`;
  await runAssemble({ site, archive: `${dir}/archive.git`, now: at(0), json: true });
  writeFileSync(`${dir}/secret.txt`, "outside the site\n");
  symlinkSync(`${dir}/secret.txt`, `${site}/leak.txt`);
  mkdirSync(`${site}/.git`, { recursive: true });
  writeFileSync(`${site}/.git/config`, "dotfile\n");
  const server = siteServer(site);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

/** One raw request over a real socket: the path is sent exactly as given. */
function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (ok, fail) => {
      const url = new URL(base);
      const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => ok({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on("error", fail);
      req.end();
    },
  );
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("risk-cli serve", () => {
  it("serves each surface with its contract type, CORS, nosniff and an ETag that is its SHA-256", async () => {
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    for (const s of integrity.surfaces as { path: string; mediaType: string; sha256: string }[]) {
      const r = await get(s.path);
      expect(r.status, s.path).toBe(200);
      expect(r.headers["access-control-allow-origin"]).toBe("*");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(r.headers.etag).toBe(`"${s.sha256}"`);
      expect(sha(r.body)).toBe(s.sha256);
      expect(String(r.headers["content-type"]).startsWith(s.mediaType.split(";")[0]!)).toBe(true);
      if (/^text\//.test(s.mediaType)) expect(r.headers["content-type"]).toMatch(/charset=utf-8/);
    }
    expect((await get("/llms.txt")).headers["content-type"]).toBe("text/plain; charset=utf-8");
    // The frame log's static files: the checkpoint as text, tiles as bytes that never change.
    const checkpoint = await get("/log/checkpoint");
    expect(checkpoint.status).toBe(200);
    expect(checkpoint.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(checkpoint.headers["cache-control"]).toBe("no-cache");
  });

  it("answers If-None-Match with 304, ranges with 206 or 416, and compresses when asked", async () => {
    const first = await get("/api/v1/risk.json");
    expect((await get("/api/v1/risk.json", { "if-none-match": String(first.headers.etag) })).status).toBe(304);
    const part = await get("/api/v1/risk.json", { range: "bytes=0-9" });
    expect(part.status).toBe(206);
    expect(part.body.equals(first.body.subarray(0, 10))).toBe(true);
    expect(part.headers["content-range"]).toBe(`bytes 0-9/${first.body.byteLength}`);
    expect((await get("/api/v1/risk.json", { range: "bytes=999999-" })).status).toBe(416);
    const gz = await get("/llms-full.txt", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).equals(readFileSync(`${site}/llms-full.txt`))).toBe(true);
    const br = await get("/llms-full.txt", { "accept-encoding": "br, gzip" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).equals(readFileSync(`${site}/llms-full.txt`))).toBe(true);
  });

  it("serves GET and HEAD only (405 with Allow) and answers a CORS preflight", async () => {
    const post = await get("/api/v1/risk.json", {}, "POST");
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD, OPTIONS");
    const head = await get("/api/v1/risk.json", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    const pre = await get(
      "/api/v1/risk.json",
      { origin: "https://elsewhere.example", "access-control-request-method": "GET" },
      "OPTIONS",
    );
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    expect(pre.headers["access-control-allow-methods"]).toContain("GET");
  });

  it("never serves outside the site: traversal in every spelling, links out, dotfiles", async () => {
    for (const path of [
      "/../secret.txt",
      "/api/../../secret.txt",
      "/%2e%2e/secret.txt",
      "/%2E%2E%2Fsecret.txt",
      "/%252e%252e/secret.txt",
      "/..%5csecret.txt",
      "/api\\..\\..\\secret.txt",
      "/llms.txt%00.json",
      "/leak.txt",
      "/.git/config",
      "/.risk-cli-site",
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.toString()).not.toContain("outside the site");
    }
    expect(requestPath("/api/v1/risk.json")).toBe("/api/v1/risk.json");
  });
});

describe("the _headers file static hosts apply", () => {
  it("gives every surface its contract type, CORS and nosniff, and is written by replay too", async () => {
    const text = readFileSync(`${site}/_headers`, "utf8");
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    for (const s of integrity.surfaces as { path: string; mediaType: string }[]) {
      const h = hostHeadersFor(text, s.path);
      expect(h["access-control-allow-origin"], s.path).toBe("*");
      expect(h["x-content-type-options"]).toBe("nosniff");
      expect(h["content-type"]!.startsWith(s.mediaType)).toBe(true);
      expect(h["cache-control"]).toMatch(/max-age/);
      // The same headers as risk-cli serve sends.
      const r = await get(s.path);
      expect(r.headers["content-type"]).toBe(h["content-type"]);
      expect(r.headers["cache-control"]).toBe(h["cache-control"]);
    }
  });
});

describe("risk-cli serve's --site", () => {
  it("refuses to serve a folder that is not a risk-cli site, naming --site", async () => {
    const empty = tempDir("risk-serve-not-a-site-");
    for (const folder of ["/", "/etc", empty]) {
      const r = runServe({ site: folder, host: "127.0.0.1", port: 0, mcp: false, mcpOrigins: [], json: true });
      await expect(r, folder).rejects.toMatchObject({ code: "E_USAGE", message: expect.stringMatching(/--site/) });
    }
  });
});
