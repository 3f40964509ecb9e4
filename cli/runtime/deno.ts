import type { Http, ReadOnlyFs } from "../../core/ports.ts";
import { VERSION } from "../../core/version.ts";
import { fetchHttp } from "./http.ts";

/** The part of the Deno namespace this adapter uses (typed here so that tsc needs no Deno types). */
interface DenoFs {
  readTextFile(path: string): Promise<string>;
  readDir(path: string): AsyncIterable<{ name: string; isFile: boolean }>;
  stat(path: string): Promise<unknown>;
  errors: { NotFound: new (...args: never[]) => Error };
}

/** Reads the publication through Deno's own file API. */
export function denoFs(deno: DenoFs): ReadOnlyFs {
  return {
    readText: (path) => deno.readTextFile(path),
    async listFiles(dir) {
      const names: string[] = [];
      try {
        for await (const e of deno.readDir(dir)) if (e.isFile) names.push(e.name);
      } catch (e) {
        if (e instanceof deno.errors.NotFound) return [];
        throw e;
      }
      return names.sort();
    },
    exists: (path) =>
      deno.stat(path).then(
        () => true,
        () => false,
      ),
  };
}

/** HTTP(S) collection through Deno's global fetch (needs --allow-net for http: and https: sources). */
export const denoHttp: Http = fetchHttp({ userAgent: `risk-cli/${VERSION}` });
