/**
 * A Sigstore of our own for tests, offline: @sigstore/mock's certificate authority (with its CT
 * log) and transparency log, each at a chosen clock, and the trusted root that names their keys.
 * `attest` makes the bundle actions/attest-build-provenance would: an in-toto statement in a
 * DSSE envelope, signed with a short-lived certificate, entered in the log (a dsse 0.0.1 entry
 * with its signed entry timestamp).
 */
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { initializeCA, initializeCTLog, initializeTLog } from "@sigstore/mock";
import { vi } from "vitest";

const INTOTO = "application/vnd.in-toto+json";
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest();
const ecKeys = () => generateKeyPairSync("ec", { namedCurve: "P-256" });

export const WORKFLOW_IDENTITY = "https://github.com/owner/site/.github/workflows/publish.yml@refs/heads/main";

/** `since`: when the test authority's root certificate starts its year of validity. */
export async function mockSigstore(since = new Date("2026-10-01T00:00:00Z")) {
  const caKeys = ecKeys();
  const ctKeys = ecKeys();
  const tlogKeys = ecKeys();
  const ctlog = await initializeCTLog(ctKeys);
  // Each authority made below has a new root certificate with the same key and name; the first,
  // made here, is the one trusted, and it verifies every certificate the others sign.
  const authority = async (clock: Date, rootFrom: Date) => {
    // The mock dates its root certificate by the clock it reads: a year from `rootFrom`.
    vi.useFakeTimers({ toFake: ["Date"], now: rootFrom.getTime() });
    try {
      return await initializeCA(caKeys, ctlog, clock);
    } finally {
      vi.useRealTimers();
    }
  };
  const roots = [(await authority(since, since)).rootCertificate as Uint8Array];
  const validFor = { start: "2000-01-01T00:00:00Z" };
  const tlogPublic = tlogKeys.publicKey.export({ format: "der", type: "spki" });
  const trustedRoot = () => ({
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    tlogs: [
      {
        baseUrl: "https://rekor.test",
        hashAlgorithm: "SHA2_256",
        publicKey: { rawBytes: b64(tlogPublic), keyDetails: "PKIX_ECDSA_P256_SHA_256", validFor },
        logId: { keyId: b64(sha256(tlogPublic)) },
      },
    ],
    certificateAuthorities: roots.map((root) => ({
      subject: { organization: "sigstore.mock", commonName: "sigstore" },
      uri: "https://fulcio.test",
      certChain: { certificates: [{ rawBytes: b64(root) }] },
      validFor,
    })),
    ctlogs: [
      {
        baseUrl: "https://ctfe.test",
        hashAlgorithm: "SHA2_256",
        publicKey: { rawBytes: b64(ctlog.publicKey), keyDetails: "PKIX_ECDSA_P256_SHA_256", validFor },
        logId: { keyId: b64(ctlog.logID as Uint8Array) },
      },
    ],
    timestampAuthorities: [],
  });

  /** A bundle attesting `subjects`, logged at `loggedAt` and signed by `identity`. */
  async function attest(
    subjects: { name: string; sha256: string }[],
    loggedAt: Date,
    identity = WORKFLOW_IDENTITY,
  ): Promise<Uint8Array> {
    // One authority per clock: a certificate lives ten minutes from its issue.
    const ca = await authority(loggedAt, since);
    const tlog = await initializeTLog("https://rekor.test", tlogKeys, loggedAt);
    const signing = ecKeys();
    const cert = Buffer.from(
      (await ca.issueCertificate({
        publicKey: signing.publicKey.export({ format: "der", type: "spki" }),
        subjectAltName: identity,
        extensions: [
          { oid: "1.3.6.1.4.1.57264.1.1", value: "https://token.actions.githubusercontent.com", legacy: true },
        ],
      })) as Uint8Array,
    );
    const statement = {
      _type: "https://in-toto.io/Statement/v1",
      subject: subjects.map((s) => ({ name: s.name, digest: { sha256: s.sha256 } })),
      predicateType: "https://slsa.dev/provenance/v1",
      predicate: { buildDefinition: {}, runDetails: {} },
    };
    const payload = Buffer.from(JSON.stringify(statement));
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${INTOTO.length} ${INTOTO} ${payload.length} `), payload]);
    const sig = sign("sha256", pae, signing.privateKey);
    const envelope = { payload: b64(payload), payloadType: INTOTO, signatures: [{ sig: b64(sig), keyid: "" }] };
    const pem = `-----BEGIN CERTIFICATE-----\n${cert.toString("base64").replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----\n`;
    const entries = (await tlog.log({
      apiVersion: "0.0.1",
      kind: "dsse",
      spec: {
        envelopeHash: { algorithm: "sha256", value: sha256(Buffer.from(JSON.stringify(envelope))).toString("hex") },
        payloadHash: { algorithm: "sha256", value: sha256(payload).toString("hex") },
        signatures: [{ signature: b64(sig), verifier: b64(Buffer.from(pem)) }],
      },
    })) as Record<
      string,
      {
        body: string;
        integratedTime: number;
        logID: string;
        logIndex: number;
        verification: {
          signedEntryTimestamp: string;
          inclusionProof: {
            logIndex: number;
            treeSize: number;
            rootHash: string;
            hashes: string[];
            checkpoint: string;
          };
        };
      }
    >;
    const e = Object.values(entries)[0]!;
    const bundle = {
      mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
      verificationMaterial: {
        certificate: { rawBytes: b64(cert) },
        tlogEntries: [
          {
            logIndex: String(e.logIndex),
            logId: { keyId: Buffer.from(e.logID, "hex").toString("base64") },
            kindVersion: { kind: "dsse", version: "0.0.1" },
            integratedTime: String(e.integratedTime),
            inclusionPromise: { signedEntryTimestamp: e.verification.signedEntryTimestamp },
            inclusionProof: {
              logIndex: String(e.verification.inclusionProof.logIndex),
              rootHash: Buffer.from(e.verification.inclusionProof.rootHash, "hex").toString("base64"),
              treeSize: String(e.verification.inclusionProof.treeSize),
              hashes: e.verification.inclusionProof.hashes,
              checkpoint: { envelope: e.verification.inclusionProof.checkpoint },
            },
            canonicalizedBody: e.body,
          },
        ],
        timestampVerificationData: { rfc3161Timestamps: [] },
      },
      dsseEnvelope: envelope,
    };
    return new TextEncoder().encode(JSON.stringify(bundle));
  }
  return { attest, trustedRoot };
}
