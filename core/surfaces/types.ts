import type { z } from "zod";
import type { Publication } from "../inputs/publication.ts";
import type { UpstreamState } from "../inputs/upstream.ts";
import type { BaselineFrame, Frame } from "../frame.ts";
import type { BlackBox } from "./black-box.ts";
import type { DebtRiskSnapshot } from "./debt-risk.ts";
import type { Signal } from "../signals.ts";
import type { ObjectManifest } from "../changes/objects.ts";
import type { ChangefeedSurface } from "./changes.ts";
import type { FreshnessSurface } from "./freshness.ts";
import type { HistoryState } from "../history/model.ts";

/** What an earlier surface of the same assembly produced: its fingerprint as served. */
export interface Produced {
  path: string;
  mediaType: string;
  sha256: string;
  bytes: number;
  /** SHA-256 of the stored form (the served bytes less a stamped `generated`). */
  storedSha256?: string;
}

/** The archive's state before this assembly: the head frame and the head black box. */
export interface PreviousState {
  frame: Frame;
  blackBox: BlackBox | null;
  /** The head frame's debt-risk.json, for a debt value retained after an upstream failure. */
  debtRisk?: DebtRiskSnapshot | null;
  commit: string;
  /** The root tree of that commit, so the next commit does not read the commit again. */
  tree: string;

  // History from the archive (changefeed, risk diff, freshness): each read is O(1) or O(log n)
  // in the number of frames (archive/api/windows.ts).
  /** The head frame's changes.json: the feed the next one extends. */
  changes?: ChangefeedSurface | null;
  /** The head frame's freshness.json: its corpus part is reused while the inputs are unchanged. */
  freshness?: FreshnessSurface | null;
  /** The head frame's object manifest; loaded only when the inputs changed (null: none recorded). */
  objects?: ObjectManifest | null;
  /** The frame at or before `now` minus each risk-diff window, found through the day index. */
  windows?: WindowBaselines;
  /**
   * The archive's daily points and level changes, preloaded from their
   * shards; null when there are none. Undefined means not loaded (it is O(days) to read): a
   * surface that must be rebuilt from it then throws E_HISTORY, and the caller loads it and
   * assembles again (cli/commands/assemble.ts).
   */
  history?: HistoryState | null;
}

/** Baseline frames by window length in days; null when the archive holds no frame that old. */
export interface WindowBaselines {
  /** The instant the windows were measured from (the assembly's `now`). */
  now: string;
  /** The archive's first frame time (from the black box), for "archive younger than 7 days". */
  firstFrameAt: string;
  baselines: Record<number, { commit: string; frame: BaselineFrame } | null>;
}

export interface BuildContext {
  publication: Publication;
  /** The assembly instant, ISO 8601 UTC with a Z, to the second. */
  now: string;
  /**
   * When the corpus was indexed: `now`, unless the previous frame had the same inputs, whose
   * instant it keeps. Corpus surfaces use it (never `now`) so that they depend on the inputs only.
   */
  indexedAt: string;
  upstream: UpstreamState;
  /** Every configured instrument's signal: fresh, retained from the previous frame, or missing. */
  signals: readonly Signal[];
  previous: PreviousState | null;
  /** Identity of the frame this assembly will commit (its hash is not known yet). */
  frame: { frameId: string; seq: number; previousFrameHash: string | null };
  /** True when the previous frame was built by this tool from the same input files. */
  inputsUnchanged?: boolean;
  /** The object manifest of these inputs, computed on first call; null when they are unchanged (nothing to diff). */
  objects?: () => ObjectManifest | null;
  /** Surfaces built before this one, in registry order. */
  produced: readonly Produced[];
  /** Every surface of the registry (for manifests that describe the others). */
  registry: readonly Surface[];
  url(path: string): string;
  /** The fingerprint of the input files and the tool version, for reuse keys. */
  inputs?: string;
  toolVersion?: string;
}

/** json: one canonical document; ndjson: canonical lines; text: a string served as is (UTF-8). */
export type SurfaceFormat = "json" | "ndjson" | "text";

/**
 * One published document. Adding a surface means one builder file, one registry line and one
 * golden file: the registry drives building, validation, OpenAPI and integrity.
 */
export interface Surface<S extends z.ZodType = z.ZodType> {
  path: string;
  mediaType: string;
  format: SurfaceFormat;
  /** The document (json) or one line (ndjson). */
  schema: S;
  /** Component name in the OpenAPI document. */
  schemaName: string;
  operationId?: string;
  summary: string;
  /**
   * True when the output depends only on the publication's input files (and on `now` only
   * through the top-level `generated`): an assembly whose inputs are unchanged reuses the
   * previous bytes instead of building, validating and serialising again.
   */
  reusable?: boolean;
  /** json: the document; ndjson: the lines; text: the string. */
  build(ctx: BuildContext): unknown;
  /**
   * An ndjson surface that only grows: `build` returns the lines this assembly
   * appends, the served document is the previous one followed by them, and its SHA-256 is carried
   * from frame to frame (frame.journal), so the cost does not grow with the document.
   */
  appendOnly?: boolean;
  /**
   * A key of everything the output depends on besides the clock; when the
   * previous frame recorded the same key for this path, its bytes are reused (restamped).
   */
  reuseKey?(ctx: BuildContext): string;
  /** A template that stands for one surface per configured series. */
  expand?(publication: Publication): Surface[];
}

export function defineSurface<S extends z.ZodType>(surface: Surface<S>): Surface<S> {
  return surface;
}
