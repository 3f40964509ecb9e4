import { describe, expect, it } from "vitest";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { readKept } from "../../app/kept-entries.ts";
import { fileMemo } from "../../app/memo.ts";
import { VERSION } from "../../core/version.ts";
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

  it("keeps a kind it did not use, and drops what no assembly uses once it is worth a rewrite", () => {
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
    // "two" is no longer used but stays until enough such entries pile up.
    expect(readKept(`${dir}/risk-cli-memo.json`, VERSION).count).toBe(4);
    const c = fileMemo(dir, nodeHasher, { read: true });
    expect(c.remember("search-terms", ["one"], () => ["recomputed"])).toEqual(["x"]);
    expect(c.remember("plain-text", ["three"], () => "again")).toBe("3");
    for (let i = 0; i < 100; i++) c.remember("plain-text", [`edit ${i}`], () => String(i));
    c.save();
    // Appended: 104 entries on disk, 2 of them unused ("one", "two").
    expect(readKept(`${dir}/risk-cli-memo.json`, VERSION).count).toBe(104);
    // The next assembly uses 100 other entries: 103 unused, more than are worth keeping.
    const d = fileMemo(dir, nodeHasher, { read: true });
    for (let i = 0; i < 100; i++) d.remember("plain-text", [`other ${i}`], () => "new");
    d.save();
    const kept = readKept(`${dir}/risk-cli-memo.json`, VERSION);
    expect(kept.count).toBe(101);
    expect(kept.logBytes).toBeLessThan(200);
    const e = fileMemo(dir, nodeHasher, { read: true });
    expect(e.remember("plain-text", ["two"], () => "gone")).toBe("gone");
    expect(e.remember("search-terms", ["one"], () => ["recomputed"])).toEqual(["x"]);
  });

  it("appends what an edit adds instead of writing the whole memo, and survives a torn append", () => {
    const dir = tempDir("risk-memo-");
    const base = `${dir}/risk-cli-memo.json`;
    const a = fileMemo(dir, nodeHasher, { read: true });
    for (let i = 0; i < 500; i++) a.remember("plain-text", [`doc ${i}`], () => `text ${i}`.repeat(20));
    a.save();
    const baseBefore = readFileSync(base, "utf8");
    const b = fileMemo(dir, nodeHasher, { read: true });
    for (let i = 0; i < 500; i++) b.remember("plain-text", [i === 7 ? "doc 7 edited" : `doc ${i}`], () => "edited");
    b.save();
    expect(readFileSync(base, "utf8")).toBe(baseBefore);
    const log = readFileSync(`${dir}/risk-cli-memo.added.ndjson`, "utf8");
    expect(log.trim().split("\n")).toHaveLength(2);
    const c = fileMemo(dir, nodeHasher, { read: true });
    expect(c.remember("plain-text", ["doc 7 edited"], () => "computed again")).toBe("edited");
    // A killed append leaves half a line: it is ignored, and the next save writes the base again.
    appendFileSync(`${dir}/risk-cli-memo.added.ndjson`, '["plain-text","abc","half');
    const d = fileMemo(dir, nodeHasher, { read: true });
    expect(d.remember("plain-text", ["doc 7 edited"], () => "computed again")).toBe("edited");
    expect(d.remember("plain-text", ["doc 1"], () => "computed again")).toBe("text 1".repeat(20));
    d.save();
    expect(readFileSync(base, "utf8")).not.toBe(baseBefore);
    expect(readFileSync(`${dir}/risk-cli-memo.added.ndjson`, "utf8").trim().split("\n")).toHaveLength(1);
    // A log left from another generation (a crash between the two writes of a rewrite) is ignored.
    writeFileSync(
      `${dir}/risk-cli-memo.added.ndjson`,
      `${JSON.stringify({ tool: VERSION, generation: "old" })}\n["plain-text","x",1]\n`,
    );
    expect(readKept(base, VERSION).count).toBe(2);
  });

  it("rewrites a log that was emptied or left from another generation, instead of appending to it unread", () => {
    const dir = tempDir("risk-memo-");
    const log = `${dir}/risk-cli-memo.added.ndjson`;
    const a = fileMemo(dir, nodeHasher, { read: true });
    a.remember("plain-text", ["one"], () => "1");
    a.save();
    // Emptied (a truncated copy), or of the generation before (a run killed between writing the
    // base and starting its log): either way the log's header does not name the base's generation.
    for (const damage of [
      () => writeFileSync(log, ""),
      () => writeFileSync(log, `${JSON.stringify({ tool: VERSION, generation: "killed-before" })}\n`),
    ]) {
      damage();
      for (let edit = 0; edit < 3; edit++) {
        const b = fileMemo(dir, nodeHasher, { read: true });
        b.remember("plain-text", ["one"], () => "recomputed");
        b.remember("plain-text", [`edit ${edit}`], () => `e${edit}`);
        b.save();
        // What was saved is read back by the next run: never appended to a log no run reads.
        const c = fileMemo(dir, nodeHasher, { read: true });
        expect(c.remember("plain-text", [`edit ${edit}`], () => "lost")).toBe(`e${edit}`);
        expect(c.remember("plain-text", ["one"], () => "lost")).toBe("1");
      }
      expect(readFileSync(log, "utf8").length).toBeLessThan(400);
    }
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
