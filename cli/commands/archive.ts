import { remoteName } from "../../archive/api/transport.ts";
import { openArchive } from "../../archive/index.ts";
import { loopingLinkRefusal, readRegularFile } from "../../archive/regular-file.ts";
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

/** The most bytes a Sigstore bundle file may hold (real ones hold a few kilobytes). */
const MAX_BUNDLE_BYTES = 1024 * 1024;

/** `risk-cli archive attest`: keeps a frame's Sigstore bundle in the archive, after checking its subject. */
export async function runArchiveAttest(opts: { archive: string; frame: string; bundle: string; json: boolean }) {
  let bytes: Buffer | "not-regular" | "refused";
  try {
    // A bundle is a few kilobytes: /dev/zero, a FIFO or a huge file is refused before it is read.
    bytes = readRegularFile(opts.bundle, { followLink: true, admit: (size) => size <= MAX_BUNDLE_BYTES });
  } catch (e) {
    throw (
      loopingLinkRefusal(e, "bundle", opts.bundle) ??
      new RiskError("E_IO", `Cannot read the bundle ${opts.bundle} (${(e as NodeJS.ErrnoException).code})`, {
        file: opts.bundle,
      })
    );
  }
  if (bytes === "not-regular" || bytes === "refused")
    throw new RiskError(
      "E_INPUT",
      `The bundle ${opts.bundle} is ${bytes === "refused" ? "over 1 MB" : "not a regular file"}: give the Sigstore bundle file actions/attest-build-provenance wrote (its bundle-path output)`,
      { file: opts.bundle },
    );
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
