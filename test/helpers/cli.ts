import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// The published bin: the esbuild bundle that `npm install` builds.
export const CLI = `${ROOT}dist/bin/risk-cli.js`;

/** Runs the built CLI (`npm test` builds first) and returns its status and output. */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, SOURCE_DATE_EPOCH: "", ...options.env },
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
