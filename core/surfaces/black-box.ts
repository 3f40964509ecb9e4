import { z } from "zod";
import { InstrumentKey, IsoDate, IsoDateTime } from "../schemas/primitives.ts";
import { defineSurface, previousCopy, type BuildContext, type PreviousState } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";
import { checkpointOf, logOrigin } from "../log/frames.ts";
import { BLACK_BOX_PATH } from "../log/site-log.ts";

/** How many earlier frames the black box carries; older ones are reached by replay. */
export const RECENT_FRAMES = 24;
/** How many UTC days the per-day summary covers (today included). */
export const SUMMARY_DAYS = 30;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const BlackBoxFrame = z.strictObject({
  frameId: z.string(),
  seq: z.int().positive(),
  at: IsoDateTime,
  frameHash: Sha256,
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  changed: z.array(z.string()),
  scores: z.partialRecord(InstrumentKey, z.number().nullable()),
  /** Where that frame's time came from; absent for frames that did not record it. */
  clock: z.enum(["system", "pinned"]).optional(),
});

/**
 * One UTC day of earlier frames: how many, and the last one (the one replay gives for that date once
 * the day is closed). The open day's entry leaves out this frame, which is `current`: its hash and
 * commit cannot be written inside the file they fingerprint.
 */
export const BlackBoxDay = z.strictObject({
  date: IsoDate,
  frames: z.int().positive(),
  firstFrameId: z.string(),
  lastFrameId: z.string(),
  lastFrameAt: IsoDateTime,
  lastFrameHash: Sha256,
  lastCommit: z.string().regex(/^[0-9a-f]{40}$/),
  scores: z.partialRecord(InstrumentKey, z.number().nullable()),
  levels: z.partialRecord(InstrumentKey, z.string().nullable()),
});

export const BlackBox = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  current: z.strictObject({
    frameId: z.string(),
    seq: z.int().positive(),
    at: IsoDateTime,
    previousFrameId: z.string().nullable(),
    previousFrameHash: Sha256.nullable(),
    /** Where this frame's time came from: the system clock, or pinned by --now or SOURCE_DATE_EPOCH. */
    clock: z.enum(["system", "pinned"]).optional(),
  }),
  /**
   * The latest checkpoint of the frame log (the Merkle tree over every earlier frame's hash), in
   * the C2SP tlog-checkpoint text form, signed when the publisher configured a key: save it, and
   * `risk-cli verify --checkpoint FILE` later proves that the archive still extends it.
   */
  log: z
    .strictObject({
      origin: z.string(),
      size: z.int().nonnegative(),
      root: Sha256,
      checkpoint: z.string(),
      /** The key that signs checkpoints, as verifiers take it (`<name>+<id>+<key>`); null when unsigned. */
      verifierKey: z.string().nullable(),
      rule: z.string(),
    })
    .optional(),
  chain: z.strictObject({ algorithm: z.literal("sha256"), frameHashRule: z.string(), length: z.int().positive() }),
  recentFrames: z.array(BlackBoxFrame).max(RECENT_FRAMES),
  /** Newest first; absent in black boxes written before it existed. */
  days: z.array(BlackBoxDay).max(SUMMARY_DAYS).optional(),
  replay: z.strictObject({
    firstFrameAt: IsoDateTime,
    lastFrameAt: IsoDateTime,
    rule: z.string(),
    command: z.string(),
    index: z.string(),
    /** Where the archive is published (clone URL and branch); absent when the publication names none. */
    archive: z.strictObject({ url: z.string(), branch: z.string() }).optional(),
  }),
});
export type BlackBox = z.infer<typeof BlackBox>;

export { BLACK_BOX_PATH };

export const blackBox = defineSurface({ format: "json", schema: BlackBox })({
  path: BLACK_BOX_PATH,
  mediaType: "application/json",
  schemaName: "BlackBoxSurface",
  operationId: "blackBoxSurface",
  summary: "Black-box recorder: the current frame's identity, recent hashed frames and how to replay any earlier one",
  previousCopies: [BLACK_BOX_PATH],
  build(ctx) {
    const { now, previous, frame, url } = ctx;
    const before = previousCopy(ctx, BLACK_BOX_PATH, BlackBox);
    const recent = previous
      ? [
          {
            frameId: previous.frame.frameId,
            seq: previous.frame.seq,
            at: previous.frame.at,
            frameHash: previous.frame.frameHash,
            commit: previous.commit,
            changed: [
              ...previous.frame.changes.added,
              ...previous.frame.changes.changed,
              ...previous.frame.changes.removed,
            ].sort(),
            scores: Object.fromEntries(Object.entries(previous.frame.signals).map(([k, s]) => [k, s?.value ?? null])),
            ...(previous.frame.clock ? { clock: previous.frame.clock } : {}),
          },
          ...(before?.recentFrames ?? []),
        ].slice(0, RECENT_FRAMES)
      : [];
    return {
      schema: url("/openapi.json#/components/schemas/BlackBoxSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      current: {
        frameId: frame.frameId,
        seq: frame.seq,
        at: now,
        previousFrameId: previous?.frame.frameId ?? null,
        previousFrameHash: frame.previousFrameHash,
        clock: frame.clock,
      },
      log: {
        origin: logOrigin(ctx.publication.config.baseUrl),
        size: frame.log.size,
        root: frame.log.root,
        checkpoint: checkpointOf(
          ctx.hash,
          logOrigin(ctx.publication.config.baseUrl),
          frame.log,
          previous ? { frameId: previous.frame.frameId, frameHash: previous.frame.frameHash } : null,
          ctx.signer,
        ),
        verifierKey: ctx.signer?.verifierKey ?? null,
        rule: "Leaves are SHA-256(0x00 || frameHash bytes) of every frame before this one, in order; nodes SHA-256(0x01 || left || right) (RFC 6962). Each frame records the log of the frames before it in frame.json (log.size, log.root, log.edge).",
      },
      chain: {
        algorithm: "sha256",
        frameHashRule:
          "frameHash = SHA-256 of the RFC 8785 canonical frame without frameHash; previousFrameHash = the frameHash of the frame before",
        length: frame.seq,
      },
      recentFrames: recent,
      days: previous ? daysOf(previous, before, now) : [],
      replay: {
        firstFrameAt: firstFrameAt(ctx),
        lastFrameAt: now,
        rule: "A date means the end of that UTC day; a date-time is exact. Replay gives the last frame at or before it and checks every file against that frame's fingerprints.",
        command: replayCommand(ctx.publication.config.archive),
        index:
          "index/<YYYY>/<MM>/<DD>.json in the archive head tree lists every earlier frame of that UTC day with its commit; days summarises the last 30 UTC days: replay of an earlier date gives that day's lastFrameId",
        ...(ctx.publication.config.archive ? { archive: { ...ctx.publication.config.archive } } : {}),
      },
    };
  },
});

/** The replay command a stranger can paste: the archive's address when the publication names one. */
export function replayCommand(archive: { url: string; branch: string } | undefined): string {
  return archive
    ? `git clone --bare --branch ${archive.branch} ${archive.url} archive.git && risk-cli replay --archive archive.git --date <date|date-time> --out <dir>`
    : "git clone <archive> && risk-cli replay --archive <archive> --date <date|date-time> --out <dir>";
}

/**
 * The previous black box's days with the previous frame counted in, limited to the last
 * SUMMARY_DAYS UTC days before `now`: O(1) per assembly whatever the archive's length.
 */
function daysOf(previous: PreviousState, before: BlackBox | null, now: string): z.input<typeof BlackBoxDay>[] {
  const f = previous.frame;
  const date = f.at.slice(0, 10);
  const entries = Object.entries(f.signals);
  const last = {
    lastFrameId: f.frameId,
    lastFrameAt: f.at,
    lastFrameHash: f.frameHash,
    lastCommit: previous.commit,
    scores: Object.fromEntries(entries.map(([k, s]) => [k, s?.value ?? null])),
    levels: Object.fromEntries(entries.map(([k, s]) => [k, s?.level ?? null])),
  };
  const days = [...(before?.days ?? [])];
  const today = days[0]?.date === date ? days.shift()! : null;
  days.unshift({ date, frames: (today?.frames ?? 0) + 1, firstFrameId: today?.firstFrameId ?? f.frameId, ...last });
  const oldest = new Date(Date.parse(`${now.slice(0, 10)}T00:00:00Z`) - (SUMMARY_DAYS - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  return days.filter((d) => d.date >= oldest);
}

/**
 * The archive's first frame time, as the head frame's black box records it; this assembly's own
 * instant in an empty archive. Surfaces that read it list BLACK_BOX_PATH in their previousCopies.
 */
export function firstFrameAt(ctx: Pick<BuildContext, "previous" | "now">): string {
  return previousCopy(ctx, BLACK_BOX_PATH, BlackBox)?.replay.firstFrameAt ?? ctx.previous?.frame.at ?? ctx.now;
}
