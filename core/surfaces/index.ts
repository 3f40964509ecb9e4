/**
 * The surface registry, in build order. A surface may read the fingerprints of those before it:
 * the black box comes before integrity, which fingerprints every other surface.
 */
import type { Surface } from "./types.ts";
import type { Publication } from "../inputs/publication.ts";
import { agents } from "./agents.ts";
import { catalog } from "./catalog.ts";
import { catalogNdjson } from "./catalog-ndjson.ts";
import { claims, claimsNdjson } from "./claims.ts";
import { evidenceGraphNdjson, evidenceGraphSurface } from "./evidence-graph.ts";
import { sources } from "./sources.ts";
import { searchIndex } from "./search-index.ts";
import { llms, llmsFull, llmsFullEnglish } from "./llms.ts";
import { risk } from "./risk.ts";
import { debtRisk } from "./debt-risk.ts";
import { signalsCurrent } from "./signals-current.ts";
import { changes, changesNdjson } from "./changes.ts";
import { riskDiff } from "./risk-diff.ts";
import { freshness } from "./freshness.ts";
import { openapi } from "./openapi.ts";
import { blackBox } from "./black-box.ts";
import { integrity } from "./integrity.ts";
// The signal history and the operational journal
import { signalHistory, signalHistoryNdjson } from "./signal-history.ts";
import { signalHistoryCsv, seriesHistoryCsv } from "./signal-history-csv.ts";
import { signalSchema } from "./signal-schema.ts";
import { riskAtom } from "./risk-atom.ts";
import { journal } from "./journal.ts";
import { allSeriesZip, seriesZip } from "./downloads.ts";
import { humanTraffic } from "./human-traffic.ts";
import { agentsPage, agentsPageEnglish, pressPage, seriesChart, seriesPages, seriesRegistryPage } from "./pages.ts";

export const SURFACES: readonly Surface[] = [
  agents,
  catalog,
  catalogNdjson,
  claims,
  claimsNdjson,
  evidenceGraphSurface,
  evidenceGraphNdjson,
  sources,
  searchIndex,
  llms,
  llmsFull,
  llmsFullEnglish,
  risk,
  debtRisk,
  signalsCurrent,
  humanTraffic,
  // Computed against the archive's earlier frames: changefeed, risk diff, freshness.
  changes,
  changesNdjson,
  riskDiff,
  freshness,
  signalHistory,
  signalHistoryNdjson,
  signalHistoryCsv,
  seriesHistoryCsv,
  // The pages and charts, after the per-series CSVs whose fingerprints the citations name.
  seriesChart,
  seriesPages,
  seriesRegistryPage,
  pressPage,
  agentsPage,
  agentsPageEnglish,
  seriesZip,
  allSeriesZip,
  signalSchema,
  riskAtom,
  openapi,
  blackBox,
  journal,
  integrity,
];

/**
 * The registry with each template expanded for a publication (one per-series
 * CSV per configured series): the surfaces an assembly of that publication builds, in order.
 */
export function surfacesFor(publication: Publication, registry: readonly Surface[] = SURFACES): Surface[] {
  return registry.flatMap((s) => (s.expand ? s.expand(publication) : [s]));
}
