/**
 * Collection of the upstream documents: every instrument in parallel, each over its own transport
 * (a file of the publication, a file: URL, or HTTP(S) through the Http port), each within the same
 * limits. A failing upstream is recorded with its status, never thrown: one upstream never stops
 * an assembly.
 */
import type { Http, ReadOnlyFs } from "../ports.ts";
import { isPrivateHost } from "./addresses.ts";
import { INSTRUMENT_KEYS, type InstrumentKey } from "../schemas/primitives.ts";
import { parseWithSchema } from "./locate.ts";
import { instrumentsOf, readPublicationFile, type Publication } from "./publication.ts";
import { ConfluenceFile } from "./schemas.ts";
import {
  adaptDocument,
  publishableExcerpt,
  UpstreamError,
  type UpstreamResult,
  type UpstreamState,
} from "./upstream.ts";

/**
 * The longest reason published: each part an upstream chose is already cut short, and this bound
 * holds whatever a future message quotes.
 */
export const REASON_MAX = 400;

export interface CollectLimits {
  /** Milliseconds for one upstream, redirects and body included. Default 10 s. */
  timeoutMs: number;
  /** Largest document, in bytes after content decoding. Default 5 MB. */
  maxBytes: number;
  /** Redirects followed at most. Default 3. */
  maxRedirects: number;
}

export const DEFAULT_LIMITS: CollectLimits = { timeoutMs: 10_000, maxBytes: 5_000_000, maxRedirects: 3 };

export interface CollectPorts {
  fs: ReadOnlyFs;
  /** Needed only when a source is an http: or https: URL. */
  http?: Http;
}

/** The publication's limits (risk.config.yaml `collection`) over the defaults, then explicit ones. */
export function limitsOf(p: Publication, override: Partial<CollectLimits> = {}): CollectLimits {
  const c = p.config.collection;
  return {
    ...DEFAULT_LIMITS,
    ...(c?.timeoutSeconds !== undefined ? { timeoutMs: c.timeoutSeconds * 1000 } : {}),
    ...(c?.maxBytes !== undefined ? { maxBytes: c.maxBytes } : {}),
    ...override,
  };
}

/**
 * Collects every instrument of the publication, in parallel, and reads the holdings-confluence
 * input. `attemptedAt` is the instant of this attempt (the assembly instant).
 */
export async function collectUpstream(
  p: Publication,
  ports: CollectPorts,
  options: { attemptedAt: string; limits?: Partial<CollectLimits> },
): Promise<UpstreamState> {
  const limits = limitsOf(p, options.limits);
  const results = await Promise.all(
    instrumentsOf(p).map(
      async ([key, cfg]) =>
        [key, await collectOne(p.root, key, cfg.source, ports, limits, options.attemptedAt)] as const,
    ),
  );
  // Keys in the registry's order, whatever order the upstreams answered in.
  const byKey = new Map<InstrumentKey, UpstreamResult>(results);
  const instruments: UpstreamState["instruments"] = {};
  for (const key of INSTRUMENT_KEYS) if (byKey.has(key)) instruments[key] = byKey.get(key)!;
  let confluence: UpstreamState["confluence"] = null;
  if (p.config.confluence) {
    // The confluence synthesis is an input of the publication: a file inside it (the config says
    // so), read and named as every input file is; a missing, unreadable or broken one is an input error.
    const rel = p.config.confluence;
    const text = await readPublicationFile(ports.fs, p.root, rel);
    confluence = parseWithSchema(rel, text, ConfluenceFile, { json: true });
  }
  return { attemptedAt: options.attemptedAt, instruments, confluence };
}

/** Collects one instrument's document and adapts it; every failure becomes a status. */
export async function collectOne(
  root: string,
  key: InstrumentKey,
  source: string,
  ports: CollectPorts,
  limits: CollectLimits,
  collectedAt?: string,
): Promise<UpstreamResult> {
  // Reasons are published (signals/current.json, frame.json) and logged: they name the
  // instrument's source by sourceLabel and the kind of failure, never a credential, a query, a
  // local path or what the document held.
  const label = sourceLabel(root, source);
  let document: string | undefined;
  try {
    ({ text: document } = await fetchDocument(root, source, ports, limits));
    return { ok: true, source, reading: adaptDocument(key, label, document, collectedAt), document };
  } catch (e) {
    const kept = document !== undefined ? { document } : {};
    if (e instanceof UpstreamError)
      return {
        ok: false,
        source,
        status: e.status,
        error: publishableExcerpt(`${label}: ${e.message}`, REASON_MAX),
        ...kept,
      };
    return { ok: false, source, status: "unreachable", error: `${label}: the source could not be read`, ...kept };
  }
}

/**
 * A source as published reasons and logs name it: a URL by its scheme, host and path (never
 * credentials, a query or a fragment, where API keys travel); a file by its path inside the
 * publication, or by its name alone when it lies outside.
 */
export function sourceLabel(root: string, source: string): string {
  if (/^https?:/i.test(source)) {
    if (!URL.canParse(source)) return "(an unreadable URL)";
    const u = new URL(source);
    return `${u.protocol}//${u.host}${u.pathname}`;
  }
  let file: string;
  try {
    file = localPath(root, source);
  } catch {
    return "(an unreadable file source)";
  }
  const prefix = root.endsWith("/") ? root : `${root}/`;
  if (file.startsWith(prefix) && !file.slice(prefix.length).split("/").includes("..")) return file.slice(prefix.length);
  return `a file outside the publication (${file.split("/").pop() || "?"})`;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

async function fetchDocument(
  root: string,
  source: string,
  ports: CollectPorts,
  limits: CollectLimits,
): Promise<{ text: string; where: string }> {
  if (/^https?:/i.test(source)) return fetchHttp(source, ports, limits);
  const file = localPath(root, source);
  // A source named inside the publication may not be a link leading out of it.
  if (!/^file:/i.test(source) && !source.startsWith("/") && ports.fs.realPath) {
    const realRoot = await ports.fs.realPath(root).catch(() => root);
    const real = await ports.fs.realPath(file).catch(() => null);
    if (real !== null && !real.startsWith(`${realRoot}/`))
      throw new UpstreamError("unreachable", "a symbolic link leading out of the publication; refused");
  }
  let text: string;
  try {
    // A local document is held to the same cap as one collected over HTTP: collection.maxBytes.
    text = await ports.fs.readText(file, { maxBytes: limits.maxBytes });
  } catch (e) {
    const reason = (e as { data?: { reason?: unknown } }).data?.reason;
    if (typeof reason === "string") {
      if (/limit/.test(reason)) throw tooLarge(limits, "the file");
      throw new UpstreamError(
        /UTF-8/.test(reason) ? "invalid-json" : "unreachable",
        reason.replace(/^it is /, "the file is "),
      );
    }
    const code = (e as { code?: unknown }).code;
    throw new UpstreamError(
      "unreachable",
      `the file cannot be read${typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${code})` : ""}`,
    );
  }
  const bytes = encoder.encode(text).byteLength;
  if (bytes > limits.maxBytes) throw tooLarge(limits, `the file (${bytes} bytes)`);
  checkNotHtml(text);
  return { text, where: file };
}

/**
 * A document over the size cap: a third party's document, which the publisher cannot split, so
 * the reason says the cap and where it is raised.
 */
function tooLarge(limits: CollectLimits, what: string): UpstreamError {
  return new UpstreamError(
    "too-large",
    `${what} exceeds the ${limits.maxBytes}-byte cap of an upstream document (collection.maxBytes in risk.config.yaml raises it)`,
  );
}

async function fetchHttp(
  source: string,
  ports: CollectPorts,
  limits: CollectLimits,
): Promise<{ text: string; where: string }> {
  if (!ports.http) throw new UpstreamError("unreachable", "no HTTP client was given to collect it");
  const seen = new Set<string>();
  let url = source;
  let spent = 0;
  for (let hop = 0; ; hop++) {
    seen.add(url);
    const remaining = limits.timeoutMs - spent;
    if (remaining <= 0) throw new UpstreamError("timeout", `no answer within ${limits.timeoutMs} ms`);
    const r = await ports.http.get(url, {
      timeoutMs: remaining,
      maxBytes: limits.maxBytes,
      accept: "application/json",
    });
    spent += r.elapsedMs;
    if (r.kind !== "response") {
      if (r.kind === "timeout") throw new UpstreamError("timeout", `no complete answer within ${limits.timeoutMs} ms`);
      if (r.kind === "too-large") throw tooLarge(limits, "the body (after decompression)");
      throw new UpstreamError("unreachable", `the network failed${networkCode(r.message)}`);
    }
    if (REDIRECT_STATUSES.has(r.status)) {
      const next = redirectTarget(url, r.status, r.headers.location);
      await checkRedirectHost(source, next, ports.http);
      if (seen.has(next)) throw new UpstreamError("redirect-error", "a redirect loop");
      if (hop + 1 > limits.maxRedirects)
        throw new UpstreamError("redirect-error", `more than ${limits.maxRedirects} redirects`);
      url = next;
      continue;
    }
    if (r.status < 200 || r.status > 299) throw new UpstreamError("http-error", `HTTP ${r.status}`);
    const type = (r.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "text/html" || type === "application/xhtml+xml") {
      throw new UpstreamError("unexpected-content", `an HTML page with status ${r.status}, not a JSON document`);
    }
    if (!isJsonType(type)) {
      throw new UpstreamError(
        "unexpected-content",
        `content type ${type ? quoteShort(type) : "(none)"} is not JSON (application/json or +json)`,
      );
    }
    let text: string;
    try {
      text = decoder.decode(r.body);
    } catch {
      throw new UpstreamError("invalid-json", "the body is not UTF-8");
    }
    checkNotHtml(text);
    return { text, where: url };
  }
}

/**
 * The statuses that redirect (RFC 9110, 15.4). The other 3xx are no redirect: 304 Not Modified
 * answers a conditional request this collector never makes, 300, 305 and 306 are not followed,
 * so each is an HTTP error like any other final status outside 2xx.
 */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function redirectTarget(from: string, status: number, location: string | undefined): string {
  if (!location) throw new UpstreamError("redirect-error", `HTTP ${status} without a Location header`);
  if (!URL.canParse(location, from)) throw new UpstreamError("redirect-error", "an unreadable Location header");
  const next = new URL(location, from);
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new UpstreamError(
      "redirect-error",
      `a redirect to ${quoteShort(next.protocol)} refused (only http: and https:)`,
    );
  }
  if (new URL(from).protocol === "https:" && next.protocol === "http:") {
    throw new UpstreamError("redirect-error", "a redirect from https: to http: refused");
  }
  return next.href;
}

/**
 * A redirect may not lead into this machine's own network (loopback, private, link-local such as
 * the cloud metadata address 169.254.169.254) unless the configured source itself is there: a
 * publisher who collects from a local service may be redirected within it, an upstream on the
 * internet may not send the collector to an internal address.
 */
async function checkRedirectHost(source: string, next: string, http: NonNullable<CollectPorts["http"]>): Promise<void> {
  const origin = new URL(source).hostname;
  const target = new URL(next).hostname;
  const originLocal = isPrivateHost(origin) || ((await http.resolvesPrivate?.(origin)) ?? false);
  if (originLocal) return;
  if (isPrivateHost(target) || ((await http.resolvesPrivate?.(target)) ?? false))
    throw new UpstreamError(
      "redirect-error",
      "a redirect to a private, loopback or link-local address refused (the source itself is public)",
    );
}

/** A network error's code (ECONNREFUSED, ENOTFOUND…) from the HTTP port's message, if it has one. */
function networkCode(message: string): string {
  // Deno run without network permission: the fix is the runtime's flag, not the source.
  if (message.includes("--allow-net")) return " (Deno refused network access: run it with --allow-net)";
  const m = /\b(E[A-Z_]{3,}|UND_ERR_[A-Z_]+)\b/.exec(message);
  return m ? ` (${m[1]})` : "";
}

/** A short header value, quoted: an upstream never writes its text at length into a reason. */
function quoteShort(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, "?");
  return JSON.stringify(clean.length > 40 ? `${clean.slice(0, 39)}…` : clean);
}

function isJsonType(type: string): boolean {
  return type === "application/json" || type === "text/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** An HTML page served as JSON (a login wall, an error page with status 200) is never a value. */
function checkNotHtml(text: string): void {
  if (/^\s*</.test(text)) throw new UpstreamError("unexpected-content", "an HTML or XML page, not a JSON document");
}

/** A path relative to the publication, an absolute path, or a file: URL, as a file path. */
export function localPath(root: string, source: string): string {
  if (/^file:/i.test(source)) return decodeURIComponent(new URL(source).pathname);
  return source.startsWith("/") ? source : `${root}/${source}`;
}
