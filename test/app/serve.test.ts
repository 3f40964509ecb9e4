import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpHttpHandler } from "../../app/mcp.ts";
import { requestPath, siteServer } from "../../app/serve.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runServe } from "../../cli/commands/serve.ts";
import { nodeHasher } from "../../cli/runtime/node.ts";
import { at } from "../helpers/archive.ts";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";
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
  // A FIFO inside the site: never read (it would hang the server), never served.
  execFileSync("mkfifo", [`${site}/api/v1/fifo.json`]);
  // A folder with no page of its own.
  mkdirSync(`${site}/tiles-only/a`, { recursive: true });
  mkdirSync(`${site}/.git`, { recursive: true });
  writeFileSync(`${site}/.git/config`, "dotfile\n");
  const server = siteServer(site);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

/** One raw request over a real socket: the path is sent exactly as given, to `origin` or the shared server. */
function get(path: string, headers: Record<string, string> = {}, method = "GET", origin = base) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (ok, fail) => {
      const url = new URL(origin);
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

  it("answers CONNECT and a method the HTTP parser does not know (FOO) with 405 and Allow, as any other method", async () => {
    const { port } = new URL(base);
    const raw = (text: string) =>
      new Promise<string>((ok, fail) => {
        const socket = connect(Number(port), "127.0.0.1", () => socket.write(text));
        const chunks: Buffer[] = [];
        socket.on("data", (c: Buffer) => chunks.push(c));
        socket.on("close", () => ok(Buffer.concat(chunks).toString("latin1")));
        socket.on("error", fail);
      });
    for (const request of [
      "CONNECT x:1 HTTP/1.1\r\nHost: x:1\r\n\r\n",
      "FOO /llms.txt HTTP/1.1\r\nHost: x\r\n\r\n",
      "DELETE /llms.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]) {
      const answer = await raw(request);
      const what = request.split(" ")[0];
      expect(answer, what).toMatch(/^HTTP\/1\.1 405 /);
      expect(answer, what).toMatch(/\r\nallow: GET, HEAD, OPTIONS\r\n/i);
      expect(answer, what).toMatch(/\r\naccess-control-allow-origin: \*\r\n/i);
      expect(answer, what).toMatch(/Only GET and HEAD are served\.\n/);
    }
    // Another malformed request still gets Node's 400.
    expect(await raw("GET /llms.txt HTTP/1.1\r\nBad Header\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    // The server answers on.
    expect((await get("/llms.txt")).status).toBe(200);
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
      "/api/v1/fifo.json",
      "/tiles-only",
      "/tiles-only/",
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.toString()).not.toContain("outside the site");
    }
    expect(requestPath("/api/v1/risk.json")).toBe("/api/v1/risk.json");
  });
});

describe("the _headers file static hosts apply", () => {
  it("gives every surface its contract type, CORS with the headers serve exposes, and nosniff, and is written by replay too", async () => {
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
      // A page of another origin reads the ETag from a static host as from risk-cli serve.
      expect(h["access-control-expose-headers"], s.path).toBe(r.headers["access-control-expose-headers"]);
      expect(h["access-control-expose-headers"]).toContain("ETag");
    }
  });
});

describe("the _headers rules of pages", () => {
  it("gives each page at its folder URL (/series/, /donnees/agents/) the rules of its index.html", async () => {
    const text = readFileSync(`${site}/_headers`, "utf8");
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    const pages = (integrity.surfaces as { path: string }[])
      .map((s) => s.path)
      .filter((p) => p.endsWith("/index.html"))
      .map((p) => p.slice(0, -"index.html".length));
    expect(pages).toEqual(expect.arrayContaining(["/series/", "/donnees/agents/", "/en/agent-surface/"]));
    for (const folder of pages) {
      // Before: only /series/index.html had a rule; /series/ got the host's defaults.
      const h = hostHeadersFor(text, folder);
      expect(h, folder).toEqual(hostHeadersFor(text, `${folder}index.html`));
      expect(h["content-type"]).toBe("text/html; charset=utf-8");
      const r = await get(folder);
      expect(r.headers["content-type"]).toBe(h["content-type"]);
      expect(r.headers["cache-control"]).toBe(h["cache-control"]);
      // A page of another origin reads the ETag from a static host as from risk-cli serve.
      expect(h["access-control-expose-headers"], folder).toBe(r.headers["access-control-expose-headers"]);
      expect(h["access-control-expose-headers"]).toContain("ETag");
    }
  });
});

/** A server of its own over `site`, for tests that count its connections or need other options. */
async function ownServer(options: Parameters<typeof siteServer>[1] = {}, folder = site) {
  const server = siteServer(folder, options);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  const connections = () => new Promise<number>((ok) => server.getConnections((_e, n) => ok(n)));
  return { server, port, url: `http://127.0.0.1:${port}`, connections };
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe("serve under clients that pipeline", () => {
  it("bounds the memory of a client that pipelines requests without reading, and answers the others", async () => {
    const { server, port, url, connections } = await ownServer();
    const before = process.memoryUsage().arrayBuffers;
    const hog = connect(port, "127.0.0.1");
    await once(hog, "connect");
    hog.on("error", () => {});
    hog.pause(); // never reads a response
    hog.write("GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(400));
    await sleep(500);
    // Before: every one of the 400 answers (openapi.json is 160 KB) waited in memory.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 2 ** 20);
    for (let i = 0; i < 40 && (await connections()) > 0; i++) await sleep(50);
    expect(await connections()).toBe(0);
    const other = await fetch(`${url}/api/v1/risk.json`);
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    hog.destroy();
    server.close();
  });

  it("answers pipelined requests in order, one after the other", async () => {
    const { server, port } = await ownServer();
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    const paths = ["/api/v1/risk.json", "/nothing", "/llms.txt", "/series", "/api/v1/risk.json"];
    socket.write(
      paths
        .map(
          (p, i) =>
            `${i === 1 ? "HEAD" : "GET"} ${p} HTTP/1.1\r\nHost: x${i === paths.length - 1 ? "\r\nConnection: close" : ""}\r\n\r\n`,
        )
        .join(""),
    );
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    await once(socket, "end");
    const statuses = [
      ...Buffer.concat(chunks)
        .toString("latin1")
        .matchAll(/HTTP\/1\.1 (\d{3}) /g),
    ].map((m) => m[1]);
    expect(statuses).toEqual(["200", "404", "200", "301", "200"]);
    server.close();
  });
});

describe("serve's content negotiation, validators and ranges (RFC 9110)", () => {
  const file = "/llms-full.txt";
  const bytes = () => readFileSync(`${site}${file}`);

  it("negotiates Accept-Encoding by q-value: q=0 refuses a coding, names are case-insensitive, * stands for the rest", async () => {
    const coding = async (accept: string) =>
      (await get(file, { "accept-encoding": accept })).headers["content-encoding"];
    expect(await coding("gzip;q=0")).toBeUndefined();
    expect(await coding("br;q=0, gzip")).toBe("gzip");
    expect(await coding("GZIP")).toBe("gzip");
    expect(await coding("Br;Q=1.0")).toBe("br");
    expect(await coding("gzip;q=0.9, br;q=0.8")).toBe("gzip");
    expect(await coding("gzip;q=0.5, br;q=0.8")).toBe("br");
    expect(await coding("br;q=0, *")).toBe("gzip");
    expect(await coding("*")).toBe("br");
    expect(await coding("*;q=0, identity")).toBeUndefined();
    expect(await coding("identity, gzip;q=0.5")).toBeUndefined();
    expect(await coding("deflate")).toBeUndefined();
    expect(await coding("")).toBeUndefined();
    const gz = await get(file, { "accept-encoding": "br;q=0, GZIP;q=0.3" });
    expect(gunzipSync(gz.body).equals(bytes())).toBe(true);
  });

  it("gives each coding its own strong ETag and answers If-None-Match for the representation served", async () => {
    const hash = sha(bytes());
    const plain = await get(file);
    const gz = await get(file, { "accept-encoding": "gzip" });
    const br = await get(file, { "accept-encoding": "br" });
    expect(plain.headers.etag).toBe(`"${hash}"`);
    expect(gz.headers.etag).toBe(`"${hash}-gzip"`);
    expect(br.headers.etag).toBe(`"${hash}-br"`);
    // A tag matches only the representation it was given with.
    expect((await get(file, { "accept-encoding": "gzip", "if-none-match": `"${hash}"` })).status).toBe(200);
    const same = await get(file, { "accept-encoding": "gzip", "if-none-match": `"${hash}-br", "${hash}-gzip"` });
    expect(same.status).toBe(304);
    expect(same.headers.etag).toBe(`"${hash}-gzip"`);
    expect((await get(file, { "if-none-match": `"${hash}-gzip"` })).status).toBe(200);
    expect((await get(file, { "accept-encoding": "br", "if-none-match": `W/"${hash}-br"` })).status).toBe(304);
  });

  it("ignores Range when If-Range does not match the ETag of the representation served", async () => {
    const hash = sha(bytes());
    const ranged = (headers: Record<string, string>) => get(file, { range: "bytes=0-9", ...headers });
    expect((await ranged({ "if-range": `"${hash}"` })).status).toBe(206);
    for (const ifRange of [`"${"0".repeat(64)}"`, `W/"${hash}"`, `"${hash}-gzip"`, "Thu, 01 Jan 2015 00:00:00 GMT"]) {
      const r = await ranged({ "if-range": ifRange });
      expect(r.status, ifRange).toBe(200);
      expect(r.body.equals(bytes())).toBe(true);
    }
    // A range of the gzip representation, validated by its own tag.
    const gz = await get(file, { "accept-encoding": "gzip" });
    const part = await ranged({ "accept-encoding": "gzip", "if-range": `"${hash}-gzip"` });
    expect(part.status).toBe(206);
    expect(part.headers["content-encoding"]).toBe("gzip");
    expect(part.body.equals(gz.body.subarray(0, 10))).toBe(true);
    expect(part.headers["content-range"]).toBe(`bytes 0-9/${gz.body.byteLength}`);
  });

  it("ignores a Range in another unit, answers several ranges with the whole file, and refuses only an unsatisfiable one with 416", async () => {
    const whole = bytes();
    for (const range of [
      "items=0-9",
      "bytes=0-9, 20-29",
      "bytes=-0,0-1",
      "bytes=0-1, 99999999-",
      "bytes=5-2",
      "bytes=abc",
    ]) {
      const r = await get(file, { range });
      expect(r.status, range).toBe(200);
      expect(r.body.equals(whole)).toBe(true);
    }
    const tail = await get(file, { range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(whole.subarray(whole.byteLength - 10))).toBe(true);
    expect((await get(file, { range: "BYTES=0-9" })).status).toBe(206);
    const none = await get(file, { range: `bytes=${whole.byteLength}-, 99999999-` });
    expect(none.status).toBe(416);
    expect(none.headers["content-range"]).toBe(`bytes */${whole.byteLength}`);
    expect((await get(file, { range: "bytes=-0" })).status).toBe(416);
    // Ranges are defined for GET only.
    expect((await get(file, { range: "bytes=0-9" }, "HEAD")).status).toBe(200);
  });
});

describe("serve's ETags", () => {
  it("sends as ETag the SHA-256 of the bytes it sends, even for a file edited in place", async () => {
    const copy = `${tempDir("risk-serve-etag-")}/site`;
    cpSync(site, copy, { recursive: true, filter: (from) => !from.endsWith("fifo.json") });
    const { server, url } = await ownServer({}, copy);
    const fetched = async (path: string, headers: Record<string, string> = {}) => {
      const r = await get(path, headers, "GET", url);
      return { status: r.status, etag: r.headers.etag, body: r.body };
    };
    const listed = (path: string) =>
      (
        JSON.parse(readFileSync(`${copy}/api/v1/integrity.json`, "utf8")).surfaces as { path: string; sha256: string }[]
      ).find((s) => s.path === path)!.sha256;
    // Before: the ETag was integrity.json's fingerprint, whatever the bytes sent.
    writeFileSync(`${copy}/llms.txt`, "x\n");
    const edited = await fetched("/llms.txt");
    expect(edited.body.toString()).toBe("x\n");
    expect(edited.etag).toBe(`"${sha(edited.body)}"`);
    expect((await fetched("/llms.txt", { "if-none-match": `"${listed("/llms.txt")}"` })).status).toBe(200);
    // A compressed representation is tagged with the hash of the bytes it compresses.
    writeFileSync(`${copy}/llms-full.txt`, "y".repeat(2000));
    const gz = await fetched("/llms-full.txt", { "accept-encoding": "gzip" });
    expect(gz.etag).toBe(`"${sha(Buffer.from("y".repeat(2000)))}-gzip"`);
    // A file left alone long enough for its hash to be remembered, then edited in place to the
    // same size with its modification time put back: its new bytes get their own ETag.
    const file = `${copy}/api/v1/risk.json`;
    // A modification time in whole seconds, which utimes can put back exactly.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    utimesSync(file, mtime, mtime);
    const size = statSync(file).size;
    await sleep(2_100);
    const first = await fetched("/api/v1/risk.json");
    expect(first.etag).toBe(`"${sha(first.body)}"`);
    expect((await fetched("/api/v1/risk.json")).etag).toBe(first.etag);
    const changed = Buffer.from(first.body);
    changed[changed.indexOf("{") + 1] = changed[changed.indexOf("{") + 1] === 0x20 ? 0x09 : 0x20;
    writeFileSync(file, changed);
    utimesSync(file, mtime, mtime);
    expect(statSync(file)).toMatchObject({ size, mtimeMs: mtime.getTime() });
    const again = await fetched("/api/v1/risk.json");
    expect(again.body.equals(changed)).toBe(true);
    expect(again.etag).toBe(`"${sha(changed)}"`);
    server.close();
  });
});

describe("serve while an assembly swaps the site", () => {
  const surfaces = ["/llms.txt", "/api/v1/risk.json", "/api/v1/integrity.json", "/series/", "/openapi.json"];

  it("answers live surfaces while the site folder is briefly absent between the swap's two renames", async () => {
    const dir = tempDir("risk-serve-swap-");
    const folder = `${dir}/site`;
    await runAssemble({ site: folder, archive: `${dir}/archive.git`, now: at(0), json: true });
    const { server, url } = await ownServer({}, folder);
    renameSync(folder, `${folder}.old-1`);
    const pending = surfaces.map((path) => get(path, {}, "GET", url));
    await sleep(50);
    renameSync(`${folder}.old-1`, folder);
    expect((await Promise.all(pending)).map((r) => r.status)).toEqual(surfaces.map(() => 200));
    // A path the site does not have is still answered 404 at once.
    const started = Date.now();
    expect((await get("/nothing-here.json", {}, "GET", url)).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(500);
    server.close();
  });

  it("answers no live surface 404 while assemblies in another process swap the site under keep-alive clients", async () => {
    const dir = tempDir("risk-serve-race-");
    const folder = `${dir}/site`;
    const archive = `${dir}/archive.git`;
    await runAssemble({ site: folder, archive, now: at(0), json: true });
    const { server, port } = await ownServer({}, folder);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    let assembling = true;
    const statuses = new Map<number, number>();
    const client = async (n: number) => {
      for (let i = n; assembling; i++) {
        const status = await new Promise<number>((ok, fail) => {
          const req = request({ host: "127.0.0.1", port, path: surfaces[i % surfaces.length], agent }, (res) => {
            res.resume();
            res.on("end", () => ok(res.statusCode!));
          });
          req.on("error", fail);
          req.end();
        });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    const clients = Array.from({ length: 8 }, (_, n) => client(n));
    for (let frame = 1; frame <= 4; frame++) {
      const child = spawn(
        process.execPath,
        [CLI, "assemble", "--site", folder, "--archive", archive, "--now", at(15 * frame)],
        {
          cwd: ROOT,
          stdio: "ignore",
        },
      );
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
    }
    assembling = false;
    await Promise.all(clients);
    agent.destroy();
    server.close();
    expect(Object.fromEntries(statuses)).toEqual({ 200: expect.any(Number) });
  }, 60_000);
});

describe("serve's request targets and preconditions (RFC 9112, RFC 9110)", () => {
  it("takes an absolute-form request target (http://host/path) for its path and query", async () => {
    const host = new URL(base).host;
    const plain = await get("/api/v1/risk.json");
    // Before: 404, the target not starting with a slash.
    for (const target of [`http://${host}/api/v1/risk.json`, `HTTP://elsewhere.example/api/v1/risk.json`]) {
      const r = await get(target);
      expect(r.status, target).toBe(200);
      expect(r.body.equals(plain.body)).toBe(true);
      expect(r.headers.etag).toBe(plain.headers.etag);
    }
    const folder = await get(`http://${host}/series?lang=fr`);
    expect(folder.status).toBe(301);
    expect(folder.headers.location).toBe("series/?lang=fr");
    expect((await get(`http://${host}/%2e%2e/secret.txt`)).status).toBe(404);
    expect((await get(`http://${host}/_headers`)).status).toBe(404);
  });

  it("answers an If-Match that names another ETag with 412, and serves on *, the current ETag or none", async () => {
    const file = "/llms-full.txt";
    const current = String((await get(file)).headers.etag);
    const gzipped = String((await get(file, { "accept-encoding": "gzip" })).headers.etag);
    // Before: 200 whatever If-Match named.
    for (const ifMatch of ['"x"', `W/${current}`, gzipped, `"${"0".repeat(64)}"`]) {
      const r = await get(file, { "if-match": ifMatch });
      expect(r.status, ifMatch).toBe(412);
      expect(r.body.toString()).toMatch(/If-Match does not name the current ETag/);
    }
    expect((await get(file, { "if-match": '"x"' }, "HEAD")).status).toBe(412);
    // The identity tag does not name the gzip representation; the refusal itself is not gzipped.
    const refused = await get(file, { "if-match": current, "accept-encoding": "gzip" });
    expect(refused.status).toBe(412);
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.headers.etag).toBe(gzipped);
    for (const ifMatch of ["*", current, `"x", ${current}`]) {
      const r = await get(file, { "if-match": ifMatch });
      expect(r.status, ifMatch).toBe(200);
      expect(r.body.equals(readFileSync(`${site}${file}`))).toBe(true);
    }
    expect((await get(file, { "if-match": gzipped, "accept-encoding": "gzip" })).status).toBe(200);
    expect((await get(file, { "if-match": current, range: "bytes=0-9" })).status).toBe(206);
  });
});

describe("serve's paths", () => {
  it("refuses a trailing slash after a file and an encoded slash, redirects a folder to its slash form and never serves _headers", async () => {
    for (const path of [
      "/api/v1/risk.json/",
      "/api/v1/%2frisk.json",
      "/api%2Fv1/risk.json",
      "/api//v1/risk.json",
      "/_headers",
      "/_headers?x",
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
    }
    const series = await get("/series");
    expect(series.status).toBe(301);
    expect(series.headers.location).toBe("series/");
    const agents = await get("/donnees/agents?lang=fr&x=%2F");
    expect(agents.status).toBe(301);
    expect(agents.headers.location).toBe("agents/?lang=fr&x=%2F");
    const page = await get("/series/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(requestPath("/api/v1/%2frisk.json")).toBeNull();
  });
});

describe("serve --mcp: the request size limit", () => {
  it("answers a chunked request over 1 MB with 413 before closing, and reads a small chunked one", async () => {
    const { server, port } = await ownServer({
      mcp: mcpHttpHandler({ site, archive: `${site}/../archive.git`, hash: nodeHasher }),
    });
    const post = (body: Buffer) =>
      new Promise<{ status: number; body: string }>((ok, fail) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            path: "/mcp",
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Accept: "application/json, text/event-stream",
              "Transfer-Encoding": "chunked",
              Expect: "100-continue",
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => ok({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
          },
        );
        req.on("error", fail);
        req.on("continue", () => {
          for (let i = 0; i < body.byteLength; i += 65_536) req.write(body.subarray(i, i + 65_536));
          req.end();
        });
      });
    const huge = await post(Buffer.from(`"${"x".repeat(2_000_000)}"`));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body).error.message).toBe("The request is too large");
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const small = await post(Buffer.from(JSON.stringify(init)));
    expect(small.status, small.body).toBe(200);
    expect(JSON.parse(small.body).result.serverInfo.name).toBe("risk-cli");
    server.close();
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

  it("refuses a file given as --site with exit 2, saying it is a file and not a site folder", () => {
    // Before: exit 6, saying the site does not exist.
    const r = runCli(["serve", "--site", `${site}/api/v1/risk.json`, "--port", "0"]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--site \S+risk\.json is a file, not a site folder: give the folder/);
  });

  it("refuses a --site that is a symbolic link looping or leading to nothing with exit 2, in serve, mcp and search", () => {
    const cwd = tempDir("risk-site-link-");
    symlinkSync("self", `${cwd}/self`);
    symlinkSync("other", `${cwd}/one`);
    symlinkSync("one", `${cwd}/other`);
    symlinkSync("nowhere", `${cwd}/dangling`);
    for (const [link, said] of [
      ["self", "is a symbolic link that loops (it leads back to itself through links): give the site folder itself"],
      ["one", "is a symbolic link that loops (it leads back to itself through links): give the site folder itself"],
      ["dangling", "is a symbolic link to nothing (its target does not exist): give the site folder itself"],
    ] as const)
      for (const args of [
        ["serve", "--site", link, "--port", "0"],
        ["mcp", "--site", link],
        ["search", "taux", "--site", link],
      ]) {
        // Before: exit 6 "does not exist" (serve, mcp), exit 3 "not a regular file inside it" (search).
        const r = runCli(args, { cwd });
        expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(new RegExp(`--site \\S*${link} ${said.replace(/[()]/g, "\\$&")}`));
      }
  });
});
