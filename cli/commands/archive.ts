import { remoteName } from "../../archive/api/transport.ts";
import { openArchive } from "../../archive/index.ts";
import { resolveRemote } from "../remote.ts";
import { stderrLogger } from "../runtime/node.ts";

export interface ArchiveTransportOptions {
  archive: string;
  remote?: string;
  branch?: string;
  json: boolean;
}

/** `risk-cli archive pull`: brings the local archive up to the remote branch (incremental). */
export async function runArchivePull(opts: ArchiveTransportOptions) {
  const remote = resolveRemote(opts, process.env);
  const result = await openArchive(opts.archive).pull(remote);
  const log = stderrLogger(opts.json);
  log.info(
    `pulled ${remoteName(remote.url)} branch ${remote.branch}: ${result.outcome}, ${result.bytesReceived} bytes received; head ${result.head ?? "(none)"}`,
  );
  if (result.keptAs) log.warn(`local frames that were never pushed are kept under ${result.keptAs}`);
  return { ok: true as const, remote: remoteName(remote.url), branch: remote.branch, ...result };
}

/** `risk-cli archive push`: fast-forwards the remote branch to the local archive, never forced. */
export async function runArchivePush(opts: ArchiveTransportOptions) {
  const remote = resolveRemote(opts, process.env);
  const result = await openArchive(opts.archive).push(remote);
  stderrLogger(opts.json).info(
    `pushed to ${remoteName(remote.url)} branch ${remote.branch}: ${result.outcome}; head ${result.head ?? "(none)"}`,
  );
  return { ok: true as const, remote: remoteName(remote.url), branch: remote.branch, ...result };
}
