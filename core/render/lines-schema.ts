import type { z } from "zod";
import type { Surface } from "../surfaces/types.ts";
import { defOf } from "./schema-def.ts";

/**
 * Whether the lines a stream takes from its document (`Surface.linesFrom`) pass the stream's
 * schema by construction once the document has passed its own, so that checking them again
 * would check nothing new. It holds when each record the stream takes was validated in the
 * document by an object schema R and the stream's line schema is:
 *
 * - R itself, for lines that are the records as they are; or
 * - for lines tagged with `recordType`, a union on `recordType` whose option for the tag is R
 *   extended with that one literal: the same field schemas (the very same objects), the same
 *   handling of unknown keys, and no check of its own.
 *
 * Anything else (a field schema of its own, a refinement, another shape) gives false, and the
 * lines are validated like any surface's. Measured on the real-scale corpus: checking the
 * claims, catalog and evidence-graph lines again took about 50 ms of every assembly that
 * rebuilds them; the answer here takes microseconds and is worked out once per stream.
 */
export function linesValidWithDocument(stream: Surface, documentSchema: z.ZodType): boolean {
  let byDocument = known.get(stream);
  if (byDocument === undefined) known.set(stream, (byDocument = new WeakMap()));
  let answer = byDocument.get(documentSchema);
  if (answer === undefined) {
    answer = (stream.linesFrom?.records ?? []).every(({ at, recordType }) => {
      const record = recordSchemaAt(documentSchema, at);
      return record !== null && lineSchemaAdmits(stream.schema as z.ZodType, record, recordType);
    });
    byDocument.set(documentSchema, answer);
  }
  return answer;
}

const known = new WeakMap<Surface, WeakMap<z.ZodType, boolean>>();

/** The object schema that validated the records at `at` (a slash path; an array's elements), or null. */
function recordSchemaAt(documentSchema: z.ZodType, at: string): z.ZodType | null {
  let schema: z.ZodType | undefined = documentSchema;
  for (const key of at.split("/")) {
    schema = schema && unwrapped(schema);
    if (schema === undefined || defOf(schema).type !== "object") return null;
    schema = defOf(schema).shape?.[key];
  }
  if (schema === undefined) return null;
  schema = unwrapped(schema);
  if (defOf(schema).type === "array") schema = unwrapped(defOf(schema).element!);
  return defOf(schema).type === "object" ? schema : null;
}

/** The schema inside optional and nullable wrappers: what a value that is present passed. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (defOf(s).type === "optional" || defOf(s).type === "nullable") s = defOf(s).innerType!;
  return s;
}

function lineSchemaAdmits(line: z.ZodType, record: z.ZodType, recordType: string | undefined): boolean {
  if (recordType === undefined) return line === record;
  const union = defOf(line);
  if (union.type !== "union" || union.discriminator !== "recordType" || (union.checks?.length ?? 0) > 0) return false;
  const option = union.options?.find((o) => {
    const tag = defOf(o).shape?.recordType;
    const values = tag === undefined ? undefined : defOf(tag).values;
    return tag !== undefined && defOf(tag).type === "literal" && values?.length === 1 && values[0] === recordType;
  });
  if (option === undefined) return false;
  const extended = defOf(option);
  const base = defOf(record);
  if (extended.type !== "object" || (extended.checks?.length ?? 0) > 0 || extended.catchall !== base.catchall)
    return false;
  const keys = Object.keys(extended.shape!).filter((k) => k !== "recordType");
  const baseKeys = Object.keys(base.shape!);
  return (
    keys.length === baseKeys.length &&
    !Object.hasOwn(base.shape!, "recordType") &&
    keys.every((k) => extended.shape![k] === base.shape![k])
  );
}
