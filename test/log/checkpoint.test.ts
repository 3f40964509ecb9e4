import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkpointText, parseCheckpoint, signNote } from "../../core/log/checkpoint.ts";
import { generateNoteKey, noteSigner, verifyNote } from "../../app/note-signer.ts";

const root = new Uint8Array(createHash("sha256").update("a tree").digest());

/**
 * An independent check of a signed note, in Python with the `cryptography` package (Debian's
 * python3-cryptography), following the C2SP signed-note text format.
 */
const PYTHON_VERIFY = `
import base64, hashlib, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
note, vkey = sys.stdin.read().split("\\x00")
name, keyid_hex, key_b64 = vkey.strip().split("+", 2)
tagged = base64.b64decode(key_b64)
assert tagged[0] == 1 and len(tagged) == 33
pub = tagged[1:]
assert hashlib.sha256(name.encode() + b"\\n\\x01" + pub).digest()[:4].hex() == keyid_hex
text, sigs = note.split("\\n\\n", 1)
text += "\\n"
ok = False
for line in sigs.splitlines():
    if not line.startswith("\\u2014 "): continue
    _, who, blob = line.split(" ")
    blob = base64.b64decode(blob)
    if who == name and blob[:4].hex() == keyid_hex:
        Ed25519PublicKey.from_public_bytes(pub).verify(blob[4:], text.encode())
        ok = True
print("VALID" if ok else "NO SIGNATURE")
`;

function pythonVerify(note: string, verifierKey: string): string {
  return execFileSync("/usr/bin/python3", ["-c", PYTHON_VERIFY], { input: `${note}\u0000${verifierKey}` })
    .toString()
    .trim();
}

describe("checkpoints (C2SP tlog-checkpoint and signed note)", () => {
  const checkpoint = { origin: "risques.example.org/frames", size: 42, root, extensions: ["frame 000042-x abc"] };

  it("writes the three lines and extensions, and reads them back", () => {
    const text = checkpointText(checkpoint);
    expect(text).toBe(`risques.example.org/frames\n42\n${Buffer.from(root).toString("base64")}\nframe 000042-x abc\n`);
    const parsed = parseCheckpoint(text);
    expect(parsed.checkpoint).toEqual(checkpoint);
    expect(parsed.signatures).toEqual([]);
  });

  it("signs with an Ed25519 key that an independent implementation verifies", () => {
    const key = generateNoteKey("risques.example.org/frames");
    const signer = noteSigner(key.privateKey);
    expect(signer.verifierKey).toBe(key.verifierKey);
    const note = signNote(checkpointText(checkpoint), [signer]);
    expect(note).toMatch(/\n\n— risques\.example\.org\/frames [A-Za-z0-9+/]+=*\n$/);
    const parsed = parseCheckpoint(note);
    expect(verifyNote(parsed.text, parsed.signatures, key.verifierKey)).toBe(true);
    expect(pythonVerify(note, key.verifierKey)).toBe("VALID");
    // Another key, or a changed size, does not verify.
    expect(verifyNote(parsed.text, parsed.signatures, generateNoteKey("risques.example.org/frames").verifierKey)).toBe(
      false,
    );
    const forged = parseCheckpoint(note.replace("\n42\n", "\n43\n"));
    expect(verifyNote(forged.text, forged.signatures, key.verifierKey)).toBe(false);
    expect(() => pythonVerify(note.replace("\n42\n", "\n43\n"), key.verifierKey)).toThrow();
  });

  it("refuses malformed checkpoints and keys without quoting a key", () => {
    for (const bad of ["", "origin\n", "origin\n-1\nAAAA\n", "origin\n12\nnot base64!\n", `o\n1\n${"A".repeat(8)}\n`])
      expect(() => parseCheckpoint(bad)).toThrow();
    expect(() => noteSigner("PRIVATE+KEY+x+00000000+secret-looking-text")).toThrow(/not a note private key/);
    try {
      noteSigner("PRIVATE+KEY+x+00000000+secret-looking-text");
    } catch (e) {
      expect(String(e)).not.toContain("secret-looking-text");
    }
  });
});
