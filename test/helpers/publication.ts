import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { ROOT, runCli } from "./cli.ts";
import { tempDir } from "./tmp.ts";

/** A writable copy of the demo publication, to break on purpose. */
export function demoCopy(): string {
  const dir = `${tempDir("risk-pub-")}/pub`;
  cpSync(`${ROOT}demo`, dir, { recursive: true });
  return dir;
}

export function editFile(file: string, edit: (text: string) => string): void {
  writeFileSync(file, edit(readFileSync(file, "utf8")));
}

/** The surfaces an assembly of the demo publication builds (the registry with per-series templates expanded). */
export async function demoSurfaces() {
  const { loadPublication } = await import("../../core/inputs/publication.ts");
  const { nodeFs } = await import("../../cli/runtime/node.ts");
  const { surfacesFor } = await import("../../core/surfaces/index.ts");
  return surfacesFor(await loadPublication(nodeFs, `${ROOT}demo`));
}

/** `risk-cli assemble` of `publication` at `now` into a new site and archive: the process's result, and where they are. */
export function assembleInto(publication: string, now: string, more: string[] = []) {
  const out = tempDir("risk-assembled-");
  const site = `${out}/site`;
  const archive = `${out}/a.git`;
  const r = runCli([
    "assemble",
    "--publication",
    publication,
    "--site",
    site,
    "--archive",
    archive,
    "--now",
    now,
    ...more,
  ]);
  return { ...r, site, archive };
}
