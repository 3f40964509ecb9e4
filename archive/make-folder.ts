/**
 * Creates a folder and its missing parents with one plain mkdir each, top down. Node's recursive
 * mkdir retries forever inside a folder that refuses new entries without saying so (in /proc a
 * new folder gets ENOENT while its parent exists); this fails at once, naming the folder. A
 * symbolic link to a folder is followed; one to nothing is refused, naming it.
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
      if (code === "EEXIST") {
        const found = fs.statSync(folder, { throwIfNoEntry: false });
        if (found?.isDirectory()) continue;
        // A symbolic link whose target does not exist: neither a folder nor a place for one.
        if (!found)
          throw new RiskError(
            "E_USAGE",
            `Cannot create the folder ${folder}: it is a symbolic link to nothing (its target does not exist). Create the folder it leads to, remove the link, or give another path.`,
            { folder },
          );
      }
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
