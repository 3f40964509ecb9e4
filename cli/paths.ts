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
