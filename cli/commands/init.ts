import * as fs from "node:fs";
import { resolve } from "node:path";
import { RiskError } from "../../core/errors.ts";
import { demoPublication } from "../paths.ts";
import { stderrLogger } from "../runtime/node.ts";

/** Copies the demo publication into `dir` as a starting point; never overwrites anything. */
export function runInit(opts: { dir: string; json: boolean }) {
  const target = resolve(opts.dir);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    throw new RiskError("E_USAGE", `${target} is not empty; init only writes into a new or empty folder`, {
      dir: target,
    });
  }
  fs.cpSync(demoPublication(), target, { recursive: true, errorOnExist: true, force: false });
  stderrLogger(opts.json).info(
    `created ${target}: edit risk.config.yaml and content/, then run risk-cli assemble --publication ${opts.dir}`,
  );
  return { ok: true as const, dir: target };
}
