import type { z } from "zod";

/**
 * The parts of a zod schema's definition that risk-cli reads to walk a schema (its sorted twin,
 * the lines a stream takes from a document): zod's own types for them differ per kind of schema.
 */
export interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: readonly z.ZodType[];
  valueType?: z.ZodType;
  discriminator?: string;
  catchall?: z.ZodType;
  checks?: readonly unknown[];
  values?: readonly unknown[];
}

export const defOf = (schema: z.ZodType): SchemaDef => schema._zod.def as unknown as SchemaDef;
