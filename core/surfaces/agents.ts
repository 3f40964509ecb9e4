import { AgentManifest } from "../schemas/contract.ts";
import { CLAIM_KINDS } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION } from "./common.ts";
import { AGENTS_PAGE, MCP_SECTION } from "./pages.ts";

/** Contract paths of every machine endpoint, by the AgentEndpointMap key. */
export const ENDPOINT_PATHS = {
  openapi: "/openapi.json",
  catalog: "/api/v1/catalog.json",
  catalogNdjson: "/api/v1/catalog.ndjson",
  claims: "/api/v1/claims.json",
  claimsNdjson: "/api/v1/claims.ndjson",
  evidenceGraph: "/api/v1/evidence-graph.json",
  evidenceGraphNdjson: "/api/v1/evidence-graph.ndjson",
  sources: "/api/v1/sources.json",
  freshness: "/api/v1/freshness.json",
  integrity: "/api/v1/integrity.json",
  changes: "/api/v1/changes.json",
  changesNdjson: "/api/v1/changes.ndjson",
  riskDiff: "/api/v1/risk-diff.json",
  blackBox: "/api/v1/black-box.json",
  risk: "/api/v1/risk.json",
  debtRisk: "/api/v1/debt-risk.json",
  signalCurrent: "/api/v1/signals/current.json",
  signalHistory: "/api/v1/signals/history.json",
  signalHistoryNdjson: "/api/v1/signals/history.ndjson",
  signalHistoryCsv: "/api/v1/signals/history.csv",
  signalSchema: "/api/v1/signals/schema.json",
  llms: "/llms.txt",
  llmsFull: "/llms-full.txt",
  docs: "/donnees/agents/",
} as const;

export const agents = defineSurface({ format: "json", schema: AgentManifest })({
  path: "/agents.json",
  mediaType: "application/json",
  reusable: true,
  reads: { corpus: true },
  schemaName: "AgentManifest",
  operationId: "agentManifest",
  summary: "Discovery manifest for agents: endpoints, capabilities, use policy, counts and proof policy",
  build({ publication: p, now, url, registry, signer }) {
    const endpoints = {
      ...(Object.fromEntries(Object.entries(ENDPOINT_PATHS).map(([k, path]) => [k, url(path)])) as Record<
        keyof typeof ENDPOINT_PATHS,
        string
      >),
      docs: url(p.pages.agents),
      // The contract requires both. Without a configured MCP server, no address is invented: both
      // point at the MCP section of the agent page this tool builds, which says that none answers
      // over HTTP and how to run one over this publication.
      mcpEndpoint: p.config.mcp?.url ?? url(`${AGENTS_PAGE}#${MCP_SECTION}`),
      mcpDocumentation: p.config.mcp?.documentation ?? url(`${AGENTS_PAGE}#${MCP_SECTION}`),
    };
    return {
      schema: url("/openapi.json#/components/schemas/AgentManifest"),
      version: CONTRACT_VERSION,
      generated: now,
      name: p.config.name,
      description: p.config.description.fr,
      license: p.config.license,
      attribution: p.config.attribution,
      language: p.config.language,
      url: url(p.pages.home),
      capabilities: registry.map((s) => s.path).sort(),
      endpoints,
      preferredUse: [
        "Cite the publisher named in attribution and link the article or endpoint used.",
        "Read signal values with their level, tone, sourceStatus and fallbackUsed: a retained value is not fresh.",
        "Check a downloaded surface against /api/v1/integrity.json (sha256sum of the file).",
        "Use seriesDate for publication dates and observedAt only for the upstream economic date.",
        ...(p.config.archive
          ? [
              `Prove what was published when from the archive (one Git commit per assembly): git clone --bare --branch ${p.config.archive.branch} ${p.config.archive.url} archive.git, then risk-cli verify --archive archive.git and risk-cli replay --archive archive.git --date <date>.`,
            ]
          : []),
        ...(signer
          ? [
              `Checkpoints of the frame log (black-box.json log.checkpoint) are signed C2SP notes; the verifier key is ${signer.verifierKey}. Save one, then risk-cli verify --checkpoint FILE --key '${signer.verifierKey}' proves the archive still extends it.`,
            ]
          : []),
      ],
      prohibitedUse: [
        "Presenting signals or articles as investment advice.",
        "Aggregating the per-instrument signals into a single global risk index.",
        "Comparing rawValue across instruments: its unit depends on each methodology.",
        "Republishing without attribution (CC BY 4.0).",
      ],
      counts: {
        articles: p.articles.length,
        guides: p.guides.length,
        methodologies: p.methodologies.length,
        glossary: p.glossary.length,
        primarySources: p.primarySources.length,
      },
      proofPolicy: {
        claimKinds: [...CLAIM_KINDS],
        depthScale: p.protocol.proofDepthLevels,
        precisionGuard: p.protocol.precisionGuard,
        correctionPolicy: `${url(p.pages.protocol)}#corrections`,
        changelog: url(p.pages.changelog),
        riskBandScaleCaveat: p.config.riskBandScaleCaveat,
      },
    };
  },
});
