import { resolve } from "node:path";
import { gitdirOf, refuseArchiveFile, requireArchive } from "../../archive/git/objects.ts";
import { acquireLock } from "../../archive/lock.ts";
import { commonLogWarning, ingestLogs, knownPages, readTrafficState, writeTrafficState } from "../../app/traffic.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { defaultPublication } from "../paths.ts";
import { stderrLogger } from "../runtime/node.ts";
import { runtimeFs } from "../runtime/select.ts";

/**
 * `risk-cli traffic ingest FILE...`: counts new access-log lines into the pending counts beside
 * the archive, under the archive's lock (an assembly may be reading them).
 */
export async function runTrafficIngest(opts: {
  files: readonly string[];
  publication?: string;
  archive: string;
  json: boolean;
}) {
  refuseArchiveFile(opts.archive);
  const gitdir = gitdirOf(resolve(opts.archive));
  requireArchive(gitdir);
  // The runtime's own file reader: Node's asks Deno for a permission the README does not give.
  const p = await loadPublication(
    runtimeFs().fs,
    resolve(opts.publication ?? defaultPublication("reading", { json: opts.json })),
  );
  const log = stderrLogger(opts.json);
  const lock = acquireLock(gitdir, new Date(), log.warn);
  try {
    const state = readTrafficState(gitdir);
    const report = await ingestLogs(
      opts.files.map((f) => resolve(f)),
      state,
      {
        now: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
        ownHost: p.config.traffic?.host ?? new URL(p.config.baseUrl).hostname,
        pages: knownPages(p),
      },
    );
    writeTrafficState(gitdir, state);
    log.info(
      `${report.files} file(s), ${report.lines} new line(s): ${report.counted} counted, ${report.late} late, ${report.malformed} malformed; ${report.alreadyCounted} already counted`,
    );
    if (report.common) log.warn(commonLogWarning(report.common));
    for (const f of report.truncated) log.warn(`a gzip file cut short, its complete lines counted: ${f}`);
    for (const s of report.skipped) log.warn(`left out ${s.file}: ${s.reason}`);
    return { ok: true as const, ...report };
  } finally {
    lock.release();
  }
}
