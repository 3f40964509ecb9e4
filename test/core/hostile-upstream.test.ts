import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { duplicateKey } from "../../core/inputs/locate.ts";
import { adaptDocument, UpstreamError } from "../../core/inputs/upstream.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runCollect } from "../../cli/commands/collect.ts";
import { at } from "../helpers/archive.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

const demoReading = () => JSON.parse(readFileSync(join(ROOT, "demo/upstream/us.json"), "utf8"));
const demoDebt = () => JSON.parse(readFileSync(join(ROOT, "demo/upstream/debt-latest.json"), "utf8"));

describe("no upstream document can stop a publication", () => {
  it("any JSON document is a reading or an upstream error, never another failure", () => {
    const base = demoReading();
    const debt = demoDebt();
    const anyValue = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(
        "9999-12-31T23:59:59Z",
        "0000-01-01T00:00:00Z",
        "2030-01-01T00:00:00Z",
        "\ud800",
        "javascript:alert(1)",
        -1e308,
        1e308,
        -0,
      ),
    );
    const field = fc.constantFrom(...Object.keys(base), ...Object.keys(debt), "__proto__", "x");
    fc.assert(
      fc.property(fc.boolean(), field, anyValue, fc.jsonValue(), (isDebt, k, v, whole) => {
        for (const doc of [{ ...(isDebt ? debt : base), [k]: v }, whole]) {
          try {
            adaptDocument(isDebt ? "debt" : "us", "upstream/x.json", JSON.stringify(doc), "2026-11-21T12:00:00Z");
          } catch (e) {
            expect(e, String(e)).toBeInstanceOf(UpstreamError);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it("falls back, with an honest reason, on a far-future date, a reading from the future, a lone surrogate and a javascript: link", async () => {
    const dir = tempDir("risk-up-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const put = (file: string, doc: unknown) => writeFileSync(join(pub, "upstream", file), JSON.stringify(doc));
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, publication: pub, json: true };
    await runAssemble({ ...paths, now: at(0) });
    put("us.json", { ...demoReading(), publishedAt: "9999-12-31T23:59:59Z" });
    put("eu.json", {
      ...JSON.parse(readFileSync(join(pub, "upstream/eu.json"), "utf8")),
      publishedAt: "2030-01-01T00:00:00Z",
    });
    put("yen.json", { ...JSON.parse(readFileSync(join(pub, "upstream/yen.json"), "utf8")), rawUnit: "\ud800" });
    const debt = demoDebt();
    put("debt-latest.json", { ...debt, sources: [{ name: "x", url: "javascript:alert(1)" }] });
    const summary = await runAssemble({ ...paths, now: at(15) });
    const current = JSON.parse(readFileSync(`${dir}/site/api/v1/signals/current.json`, "utf8"));
    const text = JSON.stringify(current);
    expect(text).not.toContain("javascript:");
    const byKey = Object.fromEntries(summary.signals.map((s) => [s.instrument, s]));
    for (const key of ["us", "eu", "yen", "debt"]) {
      expect(byKey[key]!.sourceStatus, key).toBe("invalid-document");
      expect(byKey[key]!.fallbackUsed, key).toBe(true);
    }
    expect(byKey.us!.reason).toMatch(/outside 1970\.\.2999/);
    expect(byKey.eu!.reason).toMatch(/after the collection.*never published as fresh/);
    expect(byKey.yen!.reason).toMatch(/lone surrogate/);
    expect(byKey.debt!.reason).toMatch(/field sources\.0\.url/);
    // The instrument that was fine is published fresh.
    expect(byKey.energie!.sourceStatus).toBe("ok");
  });

  it("keeps the value shown when the upstream serves an older copy, published before the reading already shown", async () => {
    const dir = tempDir("risk-up-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const put = (file: string, doc: unknown) => writeFileSync(join(pub, "upstream", file), JSON.stringify(doc));
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, publication: pub, json: true };
    const older = demoReading();
    put("us.json", { ...older, value: 80, publishedAt: "2026-11-21T09:00:00Z" });
    const debt = demoDebt();
    put("debt-latest.json", { ...debt, scoreRaw: 49, generatedAt: "2026-11-21T09:00:00Z" });
    await runAssemble({ ...paths, now: at(0) });
    // The older copies come back, as a cache in front of the upstreams would serve them.
    put("us.json", older);
    put("debt-latest.json", debt);
    const summary = await runAssemble({ ...paths, now: at(15) });
    const byKey = Object.fromEntries(summary.signals.map((s) => [s.instrument, s]));
    expect(byKey.us).toMatchObject({ value: 80, sourceStatus: "invalid-document", fallbackUsed: true });
    expect(byKey.us!.reason).toBe(
      "upstream/us.json: field publishedAt: 2026-11-21T05:30:00Z is before 2026-11-21T09:00:00Z, when the reading already published was; an older copy is never published as fresh",
    );
    expect(byKey.debt).toMatchObject({ value: 49, sourceStatus: "invalid-document", fallbackUsed: true });
    expect(byKey.debt!.reason).toMatch(
      /^upstream\/debt-latest\.json: field generatedAt: 2026-11-21T04:00:00Z is before/,
    );
    const history = JSON.parse(readFileSync(`${dir}/site/api/v1/signals/history.json`, "utf8"));
    expect(history.levelChanges).toEqual([]);
    // collect says what the next assembly would publish: the same refusal.
    const collected = await runCollect({ publication: pub, archive: paths.archive, now: at(30), json: true });
    expect(collected.instruments.find((i) => i.instrument === "us")).toMatchObject({
      sourceStatus: "invalid-document",
      fallbackUsed: true,
    });
    // A reading published at the same instant again is the same reading, taken as fresh.
    put("us.json", { ...older, value: 80, publishedAt: "2026-11-21T09:00:00Z" });
    const again = await runAssemble({ ...paths, now: at(45) });
    expect(again.signals.find((s) => s.instrument === "us")).toMatchObject({ sourceStatus: "ok", fallbackUsed: false });
  });
});

describe("a key given twice in an upstream document", () => {
  it("makes it an invalid document naming the key and line, never the last value published silently", () => {
    const text = JSON.stringify(demoReading(), null, 1).replace(/"value": ([^,\n]+),/, '"value": $1,\n "value": 99.9,');
    expect(() => adaptDocument("us", "upstream/us.json", text, "2026-11-21T12:00:00Z")).toThrow(
      /field value at line \d+: a key given twice in one object/,
    );
    // The same key in two objects, or spelled with an escape, is told apart rightly.
    expect(duplicateKey('{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}')).toBeNull();
    expect(duplicateKey('{"a":1,"b":"\\"a\\"","\\u0061":2}')).toEqual({ key: "a", line: 1 });
    expect(duplicateKey('{"a":[1,{"x":"}"}],\n"a":2}')).toEqual({ key: "a", line: 2 });
  });

  it("is never reported in a document JSON.stringify wrote, and always found once one is added", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), (doc) => {
        const text = JSON.stringify(doc);
        expect(duplicateKey(text)).toBeNull();
        const key = Object.keys(doc)[0]!;
        expect(duplicateKey(`${text.slice(0, -1)},${JSON.stringify(key)}:null}`)?.key).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("what a third party wrote, in the terminal and the CI log", () => {
  it("never reaches stderr or stdout raw: no escape sequence, no carriage return, no line a CI runner reads as a command", () => {
    const dir = tempDir("risk-up-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const hostile =
      "\u001b]0;pwned\u0007\u001b[2J\r\n::add-mask::31.4\nerror: content/x.md:1 (field title): FORGED\u202e\u2028\u0085";
    writeFileSync(join(pub, "upstream/us.json"), JSON.stringify({ ...demoReading(), [hostile]: 1 }));
    const paths = ["--publication", pub, "--archive", `${dir}/archive.git`];
    let minute = 0;
    for (const actions of ["", "true"])
      for (const json of [[], ["--json"]])
        for (const args of [
          ["assemble", ...paths, "--site", `${dir}/site`, "--now", at((minute += 15))],
          ["collect", ...paths, "--now", at((minute += 15))],
          ["lint", "--publication", pub],
        ]) {
          const what = `${args[0]} ${json.join("")} ${actions ? "in GitHub Actions" : ""}`;
          const r = runCli([...args, ...json], { env: { GITHUB_ACTIONS: actions, GITHUB_WORKSPACE: dir } });
          expect([0, 1], `${what}: ${r.stderr}`).toContain(r.status);
          for (const out of [r.stderr, r.stdout]) {
            expect(out, what).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\u2028]/);
            // No line a CI runner reads as a command, beyond risk-cli's own annotations.
            expect(out, what).not.toMatch(/^\s*::(?!(?:warning|error|notice) (?:file|title)=)/m);
            expect(out, what).not.toMatch(/^error: content\/x\.md/m);
          }
          // The reader still sees what was there, without its control characters.
          expect(r.stderr + r.stdout, what).toMatch(/\]0;pwned/);
        }
  }, 60_000);
});

describe("an upstream's key quoted in a reason", () => {
  it("is cut short, without control or bidirectional characters, in stderr, the site, frame.json and the step summary", () => {
    const dir = tempDir("risk-up-long-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const paths = ["--publication", pub, "--archive", `${dir}/archive.git`, "--site", `${dir}/site`];
    expect(runCli(["assemble", ...paths, "--now", at(0)]).status).toBe(0);
    const summaryFile = join(dir, "summary.md");
    const outputFile = join(dir, "output.txt");
    const env = { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summaryFile, GITHUB_OUTPUT: outputFile };
    const assemble = (minute: number, key: string) => {
      writeFileSync(join(pub, "upstream/us.json"), JSON.stringify({ ...demoReading(), [key]: 1 }));
      writeFileSync(summaryFile, "");
      const r = runCli(["assemble", ...paths, "--now", at(minute)], { env });
      expect(r.status, r.stderr).toBe(0);
      return r;
    };
    const long = assemble(15, `NOTE ${"B".repeat(2_000_000)}\u202e`);
    const current = readFileSync(`${dir}/site/api/v1/signals/current.json`, "utf8");
    const frame = execFileSync("git", ["--git-dir", `${dir}/archive.git`, "show", "HEAD:frame.json"], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    for (const [what, text] of [
      ["stderr", long.stderr],
      ["signals/current.json", current],
      ["frame.json", frame],
      ["step summary", readFileSync(summaryFile, "utf8")],
      ["outputs", readFileSync(outputFile, "utf8")],
    ] as const) {
      // A document this large (2 MB) is named by its field without a line: locating it took seconds.
      expect(text, what).toMatch(/field NOTE B{20,}…\\?: an unknown key/);
      expect(text, what).not.toMatch(/B{100}|\u202e|\\u202e/i);
    }
    expect(current.length).toBeLessThan(20_000);
    const reason = JSON.parse(current).signals.find((s: { instrument: string }) => s.instrument === "us").reason;
    expect(reason.length).toBeLessThanOrEqual(120);
    // Markdown and HTML an upstream wrote are shown as text in the step summary, never rendered.
    assemble(30, "[link](https://evil.example/x) <img src=x onerror=alert(1)>");
    const summary = readFileSync(summaryFile, "utf8");
    const row = summary.split("\n").find((l) => l.startsWith("| us |"))!;
    expect(row).toContain("\\[link\\]\\(https\\:\\/\\/evil\\.example\\/x\\) \\<img src\\=x");
    expect(row).not.toMatch(/(?<!\\)[<[]/);
  }, 60_000);
});

describe("control characters in an upstream's text", () => {
  it("are never published: ESC, a C1 control or U+202E in rawUnit or a debt label makes that instrument fall back, naming the file and field", async () => {
    const dir = tempDir("risk-up-ctl-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const read = (file: string) => JSON.parse(readFileSync(join(pub, "upstream", file), "utf8"));
    const put = (file: string, doc: unknown) => writeFileSync(join(pub, "upstream", file), JSON.stringify(doc));
    const paths = { site: `${dir}/site`, archive: `${dir}/archive.git`, publication: pub, json: true };
    await runAssemble({ ...paths, now: at(0) });
    put("eu.json", { ...read("eu.json"), rawUnit: "points \u001b[31mde base" });
    put("us.json", { ...read("us.json"), rawUnit: "points\u009b" });
    put("yen.json", { ...read("yen.json"), rawUnit: "\u202etniop" });
    const debt = read("debt-latest.json");
    debt.buckets[1].label = "Co\u2066ût";
    put("debt-latest.json", debt);
    const summary = await runAssemble({ ...paths, now: at(15) });
    const byKey = Object.fromEntries(summary.signals.map((s) => [s.instrument, s]));
    for (const key of ["us", "eu", "yen", "debt"]) {
      expect(byKey[key]!.sourceStatus, key).toBe("invalid-document");
      expect(byKey[key]!.fallbackUsed, key).toBe(true);
    }
    expect(byKey.eu!.reason).toMatch(/^upstream\/eu\.json: field rawUnit: a control character \(U\+001B\)/);
    expect(byKey.us!.reason).toMatch(/^upstream\/us\.json: field rawUnit: a control character \(U\+009B\)/);
    expect(byKey.yen!.reason).toMatch(/^upstream\/yen\.json: field rawUnit: a bidirectional override/);
    expect(byKey.debt!.reason).toMatch(/^upstream\/debt-latest\.json: field buckets\.1\.label: a bidirectional/);
    expect(byKey.energie!.sourceStatus).toBe("ok");
    for (const surface of ["risk.json", "signals/current.json", "debt-risk.json"]) {
      const text = readFileSync(`${dir}/site/api/v1/${surface}`, "utf8");
      expect(text, surface).not.toMatch(/[\u001b\u009b\u202e\u2066]|\\u001b|\\u009b/i);
    }
  });
});

describe("control characters in the confluence synthesis", () => {
  it("are refused with exit 3 naming the file, line and field: it is the publisher's own file", async () => {
    const dir = tempDir("risk-up-conf-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const file = join(pub, "upstream/confluence.json");
    const synthesis = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...synthesis, conviction: "mod\u001b[31mérée" }, null, 2));
    await expect(
      runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, publication: pub, now: at(0), json: true }),
    ).rejects.toMatchObject({
      code: "E_INPUT",
      message: expect.stringMatching(/upstream\/confluence\.json:4 \(field conviction\).*control characters/),
    });
    expect(existsSync(`${dir}/site`)).toBe(false);
  });
});

describe("the size cap of a local upstream file", () => {
  it("is collection.maxBytes, as over HTTP, not the 4 MiB of the publication's own files", async () => {
    const dir = tempDir("risk-up-size-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    // A valid reading of 4.5 MB (padded with spaces): over 4 MiB, under the 5 MB default cap.
    const reading = JSON.stringify(JSON.parse(readFileSync(join(pub, "upstream/eu.json"), "utf8")));
    writeFileSync(join(pub, "upstream/eu.json"), `${reading}${" ".repeat(4_500_000 - reading.length)}`);
    const config = readFileSync(join(pub, "risk.config.yaml"), "utf8");
    const eu = async (maxBytes?: number) => {
      writeFileSync(
        join(pub, "risk.config.yaml"),
        maxBytes === undefined ? config : `${config}\ncollection:\n  maxBytes: ${maxBytes}\n`,
      );
      const report = await runCollect({ publication: pub, archive: `${dir}/archive.git`, now: at(0), json: true });
      return report.instruments.find((i) => i.instrument === "eu")!;
    };
    expect((await eu()).sourceStatus).toBe("ok");
    expect((await eu(10_000_000)).sourceStatus).toBe("ok");
    const over = await eu(4_000_000);
    expect(over.sourceStatus).toBe("too-large");
    // A third party's document: the reason names the cap and where it is raised, never "split it".
    expect(over.reason).toMatch(/upstream\/eu\.json: .*4000000-byte cap.*collection\.maxBytes/);
    expect(over.reason).not.toMatch(/split/);
  });
});

describe("links from the configuration", () => {
  it("refuses javascript:, data: and protocol-relative links with exit 3", async () => {
    const { runCli } = await import("../helpers/cli.ts");
    for (const [from, to] of [
      ["dashboard: https://dashboards.example.org/us/", "dashboard: javascript:alert(1)"],
      [
        "licenseUrl: https://creativecommons.org/licenses/by/4.0/",
        "licenseUrl: data:text/html,<script>alert(1)</script>",
      ],
    ]) {
      const pub = join(tempDir("risk-link-"), "pub");
      cpSync(join(ROOT, "demo"), pub, { recursive: true });
      const config = join(pub, "risk.config.yaml");
      writeFileSync(config, readFileSync(config, "utf8").replace(from!, to!));
      const r = runCli(["lint", "--publication", pub]);
      expect(r.status, to).toBe(3);
      expect(r.stderr).toContain("risk.config.yaml");
    }
  });
});

describe("a large upstream document of the wrong shape", () => {
  it("is refused by its field, without a line, in a fraction of the time locating the line took", () => {
    // 4.8 MB, under the collection's 5 MB cap: the YAML reader took 19 s and 2.4 GB to locate it.
    const wide = `{"x":[${Array(2_400_000).fill("0").join(",")}]}`;
    const started = performance.now();
    let caught: unknown;
    try {
      adaptDocument("us", "upstream/us.json", wide, "2026-11-21T12:00:00Z");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    // Named by its field, with no line (the first problem zod finds: the format is missing).
    expect((caught as UpstreamError).message).toBe("field format: not one of the allowed values");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("with negative family counts in a debt document, falls back instead of failing the surface's schema", () => {
    const debt = JSON.parse(readFileSync(`${ROOT}demo/upstream/debt-latest.json`, "utf8"));
    debt.coverage.familiesObserved = -1;
    expect(() =>
      adaptDocument("debt", "upstream/debt-latest.json", JSON.stringify(debt), "2026-11-21T12:00:00Z"),
    ).toThrow(/coverage\.familiesObserved/);
  });
});
