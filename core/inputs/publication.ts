import { RiskError } from "../errors.ts";
import type { Hasher, ReadOnlyFs } from "../ports.ts";
import { inputError } from "../errors.ts";
import { INSTRUMENT_KEYS, type InstrumentKey } from "../schemas/primitives.ts";
import { parseWithSchema } from "./locate.ts";
import {
  docLocations,
  fileSlug,
  folderIdentity,
  globRoots,
  lineOfKey,
  locate,
  pageFolder,
  readFrontmatter,
  slugOf,
  slugProblem,
  splitDocument,
  stemOf,
} from "./documents.ts";
import { readableBody, type DroppedMarkup } from "../editorial/markup.ts";
import { FOLDER_PLACEHOLDER, pageDateOf, pageOf, pagesOf, type PageDate, type Pages } from "./pages.ts";
import {
  ChangelogFile,
  ClaimReviewsFile,
  Config,
  ContentConfig,
  Frontmatter,
  GlossaryFile,
  MethodologyFile,
  PrimarySourcesFile,
  ProtocolFile,
  TopicsFile,
  type InstrumentConfig,
} from "./schemas.ts";
import { z } from "zod";

export type Lang = "fr" | "en";

export interface Doc {
  kind: "article" | "guide";
  lang: Lang;
  slug: string;
  file: string;
  meta: Frontmatter;
  /** The readable body: Markdown, with MDX and HTML markup reduced to its text (editorial/markup.ts). */
  body: string;
  bodyLine: number;
  /** The page's path on the publisher's site (`urls:` in the config). */
  path: string;
  /** The publication instant, when the frontmatter's date was a date-time (UTC). */
  publishedAt: string | null;
  /** MDX components and HTML elements left out of the text, for lint to name. */
  dropped: DroppedMarkup[];
  /** The frontmatter lines of its date and of the key that names its original, when written. */
  lines?: { date: number | null; original: number | null };
  /** What named a translation's original when no translationOf did (`translationKey "dette"`). */
  pairedBy?: string;
  /**
   * When the parse was kept: SHA-256 of the reading rules and the file's text. The body is read
   * from those and the file's name alone, so a memo of work on the body may key it by this
   * instead of hashing the body again.
   */
  bodyKey?: string;
}

export interface Methodology extends MethodologyFile {
  slug: string;
  file: string;
}

export interface Publication {
  root: string;
  config: Config;
  /** Where the publisher's pages are. */
  pages: Pages;
  articles: Doc[];
  guides: Doc[];
  methodologies: Methodology[];
  topics: z.infer<typeof TopicsFile>;
  glossary: GlossaryFile;
  primarySources: z.infer<typeof PrimarySourcesFile>;
  protocol: z.infer<typeof ProtocolFile>;
  changelog: z.infer<typeof ChangelogFile>;
  claimReviews: z.infer<typeof ClaimReviewsFile>;
  /** The slugs of French articles left out as drafts: their claims' reviews wait with them. */
  drafts?: string[];
}

/** Whether the review of `claimId` waits with its article, a draft: neither published nor an orphan. */
export function reviewWaits(p: Pick<Publication, "drafts">, claimId: string): boolean {
  return p.drafts?.includes(claimId.slice(0, claimId.indexOf("#"))) ?? false;
}

/** The text of every input file of a publication, by path relative to its root. */
export interface InputFiles {
  root: string;
  files: Map<string, string>;
}

export const CONFIG_FILE = "risk.config.yaml";

/** The registries of a publication, each as YAML or, when no YAML file is there, JSON. */
const REGISTRIES = [
  "content/topics",
  "content/glossary",
  "content/primary-sources",
  "content/editorial/protocol",
  "content/editorial/changelog",
  "content/claim-reviews",
];

/** Folders never searched for documents: tools' and dependencies' own files. */
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", "public", "_site", "resources"]);
/** At most this many files are looked at when listing the corpus: a glob at a disk's root stops. */
const MAX_LISTED = 100_000;

/** The part of the config that says where the corpus is, read before the files it names. */
const WhereContent = z.looseObject({ content: ContentConfig.optional() });

/**
 * Reads every input file of the publication at `root` (not the upstream readings). The config
 * says where the corpus is; `knownContent` may give that part of a config text parsed before
 * (null when it does not know the text), so that a steady assembly parses no YAML at all.
 */
export async function readPublicationFiles(
  fs: ReadOnlyFs,
  root: string,
  options: {
    knownContent?: (configText: string) => { content: ContentConfig | undefined } | null;
    /** Where an article or guide that cannot be read (not UTF-8, unreadable) is recorded and left out, for lint to name them all. */
    badDocuments?: RiskError[];
  } = {},
): Promise<InputFiles> {
  const failure = (dir: string, e: unknown) => {
    const code = (e as { code?: unknown }).code;
    return inputError(
      dir || ".",
      undefined,
      undefined,
      `the folder cannot be listed${typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${code})` : ""}; make it readable by the user running risk-cli`,
    );
  };
  // A typed error of the reader (a permission the runtime refuses) is its own message.
  const list = async (dir: string) => {
    try {
      return await fs.listFiles(dir ? `${root}/${dir}` : root);
    } catch (e) {
      throw e instanceof RiskError ? e : failure(dir, e);
    }
  };
  const subfolders = async (dir: string) => {
    try {
      return await fs.listDirs(dir ? `${root}/${dir}` : root);
    } catch (e) {
      throw e instanceof RiskError ? e : failure(dir, e);
    }
  };
  const files = new Map<string, string>();
  const realRoot = fs.realPath ? await fs.realPath(root).catch(() => root) : root;
  const read = async (rel: string) => {
    files.set(rel, await readPublicationFile(fs, root, rel, realRoot));
  };
  if (!(await fs.exists(`${root}/${CONFIG_FILE}`))) {
    if (await fs.exists(root)) {
      const link = await brokenLink(fs, root, CONFIG_FILE);
      throw inputError(
        CONFIG_FILE,
        undefined,
        undefined,
        link
          ? `it is a symbolic link ${link}; replace it with the file itself (see docs/inputs.md)`
          : "the file is missing; create it (see docs/inputs.md)",
      );
    }
    const slash = root.replace(/\/+$/, "").lastIndexOf("/");
    const link =
      slash === -1
        ? await brokenLink(fs, ".", root)
        : await brokenLink(fs, root.slice(0, slash) || "/", root.replace(/\/+$/, "").slice(slash + 1));
    throw inputError(
      CONFIG_FILE,
      undefined,
      undefined,
      link
        ? `the publication folder is a symbolic link ${link}; give --publication the folder itself that holds risk.config.yaml`
        : "the publication folder itself does not exist; give --publication the folder that holds risk.config.yaml, or start one with risk-cli init",
    );
  }
  await read(CONFIG_FILE);
  const configText = files.get(CONFIG_FILE)!;
  const { content } = options.knownContent?.(configText) ?? parseWithSchema(CONFIG_FILE, configText, WhereContent);
  const rels: string[] = [];
  for (const base of REGISTRIES) {
    const yaml = `${base}.yaml`;
    const [hasYaml, hasJson] = [await fs.exists(`${root}/${yaml}`), await fs.exists(`${root}/${base}.json`)];
    if (hasYaml && hasJson)
      throw inputError(
        yaml,
        undefined,
        undefined,
        `${base}.json holds the same registry: keep one of the two files (YAML or JSON), so that no one edits the one that is not read`,
      );
    if (hasYaml) rels.push(yaml);
    else if (hasJson) rels.push(`${base}.json`);
    else {
      const slash = base.lastIndexOf("/");
      const [dir, name] = [`${root}/${base.slice(0, slash)}`, base.slice(slash + 1)];
      const yamlLink = await brokenLink(fs, dir, `${name}.yaml`);
      const jsonLink = yamlLink ? null : await brokenLink(fs, dir, `${name}.json`);
      throw inputError(
        jsonLink ? `${base}.json` : yaml,
        undefined,
        undefined,
        yamlLink || jsonLink
          ? `it is a symbolic link ${yamlLink ?? jsonLink}; replace it with the file itself (see docs/inputs.md)`
          : "the file is missing; create it, as YAML or JSON (see docs/inputs.md)",
      );
    }
  }
  const locations = docLocations(content);
  const documents = new Set<string>();
  let listed = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const name of await list(dir)) {
      if (++listed > MAX_LISTED)
        throw inputError(
          CONFIG_FILE,
          undefined,
          "content",
          `the corpus globs reach over ${MAX_LISTED} files; narrow them to the folders that hold the articles and guides`,
        );
      const rel = dir ? `${dir}/${name}` : name;
      // A folder named on a Mac may be decomposed (NFD); the config's globs are read in NFC.
      if (locate(rel.normalize("NFC"), locations)) {
        rels.push(rel);
        documents.add(rel);
      }
    }
    for (const name of await subfolders(dir))
      if (!name.startsWith(".") && !SKIPPED_FOLDERS.has(name)) await walk(dir ? `${dir}/${name}` : name);
  };
  for (const start of globRoots(locations)) await walk(start);
  for (const name of await list("content/methodologies")) {
    if (/\.(yaml|json)$/.test(name)) rels.push(`content/methodologies/${name}`);
  }
  // Read concurrently, but report the first failure in list order (every document's, for lint).
  const unique = [...new Set(rels)];
  const results = await Promise.allSettled(unique.map(read));
  const listedBad = (k: number) =>
    options.badDocuments !== undefined &&
    documents.has(unique[k]!) &&
    (results[k] as PromiseRejectedResult).reason instanceof RiskError &&
    (results[k] as PromiseRejectedResult).reason.code === "E_INPUT";
  const failed = results.findIndex((r, k) => r.status === "rejected" && !listedBad(k));
  if (failed >= 0) throw (results[failed] as PromiseRejectedResult).reason;
  results.forEach((r, k) => {
    if (r.status === "rejected") options.badDocuments!.push(r.reason as RiskError);
  });
  return { root, files: byNfcName(files) };
}

/**
 * The files by their names in Unicode NFC, in code-unit order. A Mac may write `crédit.md`
 * decomposed (NFD), another machine composed: a name must pair, sort and be named the same
 * whatever the machine that wrote it. Two names that one checkout on macOS or Windows would make
 * one file (the same but for normalisation or letter case) are refused: such a publication would
 * differ with the machine it is checked out on.
 */
function byNfcName(files: Map<string, string>): Map<string, string> {
  const named = [...files].map(([rel, text]): [string, string] => [rel.normalize("NFC"), text]);
  named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const seen = new Map<string, string>();
  for (const [rel] of named) {
    const folded = rel.toLowerCase();
    const other = seen.get(folded);
    if (other !== undefined)
      throw inputError(
        rel,
        undefined,
        undefined,
        other === rel
          ? "another file has this name written in another Unicode normalisation (one decomposed, as macOS writes it): a macOS or Windows checkout keeps only one of the two; remove or rename one"
          : `${other} has the same name but for letter case: a macOS or Windows checkout keeps only one of the two; remove or rename one`,
      );
    seen.set(folded, rel);
  }
  return new Map(named);
}

/**
 * The text of the input file `rel` of the publication at `root`. A symbolic link inside the
 * publication may not lead out of it: its target would be read (and quoted in messages) as if it
 * were the publisher's file. Every refusal names `rel`, never where the file sits on this machine.
 */
export async function readPublicationFile(
  fs: ReadOnlyFs,
  root: string,
  rel: string,
  realRoot?: string,
): Promise<string> {
  const file = `${root}/${rel}`;
  if (fs.realPath) {
    const realTop = realRoot ?? (await fs.realPath(root).catch(() => root));
    const inside = (real: string | null) => real === null || real === realTop || real.startsWith(`${realTop}/`);
    if (!inside(await fs.realPath(file).catch(() => null))) {
      // The link may be a folder on the way (a content folder linked from elsewhere): name it.
      const parts = rel.split("/");
      for (let n = 1; n < parts.length; n++) {
        const folder = parts.slice(0, n).join("/");
        if (!inside(await fs.realPath(`${root}/${folder}`).catch(() => null)))
          throw inputError(
            rel,
            undefined,
            undefined,
            `its folder ${folder} is a symbolic link leading out of the publication; copy the folder into it instead`,
          );
      }
      throw inputError(
        rel,
        undefined,
        undefined,
        "a symbolic link leading out of the publication; copy the file into it instead",
      );
    }
  }
  return readInput(fs, file, rel);
}

/** What is said of a symbolic link that leads, through links, back to itself. */
const LOOPS = "that loops (it leads back to itself through links)";

/**
 * Why `name` in `dir`, which is not there to be read, was named all the same: a symbolic link that
 * loops, or one that leads to nothing; null when there is no such entry at all (or where links
 * cannot be seen).
 */
async function brokenLink(fs: ReadOnlyFs, dir: string, name: string): Promise<string | null> {
  const listed = await fs.listFiles(dir).catch(() => [] as string[]);
  if (!listed.includes(name)) return null;
  const path = `${dir}/${name}`;
  if (!fs.realPath) return null;
  try {
    await fs.realPath(path);
    return null;
  } catch (e) {
    if (e instanceof RiskError) throw e;
    const code = (e as { code?: unknown }).code;
    return code === "ELOOP" ? LOOPS : code === "ENOENT" ? "to nothing (its target does not exist)" : null;
  }
}

/** One input file's text; every refusal names the file inside the publication and says what to do. */
async function readInput(fs: ReadOnlyFs, file: string, rel: string): Promise<string> {
  try {
    // In NFC, as the web writes text: `février` decomposed (as some macOS tools save it) must read,
    // date and publish as the same word composed.
    return (await fs.readText(file)).normalize("NFC");
  } catch (e) {
    // The reader's refusals of this file are named from the publication; any other typed error
    // (a permission the runtime refuses this process) is not the file's, and stays as it is.
    if (e instanceof RiskError && e.code !== "E_INPUT") throw e;
    if (e instanceof RiskError) {
      const { line, reason } = e.data as { line?: number; reason?: string };
      throw inputError(rel, line, undefined, reason ?? e.message);
    }
    const code = (e as { code?: unknown }).code;
    if (code === "EACCES" || code === "EPERM")
      throw inputError(rel, undefined, undefined, "permission denied; make it readable by the user running risk-cli");
    if (code === "ENOENT") throw inputError(rel, undefined, undefined, "the file is missing (a broken symbolic link?)");
    if (code === "ELOOP")
      throw inputError(rel, undefined, undefined, `it is a symbolic link ${LOOPS}; replace it with the file itself`);
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
 * recorded for the same path and key (validated then), so only changed files are parsed again.
 * A file's key is `keyOf` what its parse depends on: its text, and for a document the reading
 * rules too. Values hold no file path, so a moved publication folder still finds them.
 */
export interface ParsedFiles {
  keyOf(parts: readonly string[]): string;
  get(rel: string, key: string): unknown;
  set(rel: string, key: string, value: unknown): void;
}

/** The value of one file: from `parsed` when the same key was parsed before, else from `parse`. */
function remembered<T>(parsed: ParsedFiles | undefined, rel: string, key: string | undefined, parse: () => T): T {
  if (parsed === undefined || key === undefined) return parse();
  const known = parsed.get(rel, key);
  if (known !== undefined) return known as T;
  const value = parse();
  parsed.set(rel, key, value);
  return value;
}

type DocumentRead = ReturnType<typeof readDocument>;

/**
 * `remembered` for a document, whose readable body is nearly always the end of its text as it
 * stands: that body is kept as the offset where it starts, and taken from the text (read anyway,
 * and part of the key) when found again. Bodies were two thirds of the memo's bytes, which every
 * assembly parses whole.
 */
function rememberedDocument(
  parsed: ParsedFiles | undefined,
  rel: string,
  key: string | undefined,
  text: string,
  parse: () => DocumentRead,
): DocumentRead {
  if (parsed === undefined || key === undefined) return parse();
  const known = parsed.get(rel, key) as (Omit<DocumentRead, "body"> & { body: string | number }) | undefined;
  // A parse kept by an older version, without the day its date is written on, is parsed again.
  if (known !== undefined && known.dateWritten !== undefined)
    return typeof known.body === "number" ? { ...known, body: text.slice(known.body) } : (known as DocumentRead);
  const value = parse();
  const at = text.length - value.body.length;
  parsed.set(rel, key, at >= 0 && text.endsWith(value.body) ? { ...value, body: at } : value);
  return value;
}

/**
 * Validates every input file, then the cross-references between them. With `badDocuments`, an
 * article or guide that cannot be read is recorded there and left out instead of stopping the
 * parse, so that `lint` names every bad document in one run.
 */
export function parsePublication(
  input: InputFiles,
  options: { parsed?: ParsedFiles; badDocuments?: RiskError[] } = {},
): Publication {
  const { root, files } = input;
  const { parsed, badDocuments } = options;
  // A registry is YAML, or JSON when the publisher keeps it so.
  const yamlOf = <S extends z.ZodType>(base: string, schema: S): z.infer<S> => {
    const rel = files.has(`${base}.yaml`) || !files.has(`${base}.json`) ? `${base}.yaml` : `${base}.json`;
    const json = rel.endsWith(".json");
    return remembered(parsed, rel, parsed?.keyOf([files.get(rel)!]), () =>
      parseWithSchema(rel, files.get(rel)!, schema, { json }),
    );
  };
  const config = yamlOf("risk.config", Config);
  const pages = pagesOf(config.urls);
  const { docs, drafts } = parseDocs(input, config, pages, { parsed, bad: badDocuments });
  const publication: Publication = {
    root,
    config,
    pages,
    articles: docs.filter((d) => d.kind === "article"),
    guides: docs.filter((d) => d.kind === "guide"),
    methodologies: parseMethodologies(input, parsed),
    topics: yamlOf("content/topics", TopicsFile),
    glossary: yamlOf("content/glossary", GlossaryFile),
    primarySources: yamlOf("content/primary-sources", PrimarySourcesFile),
    protocol: yamlOf("content/editorial/protocol", ProtocolFile),
    changelog: yamlOf("content/editorial/changelog", ChangelogFile),
    claimReviews: yamlOf("content/claim-reviews", ClaimReviewsFile),
    drafts,
  };
  // A document left out may be what a registry names: its references are checked once it reads.
  if (!badDocuments?.length) checkReferences(publication, input);
  return publication;
}

/** A document read, before slugs are made unique and translations paired. */
interface Entry {
  rel: string;
  text: string;
  kind: "article" | "guide";
  lang: Lang;
  read: ReturnType<typeof readDocument>;
  /** The slug its address shows. */
  slug: string;
  /**
   * Its identity in the publication: the slug, after the folders it is filed in when its kind's
   * pattern shows them ({folder}), and with the date its address shows when another has that.
   */
  id: string;
  /** The date its address shows, when it shows one. */
  date: PageDate | null;
  /** When its address shows its date: the parts it shows (2026-02-01, or 2026-02 for a year and month). */
  dated: string | null;
  /** When its address shows its folder ({folder}): the folders between its globs' start and it. */
  folder: string | undefined;
  /** The folders between its globs' start and it, whether its address shows them or not. */
  below: string;
  /** Whether its kind's pattern shows its folder, which is then part of its identity. */
  filed: boolean;
  /** The key its parse was kept under, when kept (see Doc.bodyKey). */
  bodyKey: string | undefined;
}

/** A document's frontmatter, readable body and the lines lint names, as one parse gives them. */
function readDocument(file: string, text: string, content: ContentConfig | undefined) {
  const { format, head, body, bodyLine } = splitDocument(file, text);
  const fm = readFrontmatter(file, format, head, content);
  const readable = readableBody(body, { mdx: file.endsWith(".mdx"), templates: content?.templates });
  const pairKey = typeof content?.translations === "object" ? content.translations.key : undefined;
  return {
    ...fm,
    body: readable.text,
    dropped: readable.dropped.map((d) => ({ ...d, line: d.line + bodyLine - 1 })),
    bodyLine,
    lines: {
      date: fieldLine(head, "date", content) ?? null,
      original: fieldLine(head, "translationOf", content) ?? (pairKey ? lineOfKey(head, pairKey) : undefined) ?? null,
    },
  };
}

function parseDocs(
  input: InputFiles,
  config: Config,
  pages: Pages,
  options: { parsed?: ParsedFiles; bad?: RiskError[] },
): { docs: Doc[]; drafts: string[] } {
  const { parsed, bad } = options;
  // Each document's refusal stops the parse, unless the caller lists them all.
  const attempt = <T>(run: () => T, instead: T): T => {
    if (!bad) return run();
    try {
      return run();
    } catch (e) {
      if (!(e instanceof RiskError) || e.code !== "E_INPUT") throw e;
      bad.push(e);
      return instead;
    }
  };
  const content = config.content;
  const locations = docLocations(content);
  // What a document's parse depends on besides its text: the config's reading rules.
  const rules = JSON.stringify(content ?? null);
  const entries: Entry[] = [];
  // The day an address shows: in the zone urls.timezone names, else as written for Hugo (its
  // permalinks show a date in the offset written with it, one without read in its timeZone), else
  // in content.timezone (Jekyll's dates are shown in its site's timezone), else UTC.
  const zone = pages.timezone ?? (content?.templates === "hugo" ? null : (content?.timezone ?? "UTC"));
  const showsDate = (kind: Entry["kind"], lang: Lang) => /\{(year|month|day)\}/.test(pages[kind][lang]);
  for (const [rel, text] of input.files) {
    const where = locate(rel, locations);
    if (!where) continue;
    const { kind, lang } = where;
    // Messages name a file by its path inside the publication, never where it sits on this machine.
    const file = rel;
    // The body is read from the text and the file name alone: this key names it in later memos.
    const source = parsed?.keyOf([rules, "\0", text]);
    const read = attempt(
      () => rememberedDocument(parsed, rel, source, text, () => readDocument(file, text, content)),
      null,
    );
    if (!read) continue;
    const slug = slugOf(rel, content, read.slugValue);
    const problem = read.draft ? undefined : slugProblem(rel, content, read.slugValue);
    if (problem) {
      const key = typeof content?.slug === "object" ? content.slug.key : "slug";
      // The field and line are the slug key's when the frontmatter gives it; a file name has neither.
      const refusal =
        read.slugValue !== null
          ? inputError(file, frontmatterLine(file, text, key, content), key, problem)
          : inputError(file, undefined, undefined, problem);
      attempt(() => {
        throw refusal;
      }, undefined);
      continue;
    }
    const date = showsDate(kind, lang) ? pageDateOf(read.meta.date, read.publishedAt, zone, read.dateWritten) : null;
    const below = pageFolder(rel, locations.find((l) => l.kind === kind && l.lang === lang)!.globs);
    const filed = pages[kind][lang].includes(FOLDER_PLACEHOLDER);
    // A page's own address shows no folder of its file; its identity keeps it, as where it is filed.
    const folder = filed && read.address === undefined ? below : undefined;
    const shown = date
      ? [
          /\{year\}/.test(pages[kind][lang]) ? date.year : "",
          /\{month\}/.test(pages[kind][lang]) ? date.month : "",
          /\{day\}/.test(pages[kind][lang]) ? date.day : "",
        ].filter(Boolean)
      : [];
    entries.push({
      rel,
      text,
      kind,
      lang,
      read,
      slug,
      id: filed ? folderIdentity(below, slug) : slug,
      date,
      dated: shown.length ? shown.join("-") : null,
      folder,
      below,
      filed,
      bodyKey: source,
    });
  }
  attempt(() => uniqueIds(entries, content, pages), undefined);
  const frenchOf = attempt(
    () => pairing(entries, content),
    () => undefined,
  );
  const docs: Doc[] = [];
  // Two pages at one address (a page's own address equal to another's): one would hide the other.
  const byPath = new Map<string, Entry>();
  for (const e of entries) {
    if (e.read.draft) continue;
    const doc = attempt(() => docOf(e, { content, pages, frenchOf }), null);
    if (!doc) continue;
    const other = byPath.get(doc.path);
    if (other) {
      const key = content?.frontmatter?.address;
      const own = e.read.address !== undefined && key !== undefined;
      attempt(() => {
        throw inputError(
          e.rel,
          own ? frontmatterLine(e.rel, e.text, key, content) : undefined,
          own ? key : undefined,
          `${other.rel} is published at the same address (${doc.path}): give each page its own address`,
        );
      }, undefined);
      continue;
    }
    byPath.set(doc.path, e);
    docs.push(doc);
  }
  // A translation of a draft named by translationOf waits with it too.
  const drafts = new Set(entries.filter((e) => e.read.draft && e.lang === "fr").map((e) => `${e.kind}/${e.id}`));
  // So do the reviews of a draft article's claims, unless a published article has its slug.
  const published = new Set(docs.filter((d) => d.kind === "article" && d.lang === "fr").map((d) => d.slug));
  const draftArticles = [...drafts].flatMap((k) => (k.startsWith("article/") ? [k.slice(8)] : []));
  return {
    docs: docs.filter((d) => !(d.lang === "en" && drafts.has(`${d.kind}/${d.meta.translationOf}`))),
    drafts: draftArticles.filter((slug) => !published.has(slug)).sort(),
  };
}

/** What places a document: the reading rules, the page patterns, and how translations are paired. */
interface DocContext {
  content: ContentConfig | undefined;
  pages: Pages;
  frenchOf: ReturnType<typeof pairing>;
}

/** A document as published, or null for the translation of a draft (it waits with it). */
function docOf(e: Entry, ctx: DocContext): Doc | null {
  const { content, pages, frenchOf } = ctx;
  const { rel: file, text, kind, lang, read } = e;
  const meta = { ...read.meta };
  let pairedBy: string | undefined;
  if (lang === "fr" && (meta.translationOf || meta.translatedFrom)) {
    throw inputError(
      file,
      frontmatterLine(file, text, "translationOf", content) ?? frontmatterLine(file, text, "translatedFrom", content),
      "translationOf",
      "a French original has no translationOf or translatedFrom; remove them",
    );
  }
  if (lang === "en" && !meta.translationOf) {
    const paired = frenchOf(e);
    if (!paired)
      throw inputError(
        file,
        1,
        "translationOf",
        "an English translation names its French original: add translationOf (the French original's slug) to its frontmatter, or a key mapped to it, or pair translations by file name or a shared key (content.translations in risk.config.yaml)",
      );
    // The translation of a draft waits with it, and names no draft.
    if (paired.original?.read.draft) return null;
    meta.translationOf = paired.original?.id ?? paired.missing;
    pairedBy = paired.by;
  }
  // A folder goes into the address as it is named: only what an address holds as written.
  const badFolder = e.folder ? e.folder.split("/").find((f) => !/^[a-z0-9_-][a-z0-9._-]*$/.test(f)) : undefined;
  if (badFolder !== undefined)
    throw inputError(
      file,
      undefined,
      undefined,
      `the page's address shows its folder ({folder} in urls.${kind}.${lang}), and the folder "${badFolder.slice(0, 80)}" is not lowercase ASCII letters, digits, -, _ and . (the generator would change it, Hugo lowercasing it and making its spaces hyphens); give the page its own address (the key content.frontmatter.address names, Hugo's url)`,
    );
  if (meta.updated && meta.updated < meta.date) {
    throw inputError(
      file,
      frontmatterLine(file, text, "updated", content),
      "updated",
      `updated (${meta.updated}) is before date (${meta.date})`,
    );
  }
  return {
    kind,
    lang,
    slug: e.id,
    file,
    meta,
    body: read.body,
    bodyLine: read.bodyLine,
    // The page's own address (Hugo's url), else its kind's pattern.
    path:
      read.address ??
      pageOf(
        pages[kind][lang],
        e.slug,
        // Only an address that shows the date needs its parts (a time-zone lookup per page).
        e.date ?? undefined,
        e.folder,
      ),
    publishedAt: read.publishedAt,
    dropped: read.dropped,
    // A parse kept by an older version has no lines: lint then finds them itself.
    lines: read.lines ?? { date: null, original: null },
    ...(pairedBy ? { pairedBy } : {}),
    ...(e.bodyKey ? { bodyKey: e.bodyKey } : {}),
  };
}

/**
 * Gives each published document of a kind and language its own identity: its slug, after the
 * folders it is filed in when its kind's pattern shows them ({folder}, see folderIdentity). Two
 * with one identity are one page, unless their address shows their dates (Jekyll's
 * `/:year/:month/:day/:title`) and those differ: the earliest keeps the identity, the others are
 * told apart by the date their address shows (`point-mensuel-2026-02-01`), and their addresses
 * keep the slug. Otherwise refused, naming both files and what to do.
 */
function uniqueIds(entries: Entry[], content: ContentConfig | undefined, pages: Pages): void {
  const groups = new Map<string, Entry[]>();
  for (const e of entries) {
    if (e.read.draft) continue;
    const key = `${e.kind}/${e.lang}/${e.id}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const clash = (e: Entry, other: Entry, dated: boolean) => {
    const key = typeof content?.slug === "object" ? content.slug.key : "slug";
    const line = e.read.slugValue !== null ? frontmatterLine(e.rel, e.text, key, content) : undefined;
    const field = `urls.${e.kind}.${e.lang}`;
    const pattern = pages[e.kind][e.lang];
    const byFolder = e.filed && (e.below !== "" || other.below !== "");
    const same = byFolder
      ? `${other.rel} has the same identity "${folderIdentity(e.below, e.slug)}" (the folders it is filed in and its slug, joined by hyphens, as ${field} shows {folder}): both would be one ${e.kind} in every record`
      : `${other.rel} has the same slug "${e.slug}"; each ${e.kind} needs its own${dated ? "" : " (its address shows no date to tell them apart)"}`;
    // Pages of one name filed in different folders: the generator may serve each at its folders.
    const filedBelow = e.below || other.below;
    const example =
      /\{slug\}\//.test(pattern) && !/\{(year|month|day)\}/.test(pattern)
        ? ` (${pageOf(pattern.replace("{slug}/", `${filedBelow}/{slug}/`), e.slug)})`
        : "";
    const folders =
      !e.filed && e.below !== other.below
        ? `; if your site serves each at an address that shows its folders${example}, as Hugo and Eleventy do by default, write {folder} before {slug} in ${field}, which makes the folders part of each page's identity`
        : "";
    const own =
      typeof content?.slug === "object"
        ? `give one of them another ${key} in its frontmatter`
        : content?.slug === "jekyll"
          ? "give one of them its own slug in its frontmatter (slug:), which Jekyll reads too"
          : "give one of them its own slug: read one from the frontmatter (content.slug: { key: slug } in risk.config.yaml) where your generator names pages by it, as Hugo and Astro do, and write it in that file";
    return inputError(
      e.rel,
      line,
      e.read.slugValue !== null ? key : undefined,
      dated
        ? `${other.rel} has the same slug "${e.slug}" and the same date in its address (${e.dated}): both would be one page; give one of them its own slug or date`
        : `${same}${folders}; ${folders ? "else " : ""}${own} (the generator then serves it at that slug: redirect its old address if it was live)`,
    );
  };
  const byId = new Map<string, Entry>();
  for (const group of groups.values()) {
    if (group.length > 1) {
      if (group.some((e) => e.dated === null)) throw clash(group[1]!, group[0]!, false);
      // The earliest keeps the plain identity: a later post never renames one already published.
      const order = [...group].sort(
        (a, b) =>
          cmp(a.read.meta.date, b.read.meta.date) ||
          cmp(a.read.publishedAt ?? "", b.read.publishedAt ?? "") ||
          cmp(a.rel, b.rel),
      );
      for (const [i, e] of order.entries()) {
        const same = order.slice(0, i).find((o) => o.dated === e.dated);
        if (same) throw clash(e, same, true);
        if (i > 0) e.id = `${e.id}-${e.dated}`;
      }
    }
    for (const e of group) {
      const key = `${e.kind}/${e.lang}/${e.id}`;
      const other = byId.get(key);
      if (other) throw clash(e, other, false);
      byId.set(key, e);
    }
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * How an English document without translationOf finds its French original, as
 * `content.translations` says: the French document with the same file (`x.fr.md` beside
 * `x.en.md`, `en/_posts/a.md` and `_posts/a.md`), else the same file name, else (`same-slug`)
 * the same slug; or, with a key every language version shares, the French one with its value.
 * Undefined when the config pairs by translationOf alone; `missing` when no original is there.
 */
function pairing(
  entries: Entry[],
  content: ContentConfig | undefined,
): (e: Entry) => { original?: Entry; missing: string; by: string } | undefined {
  const mode = content?.translations ?? "translationOf";
  if (mode === "translationOf") return () => undefined;
  const key = typeof mode === "object" ? mode.key : undefined;
  const french = entries.filter((e) => e.lang === "fr");
  const byValue = new Map<string, Entry>();
  if (key)
    for (const f of french) {
      const value = f.read.pairValue;
      if (value === null) continue;
      const other = byValue.get(`${f.kind}/${value}`);
      if (other)
        throw inputError(
          f.rel,
          f.read.lines?.original ?? undefined,
          key,
          `${other.rel} has the same ${key} "${value}"; each language version of one document shares it, so two French documents cannot: give one its own`,
        );
      byValue.set(`${f.kind}/${value}`, f);
    }
  const jekyll = content?.slug === "jekyll";
  return (e) => {
    const value = e.read.pairValue;
    if (key && value !== null)
      return { original: byValue.get(`${e.kind}/${value}`), missing: value, by: `${key} "${value}"` };
    // A page with the key is not paired by its file (as Hugo does).
    const candidates = french.filter((f) => f.kind === e.kind && (!key || f.read.pairValue === null));
    const name = fileSlug(e.rel, jekyll);
    const named = candidates.filter((f) => fileSlug(f.rel, jekyll) === name);
    const original =
      candidates.find((f) => stemOf(f.rel) === stemOf(e.rel)) ??
      (named.length === 1 ? named[0] : undefined) ??
      (key ? undefined : candidates.find((f) => f.id === e.id));
    return {
      original,
      missing: e.id,
      by: `file name "${name}"${key || name === e.id ? "" : ` or slug "${e.id}"`}`,
    };
  };
}

function parseMethodologies(input: InputFiles, parsed?: ParsedFiles): Methodology[] {
  const prefix = "content/methodologies/";
  return [...input.files]
    .filter(([rel]) => rel.startsWith(prefix))
    .map(([rel, text]) => {
      // Messages name a file by its path inside the publication, never where it sits on this machine.
      const file = rel;
      return {
        ...remembered(parsed, rel, parsed?.keyOf([text]), () =>
          parseWithSchema(file, text, MethodologyFile, { json: rel.endsWith(".json") }),
        ),
        slug: rel.slice(prefix.length).replace(/\.(yaml|json)$/, ""),
        file,
      };
    });
}

/**
 * The line of a frontmatter field in a document's text: its own key or a publisher's key mapped
 * to it (content.frontmatter.map), in the frontmatter block; undefined when it is not written
 * there (a parsed value kept from an earlier assembly still finds it, from the text).
 */
function frontmatterLine(
  file: string,
  text: string | undefined,
  field: string,
  content: ContentConfig | undefined,
): number | undefined {
  if (text === undefined) return undefined;
  return fieldLine(splitDocument(file, text).head, field, content);
}

/** The line of a frontmatter field in the frontmatter block: its own key or a key mapped to it. */
function fieldLine(head: string, field: string, content: ContentConfig | undefined): number | undefined {
  const mapped = Object.entries(content?.frontmatter.map ?? {})
    .filter(([, to]) => to === field)
    .map(([from]) => from);
  for (const key of [field, ...mapped]) {
    const line = lineOfKey(head, key);
    if (line !== undefined) return line;
  }
  return undefined;
}

function checkReferences(p: Publication, input: InputFiles): void {
  const configFile = CONFIG_FILE;
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
          frontmatterLine(doc.file, input.files.get(doc.file), "topics", p.config.content),
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
    if (m.instrument !== undefined && m.instrument !== key)
      throw inputError(
        m.file,
        undefined,
        "instrument",
        `is "${m.instrument}" but risk.config.yaml uses it for "${key}"`,
      );
  }
  // A review whose article is gone (deleted, renamed, made a draft) does not stop the
  // publication: it is an orphan review, a lint error and an assembly warning naming it.
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
