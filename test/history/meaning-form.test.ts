/**
 * The form meaning is compared on in the object manifest (its `semanticSha256`): every string
 * NFC-normalised, each run of white space one space, none at either end. The function skips the
 * copy for strings already in that form, and returns a value already in that form itself (the
 * manifest then takes its exact hash as its semantic one); this holds it to the plain definition.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalised } from "../../core/changes/objects.ts";
import { collapseSpaces } from "../../core/render/text.ts";

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

  it("is the value itself when nothing in it changes, and a copy that leaves the value alone otherwise", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.array(piece, { maxLength: 6 }), (a, b) => {
        const value = { k: [a.join(""), { n: b.join(""), u: undefined }], m: a.join("") };
        const before = JSON.stringify(value);
        const form = normalised(value);
        expect(JSON.stringify(value)).toBe(before);
        expect(JSON.stringify(form)).toBe(
          JSON.stringify(JSON.parse(before), (_k, v) => (typeof v === "string" ? plain(v) : v)),
        );
        const settled = normalised(form);
        expect(settled === form).toBe(!("u" in (form as { k: [string, object] }).k[1]));
      }),
      { numRuns: 2000 },
    );
    const clean = { title: "déjà vu", tags: ["a b"], nested: { n: 1, t: true, z: null } };
    expect(normalised(clean)).toBe(clean);
    expect(normalised(clean.tags)).toBe(clean.tags);
  });

  it("keeps a __proto__ key as data, as canonical JSON writes it", () => {
    const value = JSON.parse('{"__proto__":{"a":"x  y"},"b":"c"}');
    const form = normalised(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(form)).toBe(Object.prototype);
    expect(Object.hasOwn(form, "__proto__")).toBe(true);
    expect(JSON.stringify(form)).toBe('{"__proto__":{"a":"x y"},"b":"c"}');
  });
});

describe("collapsing white space", () => {
  it("gives what replacing every run of white space by one space and trimming gives", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (parts) => {
        const s = parts.join("");
        expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, " ").trim());
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, " ").trim());
      }),
      { numRuns: 2000 },
    );
  });
});
