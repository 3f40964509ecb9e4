/**
 * Per-object content hashes: the object manifest. Each assembly whose inputs changed records, in
 * the archive next to its frame, one line per published object (article, guide, methodology,
 * protocol, changelog item, claim review, claim, glossary entry, primary source, topic,
 * instrument policy) with two SHA-256: of its content as published, and of a normalised form in
 * which only meaning counts (whitespace collapsed, Unicode NFC). Diffing two manifests is then
 * O(objects) and never reads an old catalog.
 */
import { pageOf } from "../inputs/pages.ts";
import { z } from "zod";
import { canonicalJson } from "../canonical/jcs.ts";
import { collapseSpaces, headUnits } from "../render/text.ts";
import { editorialOf } from "../editorial/analysis.ts";
import type { Doc, Publication } from "../inputs/publication.ts";
import { instrumentsOf, reviewWaits } from "../inputs/publication.ts";
import { noMemo, type Hasher, type Memo } from "../ports.ts";
import { byCodeUnits, byId, docPath, type UrlOf } from "../surfaces/common.ts";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const OBJECT_KINDS = [
  "article",
  "guide",
  "methodology",
  "protocol",
  "changelog",
  "claim-reviews",
  "claim-review",
  "claim",
  "glossary",
  "primary-source",
  "topic",
  "instrument",
] as const;
export const ObjectKind = z.enum(OBJECT_KINDS);
export type ObjectKind = z.infer<typeof ObjectKind>;

/** Kinds whose change is a change of policy or model rather than of a publication. */
export const POLICY_KINDS: ReadonlySet<ObjectKind> = new Set([
  "methodology",
  "protocol",
  "changelog",
  "claim-reviews",
  "claim-review",
  "instrument",
]);

export const ObjectRecord = z.strictObject({
  id: z.string(),
  kind: ObjectKind,
  title: z.string().nullable(),
  url: z.string().nullable(),
  language: z.enum(["fr", "en"]).nullable(),
  /** The object's own version: a content's updated date, a methodology version, a review date. */
  version: z.string().nullable(),
  /** SHA-256 of the canonical JSON of the object as published. */
  sha256: Sha256,
  /** SHA-256 of the same with every string whitespace-collapsed and NFC: equal means no change of meaning. */
  semanticSha256: Sha256,
});
export type ObjectRecord = z.infer<typeof ObjectRecord>;
export const ObjectManifest = z.array(ObjectRecord);
export type ObjectManifest = ObjectRecord[];

/** Where the archive stores the manifest, at the root of a frame's tree. */

const encoder = new TextEncoder();

/**
 * Every published object of `p`, sorted by id. Pure; `indexedAt` only feeds the claim analysis.
 * An object's semantic hash is kept in `kept` under its exact hash, so only changed objects are
 * normalised and hashed twice.
 */
export function objectManifest(
  p: Publication,
  indexedAt: string,
  url: UrlOf,
  hash: Hasher,
  kept: Memo = noMemo,
): ObjectManifest {
  const out: ObjectRecord[] = [];
  const add = (
    id: string,
    kind: ObjectKind,
    content: unknown,
    meta: { title?: string | null; url?: string | null; language?: "fr" | "en" | null; version?: string | null },
    /** Short parts that determine `content` exactly, when known: its hash is then kept under them. */
    determinedBy?: readonly string[],
  ) => {
    // The hasher takes the text and hashes its UTF-8 bytes without an encoded copy.
    const exact = () => hash.sha256Parts([canonicalJson(content, id)]);
    const sha256 = determinedBy ? kept.remember("object-sha256", determinedBy, exact) : exact();
    // Members in code-unit order, as canonical JSON writes them: the manifest is not copied to be sorted.
    out.push({
      id,
      kind,
      language: meta.language ?? null,
      semanticSha256: kept.remember("semantic-sha256", [sha256], () => {
        // Already in the normalised form (no string to collapse or compose): the same bytes.
        const form = normalised(content);
        return form === content ? sha256 : hash.sha256Parts([canonicalJson(form, id)]);
      }),
      sha256,
      title: meta.title ?? null,
      url: meta.url ?? null,
      version: meta.version ?? null,
    });
  };
  const doc = (d: Doc) =>
    add(
      `${d.kind}/${d.lang}/${d.slug}`,
      d.kind,
      { meta: d.meta, body: d.body },
      {
        title: d.meta.title,
        url: url(docPath(d)),
        language: d.lang,
        version: d.meta.updated ?? d.meta.date,
      },
      // The body is read from its file's name and the text its key names; the meta is small.
      d.bodyKey ? [canonicalJson(d.meta, d.file), d.file, d.bodyKey] : undefined,
    );
  p.articles.forEach(doc);
  p.guides.forEach(doc);
  for (const m of p.methodologies) {
    const { file: _file, ...content } = m;
    add(`methodology/${m.slug}`, "methodology", content, {
      title: m.title,
      url: url(pageOf(p.pages.methodology, m.slug)),
      language: "fr",
      version: m.version,
    });
  }
  add("protocol", "protocol", p.protocol, {
    title: "Protocole éditorial",
    url: url(p.pages.protocol),
    language: "fr",
    version: (p.protocol as { updated?: string }).updated ?? null,
  });
  for (const c of p.changelog)
    add(`changelog/${c.id}`, "changelog", c, {
      title: c.title,
      url: `${url(p.pages.changelog)}#${c.id}`,
      language: "fr",
      version: c.date,
    });
  const { entries, ...registry } = p.claimReviews;
  add("claim-reviews", "claim-reviews", registry, {
    title: "Registre des revues d’affirmations",
    url: null,
    language: "fr",
    version: registry.version,
  });
  const seen = new Map<string, number>();
  for (const r of entries
    .filter((e) => !reviewWaits(p, e.claimId))
    .sort((a, b) => byCodeUnits(a.claimId, b.claimId) || byCodeUnits(a.reviewedAt, b.reviewedAt))) {
    const n = (seen.get(r.claimId) ?? 0) + 1;
    seen.set(r.claimId, n);
    add(`claim-review/${r.claimId}${n > 1 ? `~${n}` : ""}`, "claim-review", r, {
      title: r.claimId,
      version: r.reviewedAt,
    });
  }
  for (const c of editorialOf(p, indexedAt, url, kept).claims) {
    // The article's title and the indexing instant are not the claim: leave them out.
    const { articleTitle: _t, articleUrl, ...claim } = c as typeof c & { articleTitle?: string; articleUrl?: string };
    const content = { ...claim, references: c.references.map(({ indexedAt: _i, ...r }) => r) };
    add(`claim/${c.id}`, "claim", content, {
      title: c.claim.length > 120 ? `${headUnits(c.claim, 117)}...` : c.claim,
      url: articleUrl ?? null,
      language: "fr",
      version: c.reviewedAt ?? null,
    });
  }
  for (const g of p.glossary)
    add(`glossary/${g.slug}`, "glossary", g, {
      title: g.name,
      url: url(pageOf(p.pages.glossaryEntry, g.slug)),
      language: "fr",
    });
  for (const s of p.primarySources)
    add(`primary-source/${s.slug}`, "primary-source", s, {
      title: s.name,
      url: url(pageOf(p.pages.source, s.slug)),
      language: "fr",
    });
  for (const t of p.topics) add(`topic/${t.slug}`, "topic", t, { title: t.label, language: "fr" });
  const versions = new Map(p.methodologies.map((m) => [m.slug, m.version]));
  for (const [key, config] of instrumentsOf(p)) {
    add(`instrument/${key}`, "instrument", config, {
      title: config.label.fr,
      url: config.dashboard,
      language: null,
      version: versions.get(config.methodology) ?? null,
    });
  }
  return out.sort(byId);
}

/** The canonical bytes the archive stores for a manifest. */
export function manifestBytes(manifest: ObjectManifest): Uint8Array {
  return encoder.encode(canonicalJson(manifest, "the object manifest"));
}

export interface ObjectChange {
  status: "added" | "modified" | "removed";
  /** False when only formatting changed (the normalised form hashes the same). */
  semantic: boolean;
  before: ObjectRecord | null;
  after: ObjectRecord | null;
}

/** What changed from one manifest to the next, by object id. */
export function diffManifests(before: readonly ObjectRecord[], after: readonly ObjectRecord[]): ObjectChange[] {
  const old = new Map(before.map((o) => [o.id, o]));
  const changes: ObjectChange[] = [];
  for (const o of after) {
    const b = old.get(o.id);
    old.delete(o.id);
    if (!b) changes.push({ status: "added", semantic: true, before: null, after: o });
    else if (b.sha256 !== o.sha256)
      changes.push({ status: "modified", semantic: b.semanticSha256 !== o.semanticSha256, before: b, after: o });
  }
  for (const b of old.values()) changes.push({ status: "removed", semantic: true, before: b, after: null });
  return changes.sort((a, b) => byCodeUnits((a.after ?? a.before)!.id, (b.after ?? b.before)!.id));
}

/**
 * Every string whitespace-collapsed and NFC-normalised, recursively: the form meaning is compared
 * on. A value that is already in that form is returned itself, not copied, so a caller can tell
 * by identity that its normalised form serialises as it does.
 */
export function normalised(value: unknown): unknown {
  // A string with nothing to collapse or compose comes back as it was (replace and trim copy nothing then).
  if (typeof value === "string") return collapseSpaces(value.normalize("NFC"));
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const out = normalised(item);
      if (out !== item && copy === null) copy = value.slice(0, i);
      if (copy !== null) copy.push(out);
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      if (v === undefined) {
        changed = true;
        continue;
      }
      const n = normalised(v);
      if (n !== v) changed = true;
      // A spread defines `__proto__` as data, where assigning it would set the prototype.
      if (k === "__proto__")
        Object.defineProperty(out, k, { value: n, enumerable: true, writable: true, configurable: true });
      else out[k] = n;
    }
    return changed ? out : value;
  }
  return value;
}
