import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  appendToEdge,
  consistencyProof,
  fromHex,
  inclusionProof,
  leafHash,
  rootOf,
  rootOfEdge,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "../../core/log/merkle.ts";

const sha = (d: Uint8Array) => new Uint8Array(createHash("sha256").update(d).digest());

// The test vectors of RFC 6962's reference implementation (certificate-transparency).
const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(
  (h) => leafHash(sha, fromHex(h)),
);
const ROOTS = [
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const INCLUSION: [number, number, string[]][] = [
  [0, 1, []],
  [
    0,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    5,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
];
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [
    2,
    5,
    [
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];

describe("the Merkle log (RFC 6962 hashing)", () => {
  it("gives the reference roots, inclusion paths and consistency proofs", () => {
    expect(toHex(rootOf(sha, []))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    for (let n = 1; n <= 8; n++) expect(toHex(rootOf(sha, LEAVES.slice(0, n)))).toBe(ROOTS[n - 1]);
    for (const [i, n, path] of INCLUSION) {
      expect(inclusionProof(sha, i, LEAVES.slice(0, n)).map(toHex)).toEqual(path);
      expect(verifyInclusion(sha, LEAVES[i]!, i, n, path.map(fromHex), fromHex(ROOTS[n - 1]!))).toBe(true);
    }
    for (const [m, n, proof] of CONSISTENCY) {
      expect(consistencyProof(sha, m, LEAVES.slice(0, n)).map(toHex)).toEqual(proof);
      expect(verifyConsistency(sha, m, n, proof.map(fromHex), fromHex(ROOTS[m - 1]!), fromHex(ROOTS[n - 1]!))).toBe(
        true,
      );
    }
  });

  const leavesArb = fc
    .integer({ min: 1, max: 70 })
    .map((n) => Array.from({ length: n }, (_, i) => leafHash(sha, new TextEncoder().encode(`frame ${i}`))));

  it("every inclusion and consistency proof verifies, for random sizes", () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const n = leaves.length;
        const i = a % n;
        const m = b % (n + 1);
        const root = rootOf(sha, leaves);
        expect(verifyInclusion(sha, leaves[i]!, i, n, inclusionProof(sha, i, leaves), root)).toBe(true);
        const proof = consistencyProof(sha, m, leaves);
        expect(verifyConsistency(sha, m, n, proof, rootOf(sha, leaves.slice(0, m)), root)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("every single-bit change to a proof, a root, or a leaf fails (sizes are bound by the signed checkpoint, not by the proof)", () => {
    const flip = (h: Uint8Array, bit: number) => {
      const c = new Uint8Array(h);
      c[bit >> 3]! ^= 1 << (bit & 7);
      return c;
    };
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 }), (leaves, a, b, bit) => {
        const n = leaves.length;
        const i = a % n;
        const m = 1 + (b % n);
        const root = rootOf(sha, leaves);
        const old = rootOf(sha, leaves.slice(0, m));
        const path = inclusionProof(sha, i, leaves);
        const proof = consistencyProof(sha, m, leaves);
        expect(verifyInclusion(sha, leaves[i]!, i, n, path, flip(root, bit))).toBe(false);
        expect(verifyInclusion(sha, flip(leaves[i]!, bit), i, n, path, root)).toBe(false);
        for (let k = 0; k < path.length; k++) {
          const bad = path.map((h, j) => (j === k ? flip(h, bit) : h));
          expect(verifyInclusion(sha, leaves[i]!, i, n, bad, root)).toBe(false);
        }
        if (m < n) {
          expect(verifyConsistency(sha, m, n, proof, flip(old, bit), root)).toBe(false);
          expect(verifyConsistency(sha, m, n, proof, old, flip(root, bit))).toBe(false);
          for (let k = 0; k < proof.length; k++) {
            const bad = proof.map((h, j) => (j === k ? flip(h, bit) : h));
            expect(verifyConsistency(sha, m, n, bad, old, root)).toBe(false);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("extends the root from the right edge alone, frame by frame", () => {
    let edge: Uint8Array[] = [];
    for (let n = 0; n < LEAVES.length; n++) {
      edge = appendToEdge(sha, edge, n, LEAVES[n]!);
      expect(toHex(rootOfEdge(sha, edge))).toBe(ROOTS[n]);
      expect(edge.length).toBe((n + 1).toString(2).replace(/0/g, "").length);
    }
  });
});
