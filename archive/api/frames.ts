/**
 * Reading one frame and the bytes it served: what replay, verify and the risk-diff baselines need,
 * apart from the head state of state.ts, whose surface schemas an assembly needs and a replay does not.
 */
import type { z } from "zod";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { stamp } from "../../core/canonical/stamp.ts";
import { RiskError } from "../../core/errors.ts";
import { Frame } from "../../core/frame.ts";
import { damaged, oidAtPath, readBlob, readCommit, type CommitInfo, type TreeCache } from "../git/objects.ts";
import { JOURNAL_PATH, servedJournal } from "./journal.ts";
import { FRAME_FILE, sitePath } from "../layout.ts";
import { parseFrameMessage } from "../models/message.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The frame recorded by `commit`, schema-checked. A caller that has read the commit already
 * passes it, so that it is not read again.
 */
export async function readFrame(
  gitdir: string,
  commit: string,
  options: { cache?: TreeCache; read?: CommitInfo } = {},
): Promise<{ frame: Frame; tree: string }> {
  return readFrameAs(gitdir, commit, Frame, options);
}

/** The frame recorded by `commit`, checked against `schema` (the whole frame, or the part a caller reads). */
export async function readFrameAs<T>(
  gitdir: string,
  commit: string,
  schema: z.ZodType<T>,
  options: { cache?: TreeCache; read?: CommitInfo } = {},
): Promise<{ frame: T; tree: string }> {
  const c = options.read ?? (await readCommit(gitdir, commit));
  const entry = await oidAtPath(gitdir, c.tree, FRAME_FILE, options.cache);
  if (!entry) throw new RiskError("E_ARCHIVE", `Commit ${commit} has no ${FRAME_FILE}: it is not a frame`, { commit });
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(await readBlob(gitdir, entry.oid)));
  } catch (e) {
    if (!(e instanceof SyntaxError || e instanceof TypeError)) throw e;
    throw damaged(entry.oid, `(the ${FRAME_FILE} of commit ${commit}) is not JSON text`);
  }
  // A commit made on top of the archive with plain Git (its tree copied from a frame) is not that
  // frame: its message must name the frame its tree records, as risk-cli writes it.
  let trailers: ReturnType<typeof parseFrameMessage>;
  try {
    trailers = parseFrameMessage(c.message, commit);
  } catch (e) {
    if (!(e instanceof RiskError)) throw e;
    throw new RiskError(
      "E_VERIFY",
      `${e.message}. It was made on the archive's branch with plain Git, not by risk-cli; run risk-cli verify to see where the frames stop, and move the branch back to the last frame (git update-ref)`,
      { commit },
    );
  }
  const recorded = json as { frameId?: unknown; frameHash?: unknown } | null;
  if (trailers.frameId !== recorded?.frameId || trailers.frameHash !== recorded?.frameHash)
    throw new RiskError(
      "E_VERIFY",
      `Commit ${commit} is not the frame its ${FRAME_FILE} records: its message names frame ${trailers.frameId}, the file ${String(recorded?.frameId).slice(0, 80)}. The commit was not written by risk-cli for that frame; run risk-cli verify`,
      { commit },
    );
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw damaged(
      entry.oid,
      `(the ${FRAME_FILE} of commit ${commit}) does not match the frame schema (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`,
    );
  }
  return { frame: parsed.data, tree: c.tree };
}

/** The served bytes of `path` as recorded in a frame: the stored blob, restamped when needed. */
export async function servedBytes(
  gitdir: string,
  tree: string,
  frame: Frame,
  path: string,
  cache?: TreeCache,
): Promise<Uint8Array> {
  // The journal is kept as day shards, served as their concatenation.
  if (path === JOURNAL_PATH && frame.journal) return servedJournal(gitdir, tree, cache);
  const stored = await storedBytes(gitdir, tree, frame, path, cache);
  if (!frame.surfaces[path]?.stamped) return stored;
  return new TextEncoder().encode(stamp(decoder.decode(stored), frame.at));
}

export async function storedBytes(
  gitdir: string,
  tree: string,
  frame: Frame,
  path: string,
  cache?: TreeCache,
): Promise<Uint8Array> {
  const entry = await oidAtPath(gitdir, tree, sitePath(path), cache);
  if (!entry)
    // A surface the frame records but its tree lacks: damage, as a missing object is (exit 1 when
    // replaying or verifying).
    throw new RiskError(
      "E_ARCHIVE",
      `The archive is damaged: frame ${frame.frameId} records ${path} but its tree (${tree}) lacks it. Run risk-cli verify; restore the archive from a clone.`,
      { frame: frame.frameId, path, damaged: true },
    );
  return readBlob(gitdir, entry.oid);
}

export function frameBytes(frame: Frame): Uint8Array {
  return new TextEncoder().encode(canonicalJson(frame, FRAME_FILE));
}
