import { z } from "zod";
import { primarySourceOf } from "../claims/references.ts";
import { editorialOf } from "../editorial/analysis.ts";
import { PrimarySource } from "../schemas/contract.ts";
import { IsoDate, IsoDateTime, Uri } from "../schemas/primitives.ts";
import { defineSurface } from "./types.ts";
import { CONTRACT_VERSION, byCodeUnits } from "./common.ts";
import { primarySources } from "./records.ts";

const ReferenceKind = z.enum(["primary-source", "secondary-source", "internal"]);

export const SourcesSurface = z.strictObject({
  schema: Uri,
  version: z.string(),
  generated: IsoDateTime,
  registry: z.strictObject({
    title: z.string(),
    url: Uri.describe("Human-readable page of the primary-source registry."),
    updated: IsoDate.describe("The editorial protocol's last update, which governs the registry."),
    matchRule: z.string(),
  }),
  counts: z.strictObject({
    primarySources: z.int(),
    datasets: z.int(),
    referenceHosts: z.int(),
    references: z.int().describe("Distinct (article, href) links of the French articles."),
    primaryReferences: z.int(),
  }),
  sourcePolicy: z.strictObject({
    citation: z.string(),
    primaryRule: z.string(),
    limits: z.array(z.string()),
    correctionPolicy: Uri,
  }),
  primarySources: z.array(
    PrimarySource.extend({
      hosts: z.array(z.string()).describe("Hosts that identify this source, subdomains included."),
      citingArticles: z.int().describe("French articles that link to one of these hosts."),
    }),
  ),
  referenceHosts: z.array(
    z.strictObject({
      host: z.string(),
      kind: ReferenceKind,
      primarySource: z.string().nullable().describe("Slug of the primary source the host belongs to, if any."),
      references: z.int(),
      articles: z.int(),
    }),
  ),
});

export const sources = defineSurface({ format: "json", schema: SourcesSurface })({
  path: "/api/v1/sources.json",
  mediaType: "application/json",
  reusable: true,
  reads: { corpus: true },
  schemaName: "SourcesSurface",
  operationId: "sourcesSurface",
  summary: "Sources registry: institutional primary sources, the hosts the articles cite, citation rules and limits",
  build({ publication: p, now, indexedAt, url, memo }) {
    const editorial = editorialOf(p, indexedAt, url, memo);
    const hosts = new Map<
      string,
      { kind: z.infer<typeof ReferenceKind>; primarySource: string | null; references: number; articles: Set<string> }
    >();
    const citing = new Map<string, Set<string>>();
    let references = 0;
    for (const a of editorial.articles) {
      for (const r of a.evidence.references) {
        if (!r.host) continue;
        references++;
        const owner = primarySourceOf(r.host, editorial.primaryHosts);
        const entry = hosts.get(r.host) ?? {
          kind: (r.kind as "primary-source" | "secondary-source" | "internal") ?? "secondary-source",
          primarySource: owner,
          references: 0,
          articles: new Set<string>(),
        };
        entry.references++;
        entry.articles.add(a.doc.slug);
        hosts.set(r.host, entry);
        if (owner) citing.set(owner, (citing.get(owner) ?? new Set()).add(a.doc.slug));
      }
    }
    const registry = primarySources(p, url);
    const hostsOf = (slug: string) => editorial.primaryHosts.filter((h) => h.slug === slug).map((h) => h.host);
    const referenceHosts = [...hosts]
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([host, e]) => ({
        host,
        kind: e.kind,
        primarySource: e.primarySource,
        references: e.references,
        articles: e.articles.size,
      }));
    return {
      schema: url("/openapi.json#/components/schemas/SourcesSurface"),
      version: CONTRACT_VERSION,
      generated: now,
      registry: {
        title: "Registre des sources primaires",
        url: url(p.pages.sources),
        updated: p.protocol.updated,
        matchRule:
          "Un lien est une source primaire quand son hôte est celui d’une source du registre ou d’un de ses jeux de données, sous-domaines compris (www.boj.or.jp relève de boj.or.jp ; notboj.or.jp non).",
      },
      counts: {
        primarySources: registry.length,
        datasets: registry.reduce((n, s) => n + (s.datasets?.length ?? 0), 0),
        referenceHosts: referenceHosts.length,
        references,
        primaryReferences: referenceHosts
          .filter((h) => h.kind === "primary-source")
          .reduce((n, h) => n + h.references, 0),
      },
      sourcePolicy: {
        citation: `Citer la source primaire (institution, série, date de la donnée) plutôt que l’article qui la reprend ; citer la publication sous le nom « ${p.config.attribution} » (${p.config.license}).`,
        primaryRule:
          "Une source primaire est l’institution qui produit la donnée ou la décision (banque centrale, trésor, office statistique, organisation internationale). Un média ou un agrégateur est une source secondaire.",
        limits: [
          "Un lien vers une source primaire ne prouve pas que la valeur citée s’y trouve : seule une revue avec localisation (direct-proof) l’établit.",
          "Les hôtes secondaires sont recensés tels que cités, sans jugement de fiabilité.",
          "Les liens internes renvoient au contexte de la publication et ne sont pas des preuves.",
        ],
        correctionPolicy: `${url(p.pages.protocol)}#corrections`,
      },
      primarySources: registry.map((s) => ({
        ...s,
        hosts: hostsOf(s.slug),
        citingArticles: citing.get(s.slug)?.size ?? 0,
      })),
      referenceHosts,
    };
  },
});
