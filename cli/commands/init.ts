import * as fs from "node:fs";
import { shellPath } from "../../core/shell.ts";
import { dirname, join, resolve } from "node:path";
import { isMap, isSeq, parse as parseYaml, parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import type { Detection } from "../../app/detect.ts";
import { inputError, RiskError } from "../../core/errors.ts";
import { makeFolder } from "../../archive/make-folder.ts";
import { demoPublication } from "../paths.ts";
import { stderrLogger } from "../runtime/node.ts";

/** Copies the demo publication into `dir` as a starting point; never overwrites anything. */
export function runInit(opts: { dir: string; json: boolean }) {
  // resolve("") is the current folder: an empty name (an unset shell variable) would initialise it.
  if (opts.dir.trim() === "")
    throw new RiskError(
      "E_USAGE",
      "init needs the folder for the new publication: give its path (a new or empty folder, . for this one)",
    );
  // A symbolic link to a folder is written through: the copy goes into the folder it leads to.
  const given = resolve(opts.dir);
  const target = fs.existsSync(given) ? fs.realpathSync(given) : given;
  if (fs.existsSync(target) && !fs.statSync(target).isDirectory())
    throw new RiskError("E_USAGE", `${target} is a file, not a folder; init writes into a new or empty folder`, {
      dir: target,
    });
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    throw new RiskError("E_USAGE", `${target} is not empty; init only writes into a new or empty folder`, {
      dir: target,
    });
  }
  // A folder its file system refuses (/proc/x) fails at once, naming it, as for --site and --archive.
  makeFolder(target);
  try {
    fs.cpSync(demoPublication(), target, { recursive: true, errorOnExist: true, force: false });
  } catch (e) {
    // Named by the folder given: never the demo's place on this machine.
    const code = (e as { code?: unknown }).code;
    throw new RiskError(
      "E_IO",
      `Cannot write the publication into ${target}: ${typeof code === "string" ? code : "failed"}`,
      {
        folder: target,
      },
    );
  }
  stderrLogger(opts.json).info(
    `created ${target}: edit risk.config.yaml and content/, then run risk-cli assemble --publication ${shellPath(opts.dir)}`,
  );
  return { ok: true as const, dir: target };
}

/**
 * The files of the demo a detected site still needs, written only where the site has none: a
 * registry in either of its formats (.yaml or .json), a folder whole.
 */
const STARTERS: { rel: string; formats?: string[] }[] = [
  { rel: "content/topics", formats: ["yaml", "json"] },
  { rel: "content/glossary", formats: ["yaml", "json"] },
  { rel: "content/primary-sources", formats: ["yaml", "json"] },
  { rel: "content/editorial/protocol", formats: ["yaml", "json"] },
  { rel: "content/editorial/changelog", formats: ["yaml", "json"] },
  { rel: "content/claim-reviews", formats: ["yaml", "json"] },
  { rel: "content/methodologies" },
  { rel: "upstream" },
];

/**
 * Whether the site already has `rel`. A symbolic link on the way is followed only when it leads
 * to something inside the site: a broken one, or one leading out where a file would be written,
 * is refused (exit 3) and named by its path inside the site, before anything is written.
 */
function siteHas(root: string, realRoot: string, rel: string): boolean {
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const at = parts.slice(0, i).join("/");
    const st = fs.lstatSync(join(root, at), { throwIfNoEntry: false });
    if (!st) return false;
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = fs.realpathSync(join(root, at));
      } catch {
        throw inputError(
          at,
          undefined,
          undefined,
          "a broken symbolic link (its target does not exist); remove it, or make it lead to a file inside the site, then run init --detect again",
        );
      }
      if (i < parts.length && real !== realRoot && !real.startsWith(`${realRoot}/`))
        throw inputError(
          at,
          undefined,
          undefined,
          "a symbolic link leading out of the site; init --detect writes nothing through it: make it a folder of the site",
        );
      if (i === parts.length) return true;
      if (!fs.statSync(join(root, at)).isDirectory())
        throw inputError(at, undefined, undefined, `a file where the folder of ${rel} goes`);
    } else if (i < parts.length && !st.isDirectory())
      throw inputError(at, undefined, undefined, `a file where the folder of ${rel} goes`);
  }
  return true;
}

/**
 * A demo registry made to stand alone in a site that holds none of the demo's articles and
 * guides: a glossary entry links a guide, and its atlas an article or a guide, only when the site
 * has that French page (at the site's address for it); the claim reviews start empty.
 */
function standAlone(rel: string, text: string, detection: Detection): string {
  const slugs = (kind: "article" | "guide") =>
    new Set(detection.documents.find((d) => d.kind === kind && d.lang === "fr")?.slugs ?? []);
  if (rel === "content/claim-reviews.yaml") {
    const doc = parseDocument(text);
    doc.set("entries", doc.createNode([]));
    return doc.toString({ lineWidth: 0 });
  }
  if (rel !== "content/glossary.yaml") return text;
  const guides = slugs("guide");
  const pages = { article: slugs("article"), guide: guides };
  const doc = parseDocument(text);
  for (const entry of (doc.contents as YAMLSeq<YAMLMap>).items) {
    const guide = entry.get("guide");
    if (typeof guide === "string" && !guides.has(guide)) entry.set("guide", null);
    const atlas = entry.get("atlas");
    if (!isMap(atlas)) continue;
    for (const list of ["articles", "guides"] as const) {
      const links = atlas.get(list);
      if (!isSeq(links)) continue;
      const kind = list === "articles" ? "article" : "guide";
      const pattern = detection.urls[kind]?.fr;
      links.items = links.items.filter((link) => {
        if (!isMap(link)) return false;
        const slug = String(link.get("href") ?? "")
          .split("/")
          .filter(Boolean)
          .at(-1);
        // An address that shows the page's date or folder is not made here: the link is left out.
        if (!pattern || /\{(year|month|day|folder)\}/.test(pattern) || !slug || !pages[kind].has(slug)) return false;
        link.set("href", pattern.replace("{slug}", slug));
        return true;
      });
    }
  }
  return doc.toString({ lineWidth: 0 });
}

/**
 * `risk-cli init --detect`: writes risk.config.yaml into an existing site, reading its corpus
 * where it lives; never moves, renames or rewrites one of the site's files. The registries,
 * methodologies and upstream readings the site lacks are written from the demo's, made to stand
 * alone, and listed, to be replaced with the publisher's own.
 */
export async function runInitDetect(opts: { dir: string; json: boolean }) {
  if (opts.dir.trim() === "")
    throw new RiskError("E_USAGE", "init --detect needs the folder of your site: give its path (. for this folder)");
  const root = resolve(opts.dir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory())
    throw new RiskError("E_USAGE", `${opts.dir} is not a folder: give the root of your site`);
  const realRoot = fs.realpathSync(root);
  if (siteHas(root, realRoot, "risk.config.yaml"))
    throw new RiskError("E_USAGE", `${opts.dir}/risk.config.yaml exists; init --detect never overwrites it`);
  const { detectSite, detectionYaml } = await import("../../app/detect.ts");
  const detection = detectSite(root);
  if (detection.documents.length === 0)
    throw new RiskError("E_USAGE", `No Markdown or MDX document with frontmatter under ${opts.dir}: nothing to read`);
  const demo = demoPublication();
  const template = fs.readFileSync(join(demo, "risk.config.yaml"), "utf8");
  // Everything is checked before anything is written.
  const missing = STARTERS.filter(
    (s) => !(s.formats ?? [""]).some((f) => siteHas(root, realRoot, f ? `${s.rel}.${f}` : s.rel)),
  ).map((s) => (s.formats ? `${s.rel}.yaml` : s.rel));
  const write = (rel: string, what: () => void) => {
    try {
      what();
    } catch (e) {
      // Named by its path inside the site: never the demo's place on this machine.
      const code = (e as { code?: unknown }).code;
      throw new RiskError("E_IO", `Cannot write ${rel} in ${opts.dir}: ${typeof code === "string" ? code : "failed"}`, {
        file: rel,
      });
    }
  };
  const copied: string[] = [];
  for (const rel of missing) {
    write(rel, () => {
      makeFolder(dirname(join(root, rel)));
      if (rel.endsWith(".yaml"))
        fs.writeFileSync(join(root, rel), standAlone(rel, fs.readFileSync(join(demo, rel), "utf8"), detection), {
          flag: "wx",
        });
      else fs.cpSync(join(demo, rel), join(root, rel), { recursive: true, errorOnExist: true, force: false });
    });
    copied.push(rel);
  }
  const header =
    "# risk.config.yaml written by risk-cli init --detect. The publisher, instruments and upstreams below\n" +
    "# are the demo's: replace them with yours. docs/inputs.md explains every key.\n" +
    (copied.length ? `# Written from the demo's, to replace with yours: ${copied.join(", ")}.\n` : "");
  const log = stderrLogger(opts.json);
  if (copied.includes("content/topics.yaml") && detection.topics.length) {
    const known = new Set(
      (parseYaml(fs.readFileSync(join(root, "content/topics.yaml"), "utf8")) as { slug: string }[]).map((t) => t.slug),
    );
    const unknown = detection.topics.filter((t) => !known.has(t));
    if (unknown.length)
      detection.unmapped.push(
        `topics: your documents name topics the demo's content/topics.yaml lacks (${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}); add them to it`,
      );
  }
  // The site's own address, when its generator's config gives one; the demo's stays otherwise (a TODO says so).
  const config = detection.siteAddress
    ? template.replace(/^baseUrl: .*$/m, `baseUrl: ${detection.siteAddress}`)
    : template;
  write("risk.config.yaml", () =>
    fs.writeFileSync(join(root, "risk.config.yaml"), `${header}${config}\n${detectionYaml(detection)}`, {
      flag: "wx",
    }),
  );
  log.info(`detected ${/^[aeiou]/.test(detection.generator) ? "an" : "a"} ${detection.generator} site`);
  for (const d of detection.documents)
    log.info(`  ${d.files} ${d.lang} ${d.kind}${d.files > 1 ? "s" : ""}: ${d.globs.join(", ")}`);
  for (const l of detection.leftOut) log.info(`left out: ${l}`);
  for (const u of detection.unmapped) log.warn(`to check: ${u}`);
  if (copied.length) log.info(`written from the demo's (replace with yours): ${copied.join(", ")}`);
  log.info(`wrote ${join(opts.dir, "risk.config.yaml")}; then: risk-cli lint --publication ${shellPath(opts.dir)}`);
  return { ok: true as const, dir: root, ...detection, copied };
}
