import { stamp, stampParts, stampPlan, type StampPlan } from "../../core/canonical/stamp.ts";
import { RiskError } from "../../core/errors.ts";
import { frameHashOf, type Frame, type FrameSignal } from "../../core/frame.ts";
import type { Hasher } from "../../core/ports.ts";
import { IntegritySurface } from "../../core/surfaces/integrity.ts";
import {
  gitSubstitutions,
  headCommit,
  oidAtPath,
  readBlob,
  readCommit,
  readTree,
  type CommitInfo,
  requireArchive,
} from "../git/objects.ts";
import { flattenTree } from "../git/tree-edit.ts";
import { IndexShard, shardPath, type IndexEntry } from "../models/date-index.ts";
import { frameMessage, parseFrameMessage } from "../models/message.ts";
import { readFrame } from "./frames.ts";
import {
  DAILY_PREFIX,
  FRAME_FILE,
  INDEX_PREFIX,
  LEVEL_CHANGES_PREFIX,
  JOURNAL_PREFIX,
  LICENSE_FILE,
  README_FILE,
  SITE_PREFIX,
  TILE_PREFIX,
  UPSTREAM_PREFIX,
} from "../layout.ts";
import { EMPTY_LOG, extendLog, frameLeaf, rawSha } from "../../core/log/frames.ts";
import { toHex } from "../../core/log/merkle.ts";
import { parseCheckpoint } from "../../core/log/checkpoint.ts";
import { BLACK_BOX_PATH } from "../../core/log/site-log.ts";
import { publishedInteger } from "../../core/levels.ts";
import { readLeaves, tilePaths } from "./tiles.ts";
import { OBJECTS_FILE } from "../layout.ts";
import { JOURNAL_PATH, verifyJournalHead, verifyJournalStep } from "./journal.ts";
import { verifySignalHistoryStep } from "./signal-history.ts";

export interface VerifyReport {
  frames: number;
  surfacesChecked: number;
  /** The frame log over every frame (head included): its size and root. */
  log: { size: number; root: string };
  /** Frames whose time was pinned (--now, SOURCE_DATE_EPOCH), read from the system clock, or not recorded. */
  clock: { pinned: number; system: number; unrecorded: number };
  /**
   * Frames whose README.md, LICENSE and commit author were checked against the fingerprints
   * frame.json records, and frames written before frames recorded them (not checked).
   */
  about: { checked: number; unrecorded: number };
  head: { frameId: string; frameHash: string; commit: string } | null;
}

const INTEGRITY = "/api/v1/integrity.json";

/** What a frame's tree holds at its top, and nothing else. */
const FRAME_TREE_ENTRIES = new Set([
  FRAME_FILE,
  OBJECTS_FILE,
  README_FILE,
  LICENSE_FILE,
  SITE_PREFIX,
  JOURNAL_PREFIX,
  DAILY_PREFIX.split("/")[0]!,
  LEVEL_CHANGES_PREFIX.split("/")[0]!,
  INDEX_PREFIX,
  TILE_PREFIX,
  UPSTREAM_PREFIX,
]);
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Checks every frame from the first to the head (or to the frame committed as `upTo`, which is
 * then checked as the head it was when it was published): commit trailers, frame hash, chain, sequence,
 * times, every stored surface against its fingerprints, integrity.json against the frame, and
 * the replay index. Throws E_VERIFY naming the first frame and path that fail.
 */
export async function verifyArchive(
  gitdir: string,
  hash: Hasher,
  onFrame?: (n: number) => void,
  upTo?: string,
): Promise<VerifyReport> {
  requireArchive(gitdir);
  // What docs/audit.md has a stranger run (git show | sha256sum) must read the objects checked here.
  const substituted = gitSubstitutions(gitdir);
  if (substituted.length > 0)
    throw new RiskError(
      "E_VERIFY",
      `Verification failed: the archive holds ${substituted.slice(0, 3).join(", ")}${substituted.length > 3 ? ` and ${substituted.length - 3} more` : ""}, which make git show and git log read other objects than the frames hold (risk-cli reads the frames' own objects). Remove them (\`git --git-dir <archive> replace -d <oid>\`, or delete info/grafts), or audit with GIT_NO_REPLACE_OBJECTS=1; then verify again.`,
      { substitutions: substituted },
    );
  const head = upTo ?? (await headCommit(gitdir));
  if (!head) throw new RiskError("E_NO_FRAME", `The archive ${gitdir} has no frame to verify`, { archive: gitdir });
  const chain: CommitInfo[] = [];
  for (let oid: string | undefined = head; oid; ) {
    let c: CommitInfo;
    try {
      c = await readCommit(gitdir, oid);
    } catch (e) {
      if (!isDamage(e)) throw e;
      // Named by the frame whose parent it is (or the head): the chain breaks there.
      const child = chain.at(-1);
      const frameId = child ? parseFrameMessage(child.message, child.oid).frameId : null;
      fail(
        frameId,
        child?.oid ?? oid,
        null,
        child
          ? `the commit of the frame before it (${oid}) is missing or damaged: the chain is broken (${(e as Error).message})`
          : `the head commit is missing or damaged (${(e as Error).message})`,
      );
    }
    if (c.parents.length > 1) {
      let frameId: string | null = null;
      try {
        frameId = parseFrameMessage(c.message, c.oid).frameId;
      } catch {
        // A message that names no frame: the commit alone is named.
      }
      fail(frameId, oid, null, "a frame commit has more than one parent (a merge): history was rewritten");
    }
    chain.push(c);
    oid = c.parents[0];
  }
  chain.reverse();
  // Blobs already hashed, by object id: an unchanged surface is read and hashed once, not per frame.
  const sha256OfBlob = new Map<string, { sha256: string; bytes: number }>();
  // The stored bytes of recently read blobs: an unchanged stamped surface is hashed again at each
  // frame (its served form carries the frame's time) but read and inflated once.
  const recent = new Map<string, Uint8Array>();
  const remember = (blob: string, bytes: Uint8Array) => {
    recent.delete(blob);
    recent.set(blob, bytes);
    if (recent.size > 64) recent.delete(recent.keys().next().value!);
  };
  // Where each stamped blob takes its `generated` member: found by one scan of the blob, not one a frame.
  const plans = new Map<string, StampPlan>();
  const planOf = (blob: string, bytes: Uint8Array): StampPlan => {
    let plan = plans.get(blob);
    if (plan === undefined) plans.set(blob, (plan = stampPlan(bytes)));
    return plan;
  };
  let previous: { frame: Frame; commit: string; tree: string } | null = null;
  let surfacesChecked = 0;
  const signalsSeen = new Map(
    PUBLISHED_SIGNALS.map((view) => [
      view,
      { blob: null, doc: {}, published: new Map(), recorded: null } as SignalsSeen,
    ]),
  );
  // The frame log as the frames so far make it; each frame's recorded log must be exactly this.
  let log = EMPTY_LOG(hash);
  const leaves: Uint8Array[] = [];
  const sha = rawSha(hash);
  const clock = { pinned: 0, system: 0, unrecorded: 0 };
  const about = { checked: 0, unrecorded: 0 };
  // What the head's replay index must hold: every frame before the head, as the chain has it.
  const indexed: IndexEntry[] = [];
  for (const [i, commit] of chain.entries()) {
    const trailersFor = () => {
      try {
        return parseFrameMessage(commit.message, commit.oid).frameId;
      } catch {
        return null;
      }
    };
    try {
      const oid = commit.oid;
      const trailers = parseFrameMessage(commit.message, oid);
      let frame: Frame;
      let tree: string;
      try {
        ({ frame, tree } = await readFrame(gitdir, oid, { read: commit }));
      } catch (e) {
        keepIncomplete(e);
        fail(trailers.frameId, oid, FRAME_FILE, (e as Error).message);
      }
      const where = frame.frameId;
      const recomputed = frameHashOf(frame, hash);
      if (recomputed !== frame.frameHash)
        fail(
          where,
          oid,
          FRAME_FILE,
          `the frame hashes to ${recomputed}, not its recorded frameHash ${frame.frameHash}: the frame was rewritten`,
        );
      // The subject and every trailer, as auditors read them with git log.
      if (commit.rawMessage !== frameMessage(frame))
        fail(
          where,
          oid,
          FRAME_FILE,
          "the commit message is not the one risk-cli writes for frame.json (subject and trailers, nothing else): the message was rewritten",
        );
      if (frame.seq !== i + 1)
        fail(
          where,
          oid,
          FRAME_FILE,
          `frame seq is ${frame.seq} where the chain has frame ${i + 1}: a frame was removed or reordered`,
        );
      if (commit.authorTime !== Math.floor(Date.parse(frame.at) / 1000) || commit.committerTime !== commit.authorTime) {
        fail(where, oid, FRAME_FILE, "the commit time is not the frame time");
      }
      // risk-cli writes every frame's times in UTC: another offset, even for the same instant, is a rewritten commit.
      if (commit.authorZone !== "+0000" || commit.committerZone !== "+0000")
        fail(
          where,
          oid,
          FRAME_FILE,
          `the commit's times are written at UTC offset ${commit.authorZone === "+0000" ? commit.committerZone : commit.authorZone}, where risk-cli writes +0000: the commit was rewritten`,
        );
      if (previous) {
        if (frame.previousFrameHash !== previous.frame.frameHash || frame.previousFrameId !== previous.frame.frameId) {
          fail(
            where,
            oid,
            FRAME_FILE,
            `previousFrameHash does not match frame ${previous.frame.frameId}: a frame was removed, reordered or rewritten`,
          );
        }
        if (frame.at <= previous.frame.at)
          fail(where, oid, FRAME_FILE, "frame time does not increase: frames were reordered");
        const shard = await oidAtPath(gitdir, tree, shardPath(previous.frame.at));
        const last = shard ? (await shardEntries(gitdir, shard.oid))?.at(-1) : undefined;
        if (!last || last.commit !== previous.commit || last.frameHash !== previous.frame.frameHash) {
          fail(
            where,
            oid,
            shardPath(previous.frame.at),
            `the replay index does not end with the previous frame ${previous.frame.frameId}`,
          );
        }
      } else if (frame.previousFrameHash !== null) {
        fail(where, oid, FRAME_FILE, "the first frame names a previous frame: earlier frames were removed");
      }
      if (
        frame.log &&
        (frame.log.size !== log.size || frame.log.root !== log.root || frame.log.edge.join() !== log.edge.join())
      )
        fail(
          where,
          oid,
          FRAME_FILE,
          `the frame records a log of ${frame.log.size} frames with root ${frame.log.root}, but the frames before it make ${log.size} with root ${log.root}: the log was rewritten`,
        );
      log = extendLog(hash, log, frame.frameHash);
      leaves.push(frameLeaf(sha, frame.frameHash));
      clock[frame.clock ?? "unrecorded"]++;
      // Nothing beside what risk-cli stores: a file added at the top of a frame (a forged README
      // is the likeliest) or under upstream/ is not recorded anywhere and must not ride along.
      for (const entry of await readTree(gitdir, tree)) {
        if (!FRAME_TREE_ENTRIES.has(entry.path))
          fail(where, oid, entry.path, "a file the frame does not store sits at the top of its tree");
        if (entry.type !== "tree" && entry.mode !== "100644") fail(where, oid, entry.path, unusualMode(entry.mode));
      }
      const upstreamTree = await oidAtPath(gitdir, tree, UPSTREAM_PREFIX);
      if (upstreamTree)
        for (const entry of await readTree(gitdir, upstreamTree.oid)) {
          const rec = frame.upstream?.[entry.path as keyof NonNullable<Frame["upstream"]>];
          if (!rec || !("sha256" in rec))
            fail(where, oid, `${UPSTREAM_PREFIX}/${entry.path}`, "an upstream document the frame does not record");
          if (entry.mode !== "100644") fail(where, oid, `${UPSTREAM_PREFIX}/${entry.path}`, unusualMode(entry.mode));
        }
      const site = await oidAtPath(gitdir, tree, SITE_PREFIX);
      const stored = site
        ? await flattenTree(gitdir, site.oid, "", undefined, (path, mode) =>
            fail(where, oid, `/${path}`, unusualMode(mode)),
          )
        : new Map<string, string>();
      for (const path of stored.keys())
        if (!frame.surfaces[`/${path}`]) fail(where, oid, `/${path}`, "a stored file is not recorded in the frame");
      // The journal (day shards, rolling hash) and the signal-history shards, O(1) per frame.
      const failHere = (path: string, problem: string): never => fail(where, oid, path, problem);
      await verifyJournalStep(gitdir, previous, { frame, tree }, failHere);
      await verifySignalHistoryStep(gitdir, previous, { frame, tree }, failHere);
      for (const [path, rec] of Object.entries(frame.surfaces)) {
        if (path === JOURNAL_PATH && frame.journal) {
          surfacesChecked++;
          continue;
        }
        const blob = stored.get(path.slice(1));
        if (!blob) fail(where, oid, path, "a recorded surface is missing from the archive");
        // A blob already checked in an earlier frame, served as stored: nothing left to check.
        const known = sha256OfBlob.get(blob);
        if (known && !rec.stamped && path !== INTEGRITY) {
          if (known.sha256 !== rec.storedSha256)
            fail(where, oid, path, `the stored bytes hash to ${known.sha256}, not the recorded ${rec.storedSha256}`);
          if (known.bytes !== rec.bytes || known.sha256 !== rec.sha256)
            fail(where, oid, path, "the served bytes do not match the recorded fingerprint");
          surfacesChecked++;
          continue;
        }
        let bytes: Uint8Array;
        try {
          bytes = recent.get(blob) ?? (await readBlob(gitdir, blob));
        } catch (e) {
          keepIncomplete(e);
          fail(where, oid, path, `the stored object cannot be read (${(e as Error).message})`);
        }
        remember(blob, bytes);
        let storedSha = known?.sha256;
        if (!storedSha) {
          storedSha = hash.sha256(bytes);
          sha256OfBlob.set(blob, { sha256: storedSha, bytes: bytes.byteLength });
        }
        if (storedSha !== rec.storedSha256)
          fail(where, oid, path, `the stored bytes hash to ${storedSha}, not the recorded ${rec.storedSha256}`);
        const parts = rec.stamped ? stampParts(bytes, frame.at, planOf(blob, bytes)) : [bytes];
        const servedBytes = parts.reduce((n, p) => n + p.byteLength, 0);
        const servedSha = rec.stamped ? hash.sha256Parts(parts) : storedSha;
        if (servedBytes !== rec.bytes || servedSha !== rec.sha256)
          fail(where, oid, path, "the served bytes do not match the recorded fingerprint");
        if (path === INTEGRITY) checkIntegrity(frame, oid, JSON.parse(stamp(decoder.decode(bytes), frame.at)));
        if (path === BLACK_BOX_PATH) checkBlackBox(frame, previous?.frame ?? null, bytes, failHere);
        surfacesChecked++;
      }
      for (const [view, seen] of signalsSeen)
        await checkSignals(gitdir, frame, view, stored.get(view.path.slice(1)), seen, failHere);
      await checkObjects(gitdir, frame, oid, tree, hash, sha256OfBlob);
      if (await checkAbout(gitdir, frame, commit, tree, hash, sha256OfBlob, failHere)) about.checked++;
      else if (previous?.frame.about)
        // A tool that fingerprints them never stops: a frame without them after one with them was rewritten.
        fail(
          where,
          oid,
          FRAME_FILE,
          "frame.json records no fingerprint of README.md, LICENSE and the commit author, though the frame before does: the frame was rewritten",
        );
      else about.unrecorded++;
      // The upstream documents the frame records are the ones stored beside it.
      for (const [key, rec] of Object.entries(frame.upstream ?? {})) {
        if (!rec || !("sha256" in rec)) continue;
        const path = `${UPSTREAM_PREFIX}/${key}`;
        const entry = await oidAtPath(gitdir, tree, path);
        if (!entry) fail(where, oid, path, "the upstream document the frame records is missing");
        const sha = hash.sha256(await readBlob(gitdir, entry.oid));
        if (sha !== rec.sha256)
          fail(where, oid, path, `the upstream document hashes to ${sha}, not the recorded ${rec.sha256}`);
      }
      previous = { frame, commit: oid, tree };
      indexed.push({ frameId: frame.frameId, seq: frame.seq, at: frame.at, commit: oid, frameHash: frame.frameHash });
      onFrame?.(i + 1);
    } catch (e) {
      if (!isDamage(e)) throw e;
      fail(trailersFor(), commit.oid, null, (e as Error).message);
    }
  }
  if (previous) {
    const head = previous;
    try {
      await verifyHead(gitdir, head, hash, indexed, leaves);
    } catch (e) {
      if (!isDamage(e)) throw e;
      fail(head.frame.frameId, head.commit, null, (e as Error).message);
    }
  }
  return {
    frames: chain.length,
    surfacesChecked,
    log: { size: log.size, root: log.root },
    clock,
    about,
    head: previous
      ? { frameId: previous.frame.frameId, frameHash: previous.frame.frameHash, commit: previous.commit }
      : null,
  };
}

/** What only the head holds: the journal's state, the replay index and the frame log's tiles. */
async function verifyHead(
  gitdir: string,
  previous: { frame: Frame; commit: string; tree: string },
  hash: Hasher,
  indexed: readonly IndexEntry[],
  leaves: readonly Uint8Array[],
): Promise<void> {
  await verifyJournalHead(gitdir, previous, hash, (path, problem) =>
    fail(previous.frame.frameId, previous.commit, path, problem),
  );
  await verifyReplayIndex(gitdir, previous, indexed.slice(0, -1));
  // Nothing under tile/ but the tiles of the head's log.
  const tiles = await oidAtPath(gitdir, previous.tree, TILE_PREFIX);
  if (tiles) {
    const expected = new Set(tilePaths(previous.frame.log?.size ?? 0));
    for (const rel of (await flattenTree(gitdir, tiles.oid)).keys())
      if (!expected.has(`${TILE_PREFIX}/${rel}`))
        fail(
          previous.frame.frameId,
          previous.commit,
          `${TILE_PREFIX}/${rel}`,
          "a file under tile/ that is no tile of the frame log",
        );
  }
  // The head's tiles hold the leaves of every frame before it, as the frames make them.
  if (previous.frame.log) {
    const tiled = await readLeaves(gitdir, previous.tree, previous.frame.log.size);
    const want = leaves.slice(0, previous.frame.log.size);
    if (!tiled || tiled.some((t, i) => toHex(t) !== toHex(want[i]!)))
      fail(
        previous.frame.frameId,
        previous.commit,
        TILE_PREFIX,
        "the frame log's tiles do not hold the frames' hashes",
      );
  }
}

const CURRENT_SIGNALS = "/api/v1/signals/current.json";

type Json = Record<string, unknown>;
const list = (x: unknown): Json[] =>
  Array.isArray(x) ? x.filter((y): y is Json => typeof y === "object" && y !== null) : [];

/**
 * A surface that publishes the frame's signals: the instruments it covers, and its records by
 * instrument (a published reading, or an instrument left without one, with its status and reason).
 */
interface SignalsView {
  path: string;
  covers(instrument: string): boolean;
  records(doc: Json): [string, Json][];
  /** A published value that is not the frame's value as is, checked apart; null when it agrees. */
  value?(doc: Json, recorded: FrameSignal): string | null;
}

const PUBLISHED_SIGNALS: readonly SignalsView[] = [
  {
    path: CURRENT_SIGNALS,
    covers: () => true,
    records: (doc) => [...list(doc.signals), ...list(doc.missing)].map((x) => [String(x.instrument), x]),
  },
  {
    path: "/api/v1/risk.json",
    covers: () => true,
    records: (doc) => [
      ...Object.entries(typeof doc.indices === "object" && doc.indices !== null ? (doc.indices as Json) : {}).map(
        ([k, v]) => [k, v as Json] as [string, Json],
      ),
      ...list(doc.missing).map((x) => [String(x.instrument), x] as [string, Json]),
    ],
  },
  {
    path: "/api/v1/debt-risk.json",
    covers: (instrument) => instrument === "debt",
    // The signal's value is checked by `value`; every other field as recorded.
    records: (doc) => [
      ...list([doc.signal]).map(({ value: _, ...rest }) => ["debt", rest] as [string, Json]),
      ...list([doc.missing]).map((x) => ["debt", x] as [string, Json]),
    ],
    value(doc, recorded) {
      const signal = doc.signal as Json | null | undefined;
      if (!signal || typeof signal !== "object" || recorded.value === null) return null;
      const provenance = doc.provenance as { scoreRaw: number; scale: number } | null | undefined;
      const scale = recorded.scale ?? (signal.scale as number);
      // The recorded value, or the integer that some versions of debt-risk.json published instead.
      const allowed = [recorded.value, publishedInteger(recorded.value, scale, provenance)];
      return allowed.includes(signal.value as number) ? null : JSON.stringify(signal.value);
    },
  },
];

/** The last copy of a signals surface read, and the last frame signals found to agree with it. */
interface SignalsSeen {
  blob: string | null;
  doc: Json;
  published: Map<string, Json>;
  recorded: string | null;
}

/**
 * The signals frame.json records are the ones the same frame published in current.json,
 * risk.json and debt-risk.json: every field both name (value, level, raw value, statuses, times,
 * reason) is equal. frame.json feeds replay, diff and the next assembly's fallbacks, and the
 * surfaces are what readers cite, so a value rewritten on either side (every hash recomputed)
 * must not pass because the other still says otherwise. A frame whose signals and surface are
 * those of the frame before is not checked again.
 */
async function checkSignals(
  gitdir: string,
  frame: Frame,
  view: SignalsView,
  blob: string | undefined,
  seen: SignalsSeen,
  failHere: (path: string, problem: string) => never,
): Promise<void> {
  if (!blob || !frame.signals) return;
  const recorded = JSON.stringify(frame.signals);
  if (blob === seen.blob && recorded === seen.recorded) return;
  if (blob !== seen.blob) {
    try {
      const doc: unknown = JSON.parse(decoder.decode(await readBlob(gitdir, blob)));
      seen.doc = typeof doc === "object" && doc !== null ? (doc as Json) : {};
    } catch (e) {
      keepIncomplete(e);
      failHere(view.path, `the stored surface is not JSON (${(e as Error).message})`);
    }
    seen.published = new Map(view.records(seen.doc));
    seen.blob = blob;
  }
  for (const [instrument, rec] of Object.entries(frame.signals)) {
    if (!view.covers(instrument)) continue;
    const published = seen.published.get(instrument);
    if (!published) {
      if (rec.value !== null)
        failHere(
          FRAME_FILE,
          `signals.${instrument} has a value, but ${view.path} of the same frame publishes none: the frame was rewritten`,
        );
      continue;
    }
    for (const [key, value] of Object.entries(rec)) {
      if (!(key in published)) continue;
      if (JSON.stringify(published[key]) !== JSON.stringify(value))
        failHere(
          FRAME_FILE,
          `signals.${instrument}.${key} is ${JSON.stringify(value)}, but ${view.path} of the same frame publishes ${JSON.stringify(published[key])}: the frame was rewritten`,
        );
    }
    const other = view.value?.(seen.doc, rec);
    if (other)
      failHere(
        FRAME_FILE,
        `signals.${instrument}.value is ${JSON.stringify(rec.value)}, but ${view.path} of the same frame publishes ${other}: the frame was rewritten`,
      );
  }
  seen.recorded = recorded;
}

/**
 * black-box.json says which frame it is and publishes the log frame.json records: its size and
 * root, and the checkpoint of them naming the frame before. A monitor saves that checkpoint, so
 * one that contradicts the frame (its hashes recomputed) must not pass.
 */
function checkBlackBox(
  frame: Frame,
  previous: Frame | null,
  stored: Uint8Array,
  failHere: (path: string, problem: string) => never,
): void {
  let box: {
    current?: Json;
    log?: { origin?: unknown; size?: unknown; root?: unknown; checkpoint?: unknown };
  };
  try {
    box = JSON.parse(decoder.decode(stored));
  } catch (e) {
    failHere(BLACK_BOX_PATH, `the stored surface is not JSON (${(e as Error).message})`);
  }
  const says = (field: string, published: unknown, recorded: unknown) => {
    if (JSON.stringify(published) !== JSON.stringify(recorded))
      failHere(
        BLACK_BOX_PATH,
        `${field} is ${JSON.stringify(published)}, but frame.json records ${JSON.stringify(recorded)}: the frame or its black box was rewritten`,
      );
  };
  says("current.frameId", box.current?.frameId, frame.frameId);
  says("current.seq", box.current?.seq, frame.seq);
  says("current.previousFrameHash", box.current?.previousFrameHash, frame.previousFrameHash);
  if (!frame.log) return;
  says("log.size", box.log?.size, frame.log.size);
  says("log.root", box.log?.root, frame.log.root);
  let checkpoint: ReturnType<typeof parseCheckpoint>["checkpoint"];
  try {
    ({ checkpoint } = parseCheckpoint(String(box.log?.checkpoint)));
  } catch (e) {
    failHere(BLACK_BOX_PATH, `log.checkpoint is not a checkpoint (${(e as Error).message})`);
  }
  says("log.checkpoint's origin", checkpoint.origin, box.log?.origin);
  says("log.checkpoint's size", checkpoint.size, frame.log.size);
  says("log.checkpoint's root", toHex(checkpoint.root), frame.log.root);
  const named = checkpoint.extensions.filter((line) => line.startsWith("frame "));
  says("log.checkpoint's frame line", named, previous ? [`frame ${previous.frameId} ${previous.frameHash}`] : []);
}

/** Why a tree entry of a mode risk-cli never writes fails: a link or an executable would be checked out as such. */
const unusualMode = (mode: string) =>
  `stored with mode ${mode}, which risk-cli never writes (a plain file is 100644): a checkout would make it a ${mode === "120000" ? "symbolic link" : mode === "160000" ? "submodule" : "file of other permissions"}`;

/** The entries of a replay index shard, or null when it is not JSON or not shaped as a shard. */
async function shardEntries(gitdir: string, oid: string): Promise<IndexEntry[] | null> {
  try {
    const parsed = IndexShard.safeParse(JSON.parse(decoder.decode(await readBlob(gitdir, oid))));
    return parsed.success ? parsed.data : null;
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof TypeError) return null;
    throw e;
  }
}

/**
 * The head's replay index, which replay and diff read to find a frame, holds exactly the frames
 * before the head, each in the shard of its UTC day, in order, with its commit, time and hash:
 * an entry added (a backdated frame), moved, dropped or pointed elsewhere fails here.
 */
/**
 * An index entry as a message shows it: the frame and its time, and whichever of its sequence
 * number, commit or frame hash differs from `other`'s, so that the two sides never read the same.
 */
function describeEntry(entry: IndexEntry, other: IndexEntry): string {
  const differing = [
    entry.seq !== other.seq ? `seq ${entry.seq}` : "",
    entry.commit !== other.commit ? `commit ${entry.commit}` : "",
    entry.frameHash !== other.frameHash ? `frame hash ${entry.frameHash}` : "",
  ].filter(Boolean);
  return `frame ${entry.frameId} at ${entry.at}${differing.length ? ` (${differing.join(", ")})` : ""}`;
}

async function verifyReplayIndex(
  gitdir: string,
  head: { frame: Frame; commit: string; tree: string },
  expected: readonly IndexEntry[],
): Promise<void> {
  const failHere = (path: string, problem: string): never => fail(head.frame.frameId, head.commit, path, problem);
  const index = await oidAtPath(gitdir, head.tree, INDEX_PREFIX);
  const shards = index ? [...(await flattenTree(gitdir, index.oid))].sort(([a], [b]) => (a < b ? -1 : 1)) : [];
  let k = 0;
  for (const [rel, oid] of shards) {
    const path = `${INDEX_PREFIX}/${rel}`;
    const entries =
      (await shardEntries(gitdir, oid)) ??
      failHere(path, "a replay index shard is not JSON shaped as the index: the index was damaged");
    if (entries.length === 0) failHere(path, "an empty replay index shard, which risk-cli never writes");
    for (const entry of entries) {
      const want = expected[k++];
      if (
        !want ||
        entry.frameId !== want.frameId ||
        entry.seq !== want.seq ||
        entry.at !== want.at ||
        entry.commit !== want.commit ||
        entry.frameHash !== want.frameHash
      )
        failHere(
          path,
          want
            ? `the replay index gives ${describeEntry(entry, want)} where the chain has ${describeEntry(want, entry)}: the index was rewritten`
            : `the replay index lists ${entry.frameId}, which the chain does not hold before the head: the index was rewritten`,
        );
      if (shardPath(entry.at) !== path)
        failHere(path, `frame ${entry.frameId} is indexed under another day than ${entry.at}`);
    }
  }
  if (k < expected.length)
    failHere(INDEX_PREFIX, `the replay index lacks frame ${expected[k]!.frameId}: an entry was removed`);
}

/**
 * README.md and LICENSE hold the bytes frame.json fingerprints, and the commit names the author it
 * records: none of them is a surface, so without this a rewritten README or licence, or another
 * author, would pass. False for a frame written before frames recorded them.
 */
async function checkAbout(
  gitdir: string,
  frame: Frame,
  commit: CommitInfo,
  tree: string,
  hash: Hasher,
  seen: Map<string, { sha256: string; bytes: number }>,
  failHere: (path: string, problem: string) => never,
): Promise<boolean> {
  if (!frame.about) return false;
  for (const [path, recorded] of [
    [README_FILE, frame.about.readme],
    [LICENSE_FILE, frame.about.license],
  ] as const) {
    const entry = await oidAtPath(gitdir, tree, path);
    if (!entry) failHere(path, "the file the frame fingerprints is missing from its tree");
    let sha = seen.get(entry.oid)?.sha256;
    if (!sha) {
      const bytes = await readBlob(gitdir, entry.oid);
      sha = hash.sha256(bytes);
      seen.set(entry.oid, { sha256: sha, bytes: bytes.byteLength });
    }
    if (sha !== recorded) failHere(path, `the file hashes to ${sha}, not the ${recorded} frame.json records`);
  }
  for (const [role, who] of [
    ["author", commit.author],
    ["committer", commit.committer],
  ] as const)
    if (who !== frame.about.author)
      failHere(
        FRAME_FILE,
        `the commit's ${role} is ${JSON.stringify(who)}, not ${JSON.stringify(frame.about.author)} as frame.json records: the commit was rewritten`,
      );
  return true;
}

/** objects.json (the per-object hashes of the changefeed) is stored exactly when the frame records it, with its hash. */
async function checkObjects(
  gitdir: string,
  frame: Frame,
  commit: string,
  tree: string,
  hash: Hasher,
  seen: Map<string, { sha256: string; bytes: number }>,
): Promise<void> {
  const entry = await oidAtPath(gitdir, tree, OBJECTS_FILE);
  if (!frame.objects) {
    if (entry) fail(frame.frameId, commit, OBJECTS_FILE, "an object manifest is stored but the frame records none");
    return;
  }
  if (!entry)
    fail(frame.frameId, commit, OBJECTS_FILE, "the object manifest the frame records is missing from the archive");
  let sha = seen.get(entry.oid)?.sha256;
  if (!sha) {
    const bytes = await readBlob(gitdir, entry.oid);
    sha = hash.sha256(bytes);
    seen.set(entry.oid, { sha256: sha, bytes: bytes.byteLength });
  }
  if (sha !== frame.objects.sha256)
    fail(
      frame.frameId,
      commit,
      OBJECTS_FILE,
      `the object manifest hashes to ${sha}, not the recorded ${frame.objects.sha256}`,
    );
}

function checkIntegrity(frame: Frame, commit: string, doc: unknown): void {
  const parsed = IntegritySurface.safeParse(doc);
  if (!parsed.success) fail(frame.frameId, commit, INTEGRITY, "integrity.json does not match its schema");
  const integrity = parsed.data;
  if (integrity.frame.frameId !== frame.frameId || integrity.generated !== frame.at) {
    fail(
      frame.frameId,
      commit,
      INTEGRITY,
      `integrity.json belongs to frame ${integrity.frame.frameId}, not ${frame.frameId}: it was copied from another frame`,
    );
  }
  const listed = new Set<string>();
  for (const s of integrity.surfaces) {
    listed.add(s.path);
    if (frame.surfaces[s.path]?.sha256 !== s.sha256)
      fail(frame.frameId, commit, INTEGRITY, `integrity.json gives ${s.path} a fingerprint the frame does not record`);
  }
  for (const path of Object.keys(frame.surfaces)) {
    if (path !== INTEGRITY && !listed.has(path)) fail(frame.frameId, commit, INTEGRITY, `integrity.json omits ${path}`);
  }
}

/**
 * An object a shallow or partial clone did not fetch, or that an alternate no longer there held,
 * is no failed verification: it passes as it is (exit 6, with the way to complete the archive).
 */
function keepIncomplete(e: unknown): void {
  if (e instanceof RiskError && (e.data as { incomplete?: string }).incomplete) throw e;
}

/** An object of the archive missing or damaged (archive/git/objects.ts). */
function isDamage(e: unknown): boolean {
  return e instanceof RiskError && e.code === "E_ARCHIVE" && (e.data as { damaged?: boolean }).damaged === true;
}

function fail(frameId: string | null, commit: string, path: string | null, problem: string): never {
  throw new RiskError(
    "E_VERIFY",
    // A commit that cannot be read names no frame: say which commit, not "frame ?".
    `Verification failed at ${frameId === null ? "" : `frame ${frameId} (`}commit ${commit.slice(0, 12)}${frameId === null ? "" : ")"}${path ? `, ${path}` : ""}: ${problem}`,
    { frame: frameId, commit, path },
  );
}
