import { describe, expect, it } from "vitest";
import { extractArticleEvidence } from "../../core/claims/extract.ts";
import type { ClaimRecord } from "../../core/schemas/contract.ts";
import { applyReviews, type ClaimReviewsFileEntries } from "../../core/claims/reviews.ts";
import { Claim } from "../../core/schemas/contract.ts";
import { article, articleOf, demo, OPTIONS, optionsOf } from "./_demo.ts";

async function demoClaims(): Promise<ClaimRecord[]> {
  const p = await demo();
  return p.articles
    .filter((d) => d.lang === "fr")
    .flatMap((d) => extractArticleEvidence(articleOf(d), optionsOf(p)).claims);
}

const P1 =
  "Le 30 juin 2026, la dette atteignait 39 284 milliards de dollars selon [Debt to the Penny](https://fiscaldata.treasury.gov/d).";

function entry(claimId: string, extra: Partial<ClaimReviewsFileEntries[number]> = {}): ClaimReviewsFileEntries[number] {
  return { claimId, reviewedAt: "2026-11-02T10:00:00Z", reviewedBy: "Comité éditorial", note: "Vérifié.", ...extra };
}

describe("applyReviews()", () => {
  it("applies the three demo reviews with no orphan, and every reviewed claim stays valid", async () => {
    const p = await demo();
    const { claims, orphans } = applyReviews(await demoClaims(), p.claimReviews.entries);
    expect(orphans).toEqual([]);
    const reviewed = claims.filter((c) => c.reviewStatus === "reviewed");
    expect(reviewed.map((c) => c.id).sort()).toEqual([
      "carry-trade-yen-boj#hausse-taux-boj",
      "dette-americaine-plafond-2026#plafond-2026",
      "spread-btp-bund-2026#ecart-btp-bund-mai",
    ]);
    for (const c of claims) expect(() => Claim.parse(c)).not.toThrow();
  });

  it("fixes the kind to fait only through a review, and says so in reviewedOverride", async () => {
    const p = await demo();
    const before = await demoClaims();
    expect(before.some((c) => c.kind === "fait")).toBe(false);
    const { claims } = applyReviews(before, p.claimReviews.entries);
    const plafond = claims.find((c) => c.id === "dette-americaine-plafond-2026#plafond-2026")!;
    expect(plafond).toMatchObject({
      kind: "fait",
      reviewStatus: "reviewed",
      reviewedAt: "2026-11-02T10:00:00Z",
      reviewedBy: "Comité éditorial",
      reviewedProofDepth: "direct-proof",
      evidenceLocator: {
        type: "table",
        value: "Debt to the Penny, record date 2026-06-30, colonne Total Public Debt Outstanding",
      },
      reproductionArtifact: null,
    });
    expect(plafond.reviewNote).toContain("Debt to the Penny");
    expect(plafond.classifier.reviewedOverride).toBe(
      "nature fixée à « fait » par la revue du 2026-11-02 (Comité éditorial)",
    );
    expect(plafond.classifier.method).toBe("lexical-heuristic-v1");
  });

  it("keeps the automatic kind, without override, when a review does not set one", async () => {
    const p = await demo();
    const { claims } = applyReviews(await demoClaims(), p.claimReviews.entries);
    const btp = claims.find((c) => c.id === "spread-btp-bund-2026#ecart-btp-bund-mai")!;
    expect(btp.kind).toBe("unclassified-assertion");
    expect(btp.classifier.reviewedOverride).toBeUndefined();
    expect(btp.reviewedProofDepth).toBe("reproduction");
    expect(btp.reproductionArtifact).toBe(
      "https://git.example.org/risk/eu-sovereign/blob/main/notebooks/btp-bund-2026-05.ipynb",
    );
  });

  it("reports a review whose marker was removed as an orphan, with its index, instead of dropping it", () => {
    const claims = extractArticleEvidence(article(`<!-- claim-id: dette -->\n${P1}`), OPTIONS).claims;
    const { claims: out, orphans } = applyReviews(claims, [
      entry("essai#dette"),
      entry("essai#disparu"),
      entry("autre#x"),
    ]);
    expect(out[0].reviewStatus).toBe("reviewed");
    expect(orphans.map((o) => [o.index, o.claimId])).toEqual([
      [1, "essai#disparu"],
      [2, "autre#x"],
    ]);
    expect(orphans[0].reason).toContain("marker was removed or renamed");
    expect(orphans[1].reason).toContain('article "autre" has no claim');
  });

  it("lets the latest of two reviews of one claim stand, and says when a review confirms the automatic kind", () => {
    const claims = extractArticleEvidence(article(`<!-- claim-id: dette -->\n${P1}`), OPTIONS).claims;
    const { claims: out, orphans } = applyReviews(claims, [
      entry("essai#dette", {
        reviewedAt: "2026-11-03T09:00:00Z",
        note: "Plus récente.",
        kind: "unclassified-assertion",
      }),
      entry("essai#dette", { reviewedAt: "2026-11-01T09:00:00Z", note: "Ancienne.", kind: "fait" }),
    ]);
    expect(orphans).toEqual([]);
    expect(out[0].reviewNote).toBe("Plus récente.");
    expect(out[0].classifier.reviewedOverride).toBe(
      "nature confirmée à « unclassified-assertion » par la revue du 2026-11-03 (Comité éditorial)",
    );
  });

  it("does not change the claims it is given", () => {
    const claims = extractArticleEvidence(article(`<!-- claim-id: dette -->\n${P1}`), OPTIONS).claims;
    const copy = structuredClone(claims);
    applyReviews(claims, [entry("essai#dette", { kind: "fait" })]);
    expect(claims).toEqual(copy);
  });
});
