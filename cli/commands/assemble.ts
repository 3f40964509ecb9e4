import { resolve } from "node:path";
import { runAssembly, type AssemblySummary } from "../../app/assembly.ts";
import type { CollectLimits } from "../../core/inputs/collect.ts";
import { resolveNow } from "../clock.ts";
import { demoPublication } from "../paths.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { runtimeFs, runtimeHttp } from "../runtime/select.ts";

export interface AssembleOptions {
  publication?: string;
  site: string;
  archive: string;
  now?: string;
  json: boolean;
  /** False turns every cache and fast path off (`--no-cache`); the output is the same. */
  cache?: boolean;
  /** Collection limits over the publication's (in-process callers: tests, bench). */
  limits?: Partial<CollectLimits>;
}

export type AssembleSummary = AssemblySummary;

/** `risk-cli assemble`: resolves the options, runs one assembly (app/assembly.ts). */
export async function runAssemble(opts: AssembleOptions): Promise<AssembleSummary> {
  return runAssembly(
    {
      publication: resolve(opts.publication ?? demoPublication()),
      site: opts.site,
      archive: opts.archive,
      now: resolveNow(opts.now, process.env, () => new Date()),
      caches: opts.cache !== false,
      limits: opts.limits,
    },
    { fs: runtimeFs().fs, http: runtimeHttp(), hash: nodeHasher, log: stderrLogger(opts.json) },
  );
}
