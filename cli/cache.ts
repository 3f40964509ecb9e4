import * as fs from "node:fs";
import type { Publication } from "../core/inputs/publication.ts";

/**
 * The parsed publication of the last assembly, keyed by the fingerprint of its input files. It
 * lives inside the archive's Git directory (Git ignores it; a clone does not carry it). A
 * missing, stale or unreadable cache only means parsing again.
 */
export function cachedPublication(gitdir: string, inputs: string, root: string): Publication | null {
  try {
    const cached = JSON.parse(fs.readFileSync(cacheFile(gitdir), "utf8")) as { inputs: string; publication: Publication };
    // File paths inside the parsed publication name its folder, so a moved folder parses again.
    return cached.inputs === inputs && cached.publication.root === root ? cached.publication : null;
  } catch {
    return null;
  }
}

export function savePublication(gitdir: string, inputs: string, publication: Publication): void {
  const file = cacheFile(gitdir);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify({ inputs, publication }));
  fs.renameSync(tmp, file);
}

const cacheFile = (gitdir: string) => `${gitdir}/risk-cli-publication-cache.json`;
