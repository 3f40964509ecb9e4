/**
 * The headers the contract asks a host to send, as a `_headers` file (the format of Netlify and
 * Cloudflare Pages): every file readable from any origin, never sniffed, each surface with its
 * media type (charset=utf-8 on text) and a Cache-Control for its kind. Written beside the site at
 * every assembly and replay, derived from the frame's surfaces only. docs/hosting.md gives the
 * nginx and Apache equivalents.
 */
import { LOG_CHECKPOINT_PATH, LOG_CHECKPOINT_TYPE, LOG_TILE_PREFIX, LOG_TILE_TYPE } from "../log/site-log.ts";
import { publicUrl } from "./page-url.ts";

export const HEADERS_FILE = "_headers";

/** Text types carry their charset: a client that guesses one garbles French. */
export function servedType(mediaType: string): string {
  return /^(text\/|application\/(atom\+xml|xml))/.test(mediaType) && !/charset=/i.test(mediaType)
    ? `${mediaType}; charset=utf-8`
    : mediaType;
}

/**
 * The headers of an answer that a cross-origin page may read besides the CORS-safelisted ones:
 * `risk-cli serve` sends them, and the `_headers` file asks a static host to send them too.
 */
export const EXPOSED_HEADERS =
  "ETag, Link, Memento-Datetime, Content-Range, Accept-Ranges, Content-Encoding, Vary, Location, Allow";

/** How long a client may keep a file: the surfaces change at every assembly (15 minutes). */
export function cacheControlOf(path: string): string {
  if (path.startsWith(LOG_TILE_PREFIX)) return "public, max-age=31536000, immutable";
  if (path === LOG_CHECKPOINT_PATH) return "no-cache";
  if (path === "/openapi.json" || path === "/api/v1/signals/schema.json") return "public, max-age=3600";
  return "public, max-age=300, must-revalidate";
}

/**
 * The `_headers` rules of a site's surfaces. A page listed as `<folder>/index.html` is read at its
 * folder URL (`/series/`, the contract's), which a host matches as a path of its own: it gets the
 * same rule under both.
 */
export function hostHeaders(surfaces: readonly { path: string; mediaType: string }[]): string {
  const lines = [
    "/*",
    "  Access-Control-Allow-Origin: *",
    `  Access-Control-Expose-Headers: ${EXPOSED_HEADERS}`,
    "  X-Content-Type-Options: nosniff",
  ];
  const rules = surfaces.flatMap((s) =>
    publicUrl(s.path) !== s.path ? [s, { path: publicUrl(s.path), mediaType: s.mediaType }] : [s],
  );
  for (const s of rules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
    lines.push(s.path, `  Content-Type: ${servedType(s.mediaType)}`, `  Cache-Control: ${cacheControlOf(s.path)}`);
  lines.push(
    LOG_CHECKPOINT_PATH,
    `  Content-Type: ${LOG_CHECKPOINT_TYPE}`,
    `  Cache-Control: ${cacheControlOf(LOG_CHECKPOINT_PATH)}`,
    `${LOG_TILE_PREFIX}*`,
    `  Content-Type: ${LOG_TILE_TYPE}`,
    `  Cache-Control: ${cacheControlOf(LOG_TILE_PREFIX)}`,
  );
  return `${lines.join("\n")}\n`;
}
