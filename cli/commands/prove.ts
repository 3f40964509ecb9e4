import { openArchive } from "../../archive/index.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { jsonText } from "../terminal.ts";

/** `risk-cli prove`: an inclusion proof of one frame in the frame log. */
export async function runProve(opts: { frame: string; size?: number; archive: string; json: boolean }) {
  const proof = await openArchive(opts.archive).prove(nodeHasher, opts.frame, opts.size);
  if (!opts.json) {
    const log = stderrLogger(false);
    log.info(`frame ${proof.frameId} is leaf ${proof.index} of the tree of ${proof.size} frames, root ${proof.root}`);
    process.stdout.write(`${jsonText(proof, 2)}\n`);
  }
  return { ok: true as const, ...proof };
}
