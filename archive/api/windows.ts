/**
 * What the risk diff and the changefeed read from the archive, each in O(1) or O(log n) of the number of
 * frames: the baseline frames of the risk-diff windows (from the frame digest cache, ./digests.ts,
 * or else one day shard and one frame each, through the head tree's day index) and the head
 * frame's object manifest (one blob).
 */
import { ObjectManifest } from "../../core/changes/objects.ts";
import { OBJECTS_FILE } from "../layout.ts";
import type { PreviousState, WindowBaselines } from "../../core/surfaces/types.ts";
import { oidAtPath, readBlob, type TreeCache } from "../git/objects.ts";
import { lastIndexedAtOrBefore } from "./replay.ts";
import { readFrameAs } from "./frames.ts";
import { frameDigests } from "./digests.ts";
import { BaselineFrame } from "../../core/frame.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The last frame at or before `now` minus each window of `days`; the head frame when it is old
 * enough. `digests: false` reads the archive without the frame digest cache.
 */
export async function windowBaselines(
  gitdir: string,
  previous: PreviousState,
  now: string,
  windows: readonly number[],
  options: { cache?: TreeCache; digests?: boolean } = {},
): Promise<WindowBaselines> {
  const { cache } = options;
  const baselines: WindowBaselines["baselines"] = {};
  const byCommit = new Map<string, WindowBaselines["baselines"][number]>();
  const digests = options.digests === false ? null : frameDigests(gitdir, previous.commit);
  for (const days of windows) {
    const instant = Date.parse(now) - days * 86_400_000;
    if (Date.parse(previous.frame.at) <= instant) {
      baselines[days] = { commit: previous.commit, frame: previous.frame };
      continue;
    }
    const digest = digests?.baseline(instant);
    if (digest) {
      baselines[days] = digest;
      continue;
    }
    const entry = await lastIndexedAtOrBefore(gitdir, previous.tree, instant, cache);
    if (!entry) {
      baselines[days] = null;
      continue;
    }
    let found = byCommit.get(entry.commit);
    if (!found) {
      const { frame } = await readFrameAs(gitdir, entry.commit, BaselineFrame, { cache });
      // A replay index that names a frame with another hash is a damaged archive: no baseline.
      found = frame.frameHash === entry.frameHash ? { commit: entry.commit, frame } : null;
      byCommit.set(entry.commit, found);
    }
    baselines[days] = found;
  }
  return { now, baselines };
}

/** The object manifest stored with a frame, or null when that frame recorded none. */
export async function frameObjects(
  gitdir: string,
  tree: string,
  recorded: { sha256: string } | undefined,
  cache?: TreeCache,
): Promise<ObjectManifest | null> {
  if (!recorded) return null;
  const entry = await oidAtPath(gitdir, tree, OBJECTS_FILE, cache);
  if (!entry) return null;
  const parsed = ObjectManifest.safeParse(JSON.parse(decoder.decode(await readBlob(gitdir, entry.oid))));
  return parsed.success ? parsed.data : null;
}
