import { z } from "zod";
import { IsoDateTime, Uri } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";

export const IntegritySurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  algorithm: z.literal("sha256"),
  canonicalization: z.string(),
  frame: z.strictObject({
    frameId: z.string(),
    seq: z.int().positive(),
    previousFrameHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
  }),
  surfaces: z.array(
    z.strictObject({
      path: z.string(),
      url: Uri,
      mediaType: z.string(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      bytes: z.int().nonnegative(),
    }),
  ),
  verification: z.array(z.string()),
});

export const integrity = defineSurface({ format: "json", schema: IntegritySurface })({
  path: "/api/v1/integrity.json",
  mediaType: "application/json",
  schemaName: "IntegritySurface",
  operationId: "integritySurface",
  summary: "SHA-256 fingerprints of every other surface of this assembly, as served, for snapshot verification",
  build({ now, frame, produced, url }) {
    return {
      schema: url("/openapi.json#/components/schemas/IntegritySurface"),
      version: CONTRACT_VERSION,
      generated: now,
      algorithm: "sha256",
      canonicalization:
        "JSON surfaces are served in RFC 8785 canonical form; NDJSON lines are canonical objects ended by \\n",
      frame: { frameId: frame.frameId, seq: frame.seq, previousFrameHash: frame.previousFrameHash },
      surfaces: [...produced]
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .map((s) => ({ path: s.path, url: url(s.path), mediaType: s.mediaType, sha256: s.sha256, bytes: s.bytes })),
      verification: [
        "sha256sum of a downloaded file equals its sha256 here.",
        "This file's own fingerprint and the frame hash are recorded in the archive commit of the same assembly.",
        "risk-cli verify on a clone of the archive checks every frame, its chain and every stored surface.",
      ],
    };
  },
});
