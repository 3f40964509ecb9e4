/**
 * Every cache and fast path of an assembly, in one place. Each gives the same bytes as the slow
 * way it replaces (a test assembles with all of them off and compares every file and frame);
 * `--no-cache` turns them all off at once. Off means "not read or trusted": the files that hold
 * them are still written, so the next assembly with them on finds them up to date.
 */
export interface Caches {
  /**
   * What earlier assemblies parsed (app/publication-cache.ts, in the archive's Git directory): the
   * configuration part of the publication (`risk-cli-publication-lite.json`) keyed by the
   * fingerprint of all input files, which is all
   * a steady-state assembly parses; where the corpus is, keyed by the config text's SHA-256, so
   * that listing the input files parses no YAML; and each file's validated value
   * (`risk-cli-parsed-files.json`) keyed by its text's SHA-256, so that after an edit only the
   * edited files are parsed.
   */
  publication: boolean;
  /**
   * Per-document results of earlier assemblies (`risk-cli-memo.json`, app/memo.ts): each article's
   * claim extraction, each object's hash and semantic hash, and each search document's tokens,
   * keyed by their sources (an article or guide by the key its file was parsed under), so that
   * only documents whose text changed are hashed, analysed and tokenised again.
   */
  memo: boolean;
  /**
   * Reuse of the previous frame's bytes for a surface whose inputs did not change, or whose
   * reuse key is the one the head frame recorded (core/plan.ts): no build, validation or
   * serialisation, only a hash check of the previous site file.
   */
  reuse: boolean;
  /**
   * The stat data of the site files the last assembly wrote (`risk-cli-site-stat.json`,
   * app/site-stat.ts): an unchanged file is trusted to hash to what was written, without a new
   * hash, as Git trusts its index.
   */
  siteStat: boolean;
  /**
   * Hard links from the previous site for files that are served unchanged, instead of writing
   * their bytes again (app/site-writer.ts).
   */
  hardLinks: boolean;
  /**
   * The append-only journal copied from the previous site (when its stat data prove it unchanged)
   * and appended to, instead of rebuilt from the archive's day shards (app/site-append.ts).
   */
  journalCopy: boolean;
  /**
   * The frame digest cache (`risk-cli-frames/`, archive/api/digests.ts): the risk-diff windows'
   * baseline frames found in two small reads instead of the archive's day index and frames.
   */
  frameDigests: boolean;
  /**
   * Head-frame copies written by this very tool version are parsed without a second schema check
   * when their bytes hash to the fingerprint the frame records (archive/api/state.ts); and the
   * blobs a frame keeps from a head this archive's own assembly wrote are not hashed again
   * (archive/api/commit.ts); and the list of the chain's frame commits (`risk-cli-chain.txt`,
   * archive/api/chain.ts) is trusted, so that only the commits added since it was written are read.
   */
  trustedHead: boolean;
  /**
   * The records a document shares with the stream of its lines (the catalog, the claims and the
   * evidence graph, as JSON and as NDJSON) serialised once for both (`Surface.linesFrom`,
   * core/assemble.ts), instead of each stream building and serialising its lines again; and
   * those lines not validated a second time when the stream's schema is the document's record
   * schema (core/render/lines-schema.ts).
   */
  sharedRecords: boolean;
}

/** Every cache on (`true`) or off (`false`). */
export function allCaches(on: boolean): Caches {
  return {
    publication: on,
    memo: on,
    reuse: on,
    siteStat: on,
    hardLinks: on,
    journalCopy: on,
    frameDigests: on,
    trustedHead: on,
    sharedRecords: on,
  };
}
