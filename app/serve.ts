/**
 * Serving a site folder as the contract says: GET and HEAD only, the surfaces' own media types
 * (from the site's integrity.json, with charset=utf-8 on text), `Access-Control-Allow-Origin: *`
 * and preflight answers, `Access-Control-Expose-Headers` (ETag, Link, Memento-Datetime...),
 * `X-Content-Type-Options: nosniff`, a strong ETag per representation (the
 * SHA-256 of the bytes read and sent, suffixed with the content coding when compressed;
 * `If-None-Match` gives 304, an `If-Match` naming neither it nor `*` 412), a single byte range
 * (with `If-Range`), gzip and brotli negotiated by q-value, and a Cache-Control per kind of file.
 * A request target in absolute form is taken for its path. Only files of the site are served: no
 * path traversal in any spelling, no symbolic link out of the site, no dotfile, not the
 * `_headers` file static hosts read. The requests of one connection are answered one at a time,
 * so that a client that pipelines without reading holds one answer in memory, not all of them.
 * Meant to run on 127.0.0.1, locally or behind a reverse proxy.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createServer, IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { extname, join, resolve, sep } from "node:path";
import type { MementoIndex } from "../archive/api/memento.ts";
import { gitdirOf } from "../archive/git/objects.ts";
import { MEMENTO_PREFIX, mementoUri, TIMEMAP_PREFIX } from "../archive/models/memento-paths.ts";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { cacheControlOf, EXPOSED_HEADERS, servedType } from "../core/render/headers.ts";
import { logFileType } from "../core/log/site-log.ts";
import { readRegularFile } from "../archive/regular-file.ts";
import { pageFile } from "../core/render/page-url.ts";

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

/** Files of the site that configure static hosts (Netlify, Cloudflare Pages): never content. */
const HOST_CONFIGURATION = new Set(["/_headers"]);

/** Requests a connection may have waiting behind the one being answered; one more closes it. */
export const MAX_WAITING_REQUESTS = 32;

/** Largest MCP request body read, as app/mcp.ts bounds it. */
const MCP_MAX_BODY = 1_000_000;

/** How much more of a body refused as too large is read and thrown away before closing. */
const MCP_MAX_DISCARDED = 16 * 1024 * 1024;

/** Compressed bodies kept for reuse, at most this many bytes (the least recently used go first). */
const PACKED_BUDGET = 32 * 1024 * 1024;

const withCharset = servedType;
const cacheControl = cacheControlOf;

interface Known {
  mediaType: string;
}

/**
 * The site-relative path a request names, or null when it is not one the site may serve:
 * each segment is percent-decoded once, and a segment is refused when it is empty (but the last),
 * decodes to a `/`, a backslash, a NUL or control character, or a `%` (double encoding), or is
 * `..`, `.` or a dotfile or dot folder.
 */
export function requestPath(rawUrl: string): string | null {
  const q = rawUrl.indexOf("?");
  const raw = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
  if (!raw.startsWith("/") || raw.includes("\\")) return null;
  const segments = raw.slice(1).split("/");
  const decoded: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === "" && i < segments.length - 1) return null;
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return null;
    }
    if (/[\u0000-\u001f\u007f\\%/]/.test(name) || name.startsWith(".")) return null;
    decoded.push(name);
  }
  return `/${decoded.join("/")}`;
}

/**
 * A path as a URL writes it: each segment's characters other than the unreserved ones and those
 * RFC 3986 allows in a segment (`:@!$&'()*+,;=`) percent-encoded, the slashes kept.
 */
const pathAsUrl = (path: string) => path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/gu, (c) => encodeURIComponent(c));

/**
 * Where a redirect leads, as a reference relative to the path asked for (RFC 9110 takes one in
 * Location; the client resolves it against the URL it asked for, RFC 3986 section 5): `series/`
 * for `/series`, `../memento/<id>/series/` for `/series/`. Behind a reverse proxy that serves the
 * site under a path prefix (`/risk/` passed to `/`), it keeps that prefix, which a path from the
 * root would lose. `from` is the request's path as sent, `to` the target's path, both from the
 * root; `query` ("" or "?...") is kept.
 */
export function relativeLocation(from: string, to: string, query = ""): string {
  const folders = from.split("/").slice(1, -1);
  const target = to.split("/").slice(1);
  let same = 0;
  while (same < folders.length && same < target.length - 1 && folders[same] === target[same]) same++;
  const reference = "../".repeat(folders.length - same) + target.slice(same).join("/");
  // Empty, it would name the request itself; with a colon in its first segment, it would read as a scheme.
  const safe = reference === "" || /^[^/]*:/.test(reference) ? `./${reference}` : reference;
  return `${safe}${query}`;
}

/** The content codings served, in the server's order of preference when q-values tie. */
type Coding = "br" | "gzip";

/**
 * The content coding to answer with (RFC 9110, section 12.5.3), or null for identity: codings
 * are compared case-insensitively (`x-gzip` is gzip), q=0 means "not acceptable", `*` stands for
 * every coding the header does not name (identity included), identity is acceptable unless
 * refused (and, unnamed, comes after any coding asked for), and the highest q-value wins (br,
 * then gzip, then identity when they tie). Without the header, or for a body too small to
 * gain, identity.
 */
export function chooseCoding(header: string | undefined, size: number): Coding | null {
  if (header === undefined) return null;
  const q = new Map<string, number>();
  for (const element of header.split(",")) {
    const [name, ...params] = element.split(";");
    let coding = name!.trim().toLowerCase();
    if (coding === "") continue;
    if (coding === "x-gzip") coding = "gzip";
    let weight = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*(\S*)\s*$/i.exec(param);
      if (!m) continue;
      weight = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(m[1]!) ? Number(m[1]) : Number.NaN;
    }
    if (Number.isNaN(weight)) continue;
    q.set(coding, Math.max(weight, q.get(coding) ?? 0));
  }
  const star = q.get("*");
  // Identity unnamed is acceptable, but after any coding the client gave a q-value above 0.
  const weightOf = (coding: string) => q.get(coding) ?? star ?? (coding === "identity" ? Number.MIN_VALUE : 0);
  const identity = weightOf("identity");
  let best: Coding | null = null;
  let bestWeight = 0;
  for (const coding of ["br", "gzip"] as const) {
    const w = weightOf(coding);
    if (w > bestWeight) {
      best = coding;
      bestWeight = w;
    }
  }
  if (best === null || bestWeight < identity) return null;
  // Not worth a coding unless identity was refused.
  return size > 256 || identity === 0 ? best : null;
}

/** A request target's path as sent, without its query. */
const rawPath = (url: string) => {
  const q = url.indexOf("?");
  return q >= 0 ? url.slice(0, q) : url;
};

/**
 * Where a folder named without its final slash (`/series?lang=fr`) is redirected: to itself with
 * the slash, query kept, relative to the request (`series/?lang=fr`, see relativeLocation).
 */
const toFolder = (url: string) => {
  const path = rawPath(url);
  return relativeLocation(path, `${path}/`, url.slice(path.length));
};

/**
 * A request target in origin form (RFC 9112, section 3.2): an absolute-form target
 * (`http://host/path?query`, which a server must accept) is taken for its path and query, the
 * host it names being this server; any other target is returned as it is.
 */
export function originForm(target: string): string {
  const authority = /^https?:\/\/[^/?#]*/i.exec(target);
  if (!authority) return target;
  const rest = target.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/**
 * Whether If-Match holds (RFC 9110, section 13.1.1): `*` (the representation exists), or a list
 * naming this ETag by strong comparison, which a weak tag never passes.
 */
function matches(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  for (const m of header.matchAll(/(W\/)?("[^"]*")/g)) if (m[1] === undefined && m[2] === etag) return true;
  return false;
}

/** Whether If-None-Match names this ETag (weak comparison), or is `*`. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  for (const m of header.matchAll(/(?:W\/)?("[^"]*")/g)) if (m[1] === etag) return true;
  return false;
}

/**
 * Whether a Range may be answered under If-Range (RFC 9110, section 13.1.5): without it, yes;
 * with an entity tag, only when it is this strong ETag; with a date, never, since no
 * Last-Modified is sent for a date to match.
 */
function ifRangeHolds(header: string | undefined, etag: string): boolean {
  return header === undefined || header.trim() === etag;
}

/**
 * The byte ranges a Range header asks of `size` bytes (RFC 9110, section 14.2): null when the
 * header is to be ignored (another unit, not a valid byte range set, or several ranges of which
 * one can be served: the whole file answers them), "unsatisfiable" when no range can be served,
 * or the one satisfiable range, clamped to the representation.
 */
export function byteRanges(header: string, size: number): [number, number][] | "unsatisfiable" | null {
  const m = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(.*)$/.exec(header);
  if (!m || m[1]!.toLowerCase() !== "bytes") return null;
  const out: [number, number][] = [];
  let specs = 0;
  let emptyButSatisfiable = false;
  for (const element of m[2]!.split(",")) {
    const spec = element.trim();
    if (spec === "") continue;
    const r = /^(\d*)-(\d*)$/.exec(spec);
    if (!r || (r[1] === "" && r[2] === "")) return null;
    specs++;
    if (r[1] === "") {
      const suffix = Number(r[2]);
      if (suffix > 0 && size > 0) out.push([Math.max(0, size - suffix), size - 1]);
      else if (suffix > 0) emptyButSatisfiable = true;
    } else {
      const first = Number(r[1]);
      const last = r[2] === "" ? Number.POSITIVE_INFINITY : Number(r[2]);
      if (last < first) return null;
      if (first < size) out.push([first, Math.min(last, size - 1)]);
    }
  }
  if (specs === 0 || emptyButSatisfiable || (specs > 1 && out.length > 0)) return null;
  return out.length > 0 ? out : "unsatisfiable";
}

/** Compressed bodies by coding and SHA-256, within a byte budget. */
function packer(budget: number) {
  const packed = new Map<string, Buffer>();
  let total = 0;
  return (coding: Coding, sha: string, body: Buffer): Buffer => {
    const key = `${coding}:${sha}`;
    let out = packed.get(key);
    if (out) {
      packed.delete(key);
      packed.set(key, out);
      return out;
    }
    out =
      coding === "br"
        ? brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
        : gzipSync(body, { level: 6 });
    packed.set(key, out);
    total += out.byteLength;
    for (const [k, v] of packed) {
      if (total <= budget) break;
      packed.delete(k);
      total -= v.byteLength;
    }
    return out;
  };
}

type Pack = ReturnType<typeof packer>;

/** How long a file must have gone unchanged before its hash is remembered under its identity. */
const SETTLED_MS = 2_000;

/** Hashes remembered at most (the oldest go first): far more than a site's files. */
const REMEMBERED_HASHES = 8192;

/** A file's identity as one stat of its descriptor saw it: which file, its size and last changes. */
const identityOf = (st: fs.BigIntStats) => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

/**
 * The SHA-256 of the bytes read from a file, remembered under the file's identity (device, inode,
 * size, modification and change times, in nanoseconds) so that a file served again is not hashed
 * again. The hash is taken from the bytes read, never from a listing, so the ETag always names the
 * body sent. A remembered hash is used only when the file's identity was the same before and after
 * the read; it is remembered only for a file whose change time is SETTLED_MS before the read began,
 * so that any later write, even one that puts the modification time back, gives the file another
 * change time and so another identity.
 */
function hashes(limit: number) {
  const known = new Map<string, string>();
  return (bytes: Buffer, before: fs.BigIntStats, after: fs.BigIntStats, readAt: number): string => {
    const identity = identityOf(before);
    const unchanged = identity === identityOf(after) && bytes.byteLength === Number(before.size);
    const remembered = unchanged ? known.get(identity) : undefined;
    if (remembered !== undefined) return remembered;
    const sha = createHash("sha256").update(bytes).digest("hex");
    if (unchanged && before.ctimeNs < BigInt(readAt - SETTLED_MS) * 1_000_000n) {
      known.set(identity, sha);
      if (known.size > limit) known.delete(known.keys().next().value!);
    }
    return sha;
  };
}

/**
 * Answers GET or HEAD with one representation of `body` (its SHA-256 `sha`): the content coding
 * negotiated, a strong ETag of its own (`"<sha>"`, `"<sha>-gzip"`, `"<sha>-br"`), 412 when an
 * If-Match names neither it nor `*`, 304 when If-None-Match names it, a single byte range of it
 * (206, or 416 when none can be served; a Range in another unit, several ranges, or a failed
 * If-Range get the whole body), else 200. Live files and mementos are both answered here.
 */
function answerRepresentation(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  sha: string,
  headers: Record<string, string>,
  pack: Pack,
): void {
  const accept = req.headers["accept-encoding"];
  const coding = chooseCoding(Array.isArray(accept) ? accept.join(", ") : accept, body.byteLength);
  const bytes = coding ? pack(coding, sha, body) : body;
  const etag = coding ? `"${sha}-${coding}"` : `"${sha}"`;
  const out: Record<string, string> = { ...headers, ETag: etag, "Accept-Ranges": "bytes" };
  if (coding) out["Content-Encoding"] = coding;
  const ifMatch = req.headers["if-match"];
  if (ifMatch !== undefined && !matches(ifMatch, etag)) {
    res.writeHead(412, { ...headers, ETag: etag, "Content-Type": "text/plain; charset=utf-8" });
    res.end(
      req.method === "HEAD" ? undefined : `Precondition failed: If-Match does not name the current ETag, ${etag}.\n`,
    );
    return;
  }
  if (noneMatch(req.headers["if-none-match"], etag)) {
    res.writeHead(304, out);
    res.end();
    return;
  }
  const range = req.method === "GET" ? req.headers.range : undefined;
  const ifRange = req.headers["if-range"];
  if (range !== undefined && ifRangeHolds(Array.isArray(ifRange) ? ifRange.join(", ") : ifRange, etag)) {
    const ranges = byteRanges(range, bytes.byteLength);
    if (ranges === "unsatisfiable") {
      res.writeHead(416, { ...out, "Content-Range": `bytes */${bytes.byteLength}` });
      res.end();
      return;
    }
    if (ranges?.length === 1) {
      const [start, end] = ranges[0]!;
      const part = bytes.subarray(start, end + 1);
      res.writeHead(206, {
        ...out,
        "Content-Range": `bytes ${start}-${end}/${bytes.byteLength}`,
        "Content-Length": String(part.byteLength),
      });
      res.end(part);
      return;
    }
  }
  out["Content-Length"] = String(bytes.byteLength);
  res.writeHead(200, out);
  res.end(req.method === "HEAD" ? undefined : bytes);
}

/**
 * Answers the requests of each connection one at a time: a request pipelined behind another is
 * handled only once the answer before it is finished, so that a client that never reads holds
 * one answer in memory; a connection with more than MAX_WAITING_REQUESTS waiting is closed.
 */
function oneAtATime(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const lines = new WeakMap<Socket, { busy: boolean; waiting: (() => void)[] }>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    let line = lines.get(socket);
    if (!line) lines.set(socket, (line = { busy: false, waiting: [] }));
    const queue = line;
    const start = () => {
      if (socket.destroyed) {
        queue.waiting.length = 0;
        return;
      }
      queue.busy = true;
      let done = false;
      const next = () => {
        if (done) return;
        done = true;
        queue.busy = false;
        queue.waiting.shift()?.();
      };
      res.once("finish", next);
      res.once("close", next);
      handle(req, res);
    };
    if (!queue.busy) return start();
    if (queue.waiting.length >= MAX_WAITING_REQUESTS) {
      queue.waiting.length = 0;
      socket.destroy();
      return;
    }
    queue.waiting.push(start);
  };
}

/** Answers the MCP endpoint (app/mcp.ts), given only by `serve --mcp`. */
export type McpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Where `serve --mcp` answers MCP clients. */
export const MCP_PATH = "/mcp";

/**
 * A request body of unknown length (chunked), read up to `limit` bytes: the bytes, "too large"
 * as soon as it passes the limit (the rest is then read and thrown away, so that the answer
 * reaches the client before the connection closes, up to MCP_MAX_DISCARDED), or "aborted".
 */
function bodyWithin(req: IncomingMessage, limit: number): Promise<Buffer | "too large" | "aborted"> {
  return new Promise((done) => {
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    let settled = false;
    const settle = (v: Buffer | "too large" | "aborted") => {
      if (settled) return;
      settled = true;
      done(v);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (over) {
        if (size > limit + MCP_MAX_DISCARDED) req.socket.destroy();
        return;
      }
      if (size > limit) {
        over = true;
        parts.length = 0;
        settle("too large");
        return;
      }
      parts.push(chunk);
    });
    req.on("end", () => settle(Buffer.concat(parts)));
    req.on("error", () => settle("aborted"));
    req.on("close", () => settle("aborted"));
  });
}

/** A request like `req` whose body, already read, is `body`, given with its length. */
function withBody(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, "content-length": String(body.byteLength) };
  delete headers["transfer-encoding"];
  copy.headers = headers;
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (!/^(?:transfer-encoding|content-length)$/i.test(req.rawHeaders[i]!))
      raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  copy.rawHeaders = [...raw, "Content-Length", String(body.byteLength)];
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

export function siteServer(
  siteDir: string,
  options: { archive?: string; mcp?: McpHandler; log?: (line: string) => void } = {},
): Server {
  const root = fs.realpathSync(siteDir);
  // Each unreadable file is told to the operator once, by its path in the site.
  const toldUnreadable = new Set<string>();
  const pack = packer(PACKED_BUDGET);
  const hashOf = hashes(REMEMBERED_HASHES);
  const timeTravel = options.archive ? mementoAnswerer(options.archive, pack) : null;
  let known = new Map<string, Known>();
  let knownFrom = "";
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
    const next = new Map<string, Known>();
    try {
      for (const s of JSON.parse(text).surfaces as { path: string; mediaType: string }[])
        next.set(s.path, { mediaType: s.mediaType });
    } catch {
      // Not risk-cli's integrity.json: types come from extensions.
    }
    known = next;
  };

  const answerMcp = (mcp: McpHandler, req: IncomingMessage, res: ServerResponse) => {
    const run = (r: IncomingMessage) =>
      mcp(r, res).catch(() => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }));
      });
    // A body of declared length is bounded by app/mcp.ts before it is read; one of unknown
    // length (chunked) is read here, so that one over the limit gets its 413 on an open connection.
    if (req.method !== "POST" || req.headers["content-length"] !== undefined) return void run(req);
    void bodyWithin(req, MCP_MAX_BODY).then((body) => {
      if (body === "aborted") return;
      if (body === "too large") {
        res.writeHead(413, { "Content-Type": "application/json", "Cache-Control": "no-store" });
        res.end(
          JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "The request is too large" }, id: null }),
        );
        return;
      }
      void run(withBody(req, body));
    });
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    req.url = originForm(req.url ?? "/");
    const url = req.url;
    if (options.mcp && url.split("?")[0] === MCP_PATH) return answerMcp(options.mcp, req, res);
    res.setHeader("Access-Control-Allow-Origin", "*");
    // A browser page on another origin reads only the headers named here beyond the safelisted ones.
    res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
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
    const path = requestPath(url);
    if (path === null || HOST_CONFIGURATION.has(path)) return notFound();
    const live = () => serveFile(path, url, req, res, notFound);
    if (timeTravel?.takes(path, req)) {
      timeTravel.answer(path, req, res, live).catch(() => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("The archive could not be read.\n");
      });
      return;
    }
    live();
  };

  /** The site folder's identity (device and inode, which each assembly's swap changes), or null while it is absent. */
  const generation = (): string | null => {
    try {
      const st = fs.statSync(root, { bigint: true });
      return `${st.dev}:${st.ino}`;
    } catch {
      return null;
    }
  };

  /**
   * Serves a file of the site, or 404. An assembly swaps the site folder with two renames, between
   * which the folder is absent: a request that found nothing while the folder was absent, or while
   * it was replaced, is tried again once the new folder is in place (within SWAP_WAIT_MS), so a
   * swap never turns a live surface into a 404.
   */
  const serveFile = (path: string, url: string, req: IncomingMessage, res: ServerResponse, notFound: () => void) => {
    const deadline = Date.now() + SWAP_WAIT_MS;
    const attempt = () => {
      const before = generation();
      const served = before !== null ? serveFrom(path, url, req, res) : false;
      if (served === "unreadable") return unreadable(path, req, res);
      if (served) return;
      const after = generation();
      if (before !== null && after === before) return notFound();
      if (Date.now() >= deadline) return notFound();
      // The folder is being swapped: try again once it is back.
      setTimeout(attempt, after === null ? 2 : 0);
    };
    attempt();
  };

  /**
   * A file of the site that this account may not read (chmod 000, another account's) is there but
   * cannot be served: a server error, 500, which says nothing of the file or the system to the
   * client, and a warning for the operator naming the file by its path in the site.
   */
  const unreadable = (path: string, req: IncomingMessage, res: ServerResponse) => {
    const part = unreadablePart(root, path);
    if (!toldUnreadable.has(part) && toldUnreadable.size < 1000) {
      toldUnreadable.add(part);
      options.log?.(
        `warning: ${part} in the site cannot be read: permission denied; make the site readable by the user running risk-cli`,
      );
    }
    res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : "The server could not read this file.\n");
  };

  /**
   * Answers from the site folder as it is now; false, having answered nothing, when nothing is
   * there to serve, and "unreadable" when something is there that this account may not read.
   */
  const serveFrom = (path: string, url: string, req: IncomingMessage, res: ServerResponse): boolean | "unreadable" => {
    let real: string;
    try {
      real = fs.realpathSync(join(root, path));
      if (real !== root && !real.startsWith(root + sep)) return false;
      if (fs.statSync(real).isDirectory()) {
        // A folder without a page (the frame log's tiles) is no page: not found, slash or not.
        if (!exists(join(real, "index.html"))) return false;
        // A folder is named with its final slash, as the links of its page are relative to it.
        if (!path.endsWith("/")) {
          const location = toFolder(url);
          res.writeHead(301, {
            Location: location,
            "Content-Type": "text/plain; charset=utf-8",
            "Cache-Control": "no-cache",
          });
          res.end(req.method === "HEAD" ? undefined : `Moved to ${location}\n`);
          return true;
        }
        real = fs.realpathSync(join(real, "index.html"));
        if (!real.startsWith(root + sep)) return false;
      } else if (path.endsWith("/")) return false;
      if (!fs.statSync(real).isFile()) return false;
    } catch (e) {
      return refusedAccess(e) ? "unreadable" : false;
    }
    refresh();
    let body: Buffer | "not-regular" | "refused";
    let before: fs.BigIntStats | undefined;
    let after: fs.BigIntStats | undefined;
    const readAt = Date.now();
    try {
      // Read through one descriptor, without following a link: a FIFO or a link swapped in after
      // the checks above is neither followed nor read.
      body = readRegularFile(real, {
        followLink: false,
        admit: (size, st) => {
          before = st;
          return size <= MAX_SERVED_BYTES;
        },
        afterRead: (st) => {
          after = st;
        },
      });
    } catch (e) {
      return refusedAccess(e) ? "unreadable" : false;
    }
    if (typeof body === "string" || !before || !after) return false;
    const entry = known.get(pageFile(path));
    // The hash of the bytes sent, never integrity.json's: a file edited in place, or one read
    // while an assembly swaps the site, is sent with the ETag of what it holds.
    const sha = hashOf(body, before, after, readAt);
    const type = withCharset(
      entry?.mediaType ?? logFileType(path) ?? BY_EXTENSION[extname(real)] ?? "application/octet-stream",
    );
    const headers: Record<string, string> = {
      "Content-Type": type,
      "Cache-Control": cacheControl(path),
      Vary: "Accept-Encoding",
    };
    // Each surface is a Memento original resource and its own TimeGate.
    if (timeTravel && entry) {
      headers.Link = `<${path}>; rel="original timegate", <${TIMEMAP_PREFIX}${path}>; rel="timemap"; type="application/link-format"`;
      headers.Vary = "Accept-Encoding, Accept-Datetime";
    }
    answerRepresentation(req, res, body, sha, headers, pack);
    return true;
  };
  const server = createServer(oneAtATime(handle));
  // Node's parser takes CONNECT apart (and closes the connection unanswered when nobody listens)
  // and refuses a method it does not know with a bare 400: both get the 405 every other method
  // but GET, HEAD and OPTIONS gets.
  server.on("connect", (_req: IncomingMessage, socket: Socket) => socket.end(methodNotAllowed()));
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node does by default: answer only on a connection that has not been answered yet.
    if (socket.writable && socket.bytesWritten === 0) {
      if (err.code === "HPE_INVALID_METHOD") return void socket.end(methodNotAllowed());
      const status =
        err.code === "HPE_HEADER_OVERFLOW"
          ? "431 Request Header Fields Too Large"
          : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
            ? "408 Request Timeout"
            : "400 Bad Request";
      return void socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    }
    socket.destroy();
  });
  return server;
}

/** Whether the system refused this account access to a file or folder (its mode, its owner). */
function refusedAccess(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === "EACCES" || code === "EPERM";
}

/**
 * The part of a request path that this account may not read: the folder whose entries it may
 * not look up, or else the file itself. Only what is there is named, never the rest of a path a
 * client made up under an unreadable folder.
 */
function unreadablePart(root: string, path: string): string {
  const names = path.split("/").filter(Boolean);
  for (let i = 1; i <= names.length; i++) {
    try {
      fs.statSync(join(root, ...names.slice(0, i)));
    } catch (e) {
      if (refusedAccess(e)) return `/${names.slice(0, i - 1).join("/")}${i > 1 ? "/" : ""}`;
      return path;
    }
  }
  // A folder whose page cannot be looked up is named with its final slash, asked for with it or not.
  try {
    return !path.endsWith("/") && fs.statSync(join(root, path)).isDirectory() ? `${path}/` : path;
  } catch {
    return path;
  }
}

/** Whether a file is there: false when it is not, an error when it may not be looked up. */
function exists(path: string): boolean {
  try {
    fs.statSync(path);
    return true;
  } catch (e) {
    if (refusedAccess(e)) throw e;
    return false;
  }
}

/** A whole 405 answer written on a connection the parser has given up, which then closes. */
function methodNotAllowed(): string {
  const body = "Only GET and HEAD are served.\n";
  return [
    "HTTP/1.1 405 Method Not Allowed",
    `Allow: ${ALLOW}`,
    "Access-Control-Allow-Origin: *",
    `Access-Control-Expose-Headers: ${EXPOSED_HEADERS}`,
    "X-Content-Type-Options: nosniff",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/**
 * Memento (RFC 7089) over the archive: a surface asked for with Accept-Datetime is redirected
 * (302) to the memento of the version published then; /memento/<frame-id><path> gives that
 * version byte for byte as its frame served it, with Memento-Datetime, answered as a live file
 * is (validators, ranges, compression), and redirects (302) the URI of a frame that published the
 * surface unchanged to the version it served; /timemap<path> lists the versions (the frames at which
 * the surface's content changed) in application/link-format, a thousand a page. A page is all of
 * these at its folder URL (`/series/`) as at its index.html, each URI its own original resource.
 * A path the archive never published is answered as the live site answers it, Accept-Datetime or
 * not.
 */
function mementoAnswerer(archive: string, pack: Pack) {
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
  /**
   * A page named without its final slash (`/memento/<id>/series`) is redirected (301) to it,
   * query kept, as the live site redirects `/series`: a page's relative links need the slash.
   */
  const toPage = (req: IncomingMessage, res: ServerResponse) => {
    const location = toFolder(req.url ?? "/");
    text(res, 301, req.method === "HEAD" ? "" : `Moved to ${location}\n`, { Location: location });
  };
  /** The memento of `path` as frame `frameId` served it, relative to the request (see relativeLocation). */
  const toMemento = (req: IncomingMessage, path: string, frameId: string) =>
    relativeLocation(rawPath(req.url ?? "/"), pathAsUrl(mementoUri(path, frameId)));
  return {
    takes(path: string, req: IncomingMessage): boolean {
      return (
        path.startsWith(`${TIMEMAP_PREFIX}/`) ||
        path.startsWith(`${MEMENTO_PREFIX}/`) ||
        (req.headers["accept-datetime"] !== undefined && path.startsWith("/"))
      );
    },
    async answer(path: string, req: IncomingMessage, res: ServerResponse, live: () => void): Promise<void> {
      const m = await import("../archive/api/memento.ts");
      const i = await ready();
      const head = req.method === "HEAD";
      if (path.startsWith(`${TIMEMAP_PREFIX}/`)) {
        const original = path.slice(TIMEMAP_PREFIX.length);
        const asked = new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1";
        // A page is a whole number from 1, written plainly: anything else is the client's mistake.
        if (!/^[1-9][0-9]{0,8}$/.test(asked))
          return text(res, 400, "The page parameter of a TimeMap is a whole number from 1 (?page=2).\n");
        const page = Number(asked);
        if (
          !original.endsWith("/") &&
          i.list(pageFile(original)).length === 0 &&
          i.list(pageFile(`${original}/`)).length
        )
          return toPage(req, res);
        const body = m.timemap(original, i.list(pageFile(original)), page);
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
        const version = slash > 0 ? i.byFrame(pageFile(original), frameId) : null;
        if (!version && slash > 0) {
          if (!original.endsWith("/") && (await i.inForceAt(pageFile(`${original}/`), frameId)))
            return toPage(req, res);
          // A frame that published the surface unchanged: its memento is the version it served.
          const inForce = await i.inForceAt(pageFile(original), frameId);
          if (inForce) {
            res.writeHead(302, {
              Location: toMemento(req, original, inForce.frameId),
              Link: m.mementoLinks(original, i.list(pageFile(original))),
              "Content-Length": "0",
              "Cache-Control": "no-cache",
            });
            res.end();
            return;
          }
        }
        if (!version) return text(res, 404, "No such memento: see the surface's TimeMap.\n");
        const stored = await i.bytes(pageFile(original), version);
        const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
        answerRepresentation(
          req,
          res,
          bytes,
          createHash("sha256").update(bytes).digest("hex"),
          {
            "Content-Type": servedType(version.mediaType),
            "Cache-Control": "public, max-age=31536000, immutable",
            "Memento-Datetime": m.httpDate(version.at),
            Link: m.mementoLinks(original, i.list(pageFile(original))),
            Vary: "Accept-Encoding",
          },
          pack,
        );
        return;
      }
      // A TimeGate: the original resource asked for with Accept-Datetime.
      const list = i.list(pageFile(path));
      if (list.length === 0) return live();
      // An HTTP-date in any of its three forms, of a day that exists and bears its own name.
      const instant = m.parseHttpDate(String(req.headers["accept-datetime"]));
      if (Number.isNaN(instant))
        return text(
          res,
          400,
          "Accept-Datetime must be an HTTP-date of a day that exists, as Sat, 21 Nov 2026 10:00:00 GMT.\n",
          { Vary: "Accept-Datetime" },
        );
      const version = i.at(pageFile(path), instant);
      // Nothing was published then: the first version is later, and giving it would look ahead.
      if (!version)
        return text(
          res,
          404,
          `Nothing was published at ${path} at or before ${m.httpDate(instant)}; the first version dates from ${m.httpDate(list[0]!.at)} (see the Link header).\n`,
          { Vary: "Accept-Datetime", Link: m.mementoLinks(path, list) },
        );
      res.writeHead(302, {
        Location: toMemento(req, path, version.frameId),
        Vary: "Accept-Datetime",
        Link: m.mementoLinks(path, list),
        "Content-Length": "0",
        "Cache-Control": "no-cache",
      });
      res.end();
    },
  };
}

/**
 * How long a request that found nothing waits for an assembly's swap of the site folder to end:
 * the swap is two renames, so far longer than it takes.
 */
const SWAP_WAIT_MS = 2_000;

/** The most a served file may hold: far above any surface, far below the machine's memory. */
const MAX_SERVED_BYTES = 256 << 20;
