/**
 * Serving a site folder as the contract says: GET and HEAD only, the surfaces' own media types
 * (from the site's integrity.json, with charset=utf-8 on text), `Access-Control-Allow-Origin: *`
 * and preflight answers, `X-Content-Type-Options: nosniff`, an ETag that is the file's SHA-256
 * (`If-None-Match` gives 304), single byte ranges, gzip and brotli when asked, and a
 * Cache-Control per kind of file. Only files of the site are served: no path traversal in any
 * spelling, no symbolic link out of the site, no dotfile. Meant to run on 127.0.0.1, locally or
 * behind a reverse proxy.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import type { MementoIndex } from "../archive/api/memento.ts";
import { gitdirOf } from "../archive/git/objects.ts";
import { MEMENTO_PREFIX, mementoUri, TIMEMAP_PREFIX } from "../archive/models/memento-paths.ts";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { cacheControlOf, servedType } from "../core/render/headers.ts";
import { logFileType } from "../core/log/site-log.ts";

const ALLOW = "GET, HEAD, OPTIONS";

/** Media types by extension, for files integrity.json does not list (itself, pages). */
const BY_EXTENSION: Record<string, string> = {
  ".json": "application/json",
  ".ndjson": "application/x-ndjson",
  ".csv": "text/csv; charset=utf-8; header=present",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/atom+xml; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
};

const withCharset = servedType;
const cacheControl = cacheControlOf;

interface Known {
  mediaType: string;
  sha256: string;
}

/**
 * The site-relative path a request names, or null when it is not one the site may serve:
 * any `..`, backslash, NUL or control character, a dotfile or dot folder, after percent-decoding
 * once (a `%` left after decoding, double encoding, is refused too).
 */
export function requestPath(rawUrl: string): string | null {
  const q = rawUrl.indexOf("?");
  const raw = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
  if (!raw.startsWith("/") || raw.includes("\\")) return null;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (/[\u0000-\u001f\u007f\\%]/.test(path)) return null;
  const segments = path.split("/").slice(1);
  if (segments.some((s) => s === ".." || s === "." || s.startsWith("."))) return null;
  return path;
}

/** Answers the MCP endpoint (app/mcp.ts), given only by `serve --mcp`. */
export type McpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Where `serve --mcp` answers MCP clients. */
export const MCP_PATH = "/mcp";

export function siteServer(siteDir: string, options: { archive?: string; mcp?: McpHandler } = {}): Server {
  const root = fs.realpathSync(siteDir);
  const timeTravel = options.archive ? mementoAnswerer(options.archive) : null;
  let known = new Map<string, Known>();
  let knownFrom = "";
  const compressed = new Map<string, Buffer>();
  // The listing of the current assembly: reread when integrity.json changes.
  const refresh = () => {
    let text: string;
    try {
      text = fs.readFileSync(join(root, "api/v1/integrity.json"), "utf8");
    } catch {
      return;
    }
    if (text === knownFrom) return;
    knownFrom = text;
    compressed.clear();
    const next = new Map<string, Known>();
    try {
      for (const s of JSON.parse(text).surfaces as { path: string; mediaType: string; sha256: string }[])
        next.set(s.path, { mediaType: s.mediaType, sha256: s.sha256 });
    } catch {
      // Not risk-cli's integrity.json: types come from extensions and hashes from the bytes.
    }
    known = next;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (options.mcp && (req.url ?? "").split("?")[0] === MCP_PATH) {
      options.mcp(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }));
      });
      return;
    }
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Methods": ALLOW,
        "Access-Control-Allow-Headers": req.headers["access-control-request-headers"] ?? "*",
        "Access-Control-Max-Age": "86400",
        Allow: ALLOW,
      });
      res.end();
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: ALLOW, "Content-Type": "text/plain; charset=utf-8" });
      res.end("Only GET and HEAD are served.\n");
      return;
    }
    const notFound = () => {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache" });
      res.end(req.method === "HEAD" ? undefined : "Not found.\n");
    };
    const path = requestPath(req.url ?? "/");
    if (path === null) return notFound();
    if (timeTravel?.takes(path, req)) {
      timeTravel.answer(path, req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("The archive could not be read.\n");
      });
      return;
    }
    let file = join(root, path);
    let real: string;
    try {
      real = fs.realpathSync(file);
      if (real !== root && !real.startsWith(root + sep)) return notFound();
      if (fs.statSync(real).isDirectory()) {
        file = join(real, "index.html");
        real = fs.realpathSync(file);
        if (!real.startsWith(root + sep)) return notFound();
      }
      if (!fs.statSync(real).isFile()) return notFound();
    } catch {
      return notFound();
    }
    refresh();
    const body = fs.readFileSync(real);
    const entry = known.get(path);
    const sha = entry?.sha256 ?? createHash("sha256").update(body).digest("hex");
    const type = withCharset(
      entry?.mediaType ?? logFileType(path) ?? BY_EXTENSION[extname(real)] ?? "application/octet-stream",
    );
    const etag = `"${sha}"`;
    const headers: Record<string, string> = {
      "Content-Type": type,
      ETag: etag,
      "Cache-Control": cacheControl(path),
      "Accept-Ranges": "bytes",
      Vary: "Accept-Encoding",
    };
    // Each surface is a Memento original resource and its own TimeGate.
    if (timeTravel && entry) {
      headers.Link = `<${path}>; rel="original timegate", <${TIMEMAP_PREFIX}${path}>; rel="timemap"; type="application/link-format"`;
      headers.Vary = "Accept-Encoding, Accept-Datetime";
    }
    const inm = req.headers["if-none-match"];
    if (inm && inm.split(",").some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === "*")) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const range = req.headers.range;
    if (range) {
      const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
      let start = m?.[1] ? Number(m[1]) : Number.NaN;
      let end = m?.[2] ? Number(m[2]) : body.byteLength - 1;
      if (m && !m[1] && m[2]) {
        start = Math.max(0, body.byteLength - Number(m[2]));
        end = body.byteLength - 1;
      }
      if (!m || Number.isNaN(start) || start > end || start >= body.byteLength) {
        res.writeHead(416, { ...headers, "Content-Range": `bytes */${body.byteLength}` });
        res.end();
        return;
      }
      end = Math.min(end, body.byteLength - 1);
      const part = body.subarray(start, end + 1);
      res.writeHead(206, {
        ...headers,
        "Content-Range": `bytes ${start}-${end}/${body.byteLength}`,
        "Content-Length": String(part.byteLength),
      });
      res.end(req.method === "HEAD" ? undefined : part);
      return;
    }
    const accept = String(req.headers["accept-encoding"] ?? "");
    const encoding = /\bbr\b/.test(accept) ? "br" : /\bgzip\b/.test(accept) ? "gzip" : null;
    let out: Buffer = body;
    if (encoding && body.byteLength > 256) {
      const key = `${encoding}:${sha}`;
      let packed = compressed.get(key);
      if (!packed) {
        packed =
          encoding === "br"
            ? brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
            : gzipSync(body, { level: 6 });
        compressed.set(key, packed);
      }
      out = packed;
      headers["Content-Encoding"] = encoding;
    }
    headers["Content-Length"] = String(out.byteLength);
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : out);
  };
  return createServer(handle);
}

/**
 * Memento (RFC 7089) over the archive: a surface asked for with Accept-Datetime is redirected
 * (302) to the memento of the version published then; /memento/<frame-id><path> gives that
 * version byte for byte as its frame served it, with Memento-Datetime; /timemap<path> lists the
 * versions (the frames at which the surface's content changed) in application/link-format, a
 * thousand a page.
 */
function mementoAnswerer(archive: string) {
  let index: Promise<MementoIndex> | null = null;
  const ready = async () => {
    index ??= (async () => new (await import("../archive/api/memento.ts")).MementoIndex(gitdirOf(resolve(archive))))();
    const i = await index;
    await i.refresh();
    return i;
  };
  const text = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache", ...extra });
    res.end(body);
  };
  return {
    takes(path: string, req: IncomingMessage): boolean {
      return (
        path.startsWith(`${TIMEMAP_PREFIX}/`) ||
        path.startsWith(`${MEMENTO_PREFIX}/`) ||
        (req.headers["accept-datetime"] !== undefined && path.startsWith("/") && !path.endsWith("/"))
      );
    },
    async answer(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
      const m = await import("../archive/api/memento.ts");
      const i = await ready();
      const head = req.method === "HEAD";
      if (path.startsWith(`${TIMEMAP_PREFIX}/`)) {
        const original = path.slice(TIMEMAP_PREFIX.length);
        const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
        const body = m.timemap(original, i.list(original), page);
        if (body === null) return text(res, 404, `No versions of ${original} on that page.\n`);
        res.writeHead(200, { "Content-Type": "application/link-format; charset=utf-8", "Cache-Control": "no-cache" });
        res.end(head ? undefined : body);
        return;
      }
      if (path.startsWith(`${MEMENTO_PREFIX}/`)) {
        const rest = path.slice(MEMENTO_PREFIX.length + 1);
        const slash = rest.indexOf("/");
        const frameId = rest.slice(0, Math.max(0, slash));
        const original = rest.slice(slash);
        const version = slash > 0 ? i.byFrame(original, frameId) : null;
        if (!version) return text(res, 404, "No such memento: see the surface's TimeMap.\n");
        const bytes = await i.bytes(original, version);
        res.writeHead(200, {
          "Content-Type": servedType(version.mediaType),
          "Content-Length": String(bytes.byteLength),
          ETag: `"${createHash("sha256").update(bytes).digest("hex")}"`,
          "Cache-Control": "public, max-age=31536000, immutable",
          "Memento-Datetime": m.httpDate(version.at),
          Link: m.mementoLinks(original, i.list(original)),
        });
        res.end(head ? undefined : bytes);
        return;
      }
      // A TimeGate: the original resource asked for with Accept-Datetime.
      const list = i.list(path);
      if (list.length === 0) return text(res, 404, `The archive never published ${path}.\n`);
      const instant = m.parseHttpDate(String(req.headers["accept-datetime"]));
      if (Number.isNaN(instant))
        return text(res, 400, "Accept-Datetime must be an HTTP-date, as Tue, 21 Nov 2026 10:00:00 GMT.\n", {
          Vary: "Accept-Datetime",
        });
      const version = i.at(path, instant)!;
      res.writeHead(302, {
        Location: mementoUri(path, version.frameId),
        Vary: "Accept-Datetime",
        Link: m.mementoLinks(path, list),
        "Content-Length": "0",
        "Cache-Control": "no-cache",
      });
      res.end();
    },
  };
}
