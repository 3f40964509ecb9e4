/**
 * The memo of per-document results (core/ports.ts `Memo`), kept in `risk-cli-memo.json` inside the
 * archive's Git directory. Of each kind of result the last assembly used, only the entries it used
 * are kept, so the file holds one entry per document, not one per edit ever made. Entries from
 * another tool version are dropped: a new version may compute differently.
 */
import * as fs from "node:fs";
import type { Hasher, Memo } from "../core/ports.ts";
import { VERSION } from "../core/version.ts";

type Entries = Record<string, Record<string, unknown>>;

export function fileMemo(gitdir: string, hash: Hasher, options: { read: boolean }): Memo & { save(): void } {
  // Read on first use: an assembly that builds no document does not pay for it.
  let loaded: Entries | null = null;
  const load = (): Entries => {
    if (loaded) return loaded;
    loaded = {};
    if (!options.read) return loaded;
    try {
      const file = JSON.parse(fs.readFileSync(fileOf(gitdir), "utf8")) as { tool: string; entries: Entries };
      if (file.tool === VERSION && file.entries && typeof file.entries === "object") loaded = file.entries;
    } catch {
      // Missing or unreadable: start empty.
    }
    return loaded;
  };
  const used: Entries = {};
  let computed = 0;
  let reused = 0;
  return {
    remember<T>(kind: string, parts: readonly string[], compute: () => T): T {
      // Each part's length goes in, so that ["ab", "c"] and ["a", "bc"] differ.
      const key = hash.sha256Parts(parts.flatMap((p) => [String(p.length), "\0", p, "\0"]));
      const hit = load()[kind]?.[key];
      let value: T;
      if (hit !== undefined) {
        value = hit as T;
        reused++;
      } else {
        value = compute();
        computed++;
      }
      (used[kind] ??= {})[key] = value;
      return value;
    },
    save() {
      if (!loaded || (computed === 0 && reused === countOf(loaded))) return;
      // A kind this assembly did not use at all (its surfaces were reused) is kept as it was.
      for (const [kind, entries] of Object.entries(loaded)) used[kind] ??= entries;
      const file = fileOf(gitdir);
      const tmp = `${file}.tmp-${process.pid}`;
      fs.writeFileSync(tmp, JSON.stringify({ tool: VERSION, entries: used }));
      fs.renameSync(tmp, file);
    },
  };
}

const countOf = (entries: Entries) => Object.values(entries).reduce((n, e) => n + Object.keys(e).length, 0);
const fileOf = (gitdir: string) => `${gitdir}/risk-cli-memo.json`;
