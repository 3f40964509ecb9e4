import type { Http, ReadOnlyFs } from "../../core/ports.ts";
import { VERSION } from "../../core/version.ts";
import { fetchHttp } from "./http.ts";
import { decodeInput, inputReadError, MAX_INPUT_BYTES, tooLargeError } from "../../core/inputs/read.ts";
import { denoPermissionError } from "../../core/errors.ts";

/** The part of the Deno namespace this adapter uses (typed here so that tsc needs no Deno types). */
interface DenoFs {
  readFile(path: string): Promise<Uint8Array>;
  readDir(path: string): AsyncIterable<{ name: string; isFile: boolean; isDirectory: boolean; isSymlink: boolean }>;
  stat(path: string): Promise<{ isFile: boolean; size: number }>;
  errors: { NotFound: new (...args: never[]) => Error };
  realPath(path: string): Promise<string>;
}

/** The sorted names of the entries of `dir` that `keep` accepts; [] when `dir` does not exist. */
async function namesIn(
  deno: DenoFs,
  dir: string,
  keep: (e: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }) => boolean,
): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of deno.readDir(dir)) if (keep(e)) names.push(e.name);
  } catch (e) {
    if (e instanceof deno.errors.NotFound) return [];
    throw denoPermissionError(e) ?? e;
  }
  return names.sort();
}

/** `op`, with a permission Deno refuses turned into the usage error naming its flag. */
async function permitted<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw denoPermissionError(e) ?? e;
  }
}

/** Reads the publication through Deno's own file API. */
export function denoFs(deno: DenoFs): ReadOnlyFs {
  return {
    readText: (path, options) =>
      permitted(async () => {
        const st = await deno.stat(path);
        if (!st.isFile) throw inputReadError(path, "it is not a regular file");
        if (st.size > (options?.maxBytes ?? MAX_INPUT_BYTES)) throw tooLargeError(path, options?.maxBytes);
        return decodeInput(path, await deno.readFile(path), options?.maxBytes);
      }),
    // Links, FIFOs and devices too: refused by name when read, not passed over in silence.
    listFiles: (dir) => namesIn(deno, dir, (e) => !e.isDirectory),
    listDirs: (dir) => namesIn(deno, dir, (e) => e.isDirectory),
    realPath: (path) => permitted(() => deno.realPath(path)),
    // Absent, or not to be reached; but a refused permission is said, not taken for absence.
    exists: (path) =>
      deno.stat(path).then(
        () => true,
        (e) => {
          const refused = denoPermissionError(e);
          if (refused) throw refused;
          return false;
        },
      ),
  };
}

/** HTTP(S) collection through Deno's global fetch (needs --allow-net for http: and https: sources). */
export const denoHttp: Http = fetchHttp({ userAgent: `risk-cli/${VERSION}` });
