/**
 * The signal history in the archive: `history/daily/YYYY/MM.ndjson` (the last point of
 * each closed UTC day) and `history/level-changes/YYYY/MM.ndjson`, each appended by the frame
 * that closes the day or finds the change, never rewritten. Both are pure functions of two
 * consecutive frames (core/history/model.ts), which is what `verify` checks.
 */
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { DAILY_PREFIX, LEVEL_CHANGES_PREFIX, dailyShardPath, levelShardPath } from "../layout.ts";
import type { Frame } from "../../core/frame.ts";
import {
  DailyPoint,
  LevelChange,
  closedDayPoint,
  levelChangesBetween,
  type SignalHistory,
} from "../../core/signal-history/model.ts";
import { oidAtPath, readBlob, type TreeCache } from "../git/objects.ts";
import { flattenTree } from "../git/tree-edit.ts";
import { changedPaths, type Fail } from "./journal.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The shard lines a frame appends after `previous`: path -> appended text. */
export function signalHistoryAppends(
  previous: { frame: Frame; commit: string } | null,
  frame: Frame,
): Map<string, string> {
  const out = new Map<string, string>();
  const add = (path: string, value: unknown) =>
    out.set(path, (out.get(path) ?? "") + canonicalJson(value, path) + "\n");
  const closed = closedDayPoint(previous, frame.at);
  if (closed) add(dailyShardPath(closed.seriesDate), closed);
  if (previous) {
    for (const c of levelChangesBetween(previous.frame.signals, frame.signals, {
      frameId: frame.frameId,
      previousFrameId: previous.frame.frameId,
      at: frame.at,
    })) {
      add(levelShardPath(frame.at), c);
    }
  }
  return out;
}

/** The blobs a commit writes for the history: each touched shard, old bytes followed by the new lines. */
export async function signalHistoryShards(
  gitdir: string,
  base: string | null,
  previous: { frame: Frame; commit: string } | null,
  frame: Frame,
  cache?: TreeCache,
): Promise<{ path: string; bytes: Uint8Array }[]> {
  const out = [];
  for (const [path, text] of signalHistoryAppends(previous, frame)) {
    const existing = base ? await oidAtPath(gitdir, base, path, cache) : null;
    const old = existing ? decoder.decode(await readBlob(gitdir, existing.oid)) : "";
    out.push({ path, bytes: encoder.encode(old + text) });
  }
  return out;
}

/** Every daily point and level change kept in the tree, in order: O(days + changes). */
export async function loadSignalHistory(gitdir: string, tree: string, cache?: TreeCache): Promise<SignalHistory> {
  const read = async <T>(dir: string, parse: (v: unknown) => T): Promise<T[]> => {
    const at = await oidAtPath(gitdir, tree, dir, cache);
    if (!at) return [];
    const shards = [...(await flattenTree(gitdir, at.oid, "", cache))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const out: T[] = [];
    for (const [, oid] of shards) {
      for (const line of decoder.decode(await readBlob(gitdir, oid)).split("\n"))
        if (line) out.push(parse(JSON.parse(line)));
    }
    return out;
  };
  return {
    daily: await read(DAILY_PREFIX, (v) => DailyPoint.parse(v)),
    levelChanges: await read(LEVEL_CHANGES_PREFIX, (v) => LevelChange.parse(v)),
  };
}

/**
 * One frame's history step: only the shards this frame must append to changed, and each is the
 * previous shard followed by exactly the lines computed from the previous frame and this one.
 */
export async function verifySignalHistoryStep(
  gitdir: string,
  previous: { frame: Frame; tree: string; commit: string } | null,
  current: { frame: Frame; tree: string },
  fail: Fail,
): Promise<void> {
  const before = previous ? await oidAtPath(gitdir, previous.tree, "history") : null;
  const after = await oidAtPath(gitdir, current.tree, "history");
  // Frames written before the history existed carry none; the first one that does starts it.
  if (!after && !before) return;
  const expected = signalHistoryAppends(previous, current.frame);
  for (const path of await changedPaths(gitdir, before?.oid ?? null, after?.oid ?? null, "history")) {
    if (!expected.has(path))
      fail(path, "a history shard changed that this frame has nothing to append to: the history is append-only");
  }
  for (const [path, text] of expected) {
    const oldOid = previous ? await oidAtPath(gitdir, previous.tree, path) : null;
    const newOid = await oidAtPath(gitdir, current.tree, path);
    const old = oldOid ? decoder.decode(await readBlob(gitdir, oldOid.oid)) : "";
    const now = newOid ? decoder.decode(await readBlob(gitdir, newOid.oid)) : "";
    if (now !== old + text)
      fail(
        path,
        "the history shard is not the previous one followed by the lines this frame implies (the day's last point or a level change)",
      );
  }
}
