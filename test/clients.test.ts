import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.ts";
import { tempDir } from "./helpers/tmp.ts";

const GOLDEN = join(ROOT, "test/golden/demo/site");

describe("the clients publishers' readers run", () => {
  it("signals/schema.json passes JSON Schema 2020-12's metaschema and compiles in Ajv's strict mode", () => {
    const schema = JSON.parse(readFileSync(join(GOLDEN, "api/v1/signals/schema.json"), "utf8"));
    const ajv = new Ajv2020.default({ strict: true, allErrors: true });
    addFormats.default(ajv);
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    const validate = ajv.compile(schema);
    // Every component of openapi.json compiles in strict mode too (no zod-only string formats).
    const doc = JSON.parse(readFileSync(join(GOLDEN, "openapi.json"), "utf8"));
    const strict = new Ajv2020.default({ strict: true, strictTypes: false, allowUnionTypes: true });
    addFormats.default(strict);
    const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll("#/components/schemas/", "#/$defs/"));
    strict.addSchema({ $id: "https://openapi.example/doc", $defs: defs });
    for (const name of Object.keys(defs))
      expect(strict.getSchema(`https://openapi.example/doc#/$defs/${name}`), name).toBeTypeOf("function");
    const lines = readFileSync(join(GOLDEN, "api/v1/signals/history.ndjson"), "utf8").trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(validate(JSON.parse(line)), JSON.stringify(validate.errors)).toBe(true);
    // And it refuses a line that is none of the three.
    expect(validate({ recordType: "observation" })).toBe(false);
  });

  it("openapi-typescript's types for openapi.json pass tsc --strict", () => {
    const dir = tempDir("risk-oat-");
    mkdirSync(dir, { recursive: true });
    execFileSync(
      process.execPath,
      [
        join(ROOT, "node_modules/openapi-typescript/bin/cli.js"),
        join(GOLDEN, "openapi.json"),
        "-o",
        join(dir, "api.d.ts"),
      ],
      {
        stdio: "pipe",
      },
    );
    writeFileSync(
      join(dir, "use.ts"),
      'import type { components, paths } from "./api.d.ts";\nexport type Risk = paths["/api/v1/risk.json"]["get"]["responses"][200]["content"]["application/json"];\nexport type Lines = components["schemas"]["SignalLineSchema"];\n',
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    execFileSync(
      process.execPath,
      [
        tsc,
        "--strict",
        "--noEmit",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--allowImportingTsExtensions",
        "--target",
        "es2022",
        join(dir, "api.d.ts"),
        join(dir, "use.ts"),
      ],
      { stdio: "pipe" },
    );
  }, 60_000);
});

describe("openapi.json against Redocly's recommended ruleset", () => {
  it("reports as errors only the pages' folder URLs (no-path-trailing-slash), and warnings only where the contract decides", () => {
    const cli = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");
    let out = "";
    let status = 0;
    try {
      out = execFileSync(
        process.execPath,
        [cli, "lint", join(GOLDEN, "openapi.json"), "--extends=recommended", "--format=json"],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
    } catch (e) {
      out = (e as { stdout?: string }).stdout ?? "";
      status = (e as { status?: number }).status ?? -1;
    }
    const report = JSON.parse(out.slice(out.indexOf("{")));
    type Problem = { ruleId: string; severity: string; location: { pointer: string }[] };
    const problems = report.problems as Problem[];
    // The recommended ruleset makes a trailing slash an error; the contract names each page by its
    // folder URL (/series/), the address it is served at, so the lint exits 1 for those alone.
    const pages = Object.keys(JSON.parse(readFileSync(join(GOLDEN, "openapi.json"), "utf8")).paths)
      .filter((path) => path.endsWith("/"))
      .sort();
    expect(pages).toContain("/series/");
    const errors = problems.filter((p) => p.severity === "error");
    expect(new Set(errors.map((p) => p.ruleId))).toEqual(new Set(["no-path-trailing-slash"]));
    expect(errors.map((p) => p.location[0]!.pointer.replace("#/paths/", "").replaceAll("~1", "/")).sort()).toEqual(
      pages,
    );
    expect(status).toBe(1);
    const warnings = new Set(problems.filter((p) => p.severity !== "error").map((p) => p.ruleId));
    // Warnings only where the contract decides otherwise than the style advice: no 4XX response on
    // a static host, no operationId beyond the contract's fifteen.
    expect([...warnings].sort()).toEqual(["operation-4xx-response", "operation-operationId"]);
  }, 60_000);
});
