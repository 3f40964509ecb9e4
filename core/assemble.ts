/**
 * One assembly's building, over pure functions: build every surface the plan does not reuse,
 * validate it, serialise it canonically, fingerprint it, and describe the frame that records it.
 * Nothing here touches a file, the network, the clock or the archive: those are the caller's.
 */
import { frameHashOf, type Frame, type FrameBody } from "./frame.ts";
import type { Hasher } from "./ports.ts";
import type { Publication } from "./inputs/publication.ts";
import { canonicalJson } from "./canonical/jcs.ts";
import { RiskError } from "./errors.ts";
import type { z } from "zod";
import { serialiseDocument, serialiseSurface, validateSurface, type DocumentBranches } from "./render/encode.ts";
import { linesValidWithDocument } from "./render/lines-schema.ts";
import { SURFACES, surfacesFor } from "./surfaces/index.ts";
import { frameSignalOf, type Signal } from "./signals.ts";
import { manifestBytes, objectManifest, type ObjectManifest } from "./changes/objects.ts";
import type { BuildContext, PreviousState, Produced, Surface } from "./surfaces/types.ts";
import { buildContext, planAssembly, type Plan, type PlanInput } from "./plan.ts";
import { decodeSha256State, encodeSha256State, sha256Digest, sha256Start, sha256Update } from "./journal/sha256.ts";

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
  /** The exact documents the upstreams sent, to store beside the frame (upstream/<instrument>). */
  upstreamDocuments: { instrument: string; bytes: Uint8Array }[];
}

export interface AssembleInput extends PlanInput {
  /** The whole publication when the plan needs the corpus; its configuration part at least. */
  publication: Publication;
  /** The fingerprints of what the archive stores beside the frame (`Frame.about`). */
  about?: Frame["about"];
}

const encoder = new TextEncoder();

/**
 * Builds what `plan` says to build (every surface when no plan is given: the previous state must
 * then hold whatever they read), in registry order, and describes the frame. `input.previous`
 * must hold what `plan.needs` lists.
 */
export function assemble(
  input: AssembleInput,
  hash: Hasher,
  options: {
    surfaces?: readonly Surface[];
    timer?: () => number;
    plan?: Plan;
    /** Serialise the records a document shares with the stream of its lines once (`Surface.linesFrom`). */
    sharedRecords?: boolean;
  } = {},
): Assembly {
  const { publication, previous } = input;
  // With a plan, its surfaces are the registry: they were expanded once, when it was made.
  const plan = options.plan ?? planAssembly(input, surfacesFor(publication, options.surfaces ?? SURFACES), hash);
  const surfaces = plan.steps.map((step) => step.surface);
  const timer = options.timer ?? (() => 0);
  const sameInputs = plan.inputsUnchanged;
  const produced: Produced[] = [];
  const files: BuiltFile[] = [];
  const phases = { build: 0, validate: 0, serialise: 0 };
  // Per-object hashes, for the changefeed; unchanged inputs have the previous frame's. Computed
  // when first needed, so that a bad input is reported by the first surface that publishes it.
  let objects: Assembly["objects"] | undefined = sameInputs ? null : undefined;
  const objectsOf = (): Assembly["objects"] => {
    if (objects === undefined) {
      const manifest = objectManifest(publication, ctx.indexedAt, ctx.url, hash, ctx.memo);
      const bytes = manifestBytes(manifest);
      objects = { manifest, bytes, sha256: hash.sha256(bytes) };
    }
    return objects;
  };
  const ctx = buildContext(input, surfaces, sameInputs, () => objectsOf()?.manifest ?? null, hash, produced);
  const streams = options.sharedRecords === false ? new Map<string, Surface[]>() : streamsBuiltWith(plan);
  const sharedLines = new Map<string, SharedLines>();
  for (const step of plan.steps) {
    const { surface } = step;
    if (step.action === "reuse") {
      const f = step.file;
      produced.push({
        path: f.path,
        mediaType: f.mediaType,
        sha256: f.sha256,
        bytes: f.served.byteLength,
        storedSha256: f.storedSha256,
      });
      files.push(f);
      continue;
    }
    if (step.action === "append") {
      const t = timer();
      const file = appendLines(surface, surface.build(ctx), previous, hash);
      phases.build += timer() - t;
      produced.push({
        path: surface.path,
        mediaType: surface.mediaType,
        sha256: file.sha256,
        bytes: file.appendTo! + file.served.byteLength,
        storedSha256: file.sha256,
      });
      files.push(file);
      continue;
    }
    const shared = sharedLines.get(surface.path);
    let t = timer();
    const built = shared ? shared.lines : surface.build(ctx);
    phases.build += timer() - t;
    t = timer();
    // Lines taken from a validated document are checked again only when their schema could refuse them.
    const valid =
      shared && linesValidWithDocument(surface, shared.documentSchema) ? built : validateSurface(surface, built);
    phases.validate += timer() - t;
    t = timer();
    let served: Uint8Array;
    let stored: Uint8Array;
    let stamped = false;
    let branches: DocumentBranches | undefined;
    if (surface.format === "json") {
      const given = new Map<string, string>();
      for (const stream of streams.get(surface.path) ?? []) {
        const lines = linesOf(stream, valid, given);
        if (lines) sharedLines.set(stream.path, { ...lines, documentSchema: surface.schema as z.ZodType });
      }
      const bytes = serialiseDocument(surface, valid, input.now, given);
      served = bytes.served;
      stamped = bytes.stored !== null;
      stored = bytes.stored ?? served;
      if (bytes.stored !== null) branches = bytes.branches;
    } else if (shared) {
      served = encoder.encode(shared.texts.length === 0 ? "" : `${shared.texts.join("\n")}\n`);
      stored = served;
    } else {
      const text = serialiseSurface(surface, valid);
      served = typeof text === "string" ? encoder.encode(text) : text;
      stored = served;
    }
    // A stamped document and its stored copy share all the members before `generated`: hashed once.
    let sha256: string;
    let storedSha256: string;
    if (branches) {
      [sha256, storedSha256] = hash.sha256Branches(branches.prefix, [branches.served, branches.stored]) as [
        string,
        string,
      ];
    } else {
      // Not stamped: the archive stores the served bytes themselves.
      sha256 = hash.sha256(served);
      storedSha256 = sha256;
    }
    phases.serialise += timer() - t;
    produced.push({ path: surface.path, mediaType: surface.mediaType, sha256, bytes: served.byteLength, storedSha256 });
    const { reuseKey } = step;
    files.push({
      path: surface.path,
      mediaType: surface.mediaType,
      served,
      stored,
      sha256,
      storedSha256,
      stamped,
      ...(reuseKey !== undefined ? { reuseKey } : {}),
    });
  }
  const stored = objectsOf();
  const recorded = stored ? { sha256: stored.sha256, count: stored.manifest.length } : previous?.frame.objects;
  const documents = upstreamDocuments(input, hash);
  const frame = frameOf(
    { ...input, signals: ctx.signals },
    ctx.frame,
    files,
    hash,
    ctx.indexedAt,
    recorded,
    documents.record,
  );
  return { files, frame, objects: stored, phases, upstreamDocuments: documents.stored };
}

/** The lines of a stream taken from a document built before it: the objects and their canonical text. */
interface SharedLines {
  lines: unknown[];
  texts: string[];
  /** The schema of the document they were taken from, which validated them there. */
  documentSchema: z.ZodType;
}

/**
 * The streams (`Surface.linesFrom`) that the plan builds after the document they take their lines
 * from, by that document's path: only then are the records serialised once for both.
 */
function streamsBuiltWith(plan: Plan): Map<string, Surface[]> {
  const built = new Set<string>();
  const out = new Map<string, Surface[]>();
  for (const step of plan.steps) {
    if (step.action !== "build") continue;
    const from = step.surface.linesFrom?.path;
    if (from !== undefined && built.has(from)) out.set(from, [...(out.get(from) ?? []), step.surface]);
    built.add(step.surface.path);
  }
  return out;
}

/**
 * The lines `stream` takes from the validated document `doc`, each record serialised once: its
 * text goes into `given` for the document, and into the line with the members the line adds.
 * Null when the document does not hold what the stream expects (the stream then builds itself).
 */
function linesOf(
  stream: Surface,
  doc: unknown,
  given: Map<string, string>,
): Omit<SharedLines, "documentSchema"> | null {
  const lines: unknown[] = [];
  const texts: string[] = [];
  const found: [string, string][] = [];
  for (const { at, recordType } of stream.linesFrom?.records ?? []) {
    let value: unknown = doc;
    for (const key of at.split("/")) value = (value as Record<string, unknown> | null)?.[key];
    if (typeof value !== "object" || value === null) return null;
    const records = Array.isArray(value) ? value : [value];
    const own: string[] = [];
    for (let i = 0; i < records.length; i++) {
      const record: unknown = records[i];
      if (typeof record !== "object" || record === null || Array.isArray(record)) return null;
      if (recordType !== undefined && Object.hasOwn(record, "recordType")) return null;
      const line = recordType === undefined ? record : withRecordType(record as Record<string, unknown>, recordType);
      const text = recordText(line, recordType);
      // A value JSON cannot carry: the document, serialised whole, reports it where it sits.
      if (text === null) return null;
      own.push(text.record);
      lines.push(line);
      texts.push(text.line);
    }
    found.push([at, Array.isArray(value) ? `[${own.join(",")}]` : own[0]!]);
  }
  for (const [at, text] of found) given.set(at, text);
  return { lines, texts };
}

/**
 * The record with a `recordType` member, at its place in code-unit order when the record's own
 * keys are in that order (as validated records are): canonical JSON then copies nothing.
 */
function withRecordType(record: Record<string, unknown>, recordType: string): Record<string, unknown> {
  const line: Record<string, unknown> = {};
  let placed = false;
  for (const key of Object.keys(record)) {
    // Assigning `__proto__` would set the prototype: a spread defines it as data.
    if (key === "__proto__") return { recordType, ...record };
    if (!placed && key > "recordType") {
      line.recordType = recordType;
      placed = true;
    }
    line[key] = record[key];
  }
  if (!placed) line.recordType = recordType;
  return line;
}

/**
 * A line's canonical text, and its record's: the same less the `recordType` member the line
 * adds, when it adds one. The member is cut where it is found once only (so at the top level);
 * a record that holds the same text deeper is serialised again without it. Null when a value
 * cannot be serialised.
 */
function recordText(line: object, recordType: string | undefined): { record: string; line: string } | null {
  let text: string;
  try {
    text = canonicalJson(line);
  } catch (e) {
    if (e instanceof RiskError && e.code === "E_CANONICAL") return null;
    throw e;
  }
  if (recordType === undefined) return { record: text, line: text };
  const member = `"recordType":${JSON.stringify(recordType)}`;
  const at = text.indexOf(member);
  if (at < 0 || text.lastIndexOf(member) !== at) {
    const { recordType: _tag, ...record } = line as Record<string, unknown>;
    return { record: canonicalJson(record), line: text };
  }
  const end = at + member.length;
  const record =
    text[at - 1] === ","
      ? text.slice(0, at - 1) + text.slice(end)
      : text[end] === ","
        ? text.slice(0, at) + text.slice(end + 1)
        : "{}";
  return { record, line: text };
}

/** Each collected instrument's document (hash and bytes), or the reason there is none. */
function upstreamDocuments(input: AssembleInput, hash: Hasher) {
  const record: NonNullable<Frame["upstream"]> = {};
  const stored: { instrument: string; bytes: Uint8Array }[] = [];
  for (const [key, result] of Object.entries(input.upstream.instruments)) {
    if (!result) continue;
    if (result.document !== undefined) {
      const bytes = encoder.encode(result.document);
      record[key as keyof typeof record] = { sha256: hash.sha256(bytes), bytes: bytes.byteLength };
      stored.push({ instrument: key, bytes });
    } else record[key as keyof typeof record] = { reason: result.ok ? "not kept" : result.error };
  }
  return { record, stored };
}

/**
 * The lines an append-only surface adds, hashed from the SHA-256 state the previous frame
 * recorded, so the cost is that of the new lines whatever the document's length.
 */
function appendLines(surface: Surface, lines: unknown, previous: PreviousState | null, hash: Hasher): BuiltFile {
  const valid = validateSurface(surface, lines) as unknown[];
  const served = encoder.encode(serialiseSurface(surface, valid) as string);
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

function frameOf(
  input: AssembleInput & { signals: readonly Signal[] },
  ref: BuildContext["frame"],
  files: BuiltFile[],
  hash: Hasher,
  indexedAt: string,
  objects: Frame["objects"],
  upstream: Frame["upstream"],
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
    log: ref.log,
    clock: ref.clock,
    ...(upstream && Object.keys(upstream).length > 0 ? { upstream } : {}),
    ...(input.about ? { about: input.about } : {}),
  };
  return { ...body, frameHash: frameHashOf(body, hash) };
}

/** The append-only journal's record count and SHA-256 state, for the frame. */
function journalOf(files: BuiltFile[]): { journal?: { records: number; state: string } } {
  const f = files.find((x) => x.appendTo !== undefined);
  return f ? { journal: { records: f.records!, state: f.state! } } : {};
}
