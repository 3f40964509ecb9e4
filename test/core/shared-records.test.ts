import { z } from "zod";
import { describe, expect, it } from "vitest";
import { assemble } from "../../core/assemble.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { defineSurface, type Surface } from "../../core/surfaces/types.ts";
import { demoSurfaces } from "../helpers/publication.ts";
import { nodeFs, nodeHasher } from "../../cli/runtime/node.ts";
import { ROOT } from "../helpers/cli.ts";
import { linesValidWithDocument } from "../../core/render/lines-schema.ts";

const NOW = "2026-11-21T10:00:00Z";

async function demoInput() {
  const publication = await loadPublication(nodeFs, `${ROOT}demo`);
  const upstream = await collectUpstream(publication, { fs: nodeFs }, { attemptedAt: NOW });
  return { publication, upstream, previous: null, now: NOW, toolVersion: "test", inputs: "inputs" };
}

/** The surfaces, each stream's `build` counted. */
function counted(surfaces: readonly Surface[]) {
  const calls = new Map<string, number>();
  const out = surfaces.map(
    (s): Surface =>
      s.linesFrom
        ? {
            ...s,
            build: (ctx) => {
              calls.set(s.path, (calls.get(s.path) ?? 0) + 1);
              return s.build(ctx);
            },
          }
        : s,
  );
  return { surfaces: out, calls };
}

const Item = z.strictObject({
  name: z.string(),
  tags: z.array(z.strictObject({ recordType: z.string() })),
  recordType: z.string().optional(),
});

/** A document of items and the stream of its lines, as the catalog and its NDJSON are. */
function pair(items: () => unknown[]) {
  const doc = defineSurface({
    format: "json",
    schema: z.strictObject({ generated: z.string(), count: z.number(), items: z.array(Item) }),
  })({
    path: "/doc.json",
    mediaType: "application/json",
    schemaName: "Doc",
    summary: "a document of items",
    build: ({ now }) => ({ generated: now, count: items().length, items: items() as z.input<typeof Item>[] }),
  });
  const Line = Item.extend({ recordType: z.literal("item") });
  let built = 0;
  const stream = defineSurface({ format: "ndjson", schema: Line })({
    path: "/doc.ndjson",
    mediaType: "application/x-ndjson",
    schemaName: "DocLine",
    summary: "the items, one per line",
    linesFrom: { path: "/doc.json", records: [{ at: "items", recordType: "item" }] },
    build: () => {
      built++;
      return (items() as z.input<typeof Item>[]).map((i) => ({ recordType: "item" as const, ...i }));
    },
  });
  return { surfaces: [doc, stream] as Surface[], built: () => built };
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("records shared by a document and the stream of its lines", () => {
  it("give the demo's catalog, claims and evidence graph the same bytes, the streams not built", async () => {
    const input = await demoInput();
    const { surfaces, calls } = counted(await demoSurfaces());
    const shared = assemble(input, nodeHasher, { surfaces, sharedRecords: true });
    expect([...calls.keys()]).toEqual([]);
    const alone = assemble(input, nodeHasher, { surfaces, sharedRecords: false });
    expect([...calls.keys()].sort()).toEqual([
      "/api/v1/catalog.ndjson",
      "/api/v1/claims.ndjson",
      "/api/v1/evidence-graph.ndjson",
    ]);
    expect(shared.files.map((f) => [f.path, f.sha256, f.storedSha256])).toEqual(
      alone.files.map((f) => [f.path, f.sha256, f.storedSha256]),
    );
    expect(shared.frame.frameHash).toBe(alone.frame.frameHash);
  });

  it("cut a line's recordType only at the top level, when a record holds the same member deeper", async () => {
    const { surfaces, built } = pair(() => [
      { name: "a", tags: [{ recordType: "item" }] },
      { name: "b", tags: [] },
    ]);
    const input = await demoInput();
    const shared = assemble(input, nodeHasher, { surfaces, sharedRecords: true });
    expect(built()).toBe(0);
    const alone = assemble(input, nodeHasher, { surfaces, sharedRecords: false });
    expect(built()).toBe(1);
    expect(shared.files.map((f) => text(f.served))).toEqual(alone.files.map((f) => text(f.served)));
    expect(text(shared.files[1]!.served)).toBe(
      '{"name":"a","recordType":"item","tags":[{"recordType":"item"}]}\n{"name":"b","recordType":"item","tags":[]}\n',
    );
    expect(text(shared.files[0]!.stored!)).toBe(
      '{"count":2,"items":[{"name":"a","tags":[{"recordType":"item"}]},{"name":"b","tags":[]}]}',
    );
  });

  it("leave a record holding its own recordType to the stream's builder", async () => {
    const { surfaces, built } = pair(() => [{ name: "a", tags: [], recordType: "item" }]);
    const input = await demoInput();
    const shared = assemble(input, nodeHasher, { surfaces, sharedRecords: true });
    expect(built()).toBe(1);
    expect(text(shared.files[1]!.served)).toBe('{"name":"a","recordType":"item","tags":[]}\n');
    const alone = assemble(input, nodeHasher, { surfaces, sharedRecords: false });
    expect(shared.files.map((f) => text(f.served))).toEqual(alone.files.map((f) => text(f.served)));
  });

  it("report a value JSON cannot carry where it sits in the document", async () => {
    const { surfaces } = pair(() => [
      { name: "a", tags: [] },
      { name: "\ud800", tags: [] },
    ]);
    const input = await demoInput();
    expect(() => assemble(input, nodeHasher, { surfaces, sharedRecords: true })).toThrow(
      "Cannot serialise /doc.json at $.items[1].name: a string holds a lone surrogate",
    );
  });
  it("are not validated again when the stream's schema is its document's records', and are when it could refuse them", async () => {
    const all = await demoSurfaces();
    const byPath = new Map(all.map((s) => [s.path, s]));
    const streams = all.filter((s) => s.linesFrom);
    expect(streams.map((s) => s.path).sort()).toEqual([
      "/api/v1/catalog.ndjson",
      "/api/v1/claims.ndjson",
      "/api/v1/evidence-graph.ndjson",
    ]);
    for (const s of streams)
      expect(linesValidWithDocument(s, byPath.get(s.linesFrom!.path)!.schema), s.path).toBe(true);

    // The same document, its stream's lines held to a stricter field: a name of one character.
    const Record = z.strictObject({ name: z.string(), tags: z.array(z.string()) });
    const doc = defineSurface({
      format: "json",
      schema: z.strictObject({ generated: z.string(), items: z.array(Record) }),
    })({
      path: "/doc.json",
      mediaType: "application/json",
      schemaName: "Doc",
      summary: "a document of items",
      build: ({ now }) => ({ generated: now, items: [{ name: "ab", tags: [] }] }),
    });
    const lines = (schema: z.ZodType) =>
      defineSurface({ format: "ndjson", schema })({
        path: "/doc.ndjson",
        mediaType: "application/x-ndjson",
        schemaName: "DocLine",
        summary: "the items, one per line",
        linesFrom: { path: "/doc.json", records: [{ at: "items", recordType: "item" }] },
        build: () => [{ recordType: "item", name: "ab", tags: [] }],
      });
    const same = lines(z.discriminatedUnion("recordType", [Record.extend({ recordType: z.literal("item") })]));
    const stricter = lines(
      z.discriminatedUnion("recordType", [Record.extend({ recordType: z.literal("item"), name: z.string().max(1) })]),
    );
    const refined = lines(
      z.discriminatedUnion("recordType", [
        Record.extend({ recordType: z.literal("item") }).refine((r) => r.name.length < 2, "a short name"),
      ]),
    );
    expect(linesValidWithDocument(same, doc.schema)).toBe(true);
    expect(linesValidWithDocument(stricter, doc.schema)).toBe(false);
    expect(linesValidWithDocument(refined, doc.schema)).toBe(false);
    const input = await demoInput();
    expect(assemble(input, nodeHasher, { surfaces: [doc, same], sharedRecords: true }).files).toHaveLength(2);
    for (const stream of [stricter, refined])
      expect(() => assemble(input, nodeHasher, { surfaces: [doc, stream], sharedRecords: true })).toThrow(
        /Surface \/doc\.ndjson fails its schema DocLine: line 1: field (name|\(document\))/,
      );
  });
});
