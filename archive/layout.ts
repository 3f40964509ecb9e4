/**
 * Every path inside a frame's Git tree, in one place. A frame commit's root tree holds:
 *
 *   README.md, LICENSE                       what the archive is and how to check it; the publication's licence
 *   frame.json                               the frame (core/frame.ts), canonical JSON
 *   objects.json                             the object manifest of the inputs, when the frame records one
 *   site/<path>                              each surface in its stored form (less a stamped `generated`)
 *   journal/YYYY/MM/DD.ndjson                the operational journal, one shard per UTC day
 *   history/daily/YYYY/MM.ndjson             the signal history: the last point of each closed UTC day
 *   history/level-changes/YYYY/MM.ndjson     the signal history: every level change
 *   index/YYYY/MM/DD.json                    the replay index: every earlier frame of that UTC day
 *   upstream/<instrument>                   the exact document the instrument's upstream sent at this frame
 *   tile/<L>/<N>[.p/<W>]                     the frame log's hashes as C2SP tlog-tiles (api/tiles.ts)
 */
export const FRAME_FILE = "frame.json";
export const TILE_PREFIX = "tile";
export const UPSTREAM_PREFIX = "upstream";
export const README_FILE = "README.md";
export const LICENSE_FILE = "LICENSE";
export const OBJECTS_FILE = "objects.json";
export const SITE_PREFIX = "site";
export const JOURNAL_PREFIX = "journal";
export const DAILY_PREFIX = "history/daily";
export const LEVEL_CHANGES_PREFIX = "history/level-changes";

/** Where a surface served at `path` (`/api/v1/risk.json`) is stored. */
export const sitePath = (path: string) => `${SITE_PREFIX}${path}`;

/** The journal shard of the UTC day of `at`. */
export const journalShardPath = (at: string) =>
  `${JOURNAL_PREFIX}/${at.slice(0, 4)}/${at.slice(5, 7)}/${at.slice(8, 10)}.ndjson`;

/** The daily-point shard of the month of `seriesDate`. */
export const dailyShardPath = (seriesDate: string) =>
  `${DAILY_PREFIX}/${seriesDate.slice(0, 4)}/${seriesDate.slice(5, 7)}.ndjson`;

/** The level-change shard of the month of `at`. */
export const levelShardPath = (at: string) => `${LEVEL_CHANGES_PREFIX}/${at.slice(0, 4)}/${at.slice(5, 7)}.ndjson`;

/** The folder of the replay index: one shard per UTC day. */
export const INDEX_PREFIX = "index";

/** The replay-index shard of the UTC day of `at`. */
export const indexShardPath = (at: string) =>
  `${INDEX_PREFIX}/${at.slice(0, 4)}/${at.slice(5, 7)}/${at.slice(8, 10)}.json`;

/**
 * The file risk-cli writes into every site folder it makes (an assembly's site, a replay's
 * output): a folder is replaced whole only when it holds this file, so a mistyped path never
 * deletes a folder risk-cli did not write. Not a surface: it is in no frame.
 */
export const SITE_MARKER = ".risk-cli-site";
export const SITE_MARKER_TEXT =
  "This folder is a site written by risk-cli. Each assembly replaces it whole: do not keep other files here.\n";
