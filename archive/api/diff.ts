import { diffManifests } from "../../core/changes/objects.ts";
import { RiskError } from "../../core/errors.ts";
import type { Frame } from "../../core/frame.ts";
import { INSTRUMENT_KEYS, type InstrumentKey } from "../../core/schemas/primitives.ts";
import { findFrameAt, type FoundFrame } from "./replay.ts";
import { frameObjects } from "./windows.ts";

export interface SignalMove {
  instrument: InstrumentKey;
  from: { value: number | null; level: string | null };
  to: { value: number | null; level: string | null };
  /** to − from, one decimal; null when either side has no value. */
  change: number | null;
  levelChanged: boolean;
}

export interface FrameDiff {
  from: { frameId: string; at: string; commit: string; frameHash: string };
  to: { frameId: string; at: string; commit: string; frameHash: string };
  /** Surfaces by path, compared on their stored fingerprint (content without the `generated` stamp). */
  surfaces: { added: string[]; changed: string[]; removed: string[]; unchanged: number };
  signals: SignalMove[];
  models: { slug: string; from: string | null; to: string | null }[];
  /** Objects added, modified or removed, from the frames' object manifests; null when either frame recorded none. */
  objects: { id: string; status: "added" | "modified" | "removed"; semantic: boolean }[] | null;
}

/**
 * The difference between the frames published at two instants, each found through the day index
 * as replay finds it. An instant before the first frame is E_NO_FRAME.
 */
export async function diffFrames(gitdir: string, from: number, to: number): Promise<FrameDiff> {
  if (from > to) {
    throw new RiskError(
      "E_USAGE",
      `Cannot diff from ${new Date(from).toISOString()} to an earlier ${new Date(to).toISOString()}: give --from before --to`,
      {},
    );
  }
  const a = await findFrameAt(gitdir, from);
  const b = await findFrameAt(gitdir, to);
  const [objectsA, objectsB] = await Promise.all([
    frameObjects(gitdir, a.tree, a.frame.objects),
    frameObjects(gitdir, b.tree, b.frame.objects),
  ]);
  return {
    from: ref(a),
    to: ref(b),
    surfaces: surfaceChanges(a.frame, b.frame),
    signals: signalMoves(a.frame, b.frame),
    models: [...new Set([...Object.keys(a.frame.models), ...Object.keys(b.frame.models)])]
      .sort()
      .filter((slug) => a.frame.models[slug] !== b.frame.models[slug])
      .map((slug) => ({ slug, from: a.frame.models[slug] ?? null, to: b.frame.models[slug] ?? null })),
    objects:
      objectsA && objectsB
        ? diffManifests(objectsA, objectsB).map((c) => ({
            id: (c.after ?? c.before)!.id,
            status: c.status,
            semantic: c.semantic,
          }))
        : null,
  };
}

const ref = (f: FoundFrame) => ({
  frameId: f.frame.frameId,
  at: f.frame.at,
  commit: f.commit,
  frameHash: f.frame.frameHash,
});

function surfaceChanges(a: Frame, b: Frame): FrameDiff["surfaces"] {
  const out = { added: [] as string[], changed: [] as string[], removed: [] as string[], unchanged: 0 };
  for (const [path, s] of Object.entries(b.surfaces)) {
    const old = a.surfaces[path];
    if (!old) out.added.push(path);
    else if (old.storedSha256 !== s.storedSha256) out.changed.push(path);
    else out.unchanged++;
  }
  for (const path of Object.keys(a.surfaces)) if (!b.surfaces[path]) out.removed.push(path);
  out.added.sort();
  out.changed.sort();
  out.removed.sort();
  return out;
}

function signalMoves(a: Frame, b: Frame): SignalMove[] {
  return INSTRUMENT_KEYS.filter((k) => a.signals[k] || b.signals[k]).map((instrument) => {
    const x = a.signals[instrument];
    const y = b.signals[instrument];
    const from = { value: x?.value ?? null, level: x?.level ?? null };
    const to = { value: y?.value ?? null, level: y?.level ?? null };
    const change = from.value !== null && to.value !== null ? Math.round((to.value - from.value) * 10) / 10 : null;
    return { instrument, from, to, change: change === 0 ? 0 : change, levelChanged: from.level !== to.level };
  });
}
