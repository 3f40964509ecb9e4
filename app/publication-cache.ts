/**
 * What the last assemblies parsed, kept inside the archive's Git directory (Git ignores these
 * files; a clone does not carry them). A missing, stale or unreadable cache only means parsing
 * again.
 *
 * - `risk-cli-publication-lite.json`: the configuration part of the publication (configuration,
 *   protocol, methodologies) and its editorial warnings, keyed by the fingerprint of every input
 *   file: a steady-state assembly needs nothing else. With it, the SHA-256 of the config text, so
 *   that where the corpus is (which files are inputs) is known before the files are read.
 * - `risk-cli-parsed-files.json`: each input file's validated value, keyed by the SHA-256 of its
 *   text, so that an assembly after one article is edited parses that article only.
 */
import { dirname } from "node:path";
import type { Hasher } from "../core/ports.ts";
import type { ParsedFiles, Publication } from "../core/inputs/publication.ts";
import { VERSION } from "../core/version.ts";
import { type KeptEntries, readKept, saveKept } from "./kept-entries.ts";
import { readKeptFile, writeKeptFile } from "../archive/kept-file.ts";

/** What the lite file holds; every field may be absent in a file another version wrote. */
interface Lite {
  inputs?: string;
  config?: string;
  publication?: Publication;
  warnings?: string[];
}

/**
 * The lite file of the last whole parse, read once, on first use: an assembly asks it where the
 * corpus is, then for the configuration part and the warnings, and reads the file a single time.
 */
export function liteCache(gitdir: string) {
  let read: Lite | null = null;
  const lite = (): Lite => {
    if (read === null) {
      try {
        read = (JSON.parse(readKeptFile(liteFile(gitdir)) ?? "{}") as Lite | null) ?? {};
      } catch {
        read = {};
      }
    }
    return read;
  };
  return {
    /**
     * Where the corpus is (the config's `content`), as parsed from the same config text by an
     * earlier assembly, or null: the input files cannot be listed before it is known.
     */
    content(configText: string, hash: Hasher): { content: Publication["config"]["content"] } | null {
      const { config, publication } = lite();
      return publication && typeof config === "string" && config === hash.sha256Parts([configText])
        ? { content: publication.config.content }
        : null;
    },
    /** The configuration part of the publication parsed from the same input files, or null. */
    configPart(inputs: string, root: string): Publication | null {
      const { publication } = lite();
      // File paths inside the parsed publication name its folder, so a moved folder parses again.
      return publication && lite().inputs === inputs && publication.root === root ? publication : null;
    },
    /** The editorial warnings found when the same input files were parsed (same inputs, same warnings). */
    warnings(inputs: string): string[] | null {
      const { warnings } = lite();
      return lite().inputs === inputs && Array.isArray(warnings) ? warnings : null;
    },
  };
}

/**
 * Saves the configuration part of a whole publication (what surfaces that are not reusable read:
 * configuration, protocol, methodologies; a few KB that load in well under a millisecond) with
 * the editorial warnings found in the whole.
 */
export function saveConfigPart(
  gitdir: string,
  inputs: string,
  publication: Publication,
  warnings: readonly string[],
  /** SHA-256 of the config file's text, which `liteCache(...).content` compares. */
  config: string,
): void {
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
  writeAtomically(liteFile(gitdir), JSON.stringify({ inputs, config, publication: lite, warnings }));
}

interface ParsedEntry {
  sha256: string;
  value: unknown;
}

/**
 * The per-file memo of parsed values. `read: false` starts empty (every file is parsed) but
 * `save` still records what was parsed, so the next assembly finds it up to date.
 */
export function parsedFiles(gitdir: string, hash: Hasher, options: { read: boolean }): ParsedFiles & { save(): void } {
  const file = memoFile(gitdir);
  const read: KeptEntries = options.read
    ? readKept(file, VERSION)
    : { groups: {}, count: 0, generation: null, baseBytes: 0, logBytes: 0 };
  const known = (read.groups[FILES] ?? {}) as Record<string, ParsedEntry>;
  const now: Record<string, ParsedEntry> = {};
  const added: [string, string, unknown][] = [];
  return {
    keyOf: (parts) => hash.sha256Parts(parts),
    get(rel, sha256) {
      const entry = known[rel];
      if (!entry || entry.sha256 !== sha256) return undefined;
      now[rel] = entry;
      return entry.value;
    },
    set(rel, sha256, value) {
      now[rel] = { sha256, value };
      added.push([FILES, rel, now[rel]]);
    },
    save() {
      // Files gone since the last parse stop being live, and go at the next rewrite.
      saveKept(file, VERSION, read, { [FILES]: now }, added);
    },
  };
}

/** The one kind of entry in the parsed-files store: a file's path inside the publication. */
const FILES = "files";

function writeAtomically(file: string, text: string): void {
  writeKeptFile(dirname(file), file, text);
}

const liteFile = (gitdir: string) => `${gitdir}/risk-cli-publication-lite.json`;
const memoFile = (gitdir: string) => `${gitdir}/risk-cli-parsed-files.json`;
