import type { LogHead } from "../log/frames.ts";
import type { NoteSigner } from "../log/checkpoint.ts";
import type { z } from "zod";
import type { Publication } from "../inputs/publication.ts";
import type { UpstreamState } from "../inputs/upstream.ts";
import type { BaselineFrame, Frame } from "../frame.ts";
import type { Signal } from "../signals.ts";
import type { ObjectManifest } from "../changes/objects.ts";
import type { SignalHistory } from "../signal-history/model.ts";
import type { Hasher, Memo } from "../ports.ts";
import type { DayCounts } from "../traffic/counts.ts";

/** What an earlier surface of the same assembly produced: its fingerprint as served. */
export interface Produced {
  path: string;
  mediaType: string;
  sha256: string;
  bytes: number;
  /** SHA-256 of the stored form (the served bytes less a stamped `generated`). */
  storedSha256?: string;
}

/**
 * The archive's state before this assembly: the head frame, and what the plan decided to read of
 * the archive for the surfaces it rebuilds. Each part is loaded at most once, before building.
 */
export interface PreviousState {
  frame: Frame;
  commit: string;
  /** The root tree of that commit, so the next commit does not read the commit again. */
  tree: string;
  /**
   * The head frame's copies of the surfaces that some surface declares it reads
   * (`Surface.previousCopies`), by path, already checked against their schemas. A copy that is
   * missing or does not match its schema is absent.
   */
  copies: ReadonlyMap<string, unknown>;
  /** The head frame's object manifest, when the plan needs it (null: that frame recorded none). */
  objects?: ObjectManifest | null;
  /** The frame at or before `now` minus each risk-diff window, when the plan needs them. */
  windows?: WindowBaselines;
  /** The archive's daily points and level changes, when the plan needs them (null: none yet). */
  signalHistory?: SignalHistory | null;
  /**
   * The frame log over every frame up to and including the head, when the head frame records no
   * `log` (an archive begun by an earlier version): computed once by the archive.
   */
  log?: LogHead;
}

/** Baseline frames by window length in days; null when the archive holds no frame that old. */
export interface WindowBaselines {
  /** The instant the windows were measured from (the assembly's `now`). */
  now: string;
  baselines: Record<number, { commit: string; frame: BaselineFrame } | null>;
}

/**
 * The head frame's copy of the surface at `path`, parsed and checked against `schema` when the
 * previous state was loaded; null without a previous frame or such a copy. `schema` types the
 * result; the surface that reads it must list `path` in its `previousCopies`.
 */
export function previousCopy<S extends z.ZodType>(
  ctx: { previous: PreviousState | null },
  path: string,
  _schema: S,
): z.output<S> | null {
  return (ctx.previous?.copies.get(path) as z.output<S> | undefined) ?? null;
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
  frame: {
    frameId: string;
    seq: number;
    previousFrameHash: string | null;
    /** The Merkle log of every frame before this one (core/log/frames.ts). */
    log: LogHead;
    /** Where this frame's time came from. */
    clock: "system" | "pinned";
  };
  /** The checkpoint signer, when the publisher configured a key. */
  signer?: NoteSigner;
  /** The counts of the days no frame has published yet (access logs); null without any. */
  traffic: { days: Readonly<Record<string, DayCounts>>; seenThrough?: string | null } | null;
  /** SHA-256, for the surfaces that hash what they publish (the frame log's checkpoint). */
  hash: Hasher;
  /** True when the previous frame was built by this tool version from the same input files. */
  inputsUnchanged: boolean;
  /** The object manifest of these inputs, computed on first call; null when they are unchanged (nothing to diff). */
  objects: () => ObjectManifest | null;
  /** Surfaces built before this one, in registry order. */
  produced: readonly Produced[];
  /** Every surface of the registry (for manifests that describe the others). */
  registry: readonly Surface[];
  url(path: string): string;
  /** The fingerprint of the input files, for reuse keys. */
  inputs: string;
  /** This tool's version, for reuse keys. */
  toolVersion: string;
  /** Results of pure computations kept from earlier assemblies (per-document work). */
  memo: Memo;
}

/**
 * json: one canonical document; ndjson: canonical lines; text: a string served as is (UTF-8);
 * bytes: a binary file served as is (the downloads' zips).
 */
export type SurfaceFormat = "json" | "ndjson" | "text" | "bytes";

/**
 * What a surface's builder reads besides the configuration, the signals and the head frame. The
 * planner loads the union of what the surfaces it rebuilds read, each part once, before any
 * surface is built.
 */
export interface Reads {
  /** The articles, guides and registries (glossary, topics, sources, changelog, claim reviews). */
  corpus?: boolean;
  /** The archive's daily points and level changes (O(days) to read). */
  signalHistory?: boolean;
  /** The baseline frames this many days before `now`. */
  archiveWindows?: readonly number[];
  /** The head frame's object manifest (only read when the inputs changed). */
  objects?: boolean;
}

/** What the planner knows when it asks a surface what it reads. */
export interface PlanFacts {
  /** The previous frame was built by this tool version from the same input files. */
  inputsUnchanged: boolean;
  /** The head frame's copy of the surface at `path` was loaded (see `previousCopies`). */
  hasCopy(path: string): boolean;
  /** The head frame was assembled on the same UTC day as this assembly. */
  sameDay: boolean;
}

/** What a builder returns: the document (json), its lines (ndjson) or the text (text). */
export type SurfaceOutput<F extends SurfaceFormat, S extends z.ZodType> = F extends "ndjson"
  ? z.input<S>[]
  : z.input<S>;

/**
 * One published document, declared in one builder file and one registry line: the registry
 * drives planning, building, validation, OpenAPI and integrity (the other steps of adding one are
 * in docs/architecture.md, "Adding a surface").
 */
export interface Surface<F extends SurfaceFormat = SurfaceFormat, S extends z.ZodType = z.ZodType> {
  path: string;
  mediaType: string;
  format: F;
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
  /** What `build` reads (see `Reads`); a function when that depends on what the planner knows. */
  reads?: Reads | ((facts: PlanFacts) => Reads);
  /** Paths of the surfaces whose head-frame copy `build` reads through `previousCopy`. */
  previousCopies?: readonly string[];
  build(ctx: BuildContext): SurfaceOutput<F, S>;
  /**
   * An ndjson surface that only grows: `build` returns the lines this assembly appends, the
   * served document is the previous one followed by them, and its SHA-256 is carried from frame
   * to frame (frame.journal), so the cost does not grow with the document.
   */
  appendOnly?: boolean;
  /**
   * A key of everything the output depends on besides the clock; when the previous frame recorded
   * the same key for this path, its bytes are reused (restamped). Computed before anything the
   * surface reads is loaded: it may read the head frame and the signals, not `reads`.
   */
  reuseKey?(ctx: BuildContext): string;
  /**
   * An ndjson surface whose lines are the records of the json surface at `path`, in the order of
   * `records`: each names where its records sit in that document (a path of keys joined with
   * "/", to an array of records or to one record) and the `recordType` its lines add, if any. When both are built in one assembly, each record is serialised once for the
   * two, and the lines are still validated against this surface's schema. `build` stays the
   * definition: without the fast path (`--no-cache`) it gives the same bytes, which a test checks.
   */
  linesFrom?: {
    path: string;
    records: readonly { at: string; recordType?: string }[];
  };
  /** A template that stands for one surface per configured series. */
  expand?(publication: Publication): Surface[];
}

/**
 * Declares a surface: `defineSurface({ format, schema })({ path, ..., build })`. The format and
 * schema come first so that the compiler knows them when it checks the builder: a builder whose
 * result drifts from its schema does not compile.
 */
export function defineSurface<F extends SurfaceFormat, S extends z.ZodType>(shape: { format: F; schema: S }) {
  return (surface: Omit<Surface<F, S>, "format" | "schema">): Surface<F, S> => ({ ...shape, ...surface });
}
