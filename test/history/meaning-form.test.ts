/**
 * The form meaning is compared on in the object manifest (its `semanticSha256`): every string
 * NFC-normalised, each run of white space one space, none at either end. The function skips the
 * copy for strings already in that form; this holds it to the plain definition.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalised } from "../../core/changes/objects.ts";

const plain = (s: string) => s.normalize("NFC").replace(/\s+/gu, " ").trim();

// Letters, combining marks, every kind of white space JavaScript knows, and line separators.
const piece = fc.constantFrom(
  "a",
  "é",
  "e\u0301",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\u3000",
  "\ufeff",
  "\u200b",
  "x y",
  "Ω",
);

describe("the form meaning is compared on", () => {
  it("is each string NFC with its white space collapsed and trimmed, copied or not", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const s = parts.join("");
        expect(normalised(s)).toBe(plain(s));
        expect(normalised({ k: [s, { n: s }] })).toEqual({ k: [plain(s), { n: plain(s) }] });
      }),
      { numRuns: 3000 },
    );
    expect(normalised("déjà vu")).toBe("déjà vu");
    expect(normalised(" a\u00a0 b\n")).toBe("a b");
  });
});
