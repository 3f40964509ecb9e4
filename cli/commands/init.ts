import * as fs from "node:fs";
import { join, resolve } from "node:path";
import { RiskError } from "../../core/errors.ts";
import { demoPublication } from "../paths.ts";
import { stderrLogger } from "../runtime/node.ts";

/** Copies the demo publication into `dir` as a starting point; never overwrites anything. */
export function runInit(opts: { dir: string; json: boolean }) {
  const target = resolve(opts.dir);
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0) {
    throw new RiskError("E_USAGE", `${target} is not empty; init only writes into a new or empty folder`, {
      dir: target,
    });
  }
  fs.cpSync(demoPublication(), target, { recursive: true, errorOnExist: true, force: false });
  stderrLogger(opts.json).info(
    `created ${target}: edit risk.config.yaml and content/, then run risk-cli assemble --publication ${opts.dir}`,
  );
  return { ok: true as const, dir: target };
}

/** The files of the demo a detected site still needs, copied only where the site has none. */
const STARTER_FILES = [
  "content/topics.yaml",
  "content/glossary.yaml",
  "content/primary-sources.yaml",
  "content/editorial/protocol.yaml",
  "content/editorial/changelog.yaml",
  "content/claim-reviews.yaml",
  "content/methodologies",
  "upstream",
];

/**
 * `risk-cli init --detect`: writes risk.config.yaml into an existing site, reading its corpus
 * where it lives; never moves, renames or rewrites one of the site's files. The registries,
 * methodologies and upstream readings the site lacks are copied from the demo and listed, to be
 * replaced with the publisher's own.
 */
export async function runInitDetect(opts: { dir: string; json: boolean }) {
  const root = resolve(opts.dir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory())
    throw new RiskError("E_USAGE", `${opts.dir} is not a folder: give the root of your site`);
  const config = join(root, "risk.config.yaml");
  if (fs.existsSync(config))
    throw new RiskError("E_USAGE", `${opts.dir}/risk.config.yaml exists; init --detect never overwrites it`);
  const { detectSite, detectionYaml } = await import("../../app/detect.ts");
  const detection = detectSite(root);
  if (detection.documents.length === 0)
    throw new RiskError("E_USAGE", `No Markdown or MDX document with frontmatter under ${opts.dir}: nothing to read`);
  const demo = demoPublication();
  const template = fs.readFileSync(join(demo, "risk.config.yaml"), "utf8");
  const copied: string[] = [];
  for (const rel of STARTER_FILES) {
    if (fs.existsSync(join(root, rel))) continue;
    fs.cpSync(join(demo, rel), join(root, rel), { recursive: true, errorOnExist: true, force: false });
    copied.push(rel);
  }
  const header =
    "# risk.config.yaml written by risk-cli init --detect. The publisher, instruments and upstreams below\n" +
    "# are the demo's: replace them with yours. docs/inputs.md explains every key.\n" +
    (copied.length ? `# Copied from the demo, to replace with yours: ${copied.join(", ")}.\n` : "");
  fs.writeFileSync(config, `${header}${template}\n${detectionYaml(detection)}`, {
    flag: "wx",
  });
  const log = stderrLogger(opts.json);
  log.info(`detected a ${detection.generator} site`);
  for (const d of detection.documents)
    log.info(`  ${d.files} ${d.lang} ${d.kind}${d.files > 1 ? "s" : ""}: ${d.globs.join(", ")}`);
  for (const u of detection.unmapped) log.warn(`to check: ${u}`);
  if (copied.length) log.info(`copied from the demo (replace with yours): ${copied.join(", ")}`);
  log.info(`wrote ${opts.dir}/risk.config.yaml; then: risk-cli lint --publication ${opts.dir}`);
  return { ok: true as const, dir: root, ...detection, copied };
}
