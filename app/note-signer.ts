/**
 * Ed25519 signing of checkpoints (core/log/checkpoint.ts) with Node's crypto. Keys are in the
 * text form of Go's golang.org/x/mod/sumdb/note, which C2SP signed notes share:
 * `PRIVATE+KEY+<name>+<key id hex>+<base64(0x01 || 32-byte seed)>` for the signer (kept secret,
 * for example in the Actions job's secret RISK_CHECKPOINT_KEY) and
 * `<name>+<key id hex>+<base64(0x01 || 32-byte public key)>` for verifiers (published).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { RiskError } from "../core/errors.ts";
import {
  base64,
  keyIdOf,
  parseVerifierKey,
  unbase64,
  verifierKeyString,
  type NoteSignature,
  type NoteSigner,
} from "../core/log/checkpoint.ts";

const sha = (d: Uint8Array) => new Uint8Array(createHash("sha256").update(d).digest());
// The DER prefixes of an Ed25519 private key (PKCS #8) and public key (SPKI) around their 32 bytes.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function publicKeyOfSeed(seed: Uint8Array): Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const der = createPublicKey(key).export({ format: "der", type: "spki" });
  return new Uint8Array(der.subarray(der.byteLength - 32));
}

/** A signer from its private key text; a malformed key is a usage error that never quotes the key. */
export function noteSigner(privateKey: string): NoteSigner {
  const m = /^PRIVATE\+KEY\+([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(privateKey.trim());
  const tagged = m ? unbase64(m[3]!) : null;
  if (!m || !tagged || tagged.byteLength !== 33 || tagged[0] !== 1)
    throw new RiskError(
      "E_USAGE",
      "The checkpoint signing key is not a note private key (PRIVATE+KEY+<name>+<id>+<base64>): make one with `risk-cli log keygen --name <origin>`.",
    );
  const name = m[1]!;
  const seed = tagged.slice(1);
  const publicKey = publicKeyOfSeed(seed);
  const keyId = keyIdOf(sha, name, publicKey);
  if (hex(keyId) !== m[2])
    throw new RiskError("E_USAGE", "The checkpoint signing key's id does not match its key: the key text is damaged.");
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  return {
    name,
    keyId,
    verifierKey: verifierKeyString(name, keyId, publicKey),
    sign: (message) => new Uint8Array(sign(null, message, key)),
  };
}

/** A new key pair for `name`: the private key text (keep secret) and the verifier key (publish). */
export function generateNoteKey(name: string): { privateKey: string; verifierKey: string } {
  if (!/^[^+\s]+$/.test(name)) throw new RiskError("E_USAGE", "A key name has no spaces and no '+'.");
  const { privateKey } = generateKeyPairSync("ed25519");
  const der = privateKey.export({ format: "der", type: "pkcs8" });
  const seed = new Uint8Array(der.subarray(der.byteLength - 32));
  const publicKey = publicKeyOfSeed(seed);
  const keyId = keyIdOf(sha, name, publicKey);
  const tagged = new Uint8Array(33);
  tagged[0] = 1;
  tagged.set(seed, 1);
  return {
    privateKey: `PRIVATE+KEY+${name}+${hex(keyId)}+${base64(tagged)}`,
    verifierKey: verifierKeyString(name, keyId, publicKey),
  };
}

/** Whether one of `signatures` is a valid signature of `text` by the verifier key `verifier`. */
export function verifyNote(text: string, signatures: readonly NoteSignature[], verifier: string): boolean {
  const key = parseVerifierKey(verifier);
  if (!key) return false;
  const pub = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, key.publicKey]), format: "der", type: "spki" });
  const message = new TextEncoder().encode(text);
  return signatures.some(
    (s) =>
      s.name === key.name &&
      hex(s.keyId) === hex(key.keyId) &&
      s.signature.byteLength === 64 &&
      verify(null, message, pub, s.signature),
  );
}
