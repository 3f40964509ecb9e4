/**
 * Records of the published contract (../shared/contract.md), one zod schema each, strict
 * (no extra fields) wherever the contract says so. Types are inferred from the schemas.
 */
import { z } from "zod";
import {
  ChangelogKind,
  ClaimKind,
  Dataset,
  DepthId,
  EditorialCorrectionPolicy,
  EditorialEvidenceLevel,
  EditorialLink,
  EditorialPrecisionGuard,
  EditorialPrinciple,
  EditorialStep,
  EvidenceLocator,
  IsoDate,
  IsoDateTime,
  ProofDepthLevel,
  RiskBandScaleCaveat,
  TemporalPrecision,
  Uri,
} from "./primitives.ts";

export const EvidenceReference = z.strictObject({
  label: z.string(),
  href: Uri.describe("Absolute URI: site-relative links are resolved against the base URL."),
  host: z.string().nullable().optional(),
  kind: z.string().nullable().optional(),
  date: IsoDate.nullable().optional(),
  dateLabel: z.string(),
  sourcePublicationDate: IsoDate.nullable().optional(),
  sourcePublicationDateLabel: z.string().nullable().optional(),
  retrievedAt: IsoDateTime.nullable().optional(),
  indexedAt: IsoDateTime.nullable(),
});

export const ClaimClassifier = z.strictObject({
  method: z.literal("lexical-heuristic-v1"),
  matchedRule: z.enum(["scenario-marker", "estimate-marker", "inference-marker", "unclassified-assertion"]),
  caveat: z.string(),
  reviewedOverride: z.string().optional(),
});

export const Claim = z.strictObject({
  id: z.string(),
  localId: z.string().optional(),
  articleSlug: z.string(),
  articleUrl: Uri.optional(),
  articleTitle: z.string().optional(),
  kind: ClaimKind,
  claim: z.string(),
  date: IsoDate.nullable().optional(),
  dateLabel: z.string(),
  claimDate: IsoDate.nullable(),
  claimDateLabel: z.string(),
  observationDate: IsoDate.nullable(),
  observationDateLabel: z.string(),
  observationStart: IsoDate.nullable().optional(),
  observationEnd: IsoDate.nullable().optional(),
  temporalPrecision: TemporalPrecision,
  confidence: z.enum(["auto-backfill", "structurée"]).optional(),
  reviewStatus: z.enum(["unreviewed", "reviewed"]),
  reviewedAt: IsoDateTime.nullable().optional(),
  reviewedBy: z.string().nullable().optional(),
  reviewNote: z.string().nullable().optional(),
  reviewedProofDepth: z.enum(["direct-proof", "reproduction"]).nullable().optional(),
  evidenceLocator: EvidenceLocator.nullable().optional(),
  reproductionArtifact: z.string().nullable().optional(),
  classifier: ClaimClassifier,
  references: z.array(EvidenceReference),
});

export const ArticleEvidenceCounts = z.strictObject({
  externalLinks: z.int(),
  internalLinks: z.int(),
  primarySources: z.int(),
  claimRelations: z.int(),
});

export const EvidenceDepth = z.strictObject({
  id: DepthId,
  label: z.string(),
  detail: z.string(),
  score: z.int().min(1).max(5),
  automated: z.boolean(),
});

export const EvidenceBadge = z.strictObject({
  id: z.enum(["primary-source", "public-data", "secondary-source", "scenario", "internal-context"]),
  label: z.string(),
  detail: z.string(),
});

export const PrimarySourceMention = z.strictObject({
  slug: z.string(),
  name: z.string(),
  url: Uri,
  reason: z.literal("source-liée"),
});

export const ArticleEvidenceSummary = z.strictObject({
  claims: z.array(Claim),
  depth: EvidenceDepth,
  badges: z.array(EvidenceBadge),
  primarySources: z.array(PrimarySourceMention),
  counts: ArticleEvidenceCounts,
});

export const ArticleRevisionPolicy = z.strictObject({
  published: IsoDate.nullable(),
  updated: IsoDate.nullable(),
  policy: Uri,
  changelog: Uri,
});

export const ContentSummary = z.strictObject({
  slug: z.string(),
  url: Uri,
  title: z.string(),
  date: IsoDate,
  updated: IsoDate.nullable().optional(),
  description: z.string(),
  summary: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
  topics: z.array(z.string()).optional(),
  evidence: ArticleEvidenceSummary.optional(),
  revisions: ArticleRevisionPolicy.optional(),
  // The translation fields that link an item to its French original; the contract's ContentSummary table omits them.
  language: z
    .enum(["fr", "en"])
    .optional()
    .describe(
      "Language of the item. Not in the contract's ContentSummary table; added so that each translated item is linked to its French original.",
    ),
  canonicalId: z
    .string()
    .optional()
    .describe(
      "Id shared by a French original and its translations: `article:<French slug>` or `guide:<French slug>`. Added to link each translated item to its French original.",
    ),
  translationOf: z
    .string()
    .nullable()
    .optional()
    .describe(
      "English items: slug of the French original they translate. Added to link each translated item to its French original.",
    ),
  alternateUrl: Uri.nullable()
    .optional()
    .describe(
      "The other language's version of the item, when it exists. Added to link each translated item to its French original.",
    ),
  translationStatus: z
    .enum(["current", "stale", "missing-source"])
    .nullable()
    .optional()
    .describe(
      "English items: current when translated from the original's latest version, stale when the original was updated since, missing-source when the original is not published. Added to link each translated item to its French original.",
    ),
});

export const GlossaryAtlasLink = z.strictObject({
  label: z.string(),
  href: Uri,
  detail: z.string().optional(),
  kind: z.enum(["article", "guide", "dataset", "signal", "source", "methodology"]).optional(),
});

export const GlossaryAtlas = z.strictObject({
  intuition: z.string().nullable(),
  formula: z.string().nullable(),
  whyNow: z.string().nullable(),
  related: z.array(z.string()),
  articles: z.array(GlossaryAtlasLink),
  guides: z.array(GlossaryAtlasLink),
  datasets: z.array(GlossaryAtlasLink),
  signals: z.array(GlossaryAtlasLink),
  sources: z.array(GlossaryAtlasLink),
});

export const GlossaryEntry = z.strictObject({
  slug: z.string(),
  url: Uri,
  sigle: z.string().nullable().optional(),
  name: z.string(),
  definition: z.string(),
  category: z.string(),
  guide: z.string().nullable().optional(),
  atlas: GlossaryAtlas.nullable(),
});

export const Topic = z.strictObject({ slug: z.string(), label: z.string(), blurb: z.string() });

export const MethodologySource = Dataset;

export const PrimarySource = z.strictObject({
  slug: z.string(),
  url: Uri,
  name: z.string(),
  shortName: z.string().optional(),
  category: z.string(),
  officialUrl: Uri,
  description: z.string(),
  datasets: z.array(Dataset).optional(),
  limits: z.array(z.string()).optional(),
  verification: z.array(z.string()).optional(),
});

export const MethodologySummary = z.strictObject({
  slug: z.string(),
  url: Uri,
  title: z.string(),
  label: z.string(),
  description: z.string(),
  question: z.string(),
  updated: z.string(),
  dashboard: Uri.nullable().optional(),
  repo: Uri.nullable().optional(),
  scaleCaveat: RiskBandScaleCaveat.nullable().optional(),
  sources: z.array(MethodologySource).optional(),
});

export const AgentCounts = z.strictObject({
  articles: z.int(),
  guides: z.int(),
  methodologies: z.int(),
  glossary: z.int(),
  primarySources: z.int(),
});

export const AgentProofPolicy = z.strictObject({
  claimKinds: z.array(ClaimKind),
  depthScale: z.array(ProofDepthLevel),
  precisionGuard: EditorialPrecisionGuard,
  correctionPolicy: Uri,
  changelog: Uri,
  riskBandScaleCaveat: RiskBandScaleCaveat,
});

export const AGENT_ENDPOINT_KEYS = [
  "openapi",
  "catalog",
  "catalogNdjson",
  "claims",
  "claimsNdjson",
  "evidenceGraph",
  "evidenceGraphNdjson",
  "sources",
  "freshness",
  "integrity",
  "changes",
  "changesNdjson",
  "riskDiff",
  "blackBox",
  "risk",
  "debtRisk",
  "signalCurrent",
  "signalHistory",
  "signalHistoryNdjson",
  "signalHistoryCsv",
  "signalSchema",
  "llms",
  "llmsFull",
  "mcpEndpoint",
  "mcpDocumentation",
  "docs",
] as const;

export const AgentEndpointMap = z.strictObject(
  Object.fromEntries(AGENT_ENDPOINT_KEYS.map((k) => [k, Uri])) as Record<
    (typeof AGENT_ENDPOINT_KEYS)[number],
    typeof Uri
  >,
);

export const AgentManifest = z.strictObject({
  schema: Uri,
  version: z.string(),
  generated: IsoDateTime,
  name: z.string(),
  description: z.string(),
  license: z.string(),
  attribution: z.string(),
  language: z.string(),
  url: Uri,
  capabilities: z.array(z.string()),
  endpoints: AgentEndpointMap,
  preferredUse: z.array(z.string()),
  prohibitedUse: z.array(z.string()),
  counts: AgentCounts,
  proofPolicy: AgentProofPolicy,
});

export const CatalogCounts = z.strictObject({
  articles: z.int(),
  guides: z.int(),
  topics: z.int(),
  methodologies: z.int(),
  glossary: z.int(),
  primarySources: z.int(),
  editorialChangelog: z.int(),
});

export const GlossaryCategory = z.strictObject({ slug: z.string(), title: z.string(), count: z.int() });

export const EditorialProtocol = z.strictObject({
  url: Uri,
  updated: IsoDate,
  promise: z.string(),
  principles: z.array(EditorialPrinciple),
  steps: z.array(EditorialStep),
  evidenceLevels: z.array(EditorialEvidenceLevel),
  proofDepthLevels: z.array(ProofDepthLevel),
  precisionGuard: EditorialPrecisionGuard,
  correctionPolicy: EditorialCorrectionPolicy,
});

export const EditorialChangelogItem = z.strictObject({
  date: IsoDate,
  title: z.string(),
  kind: ChangelogKind,
  summary: z.string(),
  links: z.array(EditorialLink),
  url: Uri,
});

export const CatalogEditorial = z.strictObject({
  protocol: EditorialProtocol,
  changelog: z.array(EditorialChangelogItem),
});

export const Catalog = z.strictObject({
  schema: Uri,
  version: z.string(),
  generated: IsoDateTime,
  counts: CatalogCounts,
  articles: z.array(ContentSummary),
  guides: z.array(ContentSummary),
  topics: z.array(Topic),
  methodologies: z.array(MethodologySummary),
  glossary: z.array(GlossaryEntry),
  primarySources: z.array(PrimarySource),
  note: z.string().optional(),
  license: z.string().optional(),
  attribution: z.string().optional(),
  glossaryCategories: z.array(GlossaryCategory).optional(),
  editorial: CatalogEditorial.optional(),
  riskBandScaleCaveat: RiskBandScaleCaveat.optional(),
});

export type Catalog = z.infer<typeof Catalog>;
export type AgentManifest = z.infer<typeof AgentManifest>;
export type ContentSummary = z.infer<typeof ContentSummary>;
export type GlossaryEntry = z.infer<typeof GlossaryEntry>;
export type PrimarySource = z.infer<typeof PrimarySource>;
export type MethodologySummary = z.infer<typeof MethodologySummary>;

// --- Claims surface -----------------------------------------------------------------------

export const ClaimsCounts = z.strictObject({
  articles: z.int(),
  claims: z.int(),
  reviewedClaims: z.int(),
  references: z.int(),
  claimKinds: z.array(ClaimKind),
});

export const ClaimsPolicy = z.strictObject({
  relation: z.string(),
  caveat: z.string(),
  classification: z.string(),
  review: z.string(),
  dateModel: z.string(),
  correctionPolicy: Uri,
});

export const ClaimReviewEntry = z.strictObject({
  claimId: z.string(),
  reviewedAt: IsoDateTime,
  reviewedBy: z.string(),
  note: z.string(),
  kind: ClaimKind.optional(),
  proofDepth: z.enum(["direct-proof", "reproduction"]).optional(),
  evidenceLocator: EvidenceLocator.optional(),
  reproductionArtifact: z.string().optional(),
});

export const ClaimReviewRegistry = z.strictObject({
  version: z.string(),
  updated: IsoDate,
  policy: z.string(),
  reviewedClaims: z.int(),
  entries: z.array(ClaimReviewEntry),
});

export const ClaimReference = z.strictObject({
  claimId: z.string(),
  articleSlug: z.string(),
  label: z.string(),
  href: Uri,
  host: z.string().nullable(),
  kind: z.string().nullable(),
  date: IsoDate.nullable(),
  claimDate: IsoDate.nullable(),
  observationDate: IsoDate.nullable(),
  observationStart: IsoDate.nullable(),
  observationEnd: IsoDate.nullable(),
  sourcePublicationDate: IsoDate.nullable(),
  dateLabel: z.string(),
  temporalPrecision: TemporalPrecision,
  retrievedAt: IsoDateTime.nullable(),
  indexedAt: IsoDateTime.nullable(),
});

export const ClaimsSurface = z.strictObject({
  schema: z.string(),
  version: z.string(),
  generated: IsoDateTime,
  counts: ClaimsCounts,
  policy: ClaimsPolicy,
  reviewRegistry: ClaimReviewRegistry,
  claims: z.array(Claim),
  references: z.array(ClaimReference),
  license: z.string().optional(),
  attribution: z.string().optional(),
});
export type ClaimRecord = z.infer<typeof Claim>;
export type ArticleEvidenceSummary = z.infer<typeof ArticleEvidenceSummary>;
