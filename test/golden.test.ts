import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runAssembly } from "../app/assembly.ts";
import { demoPublication } from "../cli/paths.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";
import { tempDir, treeDigest } from "./helpers/tmp.ts";

/**
 * The demo publication assembled at a fixed instant must give these exact bytes. Golden files
 * change only through `npm run golden:update`, so that every change to a surface is a reviewed diff.
 */
const GOLDEN = new URL("./golden/demo/", import.meta.url).pathname;
const NOW = "2026-11-21T12:00:00Z";
const update = process.env.UPDATE_GOLDEN === "1";

describe("the demo publication at a fixed instant", async () => {
  const dir = tempDir("risk-golden-");
  const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: { info: () => {}, warn: () => {} } };
  const summary = await runAssembly(
    { publication: demoPublication(), site: `${dir}/site`, archive: `${dir}/archive.git`, now: NOW },
    ports,
  );
  const produced = treeDigest(`${dir}/site`);
  const identity = { frameId: summary.frameId, frameHash: summary.frameHash, commit: summary.commit };

  if (update) {
    rmSync(GOLDEN, { recursive: true, force: true });
    mkdirSync(GOLDEN, { recursive: true });
    cpSync(`${dir}/site`, `${GOLDEN}site`, { recursive: true });
    writeFileSync(`${GOLDEN}frame.json`, `${JSON.stringify(identity, null, 2)}\n`);
  }

  it("has a golden file for every surface and no golden file without a surface", () => {
    expect(existsSync(`${GOLDEN}site`), "no golden files: run npm run golden:update").toBe(true);
    expect(Object.keys(produced)).toEqual(Object.keys(treeDigest(`${GOLDEN}site`)));
  });

  for (const path of Object.keys(produced)) {
    it(`gives the golden bytes for /${path}`, () => {
      const actual = readFileSync(`${dir}/site/${path}`);
      const expected = readFileSync(`${GOLDEN}site/${path}`);
      expect(actual.equals(expected), `/${path} differs from its golden file; review, then npm run golden:update`).toBe(
        true,
      );
    });
  }

  it("commits the golden frame hash and commit SHA", () => {
    expect(identity).toEqual(JSON.parse(readFileSync(`${GOLDEN}frame.json`, "utf8")));
  });
});
