import { readdirSync, readFileSync } from "node:fs";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { restamp, stamp } from "../../core/canonical/stamp.ts";
import { serialiseDocument } from "../../core/render/encode.ts";
import type { Surface } from "../../core/surfaces/types.ts";

const vectors = new URL("../fixtures/rfc8785/", import.meta.url);

describe("canonicalJson", () => {
  const names = readdirSync(new URL("input/", vectors)).filter((n) => n.endsWith(".json"));

  it("has the RFC 8785 test vectors to check", () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  for (const name of names) {
    it(`gives the RFC 8785 output bytes for ${name}`, () => {
      const input = JSON.parse(readFileSync(new URL(`input/${name}`, vectors), "utf8"));
      const expected = readFileSync(new URL(`output/${name}`, vectors));
      expect(Buffer.from(canonicalJson(input), "utf8").equals(expected)).toBe(true);
    });
  }

  it("orders integer-like keys by code units too, as the canonicalize library does", () => {
    const docs: unknown[] = [
      { "10": 1, "2": 2, a: 3 },
      { "1": "x", "\r": "y" },
      { "0": 0, b: { "9": 9, "10": 10 } },
      { "7": 7, z: 1 },
      [{ "3": 3 }, JSON.parse(`{"__proto__": 1, "b": 2}`)],
    ];
    for (const doc of docs) expect(canonicalJson(doc)).toBe(canonicalize(doc));
  });

  it("agrees with the canonicalize library on mixed documents", () => {
    const doc = {
      z: [1, 1e21, 1e-7, -0, 0.1 + 0.2, "é", "\u0000\u001f\u007f", { "\u20ac": 1, "\ud83d\ude00": 2, a: null }],
      a: { b: true, B: false, "": "", "10": 10, "9": 9 },
      m: 'line\nbreak\t"quoted" \\ \u2028',
    };
    expect(canonicalJson(doc)).toBe(canonicalize(doc));
  });

  it("agrees with the canonicalize library whether objects come in code-unit order or not", () => {
    // Values in order are kept, not copied: sorted keys, integer-like keys, shared subtrees,
    // undefined members and `__proto__` keys must all come out as a full copy would write them.
    const key = fc.oneof(
      fc.constantFrom("a", "b", "B", "é", "", "1", "10", "9", "__proto__", "recordType", "\u20ac", "\ud83d\ude00"),
      fc.string({ maxLength: 4 }).filter((k) => k.isWellFormed()),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom(null, true, false, 0, -0, 1e21, 0.1, "x", "é\u2028"),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.array(fc.tuple(key, fc.oneof(tie("value"), fc.constant(undefined))), { maxLength: 5 }),
      ),
    }));
    // Arrays of pairs become objects, in their order or sorted: JSON.parse defines `__proto__` as data.
    const build = (v: unknown, sorted: boolean): unknown => {
      if (!Array.isArray(v)) return v;
      if (!v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string")) {
        return v.map((x) => build(x, sorted));
      }
      const pairs = (v as [string, unknown][]).map(([k, x]) => [k, build(x, sorted)] as const);
      if (sorted) pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const o: Record<string, unknown> = JSON.parse("{}");
      for (const [k, x] of pairs)
        Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
      return o;
    };
    fc.assert(
      fc.property(value, fc.boolean(), (v, sorted) => {
        const doc = build(v, sorted);
        expect(canonicalJson(doc)).toBe(canonicalize(doc));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses NaN and names the surface and the field", () => {
    expect(() => canonicalJson({ indices: { us: { value: NaN } } }, "/api/v1/risk.json")).toThrow(
      "Cannot serialise /api/v1/risk.json at $.indices.us.value: the number NaN is not finite",
    );
  });

  it("refuses Infinity in arrays with the index in the path", () => {
    expect(() => canonicalJson({ a: [1, -Infinity] }, "s")).toThrow("at $.a[1]: the number -Infinity is not finite");
  });

  it("refuses a lone surrogate in a value and in a key", () => {
    expect(() => canonicalJson({ title: "ab\ud800" }, "/x.json")).toThrow(
      "at $.title: a string holds a lone surrogate",
    );
    expect(() => canonicalJson({ ["k\udc00"]: 1 }, "/x.json")).toThrow("a key holds a lone surrogate");
  });

  it("refuses values JSON cannot carry", () => {
    expect(() => canonicalJson({ d: new Date(0) })).toThrow("a Date object is not JSON");
    expect(() => canonicalJson({ f: () => 1 })).toThrow("a function is not JSON");
    expect(() => canonicalJson([undefined])).toThrow("an array item is undefined");
  });

  it("omits undefined members as JSON.stringify does", () => {
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });
});

describe("stamped documents, served and stored", () => {
  const at = "2026-11-21T10:00:00Z";
  const surface = { path: "/doc.json" } as Surface;
  const cases = [
    { a: 1, generated: at, z: { generated: "nested stays" } },
    { generated: at },
    { generated: at, zz: [1, { "x,y": "}{" }] },
    { aa: '"generated":"no"', generated: at },
    { counts: { n: 1 }, 'gen"x': 2, generated: at, schema: "s" },
    { a: "ends with a backslash \\", b: ['\\"', "\\\\"], generated: at, z: "\\" },
    { a: "élevé « crise » 😀", généré: 1, generated: at, zz: "après" },
  ];
  for (const [i, doc] of cases.entries()) {
    it(`round-trips stamped document ${i + 1} byte for byte`, () => {
      const bytes = serialiseDocument(surface, doc, at);
      if (bytes.stored === null) throw new Error(`document ${i + 1} was not stamped`);
      const served = new TextDecoder().decode(bytes.served);
      const stored = new TextDecoder().decode(bytes.stored);
      expect(served).toBe(canonicalJson(doc));
      const { generated: _g, ...rest } = doc as Record<string, unknown>;
      expect(stored).toBe(canonicalJson(rest));
      expect(stamp(stored, at)).toBe(served);
      // The parts both are hashed from: their shared start, then each one's own end.
      const text = (parts: Uint8Array[]) => parts.map((p) => new TextDecoder().decode(p)).join("");
      const { prefix, served: servedTail, stored: storedTail } = bytes.branches;
      expect(text([...prefix, ...servedTail])).toBe(served);
      expect(text([...prefix, ...storedTail])).toBe(stored);
    });
  }

  it("restamps UTF-8 bytes in place, multi-byte characters included", () => {
    const doc = { a: 'élevé « crise » 😀 "generated":', generated: at, z: { generated: at } };
    const later = "2026-11-21T10:15:00Z";
    const moved = restamp(new TextEncoder().encode(canonicalJson(doc)), at, later);
    expect(new TextDecoder().decode(moved)).toBe(canonicalJson({ ...doc, generated: later }));
  });

  it("stores a document generated at another instant as it is served", () => {
    const doc = { a: 1, generated: "2026-01-01T00:00:00Z" };
    expect(serialiseDocument(surface, doc, at)).toEqual({
      served: new TextEncoder().encode(canonicalJson(doc)),
      stored: null,
    });
  });

  it("gives records serialised already their place, and reports a fault with its path from the top", () => {
    const doc = { z: 1, list: [{ b: 1, a: 2 }], nested: { item: { y: 1, x: "é" }, other: [3] }, generated: at };
    const given = new Map([
      ["list", canonicalJson(doc.list)],
      ["nested/item", canonicalJson(doc.nested.item)],
    ]);
    expect(new TextDecoder().decode(serialiseDocument(surface, doc, at, given).served)).toBe(canonicalJson(doc));
    const bad = { ...doc, nested: { ...doc.nested, other: [Number.NaN] } };
    expect(() => serialiseDocument(surface, bad, at, given)).toThrow(
      "Cannot serialise /doc.json at $.nested.other[0]: the number NaN is not finite",
    );
  });
});
