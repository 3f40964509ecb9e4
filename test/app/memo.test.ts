import { describe, expect, it } from "vitest";
import { fileMemo } from "../../app/memo.ts";
import { nodeHasher } from "../../cli/runtime/node.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("fileMemo()", () => {
  it("gives back what an earlier process computed for the same parts, and computes anything else", () => {
    const dir = tempDir("risk-memo-");
    const first = fileMemo(dir, nodeHasher, { read: true });
    expect(first.remember("plain-text", ["# Titre"], () => "Titre")).toBe("Titre");
    first.save();
    const second = fileMemo(dir, nodeHasher, { read: true });
    expect(second.remember("plain-text", ["# Titre"], () => "computed again")).toBe("Titre");
    expect(second.remember("plain-text", ["# Autre"], () => "Autre")).toBe("Autre");
    // Parts are told apart by their lengths too: ["ab", "c"] is not ["a", "bc"].
    expect(second.remember("k", ["ab", "c"], () => 1)).toBe(1);
    expect(second.remember("k", ["a", "bc"], () => 2)).toBe(2);
  });

  it("drops what the last assembly did not use of a kind it used, and keeps a kind it did not use", () => {
    const dir = tempDir("risk-memo-");
    const a = fileMemo(dir, nodeHasher, { read: true });
    a.remember("plain-text", ["one"], () => "1");
    a.remember("plain-text", ["two"], () => "2");
    a.remember("search-terms", ["one"], () => ["x"]);
    a.save();
    const b = fileMemo(dir, nodeHasher, { read: true });
    b.remember("plain-text", ["one"], () => "recomputed");
    b.remember("plain-text", ["three"], () => "3");
    b.save();
    const c = fileMemo(dir, nodeHasher, { read: true });
    expect(c.remember("plain-text", ["two"], () => "gone")).toBe("gone");
    expect(c.remember("search-terms", ["one"], () => ["recomputed"])).toEqual(["x"]);
  });

  it("reads nothing with read: false, and still saves what it computed", () => {
    const dir = tempDir("risk-memo-");
    const a = fileMemo(dir, nodeHasher, { read: true });
    a.remember("plain-text", ["one"], () => "1");
    a.save();
    const off = fileMemo(dir, nodeHasher, { read: false });
    expect(off.remember("plain-text", ["one"], () => "fresh")).toBe("fresh");
    off.save();
    expect(fileMemo(dir, nodeHasher, { read: true }).remember("plain-text", ["one"], () => "again")).toBe("fresh");
  });
});
