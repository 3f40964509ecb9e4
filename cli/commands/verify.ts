import { loopingLinkRefusal, readRegularFile } from "../../archive/regular-file.ts";
import { openArchive } from "../../archive/index.ts";
import { RiskError } from "../../core/errors.ts";
import { CheckpointFormatError, parseCheckpoint, parseVerifierKey } from "../../core/log/checkpoint.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";

/**
 * `risk-cli verify`: the whole archive, or with --checkpoint a saved checkpoint, or with
 * --attestations the frames' Sigstore bundles. Options of one kind of check given to another are
 * refused, not silently ignored.
 */
export async function runVerifyCommand(opts: {
  archive: string;
  checkpoint?: string;
  key?: string;
  attestations: boolean;
  window: number;
  identity?: string;
  trustedRoot?: string;
  json: boolean;
}) {
  if (!opts.attestations && (opts.identity !== undefined || opts.trustedRoot !== undefined))
    throw new RiskError(
      "E_USAGE",
      `${opts.identity !== undefined ? "--identity" : "--trusted-root"} belongs to verify --attestations: add --attestations, or leave it out`,
    );
  if (opts.key !== undefined && opts.checkpoint === undefined)
    throw new RiskError("E_USAGE", "--key belongs to verify --checkpoint: add --checkpoint FILE, or leave it out");
  if (opts.attestations) return runVerifyAttestations(opts);
  if (opts.checkpoint !== undefined) return runVerifyCheckpoint({ ...opts, checkpoint: opts.checkpoint });
  return runVerify(opts);
}

/** `risk-cli verify`: every frame; with --checkpoint, the proof that the archive extends a saved checkpoint. */
export async function runVerify(opts: { archive: string; key?: string; json: boolean }) {
  const log = stderrLogger(opts.json);
  const started = performance.now();
  if (opts.key !== undefined)
    throw new RiskError("E_USAGE", "--key checks a checkpoint's signature: give --checkpoint too.");
  const report = await openArchive(opts.archive).verify(nodeHasher);
  const seconds = (performance.now() - started) / 1000;
  log.info(
    `verified ${report.frames} frames and ${report.surfacesChecked} stored surfaces in ${seconds.toFixed(2)} s; head ${report.head?.frameId} sha256:${report.head?.frameHash}`,
  );
  log.info(
    `frame log: ${report.log.size} frames, root ${report.log.root}; frame times: ${report.clock.system} from the system clock, ${report.clock.pinned} pinned${report.clock.unrecorded ? `, ${report.clock.unrecorded} not recorded` : ""}`,
  );
  if (report.about.unrecorded)
    log.warn(
      `${report.about.unrecorded} of ${report.frames} frames were written before frames fingerprinted README.md, LICENSE and the commit author: those of these frames are not checked`,
    );
  return { ok: true as const, ...report, seconds: Math.round(seconds * 1000) / 1000 };
}

export async function runVerifyCheckpoint(opts: { archive: string; checkpoint: string; key?: string; json: boolean }) {
  const log = stderrLogger(opts.json);
  const started = performance.now();
  let note: string;
  let read: Buffer | "not-regular" | "refused";
  try {
    // A checkpoint is a few lines: /dev/zero, a FIFO or a huge file is refused before it is read.
    read = readRegularFile(opts.checkpoint, { followLink: true, admit: (size) => size <= 64 * 1024 });
  } catch (e) {
    throw (
      loopingLinkRefusal(e, "checkpoint", opts.checkpoint) ??
      new RiskError("E_IO", `Cannot read the checkpoint ${opts.checkpoint} (${(e as NodeJS.ErrnoException).code})`)
    );
  }
  if (read === "not-regular" || read === "refused")
    throw new RiskError(
      "E_INPUT",
      `The checkpoint ${opts.checkpoint} is ${read === "refused" ? "over 64 KB" : "not a regular file"}: give the file saved from black-box.json's log.checkpoint`,
      { file: opts.checkpoint },
    );
  note = read.toString("utf8");
  let parsed: ReturnType<typeof parseCheckpoint>;
  try {
    parsed = parseCheckpoint(note);
  } catch (e) {
    if (!(e instanceof CheckpointFormatError)) throw e;
    throw new RiskError(
      "E_INPUT",
      `Cannot read the checkpoint ${opts.checkpoint}: ${e.message}. Save black-box.json's log.checkpoint text exactly.`,
      { file: opts.checkpoint },
    );
  }
  if (parsed.checkpoint.size === 0)
    throw new RiskError(
      "E_INPUT",
      `Cannot read the checkpoint ${opts.checkpoint}: its size is 0, a log of no frame, which vouches for nothing. Save log.checkpoint from a later black-box.json (the first frame's log is empty).`,
      { file: opts.checkpoint },
    );
  let signature: "valid" | "unsigned" | "not checked" = parsed.signatures.length ? "not checked" : "unsigned";
  if (opts.key !== undefined) {
    // A malformed key says nothing of the checkpoint: it is the command line that is wrong. The
    // key itself is never repeated, since it may be the signing key, which must stay secret.
    if (/^PRIVATE\+KEY\+/.test(opts.key.trim()))
      throw new RiskError(
        "E_USAGE",
        "--key is given a signing key (PRIVATE+KEY+...), which must stay secret: give the verifier key instead (black-box.json log.verifierKey), and make a new signing key if this one was shared",
      );
    if (!parseVerifierKey(opts.key))
      throw new RiskError(
        "E_USAGE",
        "--key is not a verifier key (<name>+<8 hex digits>+<base64 of 33 bytes>): give black-box.json's log.verifierKey exactly",
      );
    const { verifyNote } = await import("../../app/note-signer.ts");
    if (!verifyNote(parsed.text, parsed.signatures, opts.key))
      throw new RiskError(
        "E_VERIFY",
        `The checkpoint ${opts.checkpoint} carries no valid signature by the key given: it was not published by that key's holder, or it was altered`,
      );
    signature = "valid";
  }
  const check = await openArchive(opts.archive).checkCheckpoint(nodeHasher, parsed.checkpoint);
  const seconds = (performance.now() - started) / 1000;
  log.info(
    `the frame log of the archive's head (${check.archiveSize} frames, head ${check.head.frameId}) extends the checkpoint of ${check.checkpointSize} frames (signature: ${signature}); consistency proof of ${check.proof.length} hashes, in ${seconds.toFixed(2)} s. This reads the log's tiles only: risk-cli verify checks the frames and their chain.`,
  );
  return { ok: true as const, signature, ...check, seconds: Math.round(seconds * 1000) / 1000 };
}

/** `risk-cli verify --attestations`: every frame's Sigstore bundle, checked offline. */
export async function runVerifyAttestations(opts: {
  archive: string;
  window: number;
  identity?: string;
  trustedRoot?: string;
  json: boolean;
}) {
  const log = stderrLogger(opts.json);
  if (opts.identity !== undefined && opts.identity.trim() === "")
    throw new RiskError(
      "E_USAGE",
      "--identity is empty, and every signer's identity starts with it: give the start of the expected one, such as https://github.com/OWNER/REPO/",
    );
  let trustedRoot: unknown;
  if (opts.trustedRoot !== undefined) {
    let read: Buffer | "not-regular" | "refused";
    try {
      // A trusted root is a few kilobytes: /dev/zero, a FIFO or a huge file is refused before it is read.
      read = readRegularFile(opts.trustedRoot, { followLink: true, admit: (size) => size <= 1024 * 1024 });
      if (read !== "not-regular" && read !== "refused") trustedRoot = JSON.parse(read.toString("utf8"));
    } catch (e) {
      const loops = loopingLinkRefusal(e, "trusted root", opts.trustedRoot);
      if (loops) throw loops;
      const code = (e as NodeJS.ErrnoException).code;
      throw new RiskError(
        code ? "E_IO" : "E_INPUT",
        `Cannot read the trusted root ${opts.trustedRoot}: ${code ?? "it is not JSON"}`,
        { file: opts.trustedRoot },
      );
    }
    if (read === "not-regular" || read === "refused")
      throw new RiskError(
        "E_INPUT",
        `The trusted root ${opts.trustedRoot} is ${read === "refused" ? "over 1 MB" : "not a regular file"}: give a Sigstore trusted root JSON file`,
        { file: opts.trustedRoot },
      );
  }
  const { requireArchive } = await import("../../archive/git/objects.ts");
  const archive = openArchive(opts.archive);
  requireArchive(archive.gitdir);
  const { verifyAttestations } = await import("../../archive/api/attestations.ts");
  const report = await verifyAttestations(archive.gitdir, {
    trustedRoot,
    windowSeconds: opts.window * 60,
    identity: opts.identity,
  });
  log.info(
    `attestations: ${report.attested} of ${report.frames} frames attested and witnessed within ${opts.window} min, ${report.unattested} unattested, ${report.failing.length} failing`,
  );
  for (const f of report.failing) log.warn(`frame ${f.frameId}: ${f.reason}`);
  if (!report.ok)
    throw new RiskError(
      "E_VERIFY",
      `Attestation check failed for ${report.failing.length} frame(s), first ${report.failing[0]!.frameId}: ${report.failing[0]!.reason}`,
      { frame: report.failing[0]!.frameId, failing: report.failing },
    );
  return { ...report, ok: true as const };
}
