import { z } from "zod";
import { editorialOf } from "../editorial/analysis.ts";
import { reviewWaits } from "../inputs/publication.ts";
import { Claim, ClaimReference, ClaimsSurface, type ClaimRecord } from "../schemas/contract.ts";
import { CLAIM_KINDS } from "../schemas/primitives.ts";
import { defineSurface, type BuildContext } from "./types.ts";
import { CONTRACT_VERSION, byCodeUnits } from "./common.ts";

/** The flat list of a claim's references, as the claims surface publishes it. */
export function claimReferences(claims: readonly ClaimRecord[]): z.input<typeof ClaimReference>[] {
  return claims.flatMap((c) =>
    c.references.map((r) => ({
      claimId: c.id,
      articleSlug: c.articleSlug,
      label: r.label,
      href: r.href,
      host: r.host ?? null,
      kind: r.kind ?? null,
      date: r.date ?? null,
      claimDate: c.claimDate,
      observationDate: c.observationDate,
      observationStart: c.observationStart ?? null,
      observationEnd: c.observationEnd ?? null,
      sourcePublicationDate: r.sourcePublicationDate ?? null,
      dateLabel: r.dateLabel,
      temporalPrecision: c.temporalPrecision,
      retrievedAt: r.retrievedAt ?? null,
      indexedAt: r.indexedAt,
    })),
  );
}

function claimsOf({ publication: p, indexedAt, url, memo }: BuildContext) {
  return editorialOf(p, indexedAt, url, memo);
}

export const claims = defineSurface({ format: "json", schema: ClaimsSurface })({
  path: "/api/v1/claims.json",
  mediaType: "application/json",
  reusable: true,
  reads: { corpus: true },
  schemaName: "ClaimsSurface",
  operationId: "claimsSurface",
  summary:
    "Claim-to-source graph: at most three typed claims per French article, each linked to its references, with the review registry",
  build(ctx) {
    const { publication: p, now, url } = ctx;
    const editorial = claimsOf(ctx);
    const list = editorial.claims;
    const entries = p.claimReviews.entries
      .filter((e) => !reviewWaits(p, e.claimId))
      .sort((a, b) => byCodeUnits(a.claimId, b.claimId) || byCodeUnits(a.reviewedAt, b.reviewedAt));
    const references = claimReferences(list);
    return {
      schema: url("/openapi.json#/components/schemas/ClaimsSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      license: p.config.license,
      attribution: p.config.attribution,
      counts: {
        articles: editorial.articles.length,
        claims: list.length,
        reviewedClaims: list.filter((c) => c.reviewStatus === "reviewed").length,
        references: references.length,
        claimKinds: [...CLAIM_KINDS],
      },
      policy: {
        relation:
          "Chaque affirmation est une phrase d’un article français, reliée aux liens qu’elle cite (references). Au plus trois affirmations structurelles par article, choisies pour leurs liens vers des sources primaires, leurs chiffres et leurs dates ; les traductions anglaises renvoient à l’original et n’ont pas d’affirmations propres.",
        caveat:
          "Extraction et classement automatiques : une affirmation non revue (reviewStatus unreviewed) n’a été vérifiée par personne. La nature « fait » n’est jamais attribuée automatiquement.",
        classification:
          "lexical-heuristic-v1 : marqueurs de scénario, d’estimation puis d’inférence, cherchés sur des limites de mots en français et en anglais ; sinon unclassified-assertion.",
        review:
          "Le comité éditorial revoit les affirmations marquées d’un identifiant claim-id : nature confirmée ou corrigée, valeur localisée dans la source (evidenceLocator), artefact de reproduction le cas échéant. Une revue dont l’affirmation a disparu est signalée à l’assemblage, jamais supprimée en silence.",
        dateModel:
          "claimDate est la date de publication de l’article ; observationDate la date de l’observation citée par la phrase (jour, mois, trimestre, année ou intervalle observationStart–observationEnd), null si la phrase n’en donne pas. Une année dans une URL n’est jamais une date. indexedAt est l’instant de l’assemblage qui a indexé le corpus.",
        correctionPolicy: `${url(p.pages.protocol)}#corrections`,
      },
      reviewRegistry: {
        version: p.claimReviews.version,
        updated: p.claimReviews.updated,
        policy: p.claimReviews.policy,
        reviewedClaims: list.filter((c) => c.reviewStatus === "reviewed").length,
        entries,
      },
      claims: list,
      references,
    };
  },
});

export const claimsNdjson = defineSurface({ format: "ndjson", schema: Claim })({
  path: "/api/v1/claims.ndjson",
  mediaType: "application/x-ndjson",
  reusable: true,
  reads: { corpus: true },
  schemaName: "Claim",
  linesFrom: { path: "/api/v1/claims.json", records: [{ at: "claims" }] },
  summary: "One typed claim per line, references embedded",
  build(ctx) {
    return claimsOf(ctx).claims;
  },
});
