import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePublication, readPublicationFiles } from "../../core/inputs/publication.ts";
import { isRiskError } from "../../core/errors.ts";
import { nodeFs } from "../../cli/runtime/node.ts";
import { at } from "../helpers/archive.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { assembleInto } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

function copyDemo(): string {
  const pub = join(tempDir("risk-hostile-"), "pub");
  cpSync(join(ROOT, "demo"), pub, { recursive: true });
  return pub;
}
const FIRST_FR = "content/articles/fr/carry-trade-yen-boj.md";
const edit = (pub: string, rel: string, f: (t: string) => string) =>
  writeFileSync(join(pub, rel), f(readFileSync(join(pub, rel), "utf8")));
const lint = (pub: string) => runCli(["lint", "--publication", pub]);

describe("hostile publication files get exit 3 naming the file, never 70", () => {
  it("refuses invalid UTF-8, naming the file and the line", () => {
    const pub = copyDemo();
    const text = readFileSync(join(pub, FIRST_FR));
    writeFileSync(
      join(pub, FIRST_FR),
      Buffer.concat([text.subarray(0, 300), Buffer.from([0xff, 0xfe]), text.subarray(300)]),
    );
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`${FIRST_FR}:\\d+: it is not valid UTF-8`));
    expect(r.stderr).not.toContain(pub);
  });

  it("refuses a YAML alias bomb", () => {
    const pub = copyDemo();
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    writeFileSync(join(pub, "content/topics.yaml"), `${bomb.join("\n")}\n`);
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("content/topics.yaml");
    expect(r.stderr).toMatch(/aliases/);
  });

  it("refuses a file over the size limit before reading it whole", () => {
    const pub = copyDemo();
    edit(pub, FIRST_FR, (t) => t + "x".repeat(5 * 1024 * 1024));
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/over the \d+-byte limit/);
  });

  it("refuses a device name as a series id, and one series id for two instruments", () => {
    const pub = copyDemo();
    edit(pub, "risk.config.yaml", (t) => t.replace("seriesId: us-financial-stress", "seriesId: nul"));
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/risk\.config\.yaml:\d+ \(field instruments\.us\.seriesId\).*Windows reserves/);
    const pub2 = copyDemo();
    const config = readFileSync(join(pub2, "risk.config.yaml"), "utf8");
    const euSeries = /eu:[\s\S]*?seriesId: (\S+)/.exec(config)![1]!;
    edit(pub2, "risk.config.yaml", (t) => t.replace("seriesId: us-financial-stress", `seriesId: ${euSeries}`));
    const r2 = lint(pub2);
    expect(r2.status).toBe(3);
    expect(r2.stderr).toMatch(/instruments\.eu\.seriesId.*also the seriesId of instrument us/);
  });

  it("refuses a staleAfter beyond ten years and a scale near the largest number, naming the config's line and field", () => {
    for (const [from, to, field, said] of [
      ["staleAfter: PT24H", "staleAfter: P100000000D", "staleAfter", "at most ten years (P3660D)"],
      ["staleAfter: PT24H", "staleAfter: P3661D", "staleAfter", "at most ten years (P3660D)"],
      ["scale: 100", "scale: 1e308", "scale", "at most 1,000,000,000"],
    ] as const) {
      const pub = copyDemo();
      edit(pub, "risk.config.yaml", (t) => t.replace(from, to));
      for (const r of [
        lint(pub),
        runCli(["assemble", "--publication", pub, "--site", `${pub}/../site`, "--archive", `${pub}/../a.git`]),
      ]) {
        expect(r.status, `${to}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toMatch(
          new RegExp(
            `risk\\.config\\.yaml:\\d+ \\(field instruments\\.\\w+\\.${field}\\): ${said.replace(/[()]/g, "\\$&")}`,
          ),
        );
      }
    }
  });

  it("refuses a claim reviewed twice and a reproduction artifact that is no web address, naming the entry's line", () => {
    const twice = copyDemo();
    edit(
      twice,
      "content/claim-reviews.yaml",
      (t) =>
        `${t}  - claimId: dette-americaine-plafond-2026#plafond-2026\n    reviewedAt: 2026-11-03T10:00:00Z\n    reviewedBy: X\n    note: second\n    kind: estimation\n`,
    );
    const r = lint(twice);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /content\/claim-reviews\.yaml:\d+ \(field entries\.3\.claimId\): "dette-americaine-plafond-2026#plafond-2026" is reviewed a second time \(first in entry 1\)/,
    );
    for (const artifact of ["javascript:alert(1)", "file:///etc/passwd", "notebook.ipynb"]) {
      const pub = copyDemo();
      edit(pub, "content/claim-reviews.yaml", (t) =>
        t.replace(/reproductionArtifact: \S+/, `reproductionArtifact: "${artifact}"`),
      );
      const bad = lint(pub);
      expect(bad.status, artifact).toBe(3);
      expect(bad.stderr).toMatch(
        /\(field entries\.2\.reproductionArtifact\): an http\(s\) URL or a path starting with \//,
      );
    }
  });

  it("refuses a key written twice in one object of a JSON registry, as in YAML", () => {
    const pub = copyDemo();
    rmSync(join(pub, "content/topics.yaml"));
    writeFileSync(
      join(pub, "content/topics.json"),
      '[\n  {"slug": "dette-publique", "label": "Dette publique",\n   "label": "OVERRIDDEN", "blurb": "b"}\n]\n',
    );
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(
      "content/topics.json:3 (field label): the key is written twice in one object, and JSON keeps the last value silently; keep one",
    );
  });

  it("names an article that is a FIFO instead of passing over it", () => {
    const pub = copyDemo();
    execFileSync("mkfifo", [join(pub, "content/articles/fr/en-attente.md")]);
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("content/articles/fr/en-attente.md: it is not a regular file");
  });

  it("names an unreadable file inside the publication (EACCES), never its absolute path", async () => {
    const pub = copyDemo();
    const denied = {
      ...nodeFs,
      readText: async (path: string) => {
        if (path.endsWith("glossary.yaml"))
          throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: "EACCES" });
        return nodeFs.readText(path);
      },
    };
    await expect(readPublicationFiles(denied, pub)).rejects.toMatchObject({
      code: "E_INPUT",
      data: { file: "content/glossary.yaml" },
      message: expect.stringMatching(/permission denied; make it readable/),
    });
  });
});

describe("local upstream sources that never end", () => {
  it("falls back on a FIFO and on /dev/zero instead of hanging or filling memory", () => {
    const pub = copyDemo();
    const fifo = join(pub, "upstream/fifo.json");
    execFileSync("mkfifo", [fifo]);
    edit(pub, "risk.config.yaml", (t) =>
      t
        .replace("source: upstream/us.json", "source: upstream/fifo.json")
        .replace("source: upstream/eu.json", "source: /dev/zero"),
    );
    const r = assembleInto(pub, at(0), ["--json"]);
    expect(r.status, r.stderr).toBe(0);
    const current = readFileSync(`${r.site}/api/v1/signals/current.json`, "utf8");
    expect(current).toContain("upstream/fifo.json: the file is not a regular file");
    expect(current).toContain("(zero): the file is not a regular file");
  });
});

describe("any frontmatter is read or refused with exit 3, never a crash", () => {
  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
  );
  const key = fc.constantFrom(
    "title",
    "description",
    "date",
    "updated",
    "tags",
    "topics",
    "translationOf",
    "__proto__",
    "constructor",
    "x",
  );
  it("over 150 random frontmatters of the first article", async () => {
    const pub = copyDemo();
    const base = await readPublicationFiles(nodeFs, pub);
    const original = base.files.get(FIRST_FR)!;
    const body = original.slice(original.indexOf("\n---", 3) + 4);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 6 }), async (front) => {
        const yaml = Object.entries(front)
          .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
          .join("\n");
        const files = new Map(base.files);
        files.set(FIRST_FR, `---\n${yaml}\n---${body}`);
        try {
          parsePublication({ root: pub, files });
        } catch (e) {
          expect(isRiskError(e), String(e)).toBe(true);
          expect((e as { code: string }).code).toBe("E_INPUT");
          expect((e as Error).message).toContain(FIRST_FR);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("symbolic links leading out of the publication", () => {
  it("are refused for a registry (exit 3, nothing of the target quoted) and for an upstream file (fallback)", async () => {
    const { symlinkSync, rmSync: rm } = await import("node:fs");
    const pub = copyDemo();
    const secret = join(tempDir("risk-secret-"), "secrets.yaml");
    writeFileSync(secret, "- slug: x\n  name: TOP-SECRET-VALUE\n");
    rm(join(pub, "content/glossary.yaml"));
    symlinkSync(secret, join(pub, "content/glossary.yaml"));
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("content/glossary.yaml");
    expect(r.stderr).toContain("symbolic link leading out of the publication");
    expect(r.stderr).not.toContain("TOP-SECRET-VALUE");
    const pub2 = copyDemo();
    const outside = join(tempDir("risk-out-"), "us.json");
    writeFileSync(outside, readFileSync(join(pub2, "upstream/us.json")));
    rm(join(pub2, "upstream/us.json"));
    symlinkSync(outside, join(pub2, "upstream/us.json"));
    const a = assembleInto(pub2, at(0));
    expect(a.status, a.stderr).toBe(0);
    expect(readFileSync(`${a.site}/api/v1/signals/current.json`, "utf8")).toContain(
      "upstream/us.json: a symbolic link leading out of the publication",
    );
  });

  it("name the folder that is the link when a content folder leads out of the publication", async () => {
    const { symlinkSync, rmSync: rm } = await import("node:fs");
    const pub = copyDemo();
    const elsewhere = join(tempDir("risk-out-"), "fr");
    cpSync(join(pub, "content/articles/fr"), elsewhere, { recursive: true });
    rm(join(pub, "content/articles/fr"), { recursive: true });
    symlinkSync(elsewhere, join(pub, "content/articles/fr"));
    const r = lint(pub);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(
      "its folder content/articles/fr is a symbolic link leading out of the publication; copy the folder into it instead",
    );
    expect(r.stderr).not.toContain(elsewhere);
  });
});

describe("any registry is read or refused with exit 3, never a crash", () => {
  it("over 150 random glossaries and topic lists", async () => {
    const pub = copyDemo();
    const base = await readPublicationFiles(nodeFs, pub);
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    const entry = fc.dictionary(
      fc.constantFrom("slug", "name", "sigle", "definition", "category", "guide", "atlas", "title", "__proto__"),
      value,
      { maxKeys: 6 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("content/glossary.yaml", "content/topics.yaml"),
        fc.oneof(fc.array(entry, { maxLength: 3 }), value),
        async (rel, doc) => {
          const files = new Map(base.files);
          files.set(rel, JSON.stringify(doc));
          try {
            parsePublication({ root: pub, files });
          } catch (e) {
            expect(isRiskError(e), String(e)).toBe(true);
            expect((e as { code: string }).code).toBe("E_INPUT");
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
