/**
 * Frames this archive made that a pull replaced: when the remote and the local branch had both
 * moved, the remote won and the local head was kept as refs/risk-cli/unpushed/<commit>. The site
 * may still publish one of them; it is this archive's own frame, not a sign of a rollback.
 */
import * as fs from "node:fs";
import { readCommit } from "../git/objects.ts";
import { parseFrameMessage } from "../models/message.ts";

export const UNPUSHED_PREFIX = "refs/risk-cli/unpushed/";

/** Whether the frame `frameId` is one of the frames kept under refs/risk-cli/unpushed/. */
export async function holdsUnpushedFrame(gitdir: string, frameId: string): Promise<boolean> {
  let kept: string[];
  try {
    kept = fs.readdirSync(`${gitdir}/${UNPUSHED_PREFIX}`).filter((name) => /^[0-9a-f]{40}$/.test(name));
  } catch {
    return false;
  }
  const seq = Number.parseInt(frameId, 10);
  for (const head of kept) {
    // Back from the kept head while the frames are not older than the one looked for.
    for (let oid: string | undefined = head; oid; ) {
      let frame: { frameId: string; seq: number };
      let parent: string | undefined;
      try {
        const commit = await readCommit(gitdir, oid);
        frame = parseFrameMessage(commit.message, oid);
        parent = commit.parents[0];
      } catch {
        break;
      }
      if (frame.frameId === frameId) return true;
      if (!(frame.seq > seq)) break;
      oid = parent;
    }
  }
  return false;
}
