import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relativeLocation, siteServer } from "../../app/serve.ts";
import { archiveWithFrames, at, git } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

let base = "";
let close: (() => void) | undefined;
let archive = "";
let frames: { frameId: string; at: string; commit: string }[] = [];

beforeAll(async () => {
  const made = await archiveWithFrames(4);
  archive = made.archive;
  frames = made.summaries.map((s, i) => ({ frameId: s.frameId, at: at(15 * i), commit: s.commit }));
  const server = siteServer(made.site, { archive });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

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

/** The frames at which a surface's stored content changed, read with git from every frame.json. */
function changes(path: string): string[] {
  const out: string[] = [];
  let last = "";
  for (const f of frames) {
    const frame = JSON.parse(git(archive, "show", `${f.commit}:frame.json`));
    const stored = frame.surfaces[path]?.storedSha256;
    if (stored && stored !== last) out.push(f.frameId);
    last = stored ?? last;
  }
  return out;
}

/** Where a redirect of the request for `asked` leads: its Location resolved against that URL, as a client does. */
const where = (asked: string, r: { headers: Record<string, string | string[] | undefined> }) => {
  const u = new URL(String(r.headers.location), `${base}${asked}`);
  return `${u.pathname}${u.search}`;
};

const httpDate = (iso: string, plusMinutes = 0) => new Date(Date.parse(iso) + plusMinutes * 60_000).toUTCString();

describe("Memento (RFC 7089) through serve --archive", () => {
  it("lets a page on another origin read ETag, Link, Memento-Datetime and Content-Range, on every answer", async () => {
    const expose = (r: { headers: Record<string, string | string[] | undefined> }) =>
      String(r.headers["access-control-expose-headers"])
        .split(",")
        .map((h) => h.trim().toLowerCase());
    const live = await get("/llms.txt");
    const memento = await get(`/memento/${frames[0]!.frameId}/llms.txt`);
    expect(memento.headers["memento-datetime"]).toBeDefined();
    const answers = {
      live,
      memento,
      "not modified": await get("/llms.txt", { "if-none-match": String(live.headers.etag) }),
      "memento not modified": await get(`/memento/${frames[0]!.frameId}/llms.txt`, {
        "if-none-match": String(memento.headers.etag),
      }),
      partial: await get("/llms.txt", { range: "bytes=0-9" }),
      "memento partial": await get(`/memento/${frames[0]!.frameId}/llms.txt`, { range: "bytes=0-9" }),
      timegate: await get("/llms.txt", { "accept-datetime": httpDate(frames[1]!.at) }),
      timemap: await get("/timemap/llms.txt"),
      "not found": await get("/nothing.json"),
      "method not allowed": await get("/llms.txt", {}, "DELETE"),
    };
    for (const [what, r] of Object.entries(answers))
      for (const header of ["etag", "link", "memento-datetime", "content-range", "location", "allow"])
        expect(expose(r), `${what}: ${header}`).toContain(header);
    expect(answers.partial.status).toBe(206);
    expect(answers["not modified"].status).toBe(304);
  });

  it("lists in a TimeMap the frames at which a surface's content changed, not every frame", async () => {
    for (const path of ["/api/v1/black-box.json", "/api/v1/catalog.json", "/api/v1/risk.json"]) {
      const r = await get(`/timemap${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers["content-type"]).toBe("application/link-format; charset=utf-8");
      const text = r.body.toString();
      expect(text).toContain(`<${path}>; rel="original"`);
      expect(text).toContain(`<${path}>; rel="timegate"`);
      expect(text).toMatch(new RegExp(`<${"/timemap"}${path}>; rel="self"; type="application/link-format"; from="`));
      const listed = [...text.matchAll(/<\/memento\/([^/]+)\/[^>]+>; rel="[^"]*memento"; datetime="([^"]+)"/g)];
      expect(
        listed.map((m) => m[1]),
        path,
      ).toEqual(changes(path));
      for (const m of listed) {
        const frame = frames.find((f) => f.frameId === m[1])!;
        expect(m[2]).toBe(httpDate(frame.at));
      }
    }
    // black-box.json changes at every frame; the catalog never does in this archive.
    expect(changes("/api/v1/black-box.json")).toHaveLength(4);
    expect(changes("/api/v1/catalog.json")).toHaveLength(1);
  });

  it("redirects Accept-Datetime to the version published then, and serves it byte for byte as replay does", async () => {
    const path = "/api/v1/black-box.json";
    const r = await get(path, { "Accept-Datetime": httpDate(frames[2]!.at, 7) });
    expect(r.status).toBe(302);
    expect(where(path, r)).toBe(`/memento/${frames[2]!.frameId}${path}`);
    expect(r.headers.vary).toBe("Accept-Datetime");
    const link = String(r.headers.link);
    expect(link).toContain(`<${path}>; rel="original timegate"`);
    expect(link).toContain(`</timemap${path}>; rel="timemap"; type="application/link-format"`);
    expect(link).toContain(
      `</memento/${frames[0]!.frameId}${path}>; rel="first memento"; datetime="${httpDate(frames[0]!.at)}"`,
    );
    expect(link).toContain(`</memento/${frames[3]!.frameId}${path}>; rel="last memento"`);
    const memento = await get(where(path, r));
    expect(memento.status).toBe(200);
    expect(memento.headers["memento-datetime"]).toBe(httpDate(frames[2]!.at));
    expect(memento.headers["content-type"]).toBe("application/json");
    const out = `${tempDir("risk-memento-")}/replay`;
    const replay = runCli([
      "replay",
      "--archive",
      archive,
      "--date",
      new Date(Date.parse(frames[2]!.at) + 7 * 60_000).toISOString(),
      "--out",
      out,
    ]);
    expect(replay.status, replay.stderr).toBe(0);
    expect(memento.body.equals(readFileSync(`${out}${path}`))).toBe(true);
    // A surface unchanged since the first frame: the first frame's version, whatever the instant.
    const catalog = await get("/api/v1/catalog.json", { "Accept-Datetime": httpDate(frames[3]!.at, 60) });
    expect(where("/api/v1/catalog.json", catalog)).toBe(`/memento/${frames[0]!.frameId}/api/v1/catalog.json`);
    expect(String(catalog.headers.link)).toContain('rel="first last memento"');
  });

  it("redirects the memento URI of a frame that published a surface unchanged to the version it served", async () => {
    // The catalog never changes in this archive: every later frame published the first frame's version.
    const path = "/api/v1/catalog.json";
    expect(changes(path)).toEqual([frames[0]!.frameId]);
    for (const frame of frames.slice(1)) {
      const asked = `/memento/${frame.frameId}${path}`;
      const r = await get(asked);
      expect(r.status, frame.frameId).toBe(302);
      expect(where(asked, r)).toBe(`/memento/${frames[0]!.frameId}${path}`);
      expect(String(r.headers.link)).toContain('rel="first last memento"');
      const memento = await get(where(asked, r));
      expect(memento.status).toBe(200);
      expect(memento.headers["memento-datetime"]).toBe(httpDate(frames[0]!.at));
    }
    // A page by its folder URL, and without its slash (301 to it first).
    const page = await get(`/memento/${frames[3]!.frameId}/series`);
    expect(page.status).toBe(301);
    expect(where(`/memento/${frames[3]!.frameId}/series`, page)).toBe(`/memento/${frames[3]!.frameId}/series/`);
    expect([200, 302]).toContain((await get(`/memento/${frames[3]!.frameId}/series/`)).status);
    // No such frame, or a path the frame did not publish: still 404.
    expect((await get(`/memento/000099-20991231T000000Z${path}`)).status).toBe(404);
    expect((await get(`/memento/${frames[2]!.frameId}/api/v1/nothing.json`)).status).toBe(404);
  });

  it("answers before the first frame with 404 and the first memento's link (never a later version), a bad date or TimeMap page with 400, an unknown memento with 404", async () => {
    const path = "/api/v1/risk.json";
    const early = await get(path, { "Accept-Datetime": "Thu, 01 Jan 2015 00:00:00 GMT" });
    expect(early.status).toBe(404);
    expect(early.headers.location).toBeUndefined();
    expect(String(early.headers.link)).toContain(`/memento/${frames[0]!.frameId}${path}>; rel="first`);
    expect((await get(path, { "Accept-Datetime": "2026-11-21" })).status).toBe(400);
    expect((await get(`/memento/000099-20991231T000000Z${path}`)).status).toBe(404);
    expect((await get("/timemap/api/v1/nothing.json")).status).toBe(404);
    // A TimeMap page that is not a whole number from 1 is the client's mistake; one past the last is not found.
    for (const page of ["abc", "-1", "0", "1.5", "1e3", "", "%201"])
      expect((await get(`/timemap${path}?page=${page}`)).status, page).toBe(400);
    expect((await get(`/timemap${path}?page=1`)).status).toBe(200);
    expect((await get(`/timemap${path}?page=999`)).status).toBe(404);
    // Without Accept-Datetime: today's file, naming its TimeGate and TimeMap.
    const now = await get(path);
    expect(now.status).toBe(200);
    expect(String(now.headers.link)).toBe(
      `<${path}>; rel="original timegate", </timemap${path}>; rel="timemap"; type="application/link-format"`,
    );
    expect(String(now.headers.vary)).toContain("Accept-Datetime");
    // HEAD of a memento: its headers, no body.
    const head = await get(`/memento/${frames[1]!.frameId}/api/v1/black-box.json`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    expect(head.headers["memento-datetime"]).toBe(httpDate(frames[1]!.at));
  });

  it("follows the archive: a frame assembled while serving is a new memento", async () => {
    const site = `${tempDir("risk-memento-site-")}/site`;
    execFileSync(
      process.execPath,
      [`${process.cwd()}/dist/bin/risk-cli.js`, "assemble", "--site", site, "--archive", archive, "--now", at(60)],
      { env: { ...process.env, SOURCE_DATE_EPOCH: "" }, stdio: "ignore" },
    );
    const r = await get("/timemap/api/v1/black-box.json");
    expect(r.body.toString()).toContain(`datetime="${httpDate(at(60))}"`);
  });
});

describe("a page's folder URL through serve --archive", () => {
  it("answers a page at its folder URL (/series/) as at its index.html: TimeGate, memento, TimeMap and Link", async () => {
    const then = { "Accept-Datetime": httpDate(frames[0]!.at, 1) };
    for (const folder of [
      "/series/",
      "/donnees/agents/",
      "/en/agent-surface/",
      "/en/press-resources/",
      "/series/us-debt-risk/",
    ]) {
      const viaFile = await get(`${folder}index.html`, then);
      expect(viaFile.status, folder).toBe(302);
      const frameId = where(`${folder}index.html`, viaFile).split("/")[2];
      // Before: today's page, with no Link and no Vary: Accept-Datetime (a look-ahead).
      const gate = await get(folder, then);
      expect(gate.status, folder).toBe(302);
      expect(where(folder, gate)).toBe(`/memento/${frameId}${folder}`);
      expect(gate.headers.vary).toBe("Accept-Datetime");
      expect(String(gate.headers.link)).toContain(`<${folder}>; rel="original timegate"`);
      expect(String(gate.headers.link)).toContain(`</timemap${folder}>; rel="timemap"`);
      const memento = await get(where(folder, gate));
      expect(memento.status, folder).toBe(200);
      expect(memento.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(memento.headers["memento-datetime"]).toBe(httpDate(frames[0]!.at));
      expect(memento.body.equals((await get(where(`${folder}index.html`, viaFile))).body)).toBe(true);
      const timemap = await get(`/timemap${folder}`);
      expect(timemap.status, folder).toBe(200);
      expect(timemap.body.toString()).toContain(`<${folder}>; rel="original"`);
      expect(timemap.body.toString()).toContain(`</memento/${frameId}${folder}>`);
      const live = await get(folder);
      expect(live.status).toBe(200);
      expect(live.headers.link).toBe(
        `<${folder}>; rel="original timegate", </timemap${folder}>; rel="timemap"; type="application/link-format"`,
      );
      expect(String(live.headers.vary)).toContain("Accept-Datetime");
    }
    const early = await get("/series/", { "Accept-Datetime": "Thu, 01 Jan 2015 00:00:00 GMT" });
    expect(early.status).toBe(404);
    expect(String(early.headers.link)).toContain(`</memento/${frames[0]!.frameId}/series/>; rel="first`);
  });

  it("redirects a memento or TimeMap of a page named without its final slash (301), as the live path is", async () => {
    const frameId = frames[0]!.frameId;
    const live = await get("/series/us-financial-stress");
    expect(live.status).toBe(301);
    for (const [asked, location] of [
      [`/memento/${frameId}/series/us-financial-stress`, `/memento/${frameId}/series/us-financial-stress/`],
      [`/memento/${frameId}/series?x=1`, `/memento/${frameId}/series/?x=1`],
      ["/timemap/series/us-financial-stress", "/timemap/series/us-financial-stress/"],
    ]) {
      const r = await get(asked!);
      expect(r.status, asked).toBe(301);
      expect(where(asked!, r)).toBe(location);
      expect((await get(location!)).status, location).toBe(200);
    }
    expect((await get(`/memento/${frameId}/series/no-such-series`)).status).toBe(404);
  });
});

describe("a memento is answered as the live site answers a file", () => {
  it("answers a memento's If-None-Match, Range and Accept-Encoding as the live site does", async () => {
    const uri = `/memento/${frames[1]!.frameId}/api/v1/black-box.json`;
    const plain = await get(uri);
    expect(plain.status).toBe(200);
    const hash = createHash("sha256").update(plain.body).digest("hex");
    expect(plain.headers.etag).toBe(`"${hash}"`);
    expect(plain.headers["accept-ranges"]).toBe("bytes");
    const again = await get(uri, { "if-none-match": `"${hash}"` });
    expect(again.status).toBe(304);
    expect(again.body.byteLength).toBe(0);
    expect(again.headers["memento-datetime"]).toBe(httpDate(frames[1]!.at));
    const part = await get(uri, { range: "bytes=0-9" });
    expect(part.status).toBe(206);
    expect(part.body.equals(plain.body.subarray(0, 10))).toBe(true);
    expect(part.headers["content-range"]).toBe(`bytes 0-9/${plain.body.byteLength}`);
    expect((await get(uri, { range: "bytes=0-9", "if-range": '"elsewhere"' })).status).toBe(200);
    expect((await get(uri, { range: `bytes=${plain.body.byteLength}-` })).status).toBe(416);
    const gz = await get(uri, { "accept-encoding": "gzip;q=0.5, br;q=0" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.etag).toBe(`"${hash}-gzip"`);
    expect(String(gz.headers.vary)).toContain("Accept-Encoding");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect((await get(uri, { "accept-encoding": "gzip", "if-none-match": `"${hash}-gzip"` })).status).toBe(304);
  });

  it("refuses an Accept-Datetime naming a day the calendar does not have with 400", async () => {
    const path = "/api/v1/risk.json";
    for (const date of [
      "Thu, 30 Feb 2026 10:00:00 GMT",
      "Tue, 31 Nov 2026 10:00:00 GMT",
      "Sat, 21 Nov 2026 24:00:00 GMT",
    ])
      expect((await get(path, { "Accept-Datetime": date })).status, date).toBe(400);
    expect((await get(path, { "Accept-Datetime": "Thu, 31 Dec 2026 10:00:00 GMT" })).status).toBe(302);
  });

  it("takes the three forms of HTTP-date RFC 9110 asks for, and refuses a day named wrongly", async () => {
    const path = "/api/v1/risk.json";
    const fixdate = await get(path, { "Accept-Datetime": "Thu, 31 Dec 2026 10:00:00 GMT" });
    expect(fixdate.status).toBe(302);
    for (const date of ["Thursday, 31-Dec-26 10:00:00 GMT", "Thu Dec 31 10:00:00 2026"]) {
      const r = await get(path, { "Accept-Datetime": date });
      expect(r.status, date).toBe(302);
      expect(r.headers.location, date).toBe(fixdate.headers.location);
    }
    for (const date of [
      "Fri, 31 Dec 2026 10:00:00 GMT",
      "Wednesday, 31-Dec-26 10:00:00 GMT",
      "Sun Dec 31 10:00:00 2026",
    ])
      expect((await get(path, { "Accept-Datetime": date })).status, date).toBe(400);
  });

  it("answers a path the archive never published as the live site does, Accept-Datetime or not", async () => {
    for (const headers of [{}, { "Accept-Datetime": "Sat, 28 Feb 2026 10:00:00 GMT" }]) {
      expect((await get("/_headers", headers)).status).toBe(404);
      const folder = await get("/series", headers);
      expect(folder.status).toBe(301);
      expect(folder.headers.location).toBe("series/");
    }
  });
});

describe("serve behind a reverse proxy under a path prefix", () => {
  it("redirects by references relative to the request: /risk/series to /risk/series/, a TimeGate to /risk/memento/...", async () => {
    // nginx's `location /risk/ { proxy_pass http://127.0.0.1:8080/; }`: the prefix taken off, the rest passed on.
    const up = new URL(base);
    const proxy = createServer((req, res) => {
      if (!req.url?.startsWith("/risk/")) return void res.writeHead(404).end();
      const passed = request(
        {
          host: up.hostname,
          port: up.port,
          path: req.url.slice("/risk".length),
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      passed.on("error", () => res.writeHead(502).end());
      req.pipe(passed);
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const front = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const then = { "Accept-Datetime": httpDate(frames[1]!.at, 1) };
      const [first, later] = [frames[0]!.frameId, frames[2]!.frameId];
      for (const [asked, headers, status, reference] of [
        ["/series", {}, 301, "series/"],
        ["/donnees/agents?lang=fr", {}, 301, "agents/?lang=fr"],
        ["/series/", then, 302, undefined],
        ["/api/v1/black-box.json", then, 302, `../../memento/${frames[1]!.frameId}/api/v1/black-box.json`],
        [`/memento/${later}/api/v1/catalog.json`, {}, 302, `../../../${first}/api/v1/catalog.json`],
        [`/memento/${first}/series`, {}, 301, "series/"],
        ["/timemap/series/us-financial-stress", {}, 301, "us-financial-stress/"],
      ] as const) {
        // Straight to serve, the reference resolves to the target's path from the root.
        const direct = await get(asked, headers);
        expect(direct.status, asked).toBe(status);
        const target = where(asked, direct);
        if (reference !== undefined) expect(direct.headers.location, asked).toBe(reference);
        // Through the proxy, the client resolves it under the prefix, where the target answers.
        const proxied = await get(`/risk${asked}`, headers, "GET", front);
        expect(proxied.status, asked).toBe(status);
        const location = new URL(String(proxied.headers.location), `${front}/risk${asked}`);
        expect(`${location.pathname}${location.search}`, asked).toBe(`/risk${target}`);
        const followed = await get(`${location.pathname}${location.search}`, {}, "GET", front);
        expect(followed.status, `${asked} -> ${location.pathname}`).toBe(200);
        expect(followed.body.equals((await get(target)).body)).toBe(true);
      }
    } finally {
      proxy.close();
    }
    // A first segment with a colon is not read as a scheme; a target that is the request's own folder is ./.
    expect(relativeLocation("/a:b", "/a:b/")).toBe("./a:b/");
    expect(relativeLocation("/", "/memento/x/")).toBe("memento/x/");
    expect(relativeLocation("/a/b/", "/a/b/")).toBe("./");
  });
});
