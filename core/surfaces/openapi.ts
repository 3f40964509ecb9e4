import { z } from "zod";
import * as C from "../schemas/contract.ts";
import { defineSurface, type Surface } from "./types.ts";
import { OPENAPI_VERSION } from "./common.ts";
import { publicUrl } from "../render/page-url.ts";

/** Structural schema of the OpenAPI document itself; the full check is a real validator in tests. */
export const OpenApiDocument = z.strictObject({
  openapi: z.literal("3.1.0"),
  info: z.strictObject({
    title: z.string(),
    version: z.literal(OPENAPI_VERSION),
    description: z.string(),
    license: z.strictObject({ name: z.string(), url: z.url() }),
    contact: z.strictObject({ name: z.string(), url: z.url() }).optional(),
  }),
  servers: z.array(z.strictObject({ url: z.url(), description: z.string() })).length(1),
  /** No operation needs authentication: declared once, at the root. */
  security: z.array(z.record(z.string(), z.array(z.string()))).length(0),
  tags: z.array(z.strictObject({ name: z.string(), description: z.string() })),
  paths: z.record(z.string().startsWith("/"), z.record(z.literal("get"), z.looseObject({}))),
  components: z.strictObject({
    schemas: z.record(z.string(), z.looseObject({})),
    headers: z.record(z.string(), z.looseObject({})),
  }),
});

/** Contract records published as named components, so that surfaces reference them. */
const SHARED_COMPONENTS: Record<string, z.ZodType> = {
  EvidenceReference: C.EvidenceReference,
  ClaimClassifier: C.ClaimClassifier,
  Claim: C.Claim,
  ArticleEvidenceSummary: C.ArticleEvidenceSummary,
  ArticleRevisionPolicy: C.ArticleRevisionPolicy,
  ContentSummary: C.ContentSummary,
  GlossaryAtlas: C.GlossaryAtlas,
  GlossaryEntry: C.GlossaryEntry,
  Topic: C.Topic,
  PrimarySource: C.PrimarySource,
  MethodologySummary: C.MethodologySummary,
  AgentEndpointMap: C.AgentEndpointMap,
  AgentProofPolicy: C.AgentProofPolicy,
  EditorialProtocol: C.EditorialProtocol,
  EditorialChangelogItem: C.EditorialChangelogItem,
};

const SELF = "/openapi.json";

/** zod's names for string checks that its `pattern` already carries: not JSON Schema formats, so strict validators refuse them. */
const ZOD_CHECK_FORMATS = new Set(["starts_with", "ends_with", "includes"]);

function withoutZodFormats<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutZodFormats) as T;
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "format" && typeof v === "string" && ZOD_CHECK_FORMATS.has(v) && "pattern" in node) continue;
    out[k] = withoutZodFormats(v);
  }
  return out as T;
}

/** The groups of operations, in the order a reader meets them. */
const TAGS: [string, string][] = [
  ["signals", "Risk signals per instrument: current values, snapshots, history and its schema"],
  ["corpus", "The editorial corpus: catalog, claims, evidence graph, sources, search index"],
  ["audit", "Proof of what was published when: integrity, freshness, changes, risk diff, black box"],
  ["agents", "Entry points for agents: manifest and text corpora"],
  ["contract", "This OpenAPI document"],
];

function tagOf(path: string): string {
  if (path === SELF) return "contract";
  if (/^\/api\/v1\/(signals\/|risk\.|debt-risk)/.test(path)) return "signals";
  if (/^\/api\/v1\/(integrity|freshness|changes|risk-diff|black-box|history)/.test(path)) return "audit";
  if (/^\/(llms|agents)/.test(path)) return "agents";
  return "corpus";
}

export function componentSchemas(surfaces: readonly Surface[]): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SHARED_COMPONENTS)) registry.add(schema, { id });
  // A binary file has no JSON Schema of its own: its component says what the bytes are.
  const binary = surfaces.filter((s) => s.format === "bytes");
  for (const s of surfaces) if (s.path !== SELF && s.format !== "bytes") registry.add(s.schema, { id: s.schemaName });
  const out = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "output",
    uri: (id) => `#/components/schemas/${id}`,
  });
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const [id, schema] of Object.entries(out.schemas)) {
    // No $id: a fragment-only $id is not allowed by JSON Schema 2020-12, and components are found by their place.
    const { $schema: _dialect, $id: _uri, id: _id, ...rest } = schema as Record<string, unknown>;
    schemas[id] = withoutZodFormats(rest);
  }
  for (const s of binary)
    schemas[s.schemaName] = {
      type: "string",
      contentMediaType: s.mediaType,
      description: (s.schema as z.ZodType).description ?? s.summary,
    };
  return schemas;
}

export const openapi = defineSurface({ format: "json", schema: OpenApiDocument })({
  path: SELF,
  mediaType: "application/json",
  reusable: true,
  // What the document is made of: the tool's schemas, the registry's surfaces and four fields of
  // the configuration. An edited article changes none of them, so the previous copy is reused.
  reuseKey: ({ publication: p, registry, toolVersion, hash }) =>
    `openapi/2 ${toolVersion ?? "?"} ${hash.sha256Parts([
      JSON.stringify([p.config.name, p.config.licenseUrl, p.config.contact ?? null, p.config.baseUrl]),
      ...registry.map((s) =>
        JSON.stringify([s.path, s.schemaName, s.mediaType, s.format, s.summary, s.operationId ?? null]),
      ),
    ])}`,
  schemaName: "OpenApiDocument",
  summary: "OpenAPI 3.1 contract of the machine endpoints",
  build({ publication: p, registry }) {
    const paths: Record<string, { get: Record<string, unknown> }> = {};
    for (const s of [...registry].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
      const isSelf = s.path === SELF;
      const schema = isSelf
        ? { type: "object", description: "This OpenAPI 3.1 document." }
        : { $ref: `#/components/schemas/${s.schemaName}` };
      // A page is listed at its folder's URL (/series/), as the contract names it.
      paths[publicUrl(s.path)] = {
        get: {
          // The contract names the operations it gives an identifier; the others declare none.
          ...(s.operationId ? { operationId: s.operationId } : {}),
          tags: [tagOf(s.path)],
          summary: s.summary,
          description:
            s.format === "ndjson"
              ? `${s.summary}. One JSON object per line (RFC 8785 canonical), each matching ${s.schemaName}.`
              : s.format === "text"
                ? `${s.summary}. Plain UTF-8 text; sha256sum of the body equals its fingerprint in /api/v1/integrity.json.`
                : s.format === "bytes"
                  ? `${s.summary}. A binary file; sha256sum of the body equals its fingerprint in /api/v1/integrity.json.`
                  : `${s.summary}. Served in RFC 8785 canonical form: sha256sum of the body equals its fingerprint in /api/v1/integrity.json.`,
          responses: {
            "200": {
              description: "The static document of the current assembly.",
              headers: { "Access-Control-Allow-Origin": { $ref: "#/components/headers/AccessControlAllowOrigin" } },
              content: { [s.mediaType]: { schema } },
            },
          },
        },
      };
    }
    return {
      openapi: "3.1.0",
      info: {
        title: `${p.config.name}: machine-readable risk publication`,
        version: OPENAPI_VERSION,
        description:
          "Read-only, public, static documents regenerated every 15 minutes. No authentication, no tracking, no query parameters. Not investment advice.",
        license: { name: "CC BY 4.0", url: p.config.licenseUrl },
        ...(p.config.contact ? { contact: { name: p.config.name, url: p.config.contact } } : {}),
      },
      servers: [{ url: p.config.baseUrl, description: "Static publication" }],
      security: [],
      tags: TAGS.map(([name, description]) => ({ name, description })),
      paths,
      components: {
        schemas: componentSchemas(registry),
        headers: {
          AccessControlAllowOrigin: {
            description: "Every response may be read from any origin.",
            schema: { type: "string", const: "*" },
          },
        },
      },
    };
  },
});
