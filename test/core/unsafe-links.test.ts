import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withoutUnsafeLinks } from "../../core/editorial/links.ts";
import { runCli } from "../helpers/cli.ts";
import { expectLinear } from "../helpers/linear.ts";
import { assembleInto, demoCopy } from "../helpers/publication.ts";

const HOSTILE = [
  "---",
  'title: "Titre [lien](javascript:alert(3)) <script>alert(4)</script>"',
  'description: "Voir [ici](javascript:alert(2)) et <img src=x onerror=alert(1)>"',
  "date: 2026-08-20",
  "topics: [banques-centrales]",
  "---",
  "",
  "Un [x](javascript:alert(1)) et ![y](javascript:alert(5)) et [z](JaVaScRiPt:alert(6)) et [r][ref] puis [w](data:text/html;base64,PHNjcmlwdD4=) et [e](javascript&#58;alert(1)).",
  "",
  "Une note[^1] et [c](java<!-- -->script:alert(8)) le 2026-07-31 selon la [BoJ](https://www.boj.or.jp/x), 3 %.",
  "",
  "[ref]: javascript:alert(2)",
  "",
  "[^1]: Voir [n](javascript:alert(7)).",
  "",
].join("\n");

describe("javascript: and data: links in an article", () => {
  it("keep their text and lose their address, whatever their case, entities, nesting or form", () => {
    const body = [
      '[a](javascript:alert(1)) ![b](JaVaScRiPt:x) [c](javascript&#58;x) [d](javascript&colon;x) [e]( <data:text/html,x> "t")',
      "[f ![g](javascript:x)](javascript:y) <javascript:alert(1)> [h](vbscript:x)",
      "[ok](https://example.org/a(b)) [rel](/x) [mail](mailto:a@b.c)",
      "",
      "[r]: javascript:alert(2)",
      '[s]: <data:text/html,x> "title"',
    ].join("\n");
    const { text, found } = withoutUnsafeLinks(body);
    expect(text.split("\n")).toHaveLength(body.split("\n").length);
    expect(text).not.toMatch(/javascript|data:|vbscript|colon|&#58;/i);
    expect(text.split("\n")[0]).toBe("a b c d e");
    expect(text.split("\n")[1]).toBe("f g  h");
    expect(text.split("\n")[2]).toBe("[ok](https://example.org/a(b)) [rel](/x) [mail](mailto:a@b.c)");
    expect(found.map((f) => f.line).sort()).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 5, 6]);
  });

  it("read a flood of unsafe links, brackets or unclosed addresses in linear time", () => {
    expectLinear("[x](javascript:a) ", (s) => withoutUnsafeLinks(s));
    expectLinear("](javascript:a) ", (s) => withoutUnsafeLinks(s));
    expectLinear("[", (s) => withoutUnsafeLinks(`${s}](javascript:`));
    expectLinear("[r]: javascript:x\n", (s) => withoutUnsafeLinks(s));
  });

  it("never reach llms.txt or llms-full.txt as links, nor titles and descriptions as HTML; lint names file, line and field", () => {
    const pub = demoCopy();
    writeFileSync(join(pub, "content/articles/fr/hostile.md"), HOSTILE);
    const r = assembleInto(pub, "2026-08-21T10:00:00Z");
    expect(r.status, r.stderr).toBe(0);
    const read = (path: string) => readFileSync(join(r.site, path), "utf8");
    for (const path of ["/llms.txt", "/llms-full.txt"]) {
      const text = read(path);
      expect(text, path).not.toMatch(/javascript|data:text|<script|onerror|alert\(/i);
    }
    expect(read("/llms.txt")).toContain(
      "- [Titre lien](https://risques.example.org/articles/hostile/): 2026-08-20. Voir ici et\n",
    );
    const full = read("/llms-full.txt");
    expect(full).toContain("### Titre lien\n");
    expect(full).toContain("Résumé : Voir ici et\n");
    expect(full).toContain("Un x et y et z et [r][ref] puis w et e.");
    expect(full).toContain("Note 1 : Voir n.");
    for (const path of ["/api/v1/claims.json", "/api/v1/evidence-graph.json"])
      expect(read(path), path).not.toMatch(/articles\/hostile\/javascript|&#58;/);
    const lint = runCli(["lint", "--publication", pub]);
    const warnings = lint.stderr.split("\n").filter((l) => l.includes("[unsafe-link]"));
    expect(warnings.some((l) => l.startsWith("warning: content/articles/fr/hostile.md:2 (field title)"))).toBe(true);
    expect(warnings.some((l) => l.startsWith("warning: content/articles/fr/hostile.md:3 (field description)"))).toBe(
      true,
    );
    for (const line of [8, 12, 14])
      expect(warnings.some((l) => l.startsWith(`warning: content/articles/fr/hostile.md:${line} (field (body))`))).toBe(
        true,
      );
  });
});
