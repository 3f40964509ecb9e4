import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  decodeSha256State,
  encodeSha256State,
  sha256Digest,
  sha256Start,
  sha256Update,
} from "../../core/journal/sha256.ts";
import { csvField, xmlText } from "../../core/render/text.ts";

const reference = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("the resumable SHA-256", () => {
  it("gives node:crypto's digest for every length around the block and padding boundaries", () => {
    for (let n = 0; n <= 200; n++) {
      const bytes = randomBytes(n);
      expect(sha256Digest(sha256Update(sha256Start(), bytes)), `length ${n}`).toBe(reference(bytes));
    }
  });

  it("gives the same digest when fed in pieces through an encoded state, as frames carry it", () => {
    const pieces = Array.from({ length: 40 }, (_, i) => randomBytes((i * 37) % 181));
    let encoded = encodeSha256State(sha256Start());
    for (const piece of pieces) encoded = encodeSha256State(sha256Update(decodeSha256State(encoded), piece));
    expect(sha256Digest(decodeSha256State(encoded))).toBe(reference(Buffer.concat(pieces)));
  });

  it("refuses a state whose pending bytes do not match its length", () => {
    expect(() => decodeSha256State(`${"0".repeat(64)}.ab.2`)).toThrow(/leaves 2 pending bytes, not 1/);
  });
});

describe("CSV and XML text", () => {
  it("csvField() quotes commas, quotes and line breaks, and strips other control characters", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField("a\r\nb")).toBe('"a\r\nb"');
    expect(csvField("a\u0000\u001fb\u007f")).toBe("ab");
    expect(csvField(null)).toBe("");
    expect(csvField(false)).toBe("false");
    expect(csvField(52.5)).toBe("52.5");
  });

  it("xmlText() escapes markup and removes characters XML 1.0 cannot carry, lone surrogates included", () => {
    expect(xmlText(`<a href="x">&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    expect(xmlText("a\u0000\u0008\u000b\ufffeb\ud800c\tend")).toBe("abc\tend");
    expect(xmlText("\ud83d\ude00")).toBe("\ud83d\ude00");
  });
});
