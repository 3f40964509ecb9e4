import { z } from "zod";
import { canonicalJson } from "../canonical/jcs.ts";
import { RiskError } from "../errors.ts";
import type { Surface } from "../surfaces/types.ts";

/**
 * Validates a built value against its surface's schema: the document (json) or every line
 * (ndjson). The error names the surface, the line and the field.
 */
export function validateSurface(surface: Surface, value: unknown): unknown {
  if (surface.format !== "ndjson") return validate(surface, value, "");
  if (!Array.isArray(value)) {
    throw new RiskError("E_SCHEMA", `Surface ${surface.path}: the builder must return an array of lines`, {
      surface: surface.path,
    });
  }
  return value.map((line, i) => validate(surface, line, `line ${i + 1}: `));
}

/**
 * The text that is served: canonical JSON with no trailing newline (so `sha256sum` of the file is
 * the fingerprint), or NDJSON: one canonical object per line, each ended by \n.
 */
export function serialiseSurface(surface: Surface, validated: unknown): string | Uint8Array {
  if (surface.format === "json") return canonicalJson(validated, surface.path);
  if (surface.format === "text") return validated as string;
  if (surface.format === "bytes") return validated as Uint8Array;
  const lines = validated as unknown[];
  const parts: string[] = new Array(lines.length * 2);
  lines.forEach((line, i) => {
    parts[2 * i] = canonicalJson(line, `${surface.path} line ${i + 1}`);
    parts[2 * i + 1] = "\n";
  });
  return parts.join("");
}

function validate(surface: Surface, value: unknown, prefix: string): unknown {
  const result = (surface.schema as z.ZodType).safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field =
    issue.code === "unrecognized_keys"
      ? [...issue.path, issue.keys[0]].map(String).join(".")
      : issue.path.map(String).join(".") || "(document)";
  throw new RiskError(
    "E_SCHEMA",
    `Surface ${surface.path} fails its schema ${surface.schemaName}: ${prefix}field ${field}: ${issue.message}. Nothing was written; fix the input that feeds this field.`,
    { surface: surface.path, field },
  );
}
