import { openArchive } from "../../archive/index.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";

export async function runVerify(opts: { archive: string; json: boolean }) {
  const log = stderrLogger(opts.json);
  const started = performance.now();
  const report = await openArchive(opts.archive).verify(nodeHasher);
  const seconds = (performance.now() - started) / 1000;
  log.info(
    `verified ${report.frames} frames and ${report.surfacesChecked} stored surfaces in ${seconds.toFixed(2)} s; head ${report.head?.frameId} sha256:${report.head?.frameHash}`,
  );
  return { ok: true as const, ...report, seconds: Math.round(seconds * 1000) / 1000 };
}
