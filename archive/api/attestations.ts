/**
 * Time witnessed from outside: Sigstore attestations of frames. In the GitHub Actions job, each
 * frame is attested with actions/attest-build-provenance, whose subject is the frame's hash; the
 * Sigstore bundle it returns (a DSSE envelope holding an in-toto statement, signed with a
 * short-lived Fulcio certificate and entered in the Rekor transparency log, whose signed entry
 * time no publisher controls) is kept in the archive by `risk-cli archive attest`.
 *
 * Bundles are kept on a ref of their own, `refs/risk-cli/attestations` (pushed to the remote
 * branch `<branch>-attestations`), one commit per bundle, at
 * `attestations/YYYY/MM/DD/<frame-id>.sigstore.json`: a frame cannot hold its own attestation,
 * which is made after it, and the frame chain stays frames only. Removing a bundle can only turn
 * a frame "unattested", never make a forged frame pass.
 *
 * `verify --attestations` checks every bundle offline with sigstore-js against a pinned trusted
 * root (archive/trust/public-good.ts, or --trusted-root), that its subject is that frame's hash,
 * and that the transparency log's time is within a window after the frame's time.
 */
import { bundleFromJSON } from "@sigstore/bundle";
import { TrustedRoot } from "@sigstore/protobuf-specs";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { RiskError } from "../../core/errors.ts";
import { PUBLIC_GOOD_TRUSTED_ROOT } from "../trust/public-good.ts";
import { attestationsHead, setAttestationsHead } from "./attestation-ref.ts";
import { editTree } from "../git/tree-edit.ts";
import { headCommit, isRepository, oidAtPath, readBlob, readCommit, writeBlob, writeCommit } from "../git/objects.ts";
import { parseFrameMessage } from "../models/message.ts";

export const ATTESTATION_PREFIX = "attestations";

/** `000042-20261121T154500Z` -> `attestations/2026/11/21/000042-20261121T154500Z.sigstore.json`. */
export function attestationPath(frameId: string): string {
  const m = /^\d+-(\d{4})(\d{2})(\d{2})T\d{6}Z$/.exec(frameId);
  if (!m) throw new RiskError("E_USAGE", `"${frameId.slice(0, 60)}" is not a frame id (as 000042-20261121T154500Z)`);
  return `${ATTESTATION_PREFIX}/${m[1]}/${m[2]}/${m[3]}/${frameId}.sigstore.json`;
}

/** What a bundle says, read before any signature check. */
export interface BundleClaims {
  /** The in-toto statement's subjects: name and SHA-256 digest. */
  subjects: { name: string; sha256: string }[];
  /** The transparency log's entry time (seconds since the epoch), when the bundle has one. */
  loggedAt: number | null;
}

const INTOTO = "application/vnd.in-toto+json";

/** Parses a Sigstore bundle's JSON and reads its statement's subjects and its log entry time. */
export function bundleClaims(bytes: Uint8Array, name: string): { bundle: unknown; claims: BundleClaims } {
  let json: unknown;
  let bundle: ReturnType<typeof bundleFromJSON>;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    bundle = bundleFromJSON(json);
  } catch (e) {
    throw new RiskError("E_INPUT", `${name} is not a Sigstore bundle: ${String((e as Error).message).slice(0, 120)}`, {
      file: name,
    });
  }
  const content = bundle.content;
  if (content.$case !== "dsseEnvelope" || content.dsseEnvelope.payloadType !== INTOTO)
    throw new RiskError("E_INPUT", `${name} holds no in-toto statement (a DSSE envelope of ${INTOTO})`, { file: name });
  let statement: unknown;
  try {
    statement = JSON.parse(Buffer.from(content.dsseEnvelope.payload).toString("utf8"));
  } catch {
    throw new RiskError("E_INPUT", `${name}: the in-toto statement is not JSON`, { file: name });
  }
  // The statement is the signer's to write: anything but an object with subjects of text names
  // and digests claims nothing.
  if (typeof statement !== "object" || statement === null || Array.isArray(statement))
    throw new RiskError("E_INPUT", `${name}: the in-toto statement is not a JSON object`, { file: name });
  const listed = (statement as { subject?: unknown }).subject;
  const subjects = (Array.isArray(listed) ? listed : []).flatMap(
    (s: { name?: unknown; digest?: { sha256?: unknown } }) =>
      typeof s?.digest?.sha256 === "string"
        ? [{ name: typeof s.name === "string" ? s.name : "", sha256: s.digest.sha256.toLowerCase() }]
        : [],
  );
  const entry = bundle.verificationMaterial.tlogEntries[0];
  const loggedAt = entry ? Number(entry.integratedTime) : null;
  return { bundle, claims: { subjects, loggedAt: Number.isFinite(loggedAt) && loggedAt ? loggedAt : null } };
}

/** Every frame of the chain, oldest first, from the commits' trailers (frame.json is not read). */
async function chainFrames(gitdir: string): Promise<{ frameId: string; frameHash: string; at: string }[]> {
  const frames: { frameId: string; frameHash: string; at: string }[] = [];
  for (let oid = await headCommit(gitdir); oid; ) {
    const info = await readCommit(gitdir, oid);
    frames.push(parseFrameMessage(info.message, oid));
    oid = info.parents[0] ?? null;
  }
  return frames.reverse();
}

/**
 * Keeps a frame's Sigstore bundle in the archive: refuses a bundle that is not one, or whose
 * subject is not the frame's hash; a bundle already kept for that frame is replaced only by the
 * same bytes (nothing to do) — a second, different bundle is refused.
 */
export async function storeAttestation(
  gitdir: string,
  frameId: string,
  bytes: Uint8Array,
  name: string,
): Promise<{ frameId: string; path: string; commit: string; stored: boolean }> {
  if (!isRepository(gitdir))
    throw new RiskError("E_IO", `${gitdir} is not an archive (no Git repository there): check --archive`, {
      archive: gitdir,
    });
  const path = attestationPath(frameId);
  const frame = (await chainFrames(gitdir)).find((f) => f.frameId === frameId);
  if (!frame) throw new RiskError("E_NO_FRAME", `The archive holds no frame ${frameId}`, { frame: frameId });
  const { claims } = bundleClaims(bytes, name);
  if (!claims.subjects.some((s) => s.sha256 === frame.frameHash))
    throw new RiskError(
      "E_INPUT",
      `${name} attests ${claims.subjects.map((s) => `sha256:${s.sha256.slice(0, 16)}…`).join(", ") || "no subject"}, not frame ${frameId} (sha256:${frame.frameHash}): attest the frame hash that assemble printed`,
      { file: name, frame: frameId },
    );
  const parent = attestationsHead(gitdir);
  const base = parent ? (await readCommit(gitdir, parent)).tree : null;
  const oid = await writeBlob(gitdir, bytes);
  const existing = base ? await oidAtPath(gitdir, base, path) : null;
  if (existing?.oid === oid) return { frameId, path, commit: parent!, stored: false };
  if (existing)
    throw new RiskError("E_INPUT", `Frame ${frameId} already has a different attestation kept; nothing was changed`, {
      frame: frameId,
    });
  const tree = await editTree(gitdir, base, new Map([[path, oid]]));
  const commit = await writeCommit(gitdir, {
    tree: tree!,
    parents: parent ? [parent] : [],
    message: `attestation of frame ${frameId}\n\nFrame-Id: ${frameId}\nFrame-Hash: sha256:${frame.frameHash}\n`,
    time: Math.floor(Date.now() / 1000),
    name: "risk-cli",
    email: "risk-cli@localhost",
  });
  setAttestationsHead(gitdir, commit);
  return { frameId, path, commit, stored: true };
}

export interface AttestationPolicy {
  /** A Sigstore trusted root (JSON); default: the pinned public-good root. */
  trustedRoot?: unknown;
  /** How long after a frame's time its log entry may be, in seconds. */
  windowSeconds: number;
  /** When given, the signing certificate's identity (its URI) must start with this. */
  identity?: string;
}

export interface AttestationReport {
  ok: boolean;
  frames: number;
  attested: number;
  unattested: number;
  failing: { frameId: string; reason: string }[];
  /** The frames attested, with the log's time. */
  witnessed: { frameId: string; at: string; loggedAt: string }[];
}

/** Checks every kept bundle against its frame (see the module's comment). */
export async function verifyAttestations(gitdir: string, policy: AttestationPolicy): Promise<AttestationReport> {
  let verifier: InstanceType<typeof Verifier>;
  try {
    verifier = new Verifier(toTrustMaterial(TrustedRoot.fromJSON(policy.trustedRoot ?? PUBLIC_GOOD_TRUSTED_ROOT)));
  } catch (e) {
    throw new RiskError("E_INPUT", `The trusted root is not a Sigstore trusted root: ${(e as Error).message}`);
  }
  const frames = await chainFrames(gitdir);
  const head = attestationsHead(gitdir);
  const tree = head ? (await readCommit(gitdir, head)).tree : null;
  const report: AttestationReport = {
    ok: true,
    frames: frames.length,
    attested: 0,
    unattested: 0,
    failing: [],
    witnessed: [],
  };
  for (const frame of frames) {
    const entry = tree ? await oidAtPath(gitdir, tree, attestationPath(frame.frameId)) : null;
    if (!entry) {
      report.unattested++;
      continue;
    }
    const fail = (reason: string) => report.failing.push({ frameId: frame.frameId, reason });
    let claims: BundleClaims;
    let bundle: unknown;
    try {
      ({ bundle, claims } = bundleClaims(await readBlob(gitdir, entry.oid), attestationPath(frame.frameId)));
    } catch (e) {
      fail((e as Error).message);
      continue;
    }
    if (!claims.subjects.some((s) => s.sha256 === frame.frameHash)) {
      fail(`its subject is not the frame's hash sha256:${frame.frameHash}`);
      continue;
    }
    try {
      const signer = verifier.verify(toSignedEntity(bundle as Parameters<typeof toSignedEntity>[0]));
      const identity = signer.identity?.subjectAlternativeName ?? "";
      if (policy.identity && !identity.startsWith(policy.identity)) {
        fail(`it was signed by ${identity.slice(0, 120) || "an unnamed identity"}, not ${policy.identity}…`);
        continue;
      }
    } catch (e) {
      fail(`its signature does not verify against the trusted root: ${String((e as Error).message).slice(0, 160)}`);
      continue;
    }
    const frameTime = Date.parse(frame.at) / 1000;
    if (claims.loggedAt === null) {
      fail("it has no transparency log entry, so nothing outside the publisher dates it");
      continue;
    }
    const lag = claims.loggedAt - frameTime;
    if (lag < 0 || lag > policy.windowSeconds) {
      fail(
        `the transparency log dates it ${new Date(claims.loggedAt * 1000).toISOString()}, ${lag < 0 ? "before the frame's time" : `${Math.round(lag)} s after the frame's time, over the ${policy.windowSeconds} s window`} (${frame.at}): the frame's time is not witnessed`,
      );
      continue;
    }
    report.attested++;
    report.witnessed.push({
      frameId: frame.frameId,
      at: frame.at,
      loggedAt: new Date(claims.loggedAt * 1000).toISOString(),
    });
  }
  report.ok = report.failing.length === 0;
  return report;
}
