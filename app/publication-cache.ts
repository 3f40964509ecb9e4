import * as fs from "node:fs";
import type { Publication } from "../core/inputs/publication.ts";

/**
 * The parsed publication of the last assembly, keyed by the fingerprint of its input files. It
 * lives inside the archive's Git directory (Git ignores it; a clone does not carry it). A
 * missing, stale or unreadable cache only means parsing again.
 */
export function cachedPublication(gitdir: string, inputs: string, root: string, part: Part = "whole"): Publication | null {
  try {
    const cached = JSON.parse(fs.readFileSync(cacheFile(gitdir, part), "utf8")) as { inputs: string; publication: Publication };
    // File paths inside the parsed publication name its folder, so a moved folder parses again.
    return cached.inputs === inputs && cached.publication.root === root ? cached.publication : null;
  } catch {
    return null;
  }
}

/**
 * Saves the whole publication and its lite part: what surfaces that are not reusable read
 * (configuration, protocol, methodologies), a few KB that load in well under a millisecond.
 */
export function savePublication(gitdir: string, inputs: string, publication: Publication, warnings: readonly string[]): void {
  const lite: Publication = {
    ...publication,
    articles: [],
    guides: [],
    topics: [],
    glossary: [],
    primarySources: [],
    changelog: [],
    claimReviews: { ...publication.claimReviews, entries: [] },
  };
  for (const [part, value] of [["whole", publication], ["lite", lite]] as const) {
    const file = cacheFile(gitdir, part);
    const tmp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, JSON.stringify({ inputs, publication: value, warnings }));
    fs.renameSync(tmp, file);
  }
}

/** The editorial warnings found when the cached publication was parsed (same inputs, same warnings). */
export function cachedWarnings(gitdir: string, inputs: string): string[] | null {
  try {
    const cached = JSON.parse(fs.readFileSync(cacheFile(gitdir, "lite"), "utf8")) as { inputs: string; warnings?: string[] };
    return cached.inputs === inputs && Array.isArray(cached.warnings) ? cached.warnings : null;
  } catch {
    return null;
  }
}

type Part = "whole" | "lite";

const cacheFile = (gitdir: string, part: Part) => `${gitdir}/risk-cli-publication-${part}.json`;
