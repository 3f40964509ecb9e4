import { RiskError } from "../errors.ts";
import type { Hasher, ReadOnlyFs } from "../ports.ts";
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

/** The text of every input file of a publication, by path relative to its root. */
export interface InputFiles {
  root: string;
  files: Map<string, string>;
}

const REGISTRIES = [
  "risk.config.yaml",
  "content/topics.yaml",
  "content/glossary.yaml",
  "content/primary-sources.yaml",
  "content/editorial/protocol.yaml",
  "content/editorial/changelog.yaml",
  "content/claim-reviews.yaml",
];

/** Reads every input file of the publication at `root` (not the upstream readings). */
export async function readPublicationFiles(fs: ReadOnlyFs, root: string): Promise<InputFiles> {
  const rels = [...REGISTRIES];
  const list = async (dir: string) => {
    try {
      return await fs.listFiles(`${root}/${dir}`);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw inputError(
        dir,
        undefined,
        undefined,
        `the folder cannot be listed${typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${code})` : ""}; make it readable by the user running risk-cli`,
      );
    }
  };
  for (const folder of ["articles", "guides"]) {
    for (const lang of ["fr", "en"]) {
      const dir = `content/${folder}/${lang}`;
      for (const name of await list(dir)) if (name.endsWith(".md")) rels.push(`${dir}/${name}`);
    }
  }
  for (const name of await list("content/methodologies")) {
    if (name.endsWith(".yaml")) rels.push(`content/methodologies/${name}`);
  }
  const files = new Map<string, string>();
  // A symbolic link inside the publication may not lead out of it: its target would be read (and
  // quoted in messages) as if it were the publisher's file.
  const realRoot = fs.realPath ? await fs.realPath(root).catch(() => root) : root;
  const inside = async (file: string, rel: string) => {
    if (!fs.realPath) return;
    const real = await fs.realPath(file).catch(() => null);
    if (real !== null && real !== realRoot && !real.startsWith(`${realRoot}/`))
      throw inputError(
        rel,
        undefined,
        undefined,
        "a symbolic link leading out of the publication; copy the file into it instead",
      );
  };
  // Read concurrently, but report the first failure in list order: with several files missing
  // (a wrong --publication), the error always names risk.config.yaml, whichever read ended first.
  const results = await Promise.allSettled(
    rels.map(async (rel) => {
      const file = `${root}/${rel}`;
      if (REGISTRIES.includes(rel) && !(await fs.exists(file))) {
        throw inputError(rel, undefined, undefined, "the file is missing; create it (see docs/inputs.md)");
      }
      await inside(file, rel);
      files.set(rel, await readInput(fs, file, rel));
    }),
  );
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return { root, files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

/** One input file's text; every refusal names the file inside the publication and says what to do. */
async function readInput(fs: ReadOnlyFs, file: string, rel: string): Promise<string> {
  try {
    return await fs.readText(file);
  } catch (e) {
    if (e instanceof RiskError) {
      const { line, reason } = e.data as { line?: number; reason?: string };
      throw inputError(rel, line, undefined, reason ?? e.message);
    }
    const code = (e as { code?: unknown }).code;
    if (code === "EACCES" || code === "EPERM")
      throw inputError(rel, undefined, undefined, "permission denied; make it readable by the user running risk-cli");
    if (code === "ENOENT") throw inputError(rel, undefined, undefined, "the file is missing (a broken symbolic link?)");
    if (typeof code === "string" && /^E[A-Z]+$/.test(code))
      throw inputError(rel, undefined, undefined, `it cannot be read (${code})`);
    throw e;
  }
}

/**
 * SHA-256 over every input path and text: equal fingerprints mean equal inputs, so an assembly
 * may reuse what an earlier one parsed and built from them.
 */
export function fingerprintInputs(input: InputFiles, hash: Hasher, salt: string): string {
  // Content only, never where the folder is: the same publication gives the same frame anywhere.
  const parts: string[] = [salt, "\0"];
  for (const [rel, text] of input.files) parts.push(rel, "\0", String(text.length), "\0", text, "\0");
  return hash.sha256Parts(parts);
}

/** Reads and validates every input file of the publication at `root`, then its cross-references. */
export async function loadPublication(fs: ReadOnlyFs, root: string): Promise<Publication> {
  return parsePublication(await readPublicationFiles(fs, root));
}

/**
 * What earlier parses found in files whose text has not changed: `get` gives the value `set`
 * recorded for the same path and text (validated then), so only changed files are parsed again.
 * Values hold no file path, so a moved publication folder still finds them.
 */
export interface ParsedFiles {
  get(rel: string, text: string): unknown;
  set(rel: string, text: string, value: unknown): void;
}

/** The value of one file: from `parsed` when its text was parsed before, else from `parse`. */
function remembered<T>(parsed: ParsedFiles | undefined, rel: string, text: string, parse: () => T): T {
  const known = parsed?.get(rel, text);
  if (known !== undefined) return known as T;
  const value = parse();
  parsed?.set(rel, text, value);
  return value;
}

/** Validates every input file, then the cross-references between them. */
export function parsePublication(input: InputFiles, options: { parsed?: ParsedFiles } = {}): Publication {
  const { root, files } = input;
  const { parsed } = options;
  const yamlOf = <S extends z.ZodType>(rel: string, schema: S): z.infer<S> =>
    remembered(parsed, rel, files.get(rel)!, () => parseWithSchema(rel, files.get(rel)!, schema));
  const publication: Publication = {
    root,
    config: yamlOf("risk.config.yaml", Config),
    articles: parseDocs(input, "articles", "article", parsed),
    guides: parseDocs(input, "guides", "guide", parsed),
    methodologies: parseMethodologies(input, parsed),
    topics: yamlOf("content/topics.yaml", TopicsFile),
    glossary: yamlOf("content/glossary.yaml", GlossaryFile),
    primarySources: yamlOf("content/primary-sources.yaml", PrimarySourcesFile),
    protocol: yamlOf("content/editorial/protocol.yaml", ProtocolFile),
    changelog: yamlOf("content/editorial/changelog.yaml", ChangelogFile),
    claimReviews: yamlOf("content/claim-reviews.yaml", ClaimReviewsFile),
  };
  checkReferences(publication);
  return publication;
}

function parseDocs(input: InputFiles, folder: string, kind: Doc["kind"], parsed?: ParsedFiles): Doc[] {
  const docs: Doc[] = [];
  for (const lang of ["fr", "en"] as const) {
    const prefix = `content/${folder}/${lang}/`;
    for (const [rel, text] of input.files) {
      if (!rel.startsWith(prefix)) continue;
      // Messages name a file by its path inside the publication, never where it sits on this machine.
      const file = rel;
      const slug = rel.slice(prefix.length, -3);
      if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug)) {
        throw inputError(
          file,
          undefined,
          undefined,
          "the file name is the slug: use lowercase ASCII letters, digits and hyphens",
        );
      }
      const { meta, body, bodyLine } = remembered(parsed, rel, text, () => {
        const { yaml, body, bodyLine } = splitFrontmatter(file, text);
        return { meta: parseWithSchema(file, yaml, Frontmatter, { lineOffset: 1 }), body, bodyLine };
      });
      if (lang === "fr" && (meta.translationOf || meta.translatedFrom)) {
        throw inputError(
          file,
          undefined,
          "translationOf",
          "a French original has no translationOf or translatedFrom; remove them",
        );
      }
      if (lang === "en" && (!meta.translationOf || !meta.translatedFrom)) {
        throw inputError(
          file,
          undefined,
          meta.translationOf ? "translatedFrom" : "translationOf",
          "an English translation names its French original (translationOf) and the French revision it follows (translatedFrom)",
        );
      }
      if (meta.updated && meta.updated < meta.date) {
        throw inputError(file, undefined, "updated", `updated (${meta.updated}) is before date (${meta.date})`);
      }
      docs.push({ kind, lang, slug, file, meta, body, bodyLine });
    }
  }
  return docs;
}

function parseMethodologies(input: InputFiles, parsed?: ParsedFiles): Methodology[] {
  const prefix = "content/methodologies/";
  return [...input.files]
    .filter(([rel]) => rel.startsWith(prefix))
    .map(([rel, text]) => {
      // Messages name a file by its path inside the publication, never where it sits on this machine.
      const file = rel;
      return {
        ...remembered(parsed, rel, text, () => parseWithSchema(file, text, MethodologyFile)),
        slug: rel.slice(prefix.length, -5),
        file,
      };
    });
}

function checkReferences(p: Publication): void {
  const configFile = "risk.config.yaml";
  const topics = new Set(p.topics.map((t) => t.slug));
  const guides = new Set(p.guides.filter((g) => g.lang === "fr").map((g) => g.slug));
  const glossary = new Set(p.glossary.map((g) => g.slug));
  const methodologies = new Map(p.methodologies.map((m) => [m.slug, m]));
  // Two instruments publishing under one series id (or slug) would write one CSV with both's data.
  for (const field of ["seriesId", "slug"] as const) {
    const owner = new Map<string, string>();
    for (const [key, cfg] of instrumentsOf(p)) {
      const other = owner.get(cfg[field]);
      if (other)
        throw inputError(
          "risk.config.yaml",
          undefined,
          `instruments.${key}.${field}`,
          `"${cfg[field]}" is also the ${field} of instrument ${other}; each instrument needs its own`,
        );
      owner.set(cfg[field], key);
    }
  }
  unique(
    "content/topics.yaml",
    p.topics.map((t) => t.slug),
    "slug",
  );
  unique(
    "content/glossary.yaml",
    p.glossary.map((t) => t.slug),
    "slug",
  );
  unique(
    "content/primary-sources.yaml",
    p.primarySources.map((t) => t.slug),
    "slug",
  );
  unique(
    "content/editorial/changelog.yaml",
    p.changelog.map((t) => t.id),
    "id",
  );

  for (const doc of [...p.articles, ...p.guides]) {
    for (const topic of doc.meta.topics ?? []) {
      if (!topics.has(topic))
        throw inputError(
          doc.file,
          undefined,
          "topics",
          `unknown topic "${topic}"; add it to content/topics.yaml or fix the slug`,
        );
    }
    // A translation whose original is gone is published with translationStatus missing-source
    // and reported by `lint` and `assemble`; it does not stop the assembly.
  }
  for (const entry of p.glossary) {
    const file = "content/glossary.yaml";
    if (entry.guide && !guides.has(entry.guide))
      throw inputError(file, undefined, `${entry.slug}.guide`, `unknown guide "${entry.guide}"`);
    for (const rel of entry.atlas?.related ?? []) {
      if (!glossary.has(rel))
        throw inputError(file, undefined, `${entry.slug}.atlas.related`, `unknown glossary entry "${rel}"`);
    }
  }
  for (const key of INSTRUMENT_KEYS) {
    const instrument: InstrumentConfig | undefined = p.config.instruments[key];
    if (!instrument) continue;
    const m = methodologies.get(instrument.methodology);
    if (!m)
      throw inputError(
        configFile,
        undefined,
        `instruments.${key}.methodology`,
        `no content/methodologies/${instrument.methodology}.yaml`,
      );
    if (m.instrument !== key)
      throw inputError(
        m.file,
        undefined,
        "instrument",
        `is "${m.instrument}" but risk.config.yaml uses it for "${key}"`,
      );
  }
  const frSlugs = new Set(p.articles.filter((a) => a.lang === "fr").map((a) => a.slug));
  for (const entry of p.claimReviews.entries) {
    const slug = entry.claimId.split("#")[0]!;
    if (!frSlugs.has(slug)) {
      throw inputError(
        "content/claim-reviews.yaml",
        undefined,
        "entries.claimId",
        `"${entry.claimId}" names no French article "${slug}"`,
      );
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
  return INSTRUMENT_KEYS.flatMap((k) =>
    p.config.instruments[k] ? [[k, p.config.instruments[k]!] as [InstrumentKey, InstrumentConfig]] : [],
  );
}
