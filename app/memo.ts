/**
 * The memo of per-document results (core/ports.ts `Memo`), kept in `risk-cli-memo.json` inside
 * the archive's Git directory, with the entries added since it was last written beside it
 * (app/kept-entries.ts). Of each kind of result the last assembly used, only the entries it used
 * stay live; the others are dropped at the next rewrite, so the files hold about one entry per
 * document, not one per edit ever made. Entries from another tool version are dropped: a new
 * version may compute differently.
 */
import type { Hasher, Memo } from "../core/ports.ts";
import { VERSION } from "../core/version.ts";
import { type Groups, type KeptEntries, readKept, saveKept } from "./kept-entries.ts";

export function fileMemo(gitdir: string, hash: Hasher, options: { read: boolean }): Memo & { save(): void } {
  const file = `${gitdir}/risk-cli-memo.json`;
  // Read on first use: an assembly that builds no document does not pay for it.
  let loaded: KeptEntries | null = null;
  const load = (): KeptEntries => {
    loaded ??= options.read
      ? readKept(file, VERSION)
      : { groups: {}, count: 0, generation: null, baseBytes: 0, logBytes: 0 };
    return loaded;
  };
  const used: Groups = {};
  const added: [string, string, unknown][] = [];
  return {
    remember<T>(kind: string, parts: readonly string[], compute: () => T): T {
      // Each part's length goes in, so that ["ab", "c"] and ["a", "bc"] differ.
      const pieces: string[] = [];
      for (const part of parts) pieces.push(String(part.length), "\0", part, "\0");
      const key = hash.sha256Parts(pieces);
      const hit = load().groups[kind]?.[key];
      let value: T;
      if (hit !== undefined) {
        value = hit as T;
      } else {
        value = compute();
        added.push([kind, key, value]);
      }
      (used[kind] ??= {})[key] = value;
      return value;
    },
    save() {
      if (!loaded) return;
      // A kind this assembly did not use at all (its surfaces were reused) is kept as it was.
      for (const [kind, entries] of Object.entries(loaded.groups)) used[kind] ??= entries;
      saveKept(file, VERSION, loaded, used, added);
    },
  };
}
