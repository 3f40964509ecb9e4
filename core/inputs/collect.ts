/**
 * Collection of the upstream documents: every instrument in parallel, each over its own transport
 * (a file of the publication, a file: URL, or HTTP(S) through the Http port), each within the same
 * limits. A failing upstream is recorded with its status, never thrown: one upstream never stops
 * an assembly.
 */
import type { Http, ReadOnlyFs } from "../ports.ts";
import { INSTRUMENT_KEYS, type InstrumentKey } from "../schemas/primitives.ts";
import { parseWithSchema } from "./locate.ts";
import { instrumentsOf, type Publication } from "./publication.ts";
import { ConfluenceFile } from "./schemas.ts";
import { adaptDocument, UpstreamError, type UpstreamResult, type UpstreamState } from "./upstream.ts";

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
      async ([key, cfg]) => [key, await collectOne(p.root, key, cfg.source, ports, limits)] as const,
    ),
  );
  // Keys in the registry's order, whatever order the upstreams answered in.
  const byKey = new Map<InstrumentKey, UpstreamResult>(results);
  const instruments: UpstreamState["instruments"] = {};
  for (const key of INSTRUMENT_KEYS) if (byKey.has(key)) instruments[key] = byKey.get(key)!;
  let confluence: UpstreamState["confluence"] = null;
  if (p.config.confluence) {
    // The confluence synthesis is an input of the publication: a broken one is an input error.
    const file = localPath(p.root, p.config.confluence);
    confluence = parseWithSchema(file, await ports.fs.readText(file), ConfluenceFile, { json: true });
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
): Promise<UpstreamResult> {
  try {
    const { text, where } = await fetchDocument(root, source, ports, limits);
    return { ok: true, source, reading: adaptDocument(key, where, text) };
  } catch (e) {
    if (e instanceof UpstreamError) return { ok: false, source, status: e.status, error: e.message };
    return { ok: false, source, status: "unreachable", error: e instanceof Error ? e.message : String(e) };
  }
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
  let text: string;
  try {
    text = await ports.fs.readText(file);
  } catch (e) {
    throw new UpstreamError("unreachable", `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const bytes = encoder.encode(text).byteLength;
  if (bytes > limits.maxBytes)
    throw new UpstreamError("too-large", `${file} is ${bytes} bytes, over the ${limits.maxBytes}-byte cap`);
  checkNotHtml(file, text);
  return { text, where: file };
}

async function fetchHttp(
  source: string,
  ports: CollectPorts,
  limits: CollectLimits,
): Promise<{ text: string; where: string }> {
  if (!ports.http) throw new UpstreamError("unreachable", `${source}: no HTTP client was given to collect it`);
  const seen = new Set<string>();
  let url = source;
  let spent = 0;
  for (let hop = 0; ; hop++) {
    seen.add(url);
    const remaining = limits.timeoutMs - spent;
    if (remaining <= 0) throw new UpstreamError("timeout", `${source}: no answer within ${limits.timeoutMs} ms`);
    const r = await ports.http.get(url, {
      timeoutMs: remaining,
      maxBytes: limits.maxBytes,
      accept: "application/json",
    });
    spent += r.elapsedMs;
    if (r.kind !== "response") {
      if (r.kind === "timeout")
        throw new UpstreamError("timeout", `${url}: no complete answer within ${limits.timeoutMs} ms`);
      if (r.kind === "too-large")
        throw new UpstreamError(
          "too-large",
          `${url}: the body exceeds the ${limits.maxBytes}-byte cap (after decompression)`,
        );
      throw new UpstreamError("unreachable", `${url}: ${r.message}`);
    }
    if (r.status >= 300 && r.status < 400) {
      const next = redirectTarget(url, r.status, r.headers.location);
      if (seen.has(next)) throw new UpstreamError("redirect-error", `${url}: redirect loop back to ${next}`);
      if (hop + 1 > limits.maxRedirects)
        throw new UpstreamError("redirect-error", `${source}: more than ${limits.maxRedirects} redirects`);
      url = next;
      continue;
    }
    if (r.status < 200 || r.status > 299) throw new UpstreamError("http-error", `${url}: HTTP ${r.status}`);
    const type = (r.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "text/html" || type === "application/xhtml+xml") {
      throw new UpstreamError(
        "unexpected-content",
        `${url}: an HTML page (${type}) with status ${r.status}, not a JSON document`,
      );
    }
    if (!isJsonType(type)) {
      throw new UpstreamError(
        "unexpected-content",
        `${url}: content type "${type || "(none)"}" is not JSON (application/json or +json)`,
      );
    }
    let text: string;
    try {
      text = decoder.decode(r.body);
    } catch {
      throw new UpstreamError("invalid-json", `${url}: the body is not UTF-8`);
    }
    checkNotHtml(url, text);
    return { text, where: url };
  }
}

function redirectTarget(from: string, status: number, location: string | undefined): string {
  if (!location) throw new UpstreamError("redirect-error", `${from}: HTTP ${status} without a Location header`);
  if (!URL.canParse(location, from))
    throw new UpstreamError("redirect-error", `${from}: unreadable Location "${location}"`);
  const next = new URL(location, from);
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new UpstreamError("redirect-error", `${from}: redirect to ${next.protocol} refused (only http: and https:)`);
  }
  if (new URL(from).protocol === "https:" && next.protocol === "http:") {
    throw new UpstreamError("redirect-error", `${from}: redirect from https: to http: refused`);
  }
  return next.href;
}

function isJsonType(type: string): boolean {
  return type === "application/json" || type === "text/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** An HTML page served as JSON (a login wall, an error page with status 200) is never a value. */
function checkNotHtml(where: string, text: string): void {
  if (/^\s*</.test(text))
    throw new UpstreamError("unexpected-content", `${where}: an HTML or XML page, not a JSON document`);
}

/** A path relative to the publication, an absolute path, or a file: URL, as a file path. */
export function localPath(root: string, source: string): string {
  if (/^file:/i.test(source)) return decodeURIComponent(new URL(source).pathname);
  return source.startsWith("/") ? source : `${root}/${source}`;
}
