import { resolve } from "node:path";
import { assemble } from "../../core/assemble.ts";
import { editorialFindings, formatFinding, lineOf, type LintFinding } from "../../core/editorial/lint.ts";
import { editorialOf } from "../../core/editorial/analysis.ts";
import { parsePublication, readPublicationFiles } from "../../core/inputs/publication.ts";
import { SURFACES } from "../../core/surfaces/index.ts";
import { resolveNow } from "../clock.ts";
import { demoPublication } from "../paths.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { runtimeFs } from "../runtime/select.ts";
import { VERSION } from "../../core/version.ts";

export interface LintReport {
  /** False when a finding is an error: the exit status is then 1. */
  ok: boolean;
  publication: string;
  surfacesChecked: number;
  counts: { articles: number; claims: number; reviewedClaims: number; errors: number; warnings: number; notes: number };
  findings: LintFinding[];
}

/**
 * Checks the whole publication without writing anything: every input file (exit 3 on the first
 * bad one), every surface built from the corpus against its schema (exit 4), then the editorial
 * findings: errors (exit 1), warnings and notes.
 */
export async function runLint(opts: { publication?: string; json: boolean }): Promise<LintReport> {
  const log = stderrLogger(opts.json);
  const pubDir = resolve(opts.publication ?? demoPublication());
  const files = await readPublicationFiles(runtimeFs().fs, pubDir);
  const publication = parsePublication(files);
  const now = resolveNow(undefined, process.env, () => new Date());
  const url = (path: string) => `${publication.config.baseUrl}${path}`;
  // The corpus surfaces only: upstream readings are `risk-cli collect`'s concern.
  const surfaces = SURFACES.filter((s) => s.reusable);
  const upstream = { attemptedAt: now, instruments: {}, confluence: null };
  assemble({ publication, upstream, previous: null, now, toolVersion: VERSION, inputs: "lint" }, nodeHasher, {
    surfaces,
  });
  const findings = editorialFindings(publication, now, url).map(({ needle, ...f }) => ({
    ...f,
    line: f.line ?? lineOf(files.files.get(f.file), needle),
  }));
  const editorial = editorialOf(publication, now, url);
  const count = (s: LintFinding["severity"]) => findings.filter((f) => f.severity === s).length;
  const report: LintReport = {
    ok: count("error") === 0,
    publication: pubDir,
    surfacesChecked: surfaces.length,
    counts: {
      articles: editorial.articles.length,
      claims: editorial.claims.length,
      reviewedClaims: editorial.claims.filter((c) => c.reviewStatus === "reviewed").length,
      errors: count("error"),
      warnings: count("warning"),
      notes: count("note"),
    },
    findings,
  };
  for (const f of findings) log.info(`${f.severity}: ${formatFinding(f)}`);
  log.info(
    `${surfaces.length} corpus surfaces valid; ${report.counts.claims} claims in ${report.counts.articles} French articles (${report.counts.reviewedClaims} reviewed); ${report.counts.errors} error(s), ${report.counts.warnings} warning(s), ${report.counts.notes} note(s)`,
  );
  return report;
}
