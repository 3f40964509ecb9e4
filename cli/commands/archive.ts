import { readFileSync } from "node:fs";
import { remoteName } from "../../archive/api/transport.ts";
import { openArchive } from "../../archive/index.ts";
import { checkArchiveFolder } from "../../app/paths.ts";
import { RiskError } from "../../core/errors.ts";
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
  // A pull writes a bare repository into the folder: one that holds something else is refused.
  checkArchiveFolder(opts.archive);
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

/** `risk-cli archive attest`: keeps a frame's Sigstore bundle in the archive, after checking its subject. */
export async function runArchiveAttest(opts: { archive: string; frame: string; bundle: string; json: boolean }) {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(opts.bundle);
  } catch (e) {
    throw new RiskError("E_IO", `Cannot read the bundle ${opts.bundle} (${(e as NodeJS.ErrnoException).code})`, {
      file: opts.bundle,
    });
  }
  const archive = openArchive(opts.archive);
  const { storeAttestation } = await import("../../archive/api/attestations.ts");
  const result = await storeAttestation(archive.gitdir, opts.frame, bytes, opts.bundle);
  stderrLogger(opts.json).info(
    result.stored
      ? `kept the attestation of frame ${result.frameId} at ${result.path} (commit ${result.commit.slice(0, 12)})`
      : `frame ${result.frameId} already has this attestation`,
  );
  return { ok: true as const, ...result };
}
