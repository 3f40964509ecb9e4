import { z } from "zod";
import { LevelChangeRow, ObservationRow } from "../signal-history/rows.ts";
import { HistoryMetaLine } from "./signal-history.ts";
import { defineSurface } from "./types.ts";

/** The JSON Schema document itself, checked structurally; test/history checks it with a validator. */
export const SignalLineSchema = z.strictObject({
  $schema: z.literal("https://json-schema.org/draft/2020-12/schema"),
  $id: z.url(),
  title: z.string(),
  description: z.string(),
  oneOf: z.array(z.strictObject({ $ref: z.string() })).length(3),
  // Each definition is a JSON Schema object; its members are left open (unknown) rather than typed
  // by a recursive JSON value, which client generators (openapi-typescript) cannot type strictly.
  $defs: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const LINES: [string, z.ZodType][] = [
  ["SignalHistoryMeta", HistoryMetaLine],
  ["SignalObservation", ObservationRow],
  ["SignalLevelChange", LevelChangeRow],
];

/** JSON Schema 2020-12 of the three line types, generated from the zod schemas that validate them. */
export function signalLineSchema(id: string): z.input<typeof SignalLineSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of LINES) registry.add(schema, { id: name });
  const out = z.toJSONSchema(registry, { target: "draft-2020-12", io: "output", uri: (name) => `#/$defs/${name}` });
  const defs: Record<string, Record<string, z.core.util.JSONType>> = {};
  for (const [name] of LINES) {
    // Without its own dialect and ids: a subschema's $id may not carry a fragment (JSON Schema
    // 2020-12's metaschema refuses "#/$defs/..."), and the document's $id names it already.
    const { $schema: _dialect, id: _id, $id: _subschemaId, ...rest } = out.schemas[name] as Record<string, unknown>;
    defs[name] = rest as Record<string, z.core.util.JSONType>;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: id,
    title: "Lines of /api/v1/signals/history.ndjson",
    description:
      "Each line is one of: a meta line (recordType meta, first), an observation (recordType observation, backtestable), a level change (recordType level-change, audit and alerting only).",
    oneOf: LINES.map(([name]) => ({ $ref: `#/$defs/${name}` })),
    $defs: defs,
  };
}

export const signalSchema = defineSurface({ format: "json", schema: SignalLineSchema })({
  path: "/api/v1/signals/schema.json",
  mediaType: "application/json",
  reusable: true,
  schemaName: "SignalLineSchema",
  operationId: "signalLineSchema",
  summary: "JSON Schema 2020-12 of the meta, observation and level-change lines of the signal history",
  build: ({ url }) => signalLineSchema(url("/api/v1/signals/schema.json")),
});
