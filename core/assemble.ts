/**
 * One assembly, as a list of steps over pure functions: build every surface of the registry,
 * validate it, serialise it canonically, fingerprint it, and describe the frame that records it.
 * Nothing here touches a file, the network, the clock or the archive: those are the caller's.
 */
import { RiskError } from "./errors.ts";
import { restamp, unstamp } from "./canonical/stamp.ts";
import { frameHashOf, frameIdOf, type Frame, type FrameBody } from "./frame.ts";
import type { Hasher } from "./ports.ts";
import type { Publication } from "./inputs/publication.ts";
import type { UpstreamState } from "./inputs/upstream.ts";
import { serialiseSurface, validateSurface } from "./render/encode.ts";
import { SURFACES, surfacesFor } from "./surfaces/index.ts";
import { frameSignalOf, resolveSignals, type Signal } from "./signals.ts";
import { manifestBytes, objectManifest, type ObjectManifest } from "./changes/objects.ts";
import type { BuildContext, PreviousState, Produced, Surface } from "./surfaces/types.ts";
import { decodeSha256State, encodeSha256State, sha256Digest, sha256Start, sha256Update } from "./history/sha256.ts";

export interface BuiltFile {
  path: string;
  mediaType: string;
  /** The bytes served at `path`. */
  served: Uint8Array;
  /**
   * The bytes the archive stores (served, less the top-level `generated` when stamped); null
   * when the surface was reused, so the archive already holds them under the same fingerprint.
   */
  stored: Uint8Array | null;
  sha256: string;
  storedSha256: string;
  stamped: boolean;
  /**
   * History, append-only surfaces: `served` holds only the bytes this assembly appends
   * to the previous served document, which was `appendTo` bytes long; `state` is the SHA-256
   * state after the whole document and `records` its line count. The archive keeps such a
   * surface in shards (archive/api/journal.ts), not under site/.
   */
  appendTo?: number;
  state?: string;
  records?: number;
  /** The reuse key recorded with this surface in the frame. */
  reuseKey?: string;
}

export interface Assembly {
  files: BuiltFile[];
  frame: Frame;
  /** The object manifest to store beside the frame; null when the inputs are unchanged (the archive keeps the previous one). */
  objects: { manifest: ObjectManifest; bytes: Uint8Array; sha256: string } | null;
  /** Milliseconds per phase, when a timer was given. */
  phases: { build: number; validate: number; serialise: number };
}

export interface AssembleInput {
  publication: Publication;
  upstream: UpstreamState;
  previous: PreviousState | null;
  /** ISO 8601 UTC instant with a Z, whole seconds. */
  now: string;
  toolVersion: string;
  /** The fingerprint of the publication's input files. */
  inputs: string;
  /** The bytes the previous frame served at a path, when the caller still has them. */
  previousServed?: (path: string) => Uint8Array | null;
  /**
   * True when the caller already knows that the bytes `previousServed` gives for `path` hash to
   * `sha256` (the CLI keeps the stat data of the files it wrote, as Git's index does), so they are
   * not hashed again. Absent or false: they are hashed.
   */
  previousVerified?: (path: string, sha256: string) => boolean;
  /**
   * The publication holds only what surfaces that are not reusable read (configuration, protocol,
   * methodologies). Every reusable surface must then be reused; if one cannot be, assemble throws
   * E_PARTIAL and the caller runs it again with the whole publication.
   */
  partial?: boolean;
}

const encoder = new TextEncoder();

export function assemble(
  input: AssembleInput,
  hash: Hasher,
  options: { surfaces?: readonly Surface[]; timer?: () => number } = {},
): Assembly {
  const { publication, previous, now } = input;
  const surfaces = surfacesFor(publication, options.surfaces ?? SURFACES);
  const timer = options.timer ?? (() => 0);
  if (previous && now <= previous.frame.at) {
    throw new RiskError(
      "E_CLOCK",
      `Cannot assemble at ${now}: the archive's last frame ${previous.frame.frameId} is at ${previous.frame.at}, and frame times must increase. Wait, or pass a later --now.`,
      { now, previous: previous.frame.at },
    );
  }
  const seq = (previous?.frame.seq ?? 0) + 1;
  const frameRef = { frameId: frameIdOf(seq, now), seq, previousFrameHash: previous?.frame.frameHash ?? null };
  const base = publication.config.baseUrl;
  const produced: Produced[] = [];
  const files: BuiltFile[] = [];
  const phases = { build: 0, validate: 0, serialise: 0 };
  const sameInputs = inputsUnchanged(previous, input.inputs, input.toolVersion);
  const indexedAt = sameInputs ? (previous!.frame.indexedAt ?? previous!.frame.at) : now;
  const signals = resolveSignals(publication, input.upstream, previous?.frame ?? null);
  const url = (path: string) => `${base}${path}`;
  // Per-object hashes, for the changefeed; unchanged inputs have the previous frame's. Computed
  // when first needed, so that a bad input is reported by the first surface that publishes it.
  let objects: Assembly["objects"] | undefined = sameInputs ? null : undefined;
  const objectsOf = (): Assembly["objects"] => {
    if (objects === undefined) {
      const manifest = objectManifest(publication, indexedAt, url, hash);
      const bytes = manifestBytes(manifest);
      objects = { manifest, bytes, sha256: hash.sha256(bytes) };
    }
    return objects;
  };
  for (const surface of surfaces) {
    const ctx: BuildContext = {
      publication,
      now,
      indexedAt,
      upstream: input.upstream,
      signals,
      previous,
      frame: frameRef,
      inputsUnchanged: sameInputs,
      objects: () => objectsOf()?.manifest ?? null,
      produced,
      registry: surfaces,
      url,
      inputs: input.inputs,
      toolVersion: input.toolVersion,
    };
    const reuseKey = surface.reuseKey?.(ctx);
    const keyed = reuseKey !== undefined && previous?.frame.surfaces[surface.path]?.reuseKey === reuseKey;
    if ((sameInputs && surface.reusable) || keyed) {
      const t = timer();
      const reused = reuse(surface, previous!, input, hash);
      phases.serialise += timer() - t;
      if (reused) {
        produced.push({ path: surface.path, mediaType: surface.mediaType, sha256: reused.sha256, bytes: reused.served.byteLength, storedSha256: reused.storedSha256 });
        files.push(reuseKey === undefined ? reused : { ...reused, reuseKey });
        continue;
      }
    }
    if (input.partial && surface.reusable) {
      throw new RiskError("E_PARTIAL", `Cannot reuse ${surface.path}; it must be built from the whole publication`, { path: surface.path });
    }
    if (surface.appendOnly) {
      const t = timer();
      const file = appendLines(surface, surface.build(ctx), previous, hash);
      phases.build += timer() - t;
      produced.push({ path: surface.path, mediaType: surface.mediaType, sha256: file.sha256, bytes: file.appendTo! + file.served.byteLength, storedSha256: file.sha256 });
      files.push(file);
      continue;
    }
    let t = timer();
    const built = surface.build(ctx);
    phases.build += timer() - t;
    t = timer();
    const valid = validateSurface(surface, built);
    phases.validate += timer() - t;
    t = timer();
    const text = serialiseSurface(surface, valid);
    const stamped = surface.format === "json" && (valid as { generated?: unknown }).generated === now;
    const served = encoder.encode(text);
    const stored = stamped ? encoder.encode(unstamp(text, now)) : served;
    const sha256 = hash.sha256(served);
    const storedSha256 = stamped ? hash.sha256(stored) : sha256;
    phases.serialise += timer() - t;
    produced.push({ path: surface.path, mediaType: surface.mediaType, sha256, bytes: served.byteLength, storedSha256 });
    files.push({ path: surface.path, mediaType: surface.mediaType, served, stored, sha256, storedSha256, stamped, ...(reuseKey !== undefined ? { reuseKey } : {}) });
  }
  const stored = objectsOf();
  const recorded = stored ? { sha256: stored.sha256, count: stored.manifest.length } : previous?.frame.objects;
  const frame = frameOf({ ...input, signals }, frameRef, files, hash, indexedAt, recorded);
  return { files, frame, objects: stored, phases };
}

/** True when the previous frame was built by this tool version from the same input files. */
export function inputsUnchanged(previous: PreviousState | null, inputs: string, toolVersion: string): boolean {
  return previous !== null && previous.frame.inputs === inputs && previous.frame.tool.version === toolVersion;
}

/**
 * The lines an append-only surface adds, hashed from the SHA-256 state the
 * previous frame recorded, so the cost is that of the new lines whatever the document's length.
 */
function appendLines(surface: Surface, lines: unknown, previous: PreviousState | null, hash: Hasher): BuiltFile {
  const valid = validateSurface(surface, lines) as unknown[];
  const served = encoder.encode(serialiseSurface(surface, valid));
  const before = previous?.frame.journal && previous.frame.surfaces[surface.path] ? previous.frame.journal : null;
  const state = sha256Update(before ? decodeSha256State(before.state) : sha256Start(), served);
  const sha256 = state.length === served.byteLength ? hash.sha256(served) : sha256Digest(state);
  return {
    path: surface.path,
    mediaType: surface.mediaType,
    served,
    stored: null,
    sha256,
    storedSha256: sha256,
    stamped: false,
    appendTo: state.length - served.byteLength,
    state: encodeSha256State(state),
    records: (before?.records ?? 0) + valid.length,
  };
}

/**
 * The previous frame's bytes of a surface whose inputs did not change, moved to this instant.
 * They are used only if they still hash to what that frame recorded; otherwise the surface is
 * built again, so a damaged or edited site folder never leaks into a frame.
 */
function reuse(surface: Surface, previous: PreviousState, input: AssembleInput, hash: Hasher): BuiltFile | null {
  const before = previous.frame.surfaces[surface.path];
  const bytes = input.previousServed?.(surface.path);
  if (!before || !bytes || bytes.byteLength !== before.bytes) return null;
  if (!input.previousVerified?.(surface.path, before.sha256) && hash.sha256(bytes) !== before.sha256) return null;
  const served = before.stamped ? restamp(bytes, previous.frame.at, input.now) : bytes;
  return {
    path: surface.path,
    mediaType: surface.mediaType,
    served,
    stored: null,
    sha256: before.stamped ? hash.sha256(served) : before.sha256,
    storedSha256: before.storedSha256,
    stamped: before.stamped,
  };
}

function frameOf(
  input: AssembleInput & { signals: readonly Signal[] },
  ref: { frameId: string; seq: number; previousFrameHash: string | null },
  files: BuiltFile[],
  hash: Hasher,
  indexedAt: string,
  objects: Frame["objects"],
): Frame {
  const before = input.previous?.frame.surfaces ?? {};
  const changes = { added: [] as string[], changed: [] as string[], removed: [] as string[] };
  const surfaces: Frame["surfaces"] = {};
  for (const f of files) {
    surfaces[f.path] = {
      mediaType: f.mediaType,
      sha256: f.sha256,
      bytes: (f.appendTo ?? 0) + f.served.byteLength,
      stamped: f.stamped,
      storedSha256: f.storedSha256,
      ...(f.reuseKey !== undefined ? { reuseKey: f.reuseKey } : {}),
    };
    const old = before[f.path];
    if (!old) changes.added.push(f.path);
    else if (old.storedSha256 !== f.storedSha256) changes.changed.push(f.path);
  }
  for (const path of Object.keys(before)) if (!surfaces[path]) changes.removed.push(path);
  for (const list of Object.values(changes)) list.sort();

  const signals: Frame["signals"] = {};
  for (const signal of input.signals) signals[signal.instrument] = frameSignalOf(signal);
  const models = Object.fromEntries(
    [...input.publication.methodologies].sort((a, b) => (a.slug < b.slug ? -1 : 1)).map((m) => [m.slug, m.version]),
  );
  const body: FrameBody = {
    format: "risk-cli-frame/1",
    frameId: ref.frameId,
    seq: ref.seq,
    at: input.now,
    previousFrameId: input.previous?.frame.frameId ?? null,
    previousFrameHash: ref.previousFrameHash,
    tool: { name: "risk-cli", version: input.toolVersion },
    inputs: input.inputs,
    indexedAt,
    surfaces,
    signals,
    models,
    changes,
    ...(objects ? { objects } : {}),
    ...journalOf(files),
  };
  return { ...body, frameHash: frameHashOf(body, hash) };
}

/** The append-only journal's record count and SHA-256 state, for the frame. */
function journalOf(files: BuiltFile[]): { journal?: { records: number; state: string } } {
  const f = files.find((x) => x.appendTo !== undefined);
  return f ? { journal: { records: f.records!, state: f.state! } } : {};
}
