import type { z } from "zod";
import { defOf, type SchemaDef } from "./schema-def.ts";

/**
 * A schema's twin whose objects list their keys in code-unit order. zod gives an object back
 * with its keys in its schema's order; validated through the twin, a surface comes back with
 * them in the order canonical JSON writes, so serialising it copies nothing
 * (core/canonical/jcs.ts). The twin checks exactly what the schema checks: each of its parts is
 * the schema's own definition (checks and messages included), cloned with its parts' twins.
 * Measured on the real-scale catalog (2 MB): canonical JSON of the validated document took
 * 15 ms through the schema and 6 ms through the twin; validating took the same time.
 *
 * Kinds of part that hold no object, or whose output order is not the schema's (a record's keys
 * follow its input), are kept as they are: canonical JSON then sorts what they give.
 */
export function sortedTwin<S extends z.ZodType>(schema: S): S {
  return twinOf(schema) as S;
}

const twins = new WeakMap<z.ZodType, z.ZodType>();

function twinOf(schema: z.ZodType): z.ZodType {
  const known = twins.get(schema);
  if (known) return known;
  const def = defOf(schema);
  const clone = (parts: Partial<SchemaDef>) => schema.clone({ ...def, ...parts } as unknown as typeof schema._zod.def);
  let twin = schema;
  switch (def.type) {
    case "object": {
      const shape: Record<string, z.ZodType> = {};
      for (const key of Object.keys(def.shape!).sort()) shape[key] = twinOf(def.shape![key]!);
      twin = clone({ shape });
      break;
    }
    case "array":
      twin = clone({ element: twinOf(def.element!) });
      break;
    case "optional":
    case "nullable":
      twin = clone({ innerType: twinOf(def.innerType!) });
      break;
    case "union":
      twin = clone({ options: def.options!.map(twinOf) });
      break;
    case "record":
      twin = clone({ valueType: twinOf(def.valueType!) });
      break;
  }
  twins.set(schema, twin);
  return twin;
}
