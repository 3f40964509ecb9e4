import { z } from "zod";
import { instrumentsOf } from "../inputs/publication.ts";
import { signalHistoryKey, newLevelChanges, signalHistoryOf } from "../signal-history/rows.ts";
import { BLACK_BOX_PATH, firstFrameAt } from "./black-box.ts";
import type { LevelChange } from "../signal-history/model.ts";
import { numberText } from "../render/number.ts";
import { xmlText } from "../render/text.ts";
import { defineSurface, type BuildContext } from "./types.ts";

/** The feed carries the most recent level changes only; the whole list is in signals/history.json. */
export const FEED_ENTRIES = 50;

const AtomText = z
  .string()
  .startsWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"');

/** `tag:` URI (RFC 4151) of a level change: the publisher's host, the day, the frame and the instrument. */
export function entryId(host: string, c: LevelChange): string {
  return `tag:${host},${c.seriesDate}:level-change/${c.frameId}/${c.instrument}`;
}

export const riskAtom = defineSurface({ format: "text", schema: AtomText })({
  path: "/api/v1/risk.xml",
  mediaType: "application/atom+xml; charset=utf-8",
  schemaName: "RiskLevelFeed",
  summary: "Atom feed (RFC 4287) of signal level changes, newest first, for alerting bots",
  reuseKey: signalHistoryKey,
  reads: { signalHistory: true },
  previousCopies: [BLACK_BOX_PATH],
  build(ctx: BuildContext) {
    const { publication: p, url } = ctx;
    const host = new URL(p.config.baseUrl).hostname;
    const labels = new Map(instrumentsOf(p).map(([key, c]) => [key, c.label]));
    // The page a person opens from a feed reader: the instrument's dashboard (an HTML page).
    const pages = new Map(instrumentsOf(p).map(([key, c]) => [key, c.dashboard]));
    const kept = signalHistoryOf(ctx).levelChanges;
    const entries = [...kept.slice(-FEED_ENTRIES), ...newLevelChanges(ctx)].slice(-FEED_ENTRIES).reverse();
    // Without an entry, the feed dates from the archive's first frame, so it does not change at every assembly.
    const updated = entries[0]?.at ?? firstFrameAt(ctx);
    const lines = [
      '<?xml version="1.0" encoding="utf-8"?>',
      `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${xmlText(p.config.language)}">`,
      `  <id>${xmlText(url("/api/v1/risk.xml"))}</id>`,
      `  <title>${xmlText(`${p.config.name} : changements de niveau des signaux`)}</title>`,
      `  <subtitle>${xmlText(`Les ${FEED_ENTRIES} derniers changements de niveau, du plus récent au plus ancien ; l'historique complet est dans /api/v1/signals/history.json. Ce n'est pas un conseil en investissement.`)}</subtitle>`,
      `  <updated>${updated}</updated>`,
      `  <author><name>${xmlText(p.config.name)}</name><uri>${xmlText(url(p.pages.home))}</uri></author>`,
      `  <link rel="self" type="application/atom+xml" href="${xmlText(url("/api/v1/risk.xml"))}"/>`,
      `  <link rel="alternate" type="application/json" href="${xmlText(url("/api/v1/signals/history.json"))}"/>`,
      `  <rights>${xmlText(p.config.attribution)}</rights>`,
      `  <generator>risk-cli</generator>`,
    ];
    // The entries are French prose for a person's feed reader: French numbers ("52,5").
    const num = (n: number) => numberText(n, "fr");
    for (const c of entries) {
      const label = labels.get(c.instrument);
      const name = label ? `${label.fr} / ${label.en}` : c.instrument;
      const raw =
        c.to.rawValue !== null
          ? `; valeur brute ${num(c.to.rawValue)}${c.to.rawUnit !== null ? ` ${c.to.rawUnit}` : ""}`
          : "";
      const retained = c.to.fallbackUsed
        ? `; valeur conservée après une panne amont (${c.to.sourceStatus}), pas une lecture fraîche`
        : "";
      lines.push(
        "  <entry>",
        `    <id>${xmlText(entryId(host, c))}</id>`,
        `    <title>${xmlText(`${name} : ${c.from.level} → ${c.to.level} (${num(c.to.value)})`)}</title>`,
        `    <updated>${c.at}</updated>`,
        `    <published>${c.at}</published>`,
        `    <link rel="alternate" type="text/html" href="${xmlText(pages.get(c.instrument) ?? url(p.pages.home))}"/>`,
        `    <link rel="related" type="application/json" href="${xmlText(url("/api/v1/signals/history.json"))}"/>`,
        `    <author><name>${xmlText(p.config.name)}</name><uri>${xmlText(url(p.pages.home))}</uri></author>`,
        `    <category term="${c.to.tone}" label="${xmlText(c.to.level)}"/>`,
        `    <content type="text">${xmlText(
          `${name} passe de ${c.from.level} (${num(c.from.value)}) à ${c.to.level} (${num(c.to.value)}) à ${c.at}, frame ${c.frameId} comparée à ${c.previousFrameId}${raw}${c.to.observedAt ? `; observation amont ${c.to.observedAt}` : ""}${retained}.`,
        )}</content>`,
        "  </entry>",
      );
    }
    lines.push("</feed>", "");
    return lines.join("\n");
  },
});
