/**
 * Claim reviews applied to claims. A review sets the review fields and may fix the kind (the only
 * way a claim becomes a `fait`). A review whose claim no longer exists is returned as an orphan,
 * never dropped. When several reviews name one claim, the latest `reviewedAt` wins (the later
 * entry on a tie): the registry is a history, the newest word stands.
 */
import type { ClaimReviewsFile } from "../inputs/schemas.ts";
import type { ClaimRecord } from "../schemas/contract.ts";

export type ClaimReviewsFileEntries = ClaimReviewsFile["entries"];
type _Entry = ClaimReviewsFileEntries[number];

export interface OrphanReview {
  /** Index of the entry in the registry. */
  index: number;
  claimId: string;
  reason: string;
}

/** `claims` with their reviews applied (new objects, same order), and the reviews that match no claim. */
export function applyReviews(
  claims: readonly ClaimRecord[],
  entries: ClaimReviewsFileEntries,
  /** A review that waits with its article, a draft: neither applied nor an orphan. */
  waits: (claimId: string) => boolean = () => false,
): { claims: ClaimRecord[]; orphans: OrphanReview[] } {
  const ids = new Set(claims.map((c) => c.id));
  const articles = new Set(claims.map((c) => c.articleSlug));
  const latest = new Map<string, _Entry>();
  const orphans: OrphanReview[] = [];
  entries.forEach((entry, index) => {
    if (waits(entry.claimId)) return;
    if (!ids.has(entry.claimId)) {
      orphans.push({ index, claimId: entry.claimId, reason: _orphanReason(entry.claimId, articles) });
      return;
    }
    const previous = latest.get(entry.claimId);
    if (previous === undefined || entry.reviewedAt >= previous.reviewedAt) latest.set(entry.claimId, entry);
  });
  return { claims: claims.map((c) => _apply(c, latest.get(c.id))), orphans };
}

function _orphanReason(claimId: string, articles: ReadonlySet<string>): string {
  const slug = claimId.slice(0, claimId.indexOf("#"));
  return articles.has(slug)
    ? `no claim of article "${slug}" has the id "${claimId}": its claim-id marker was removed or renamed, or its sentence changed; update the review or restore the marker`
    : `article "${slug}" has no claim (it does not exist, is not French, or none of its sentences is a claim); update or remove the review`;
}

/** "nature fixée à « fait » par la revue du 2026-11-02 (Comité éditorial)". */
export function overrideNote(entry: Pick<_Entry, "kind" | "reviewedAt" | "reviewedBy">, automaticKind: string): string {
  const verb = entry.kind === automaticKind ? "confirmée" : "fixée";
  return `nature ${verb} à « ${entry.kind} » par la revue du ${entry.reviewedAt.slice(0, 10)} (${entry.reviewedBy})`;
}

function _apply(claim: ClaimRecord, entry: _Entry | undefined): ClaimRecord {
  if (entry === undefined) return { ...claim, classifier: { ...claim.classifier }, references: [...claim.references] };
  const classifier = { ...claim.classifier };
  if (entry.kind !== undefined) classifier.reviewedOverride = overrideNote(entry, claim.kind);
  return {
    ...claim,
    kind: entry.kind ?? claim.kind,
    reviewStatus: "reviewed",
    reviewedAt: entry.reviewedAt,
    reviewedBy: entry.reviewedBy,
    reviewNote: entry.note,
    reviewedProofDepth: entry.proofDepth ?? null,
    evidenceLocator: entry.evidenceLocator ? { ...entry.evidenceLocator } : null,
    reproductionArtifact: entry.reproductionArtifact ?? null,
    classifier,
    references: [...claim.references],
  };
}
