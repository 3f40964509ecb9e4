import type { ReadOnlyFs } from "../ports.ts";
import { inputError } from "../errors.ts";
import { INSTRUMENT_KEYS, type InstrumentKey } from "../schemas/primitives.ts";
import { parseWithSchema, splitFrontmatter } from "./locate.ts";
import {
  ChangelogFile,
  ClaimReviewsFile,
  Config,
  Frontmatter,
  GlossaryFile,
  MethodologyFile,
  PrimarySourcesFile,
  ProtocolFile,
  TopicsFile,
  type InstrumentConfig,
} from "./schemas.ts";
import type { z } from "zod";

export type Lang = "fr" | "en";

export interface Doc {
  kind: "article" | "guide";
  lang: Lang;
  slug: string;
  file: string;
  meta: Frontmatter;
  body: string;
  bodyLine: number;
}

export interface Methodology extends MethodologyFile {
  slug: string;
  file: string;
}

export interface Publication {
  root: string;
  config: Config;
  articles: Doc[];
  guides: Doc[];
  methodologies: Methodology[];
  topics: z.infer<typeof TopicsFile>;
  glossary: GlossaryFile;
  primarySources: z.infer<typeof PrimarySourcesFile>;
  protocol: z.infer<typeof ProtocolFile>;
  changelog: z.infer<typeof ChangelogFile>;
  claimReviews: z.infer<typeof ClaimReviewsFile>;
}


/** Reads and validates every input file of the publication at `root`, then its cross-references. */
export async function loadPublication(fs: ReadOnlyFs, root: string): Promise<Publication> {
  const at = (rel: string) => `${root}/${rel}`;
  const readYaml = async <S extends z.ZodType>(rel: string, schema: S): Promise<z.infer<S>> => {
    const file = at(rel);
    if (!(await fs.exists(file))) throw inputError(file, undefined, undefined, "the file is missing; create it (see docs/inputs.md)");
    return parseWithSchema(file, await fs.readText(file), schema);
  };
  const config = await readYaml("risk.config.yaml", Config);
  const [articles, guides, methodologies] = await Promise.all([
    loadDocs(fs, root, "articles", "article"),
    loadDocs(fs, root, "guides", "guide"),
    loadMethodologies(fs, root),
  ]);
  const publication: Publication = {
    root,
    config,
    articles,
    guides,
    methodologies,
    topics: await readYaml("content/topics.yaml", TopicsFile),
    glossary: await readYaml("content/glossary.yaml", GlossaryFile),
    primarySources: await readYaml("content/primary-sources.yaml", PrimarySourcesFile),
    protocol: await readYaml("content/editorial/protocol.yaml", ProtocolFile),
    changelog: await readYaml("content/editorial/changelog.yaml", ChangelogFile),
    claimReviews: await readYaml("content/claim-reviews.yaml", ClaimReviewsFile),
  };
  checkReferences(publication);
  return publication;
}

async function loadDocs(fs: ReadOnlyFs, root: string, folder: string, kind: Doc["kind"]): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const lang of ["fr", "en"] as const) {
    const dir = `${root}/content/${folder}/${lang}`;
    const names = (await fs.listFiles(dir)).filter((n) => n.endsWith(".md"));
    const loaded = await Promise.all(
      names.map(async (name) => {
        const file = `${dir}/${name}`;
        const slug = name.slice(0, -3);
        if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
          throw inputError(file, undefined, undefined, "the file name is the slug: use lowercase ASCII letters, digits and hyphens");
        }
        const { yaml, body, bodyLine } = splitFrontmatter(file, await fs.readText(file));
        const meta = parseWithSchema(file, yaml, Frontmatter, { lineOffset: 1 });
        if (lang === "fr" && (meta.translationOf || meta.translatedFrom)) {
          throw inputError(file, undefined, "translationOf", "a French original has no translationOf or translatedFrom; remove them");
        }
        if (lang === "en" && (!meta.translationOf || !meta.translatedFrom)) {
          throw inputError(file, undefined, meta.translationOf ? "translatedFrom" : "translationOf", "an English translation names its French original (translationOf) and the French revision it follows (translatedFrom)");
        }
        if (meta.updated && meta.updated < meta.date) {
          throw inputError(file, undefined, "updated", `updated (${meta.updated}) is before date (${meta.date})`);
        }
        return { kind, lang, slug, file, meta, body, bodyLine } satisfies Doc;
      }),
    );
    docs.push(...loaded);
  }
  return docs;
}

async function loadMethodologies(fs: ReadOnlyFs, root: string): Promise<Methodology[]> {
  const dir = `${root}/content/methodologies`;
  const names = (await fs.listFiles(dir)).filter((n) => n.endsWith(".yaml"));
  return Promise.all(
    names.map(async (name) => {
      const file = `${dir}/${name}`;
      const parsed = parseWithSchema(file, await fs.readText(file), MethodologyFile);
      return { ...parsed, slug: name.slice(0, -5), file };
    }),
  );
}

function checkReferences(p: Publication): void {
  const configFile = `${p.root}/risk.config.yaml`;
  const topics = new Set(p.topics.map((t) => t.slug));
  const guides = new Set(p.guides.filter((g) => g.lang === "fr").map((g) => g.slug));
  const glossary = new Set(p.glossary.map((g) => g.slug));
  const methodologies = new Map(p.methodologies.map((m) => [m.slug, m]));
  unique(`${p.root}/content/topics.yaml`, p.topics.map((t) => t.slug), "slug");
  unique(`${p.root}/content/glossary.yaml`, p.glossary.map((t) => t.slug), "slug");
  unique(`${p.root}/content/primary-sources.yaml`, p.primarySources.map((t) => t.slug), "slug");
  unique(`${p.root}/content/editorial/changelog.yaml`, p.changelog.map((t) => t.id), "id");

  for (const doc of [...p.articles, ...p.guides]) {
    for (const topic of doc.meta.topics ?? []) {
      if (!topics.has(topic)) throw inputError(doc.file, undefined, "topics", `unknown topic "${topic}"; add it to content/topics.yaml or fix the slug`);
    }
    if (doc.lang === "en") {
      const originals = doc.kind === "article" ? p.articles : p.guides;
      if (!originals.some((o) => o.lang === "fr" && o.slug === doc.meta.translationOf)) {
        throw inputError(doc.file, undefined, "translationOf", `no French ${doc.kind} "${doc.meta.translationOf}" exists`);
      }
    }
  }
  for (const entry of p.glossary) {
    const file = `${p.root}/content/glossary.yaml`;
    if (entry.guide && !guides.has(entry.guide)) throw inputError(file, undefined, `${entry.slug}.guide`, `unknown guide "${entry.guide}"`);
    for (const rel of entry.atlas?.related ?? []) {
      if (!glossary.has(rel)) throw inputError(file, undefined, `${entry.slug}.atlas.related`, `unknown glossary entry "${rel}"`);
    }
  }
  for (const key of INSTRUMENT_KEYS) {
    const instrument: InstrumentConfig | undefined = p.config.instruments[key];
    if (!instrument) continue;
    const m = methodologies.get(instrument.methodology);
    if (!m) throw inputError(configFile, undefined, `instruments.${key}.methodology`, `no content/methodologies/${instrument.methodology}.yaml`);
    if (m.instrument !== key) throw inputError(m.file, undefined, "instrument", `is "${m.instrument}" but risk.config.yaml uses it for "${key}"`);
  }
  const frSlugs = new Set(p.articles.filter((a) => a.lang === "fr").map((a) => a.slug));
  for (const entry of p.claimReviews.entries) {
    const slug = entry.claimId.split("#")[0]!;
    if (!frSlugs.has(slug)) {
      throw inputError(`${p.root}/content/claim-reviews.yaml`, undefined, "entries.claimId", `"${entry.claimId}" names no French article "${slug}"`);
    }
  }
}

function unique(file: string, values: string[], field: string): void {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) throw inputError(file, undefined, field, `"${v}" appears twice; ${field} must be unique`);
    seen.add(v);
  }
}

export function instrumentsOf(p: Publication): [InstrumentKey, InstrumentConfig][] {
  return INSTRUMENT_KEYS.flatMap((k) => (p.config.instruments[k] ? [[k, p.config.instruments[k]!] as [InstrumentKey, InstrumentConfig]] : []));
}
