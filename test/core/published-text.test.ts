import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvField } from "../../core/render/text.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { assembleInto } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

/** The text a spreadsheet sees in a field, once CSV quoting is undone. */
const unquote = (field: string) => (field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field);

describe("CSV cells a spreadsheet would run", () => {
  it("neutralises text starting with =, +, -, @, a tab or a carriage return, and keeps numbers numbers", () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("-cmd")).toBe("'-cmd");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField("\tx")).toBe("'\tx");
    expect(csvField(-1.5)).toBe("-1.5");
    expect(csvField("nominal")).toBe("nominal");
    fc.assert(
      fc.property(fc.string(), (s) => {
        const seen = unquote(csvField(s));
        expect(/^[=+\-@\t\r]/.test(seen)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe("one-line fields of the corpus", () => {
  const pubWith = (f: (t: string) => string) => {
    const pub = join(tempDir("risk-text-"), "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const file = join(pub, "content/articles/fr/carry-trade-yen-boj.md");
    writeFileSync(file, f(readFileSync(file, "utf8")));
    return pub;
  };
  it("refuses a title with a line break (it would inject a section into llms-full.txt), naming file, line and field", () => {
    const pub = pubWith((t) => t.replace(/^title: .*$/m, 'title: "Titre\\n## Injected\\n- [x](javascript:alert(1))"'));
    const r = runCli(["lint", "--publication", pub]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/carry-trade-yen-boj\.md:2 \(field title\): .*remove line breaks/);
  });
  it("refuses NUL, BEL and ESC in a description", () => {
    for (const c of ["\\u0000", "\\u0007", "\\u001b"]) {
      const pub = pubWith((t) => t.replace(/^description: "/m, `description: "x${c}`));
      const r = runCli(["lint", "--publication", pub]);
      expect(r.status, c).toBe(3);
      expect(r.stderr).toMatch(/field description/);
    }
  });
});

describe("llms.txt stays under 64 KB whatever one document holds", () => {
  it("shortens a 100 KB description to one line of the map instead of failing the assembly", async () => {
    const { cpSync: cp, readFileSync: read, writeFileSync: write } = await import("node:fs");
    const pub = join(tempDir("risk-llms-"), "pub");
    cp(join(ROOT, "demo"), pub, { recursive: true });
    const file = join(pub, "content/articles/fr/carry-trade-yen-boj.md");
    write(file, read(file, "utf8").replace(/^description: .*$/m, `description: "${"mot ".repeat(25_000)}"`));
    const r = assembleInto(pub, "2026-11-21T10:00:00Z");
    expect(r.status, r.stderr).toBe(0);
    const llms = read(`${r.site}/llms.txt`);
    expect(llms.byteLength).toBeLessThan(64 * 1024);
    expect(llms.toString()).toMatch(/Carry trade sur le yen[^\n]*: 2026-08-18\. (mot ){10}[^\n]*…\n/);
  });
});
