import { resolve } from "node:path";
import { runAssembly, type AssemblySummary } from "../../app/assembly.ts";
import type { CollectLimits } from "../../core/inputs/collect.ts";
import { RiskError } from "../../core/errors.ts";
import { resolveNow } from "../clock.ts";
import { resolveRemote } from "../remote.ts";
import { defaultPublication } from "../paths.ts";
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
  /** Accept a pinned time more than a day ahead of the system clock. */
  allowFuture?: boolean;
  /** Pull the remote archive first and push the new frame (see app/publish.ts). */
  push?: boolean;
  remote?: string;
  branch?: string;
  /** Collection limits over the publication's (in-process callers: tests, bench). */
  limits?: Partial<CollectLimits>;
}

export type AssembleSummary = AssemblySummary;

/** `risk-cli assemble`: resolves the options, runs one assembly (app/assembly.ts). */
export async function runAssemble(opts: AssembleOptions): Promise<AssembleSummary> {
  const clock = () => resolveNow(opts.now, process.env, () => new Date(), { allowFuture: opts.allowFuture });
  const request = {
    publication: resolve(opts.publication ?? defaultPublication("assembling", { json: opts.json })),
    site: opts.site,
    archive: opts.archive,
    now: clock(),
    caches: opts.cache !== false,
    limits: opts.limits,
    // A frame says whether its time was read from the clock or pinned (reproducible builds, tests).
    clock: opts.now || process.env.SOURCE_DATE_EPOCH ? ("pinned" as const) : ("system" as const),
    ...(process.env.RISK_CHECKPOINT_KEY
      ? { signer: (await import("../../app/note-signer.ts")).noteSigner(process.env.RISK_CHECKPOINT_KEY) }
      : {}),
  };
  const ports = { fs: runtimeFs().fs, http: runtimeHttp(), hash: nodeHasher, log: stderrLogger(opts.json) };
  if (opts.push || opts.remote || opts.branch) {
    if (!opts.push)
      throw new RiskError(
        "E_USAGE",
        "--remote and --branch are used with --push (or with risk-cli archive pull/push).",
      );
    const { assembleAndPush } = await import("../../app/publish.ts");
    const remote = resolveRemote(opts, process.env);
    // The remote pushed to is where strangers clone the archive, unless the configuration names
    // another; only an https address is published.
    const published = remote.url.startsWith("https://") ? { url: remote.url, branch: remote.branch } : undefined;
    return assembleAndPush({ ...request, publishedArchive: published }, ports, remote, { clock });
  }
  return runAssembly(request, ports);
}
