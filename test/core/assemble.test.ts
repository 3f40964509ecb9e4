import { z } from "zod";
import { describe, expect, it } from "vitest";
import { assemble } from "../../core/assemble.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { demoSurfaces } from "../helpers/publication.ts";
import type { Surface } from "../../core/surfaces/types.ts";
import { nodeFs, nodeHasher } from "../../cli/runtime/node.ts";
import { ROOT } from "../helpers/cli.ts";

/** The surfaces an assembly of the demo builds (per-series CSVs expanded). */
const SURFACES = await demoSurfaces();

const NOW = "2026-11-21T10:00:00Z";

async function demoInput() {
  const publication = await loadPublication(nodeFs, `${ROOT}demo`);
  const upstream = await collectUpstream(publication, { fs: nodeFs }, { attemptedAt: NOW });
  return { publication, upstream, previous: null, now: NOW, toolVersion: "test" };
}

describe("assemble()", () => {
  it("builds every registered surface once, in registry order, with integrity last", async () => {
    const a = assemble(await demoInput(), nodeHasher);
    expect(a.files.map((f) => f.path)).toEqual(SURFACES.map((s) => s.path));
    expect(a.files.at(-1)!.path).toBe("/api/v1/integrity.json");
    expect(new Set(a.files.map((f) => f.path)).size).toBe(a.files.length);
  });

  it("stops on a field a surface's schema does not allow, naming the surface and the field", async () => {
    // Typed as any surface: a builder that drifts from its schema would not compile through defineSurface.
    const bad: Surface = {
      path: "/api/v1/bad.json",
      mediaType: "application/json",
      format: "json",
      schema: z.strictObject({ generated: z.string(), items: z.array(z.strictObject({ name: z.string() })) }),
      schemaName: "Bad",
      summary: "a surface with an extra field",
      build: ({ now }) => ({ generated: now, items: [{ name: "a" }, { name: "b", extra: 1 }] }),
    };
    const input = await demoInput();
    expect(() => assemble(input, nodeHasher, { surfaces: [bad] })).toThrow(
      "Surface /api/v1/bad.json fails its schema Bad: field items.1.extra",
    );
  });

  it("stops on NaN in a numeric field through the schema", async () => {
    const nan: Surface = {
      path: "/nan.json",
      mediaType: "application/json",
      format: "json",
      schema: z.strictObject({ value: z.number() }),
      schemaName: "Nan",
      summary: "NaN",
      build: () => ({ value: NaN }),
    };
    const input = await demoInput();
    expect(() => assemble(input, nodeHasher, { surfaces: [nan] })).toThrow(
      /Surface \/nan\.json fails its schema Nan: field value/,
    );
  });

  it("records the demo's five instruments with levels from their thresholds", async () => {
    const a = assemble(await demoInput(), nodeHasher);
    expect(Object.keys(a.frame.signals).sort()).toEqual(["debt", "energie", "eu", "us", "yen"]);
    for (const s of Object.values(a.frame.signals)) {
      expect(s!.sourceStatus).toBe("ok");
      const tone = s!.value! >= 75 ? "crisis" : s!.value! >= 50 ? "elevated" : s!.value! >= 25 ? "moderate" : "calm";
      expect(s!.tone).toBe(tone);
    }
    expect(a.frame.models).toMatchObject({ "risque-dette-us": expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });
});
