/**
 * Creates a folder and its missing parents with one plain mkdir each, top down. Node's recursive
 * mkdir retries forever inside a folder that refuses new entries without saying so (in /proc a
 * new folder gets ENOENT while its parent exists); this fails at once, naming the folder.
 */
import * as fs from "node:fs";
import { dirname, resolve } from "node:path";
import { RiskError } from "../core/errors.ts";

export function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); !fs.existsSync(p); ) {
    missing.push(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      fs.mkdirSync(folder);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && fs.statSync(folder).isDirectory()) continue;
      if (code === "ENOENT")
        throw new RiskError(
          "E_IO",
          `Cannot create the folder ${dir}: its file system takes no new folders there. Give a folder on a writable disk.`,
          { folder: dir },
        );
      throw e;
    }
  }
}
