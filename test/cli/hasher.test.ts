import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeHasher } from "../../cli/runtime/node.ts";

/** SHA-256 of the parts one after the other, strings as UTF-8: the plain definition. */
const plain = (parts: readonly (string | Uint8Array)[]) => {
  const h = createHash("sha256");
  for (const part of parts) h.update(part);
  return h.digest("hex");
};

describe("the Node hasher", () => {
  it("hashes parts as their concatenation, whether joined in one shot or fed one by one", () => {
    const part = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.uint8Array({ maxLength: 64 }),
      // Over the joining bound: fed one by one.
      fc.constantFrom("é".repeat(70_000), "x".repeat(65_536), ""),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), (parts) => {
        expect(nodeHasher.sha256Parts(parts)).toBe(plain(parts));
      }),
      { numRuns: 2_000 },
    );
  });

  it("hashes a shared prefix once for several tails, each result that of the prefix followed by its tail", () => {
    const parts = fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 4 });
    fc.assert(
      fc.property(parts, fc.array(parts, { minLength: 1, maxLength: 3 }), (prefix, tails) => {
        expect(nodeHasher.sha256Branches(prefix, tails)).toEqual(tails.map((tail) => plain([...prefix, ...tail])));
      }),
      { numRuns: 1_000 },
    );
  });

  it("hashes bytes as createHash does, a lone surrogate in a text part as its replacement character", () => {
    const bytes = new TextEncoder().encode("février");
    expect(nodeHasher.sha256(bytes)).toBe(plain([bytes]));
    expect(nodeHasher.sha256Parts(["a\uD800b"])).toBe(plain(["a\uFFFDb"]));
    expect(nodeHasher.sha256Parts([])).toBe(plain([""]));
  });
});
