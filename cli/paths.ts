import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The built-in demo publication, found beside the sources (cli/) or the builds: tsc's dist/cli/ and
 * the bundled bin's dist/bin/, whose chunks all sit in that one folder so that ../../demo holds for
 * whichever chunk this function lands in.
 */
export function demoPublication(): string {
  for (const rel of ["../demo", "../../demo"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}/risk.config.yaml`)) return dir.replace(/\/$/, "");
  }
  throw new Error("The built-in demo publication is missing from this installation");
}

/**
 * The publication a command reads when no --publication is given: the current folder when it
 * holds a risk.config.yaml (a publisher's own site, set up with `init --detect .`), else the
 * built-in demo. With `verb`, it is said on stderr: the demo as a warning, in every mode, so that
 * no one publishes the demo believing it is their own publication; this folder as a note, which
 * `json` leaves out (stderr then carries only warnings and errors).
 */
export function defaultPublication(verb?: string, options: { json?: boolean } = {}): string {
  const here = existsSync("risk.config.yaml");
  if (verb !== undefined) {
    const what = `no --publication given: ${verb} ${here ? "the publication in this folder (risk.config.yaml)" : "the built-in demo publication"}`;
    if (!here) process.stderr.write(`warning: ${what}\n`);
    else if (!options.json) process.stderr.write(`risk-cli: ${what}\n`);
  }
  return here ? process.cwd() : demoPublication();
}
