/**
 * The frame log as the site serves it, beside the surfaces: the checkpoint black-box.json
 * publishes, at /log/checkpoint, and the archive's tiles under /log/tile/ (the C2SP tlog-tiles
 * layout), so that a monitor checks proofs with static files only. Light on purpose: `replay`
 * and `serve` load it without the corpus code.
 */
export const BLACK_BOX_PATH = "/api/v1/black-box.json";
export const LOG_CHECKPOINT_PATH = "/log/checkpoint";
export const LOG_TILE_PREFIX = "/log/tile/";
export const LOG_CHECKPOINT_TYPE = "text/plain; charset=utf-8";
export const LOG_TILE_TYPE = "application/octet-stream";

/** Where the site serves a tile of the archive's tree (`tile/0/000` -> `/log/tile/0/000`). */
export function siteTilePath(tilePath: string): string {
  return `/log/${tilePath}`;
}

/** The media type of a frame log file of the site, or undefined for any other path. */
export function logFileType(path: string): string | undefined {
  if (path === LOG_CHECKPOINT_PATH) return LOG_CHECKPOINT_TYPE;
  if (path.startsWith(LOG_TILE_PREFIX)) return LOG_TILE_TYPE;
  return undefined;
}

/** The checkpoint a black-box.json's bytes publish, or null when it has none. */
export function publishedCheckpoint(blackBox: Uint8Array): string | null {
  const log = (JSON.parse(new TextDecoder().decode(blackBox)) as { log?: { checkpoint?: unknown } }).log;
  return typeof log?.checkpoint === "string" ? log.checkpoint : null;
}
