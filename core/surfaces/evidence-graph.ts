import { pageOf } from "../inputs/pages.ts";
import { z } from "zod";
import { primarySourceOf } from "../claims/references.ts";
import { editorialOf, type Editorial } from "../editorial/analysis.ts";
import type { Publication } from "../inputs/publication.ts";
import { IsoDate, IsoDateTime, Uri } from "../schemas/primitives.ts";
import { defineSurface, type BuildContext } from "./types.ts";
import { CONTRACT_VERSION, byCodeUnits, slugify, type UrlOf } from "./common.ts";

export const NODE_TYPES = [
  "article",
  "claim",
  "reference",
  "host",
  "institution",
  "primary-source",
  "dataset",
] as const;
export const EDGE_TYPES = [
  "asserts",
  "cites",
  "links-to",
  "hosted-by",
  "operated-by",
  "profiles",
  "publishes",
  "points-to",
  "mentions",
] as const;

export const EvidenceNode = z.strictObject({
  id: z.string().describe("Stable id: `<type>:<natural key>` (slug, claim id, href or host)."),
  type: z.enum(NODE_TYPES),
  label: z.string(),
  url: Uri.nullable(),
  kind: z
    .string()
    .nullable()
    .describe("claim: its kind; reference: primary-source, secondary-source or internal; institution: its category."),
  date: IsoDate.nullable().describe("article: publication date; claim: observation date."),
});

export const EvidenceEdge = z.strictObject({
  id: z.string().describe("`<type>:<from>-><to>`"),
  type: z.enum(EDGE_TYPES),
  from: z.string(),
  to: z.string(),
});

export const EvidenceGraphSurface = z.strictObject({
  schema: Uri,
  version: z.string(),
  generated: IsoDateTime,
  counts: z.strictObject({
    nodes: z.int(),
    edges: z.int(),
    nodeTypes: z.strictObject(
      Object.fromEntries(NODE_TYPES.map((t) => [t, z.int()])) as Record<(typeof NODE_TYPES)[number], z.ZodInt>,
    ),
    edgeTypes: z.strictObject(
      Object.fromEntries(EDGE_TYPES.map((t) => [t, z.int()])) as Record<(typeof EDGE_TYPES)[number], z.ZodInt>,
    ),
  }),
  policy: z.string(),
  nodes: z.array(EvidenceNode),
  edges: z.array(EvidenceEdge),
});

export const EvidenceGraphLine = z.discriminatedUnion("recordType", [
  EvidenceNode.extend({ recordType: z.literal("node") }),
  EvidenceEdge.extend({ recordType: z.literal("edge") }),
]);

type Node = z.infer<typeof EvidenceNode>;
type Edge = z.infer<typeof EvidenceEdge>;

const nodeRank = new Map<string, number>(NODE_TYPES.map((t, i) => [t, i]));
const edgeRank = new Map<string, number>(EDGE_TYPES.map((t, i) => [t, i]));

/**
 * Nodes and edges in the order of their types, then of their ids. Functions of the module, as
 * byId in core/surfaces/common.ts says why.
 */
const byNodeRank = (a: { type: string; id: string }, b: { type: string; id: string }) =>
  nodeRank.get(a.type)! - nodeRank.get(b.type)! || byCodeUnits(a.id, b.id);
const byEdgeRank = (a: { type: string; id: string }, b: { type: string; id: string }) =>
  edgeRank.get(a.type)! - edgeRank.get(b.type)! || byCodeUnits(a.id, b.id);

/**
 * The evidence graph: articles assert claims, claims cite references, references are hosted by
 * hosts, hosts are operated by institutions, which publish datasets and are profiled by our
 * primary-source pages. Nodes and edges are sorted by type then id, so the bytes are stable.
 */
export function evidenceGraph(p: Publication, editorial: Editorial, url: UrlOf): { nodes: Node[]; edges: Edge[] } {
  const nodes = new Map<string, Node>();
  const edges = new Map<string, Edge>();
  const node = (n: Node) => {
    if (!nodes.has(n.id)) nodes.set(n.id, n);
    return n.id;
  };
  const edge = (type: Edge["type"], from: string, to: string) => {
    const id = `${type}:${from}->${to}`;
    if (!edges.has(id)) edges.set(id, { id, type, from, to });
  };
  const datasetIds = new Map<string, string>();
  for (const s of p.primarySources) {
    const institution = node({
      id: `institution:${s.slug}`,
      type: "institution",
      label: s.name,
      url: s.officialUrl,
      kind: s.category,
      date: null,
    });
    const profile = node({
      id: `primary-source:${s.slug}`,
      type: "primary-source",
      label: s.shortName ?? s.name,
      url: url(pageOf(p.pages.source, s.slug)),
      kind: null,
      date: null,
    });
    edge("profiles", profile, institution);
    for (const d of s.datasets ?? []) {
      const id = node({
        id: `dataset:${s.slug}/${slugify(d.name)}`,
        type: "dataset",
        label: d.name,
        url: d.url,
        kind: null,
        date: null,
      });
      edge("publishes", institution, id);
      datasetIds.set(d.url, id);
    }
  }
  for (const { host, slug } of editorial.primaryHosts) {
    edge(
      "operated-by",
      node({ id: `host:${host}`, type: "host", label: host, url: null, kind: null, date: null }),
      `institution:${slug}`,
    );
  }
  const reference = (r: { href: string; label: string; host?: string | null; kind?: string | null }) => {
    const id = node({
      id: `reference:${r.href}`,
      type: "reference",
      label: r.label,
      url: r.href,
      kind: r.kind ?? null,
      date: null,
    });
    if (r.host) {
      const host = node({ id: `host:${r.host}`, type: "host", label: r.host, url: null, kind: null, date: null });
      edge("hosted-by", id, host);
      const owner = primarySourceOf(r.host, editorial.primaryHosts);
      if (owner) edge("operated-by", host, `institution:${owner}`);
    }
    const dataset = datasetIds.get(r.href);
    if (dataset) edge("points-to", id, dataset);
    return id;
  };
  for (const a of editorial.articles) {
    const article = node({
      id: `article:${a.doc.slug}`,
      type: "article",
      label: a.doc.meta.title,
      url: a.url,
      kind: null,
      date: a.doc.meta.date,
    });
    for (const r of a.evidence.references) edge("links-to", article, reference(r));
    for (const m of a.summary.primarySources) edge("mentions", article, `primary-source:${m.slug}`);
    for (const c of a.claims) {
      const claim = node({
        id: `claim:${c.id}`,
        type: "claim",
        label: c.claim,
        url: null,
        kind: c.kind,
        date: c.observationDate,
      });
      edge("asserts", article, claim);
      for (const r of c.references) edge("cites", claim, reference(r));
    }
  }
  return {
    nodes: [...nodes.values()].sort(byNodeRank),
    edges: [...edges.values()].sort(byEdgeRank),
  };
}

const graphs = new WeakMap<Editorial, { nodes: Node[]; edges: Edge[] }>();

function graphOf({ publication: p, indexedAt, url, memo }: BuildContext) {
  const editorial = editorialOf(p, indexedAt, url, memo);
  let g = graphs.get(editorial);
  if (!g) graphs.set(editorial, (g = evidenceGraph(p, editorial, url)));
  return g;
}

/** How many items of each type, every type present (0 when none). */
const countBy = <T extends string>(types: readonly T[], items: { type: T }[]) => {
  const out = Object.fromEntries(types.map((t) => [t, 0])) as Record<T, number>;
  for (const i of items) out[i.type]++;
  return out;
};

export const evidenceGraphSurface = defineSurface({ format: "json", schema: EvidenceGraphSurface })({
  path: "/api/v1/evidence-graph.json",
  mediaType: "application/json",
  reusable: true,
  reads: { corpus: true },
  schemaName: "EvidenceGraphSurface",
  operationId: "evidenceGraphSurface",
  summary:
    "Evidence graph: articles, claims, references, hosts, institutions, primary sources and datasets as nodes and typed edges",
  build(ctx) {
    const { nodes, edges } = graphOf(ctx);
    return {
      schema: ctx.url("/openapi.json#/components/schemas/EvidenceGraphSurface"),
      version: CONTRACT_VERSION,
      generated: ctx.now,
      counts: {
        nodes: nodes.length,
        edges: edges.length,
        nodeTypes: countBy(NODE_TYPES, nodes),
        edgeTypes: countBy(EDGE_TYPES, edges),
      },
      policy:
        "Graphe dérivé automatiquement des liens des articles : un lien vers un hôte d’une source primaire (sous-domaines compris) relie la référence à l’institution. Un lien n’est pas une preuve ; lire la profondeur de preuve de chaque article dans le catalogue.",
      nodes,
      edges,
    };
  },
});

export const evidenceGraphNdjson = defineSurface({ format: "ndjson", schema: EvidenceGraphLine })({
  path: "/api/v1/evidence-graph.ndjson",
  mediaType: "application/x-ndjson",
  reusable: true,
  reads: { corpus: true },
  schemaName: "EvidenceGraphLine",
  linesFrom: {
    path: "/api/v1/evidence-graph.json",
    records: [
      { at: "nodes", recordType: "node" },
      { at: "edges", recordType: "edge" },
    ],
  },
  summary: "The evidence graph as one JSON object per line: every node line first, then every edge line",
  build(ctx) {
    const { nodes, edges } = graphOf(ctx);
    return [
      ...nodes.map((n) => ({ recordType: "node" as const, ...n })),
      ...edges.map((e) => ({ recordType: "edge" as const, ...e })),
    ];
  },
});
