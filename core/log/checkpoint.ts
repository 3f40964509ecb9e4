/**
 * Checkpoints of the frame log in the C2SP formats that transparency logs share:
 *
 * - `tlog-checkpoint`: three lines, the log's origin (its permanent name), the tree size in
 *   decimal and the root hash in base64, then optional extension lines (here one: the last frame
 *   the tree holds, `frame <frameId> <frameHash>`);
 * - `signed-note`: the checkpoint text, a blank line, then one line per signature,
 *   `— <key name> <base64(key id (4 bytes) || Ed25519 signature (64 bytes))>`, where the key id is
 *   the first four bytes of SHA-256(key name || "\n" || 0x01 || public key).
 *
 * A stranger saves a checkpoint from black-box.json; `risk-cli verify --checkpoint` later proves
 * that the archive still extends it. Signing itself (Ed25519) is a port: core has no crypto.
 */
export interface Checkpoint {
  origin: string;
  size: number;
  /** The root hash, 32 bytes. */
  root: Uint8Array;
  extensions: string[];
}

export interface NoteSignature {
  name: string;
  keyId: Uint8Array;
  signature: Uint8Array;
}

/** Signs a note's text with one Ed25519 key (implemented where crypto lives). */
export interface NoteSigner {
  /** The key name, the checkpoint's origin by convention. */
  name: string;
  /** The verifier key, `<name>+<key id hex>+<base64(0x01 || public key)>`, to publish. */
  verifierKey: string;
  keyId: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

const b64 = (bytes: Uint8Array) => {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};

const unb64 = (text: string): Uint8Array => {
  const raw = atob(text);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};

export function checkpointText(c: Checkpoint): string {
  for (const line of [c.origin, ...c.extensions])
    if (!line || /[\n\r]/.test(line) || line.startsWith("— "))
      throw new Error("a checkpoint line must be one non-empty line");
  return `${c.origin}\n${c.size}\n${b64(c.root)}\n${c.extensions.map((e) => `${e}\n`).join("")}`;
}

/** The signed note: the text, a blank line, a signature line per signer. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  const message = new TextEncoder().encode(text);
  const lines = signers.map((s) => {
    const sig = s.sign(message);
    const blob = new Uint8Array(4 + sig.byteLength);
    blob.set(s.keyId, 0);
    blob.set(sig, 4);
    return `— ${s.name} ${b64(blob)}\n`;
  });
  return `${text}\n${lines.join("")}`;
}

export class CheckpointFormatError extends Error {}

/**
 * A checkpoint as a stranger saved it: a bare `tlog-checkpoint` text or a signed note. Refuses
 * anything that does not follow the formats exactly.
 */
export function parseCheckpoint(note: string): { checkpoint: Checkpoint; text: string; signatures: NoteSignature[] } {
  const normal = note.replace(/\r\n/g, "\n");
  const split = normal.indexOf("\n\n");
  const text = split >= 0 ? normal.slice(0, split + 1) : normal.endsWith("\n") ? normal : `${normal}\n`;
  const signatures: NoteSignature[] = [];
  if (split >= 0) {
    for (const line of normal.slice(split + 2).split("\n")) {
      if (line === "") continue;
      const m = /^— (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
      if (!m) throw new CheckpointFormatError(`not a signature line: "${line.slice(0, 60)}"`);
      let blob: Uint8Array;
      try {
        blob = unb64(m[2]!);
      } catch {
        throw new CheckpointFormatError("a signature is not base64");
      }
      if (blob.byteLength < 5) throw new CheckpointFormatError("a signature is too short");
      signatures.push({ name: m[1]!, keyId: blob.slice(0, 4), signature: blob.slice(4) });
    }
  }
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3)
    throw new CheckpointFormatError("a checkpoint has an origin, a size and a root hash, one a line");
  const [origin, sizeText, rootText, ...extensions] = lines as [string, string, string, ...string[]];
  if (!origin) throw new CheckpointFormatError("the origin line is empty");
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText))
    throw new CheckpointFormatError(`the size "${sizeText.slice(0, 20)}" is not a decimal number`);
  let root: Uint8Array;
  try {
    root = unb64(rootText);
  } catch {
    throw new CheckpointFormatError("the root hash is not base64");
  }
  if (root.byteLength !== 32) throw new CheckpointFormatError("the root hash is not 32 bytes");
  return { checkpoint: { origin, size: Number(sizeText), root, extensions }, text, signatures };
}

/** The key id of an Ed25519 verifier key named `name`: SHA-256(name || "\n" || 0x01 || key)[:4]. */
export function keyIdOf(sha: (d: Uint8Array) => Uint8Array, name: string, publicKey: Uint8Array): Uint8Array {
  const nameBytes = new TextEncoder().encode(`${name}\n`);
  const buf = new Uint8Array(nameBytes.byteLength + 1 + publicKey.byteLength);
  buf.set(nameBytes, 0);
  buf[nameBytes.byteLength] = 1;
  buf.set(publicKey, nameBytes.byteLength + 1);
  return sha(buf).slice(0, 4);
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

export function verifierKeyString(name: string, keyId: Uint8Array, publicKey: Uint8Array): string {
  const tagged = new Uint8Array(33);
  tagged[0] = 1;
  tagged.set(publicKey, 1);
  return `${name}+${hex(keyId)}+${b64(tagged)}`;
}

/** `<name>+<key id hex>+<base64(0x01 || 32-byte key)>` into its parts; null when malformed. */
export function parseVerifierKey(text: string): { name: string; keyId: Uint8Array; publicKey: Uint8Array } | null {
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(text.trim());
  if (!m) return null;
  let tagged: Uint8Array;
  try {
    tagged = unb64(m[3]!);
  } catch {
    return null;
  }
  if (tagged.byteLength !== 33 || tagged[0] !== 1) return null;
  const keyId = Uint8Array.from(m[2]!.match(/../g)!, (h) => Number.parseInt(h, 16));
  return { name: m[1]!, keyId, publicKey: tagged.slice(1) };
}

export { b64 as base64, unb64 as unbase64 };
