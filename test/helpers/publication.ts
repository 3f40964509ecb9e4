import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { ROOT } from "./cli.ts";
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
