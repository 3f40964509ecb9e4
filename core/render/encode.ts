import { z } from "zod";
import { canonicalJson, canonicalMembers } from "../canonical/jcs.ts";
import { joinBytes } from "../bytes.ts";
import { RiskError } from "../errors.ts";
import type { Surface } from "../surfaces/types.ts";
import { sortedTwin } from "./sorted-schema.ts";

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
 * What is served of a surface that is not one JSON document (that is `serialiseDocument`'s): the
 * text or bytes as they are, or NDJSON: one canonical object per line, each ended by \n.
 */
export function serialiseSurface(surface: Surface, validated: unknown): string | Uint8Array {
  if (surface.format === "json") throw new Error(`${surface.path} is one JSON document: serialiseDocument writes it`);
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

/** A stamped document's bytes as hashed: the part it shares with its stored copy, then each one's own. */
export interface DocumentBranches {
  prefix: Uint8Array[];
  served: Uint8Array[];
  stored: Uint8Array[];
}

/**
 * A json document's served bytes (canonical JSON with no trailing newline, so `sha256sum` of the
 * file is the fingerprint) and, when its top-level `generated` is `at`, the bytes the archive stores: the same less that member (core/canonical/stamp.ts). Both are joined from one
 * serialisation of the members, and the members on each side of `generated` are encoded to UTF-8
 * once for both. `given` holds the text of records serialised already (`canonicalMembers`).
 */
export function serialiseDocument(
  surface: Surface,
  validated: unknown,
  at: string,
  given?: ReadonlyMap<string, string>,
):
  | { served: Uint8Array; stored: null }
  | {
      served: Uint8Array;
      stored: Uint8Array;
      /** The bytes both start with, and what follows in each (`Hasher.sha256Branches`). */
      branches: DocumentBranches;
    } {
  const members = canonicalMembers(validated, surface.path, given);
  if (members === null) return { served: utf8.encode(canonicalJson(validated, surface.path)), stored: null };
  const texts = members.map((m) => m.text);
  const i = members.findIndex((m) => m.key === "generated");
  if (i < 0 || texts[i] !== `"generated":${JSON.stringify(at)}`)
    return { served: utf8.encode(`{${texts.join(",")}}`), stored: null };
  const before = utf8.encode(texts.slice(0, i).join(","));
  const after = utf8.encode(texts.slice(i + 1).join(","));
  const comma = (both: boolean) => (both ? COMMA : NOTHING);
  // Both start with the members before `generated` and, when members follow, a comma.
  const both = before.length > 0 && after.length > 0;
  const prefix = [OPEN, before, comma(both)];
  const servedTail = [comma(before.length > 0 && !both), utf8.encode(texts[i]!), comma(after.length > 0), after, CLOSE];
  const storedTail = [after, CLOSE];
  return {
    served: joinBytes([...prefix, ...servedTail]),
    stored: joinBytes([...prefix, ...storedTail]),
    branches: { prefix, served: servedTail, stored: storedTail },
  };
}

const utf8 = new TextEncoder();
const [OPEN, CLOSE, COMMA, NOTHING] = ["{", "}", ",", ""].map((c) => utf8.encode(c)) as [
  Uint8Array,
  Uint8Array,
  Uint8Array,
  Uint8Array,
];

function validate(surface: Surface, value: unknown, prefix: string): unknown {
  // Through the twin with sorted keys: the same checks, and an output canonical JSON need not copy.
  const result = sortedTwin(surface.schema as z.ZodType).safeParse(value);
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
