import { resolve } from "node:path";
import { assemble } from "../../core/assemble.ts";
import { editorialFindings, formatFinding, lineOf, type LintFinding } from "../../core/editorial/lint.ts";
import { editorialOf } from "../../core/editorial/analysis.ts";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { instrumentsOf, parsePublication, readPublicationFiles } from "../../core/inputs/publication.ts";
import { SURFACES } from "../../core/surfaces/index.ts";
import { resolveNow } from "../clock.ts";
import { defaultPublication } from "../paths.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { runtimeFs } from "../runtime/select.ts";
import { VERSION } from "../../core/version.ts";
import { oneLine } from "../terminal.ts";
import { RiskError } from "../../core/errors.ts";

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
 * bad registry or config, or naming every article and guide that cannot be read), every surface built from the corpus against its schema (exit 4), then the editorial
 * findings: errors (exit 1), warnings and notes.
 */
export async function runLint(opts: { publication?: string; json: boolean }): Promise<LintReport> {
  const log = stderrLogger(opts.json);
  const pubDir = resolve(opts.publication ?? defaultPublication("checking", { json: opts.json }));
  const bad: RiskError[] = [];
  const files = await readPublicationFiles(runtimeFs().fs, pubDir, { badDocuments: bad });
  const publication = parsePublication(files, { badDocuments: bad });
  if (bad.length) throw everyBadDocument(bad);
  const now = resolveNow(undefined, process.env, () => new Date());
  const url = (path: string) => `${publication.config.baseUrl}${path}`;
  // The corpus surfaces only: upstream readings are `risk-cli collect`'s concern.
  const surfaces = SURFACES.filter((s) => s.reusable);
  // The upstream readings assemble would read from files: a broken holdings-confluence synthesis
  // stops lint as it stops assemble (exit 3); a local reading assemble would not publish as fresh
  // is a warning. Remote sources are collect's concern: lint reads no network.
  const collected = await collectUpstream(publication, { fs: runtimeFs().fs }, { attemptedAt: now });
  const upstream = { attemptedAt: now, instruments: {}, confluence: collected.confluence };
  assemble({ publication, upstream, previous: null, now, toolVersion: VERSION, inputs: "lint" }, nodeHasher, {
    surfaces,
  });
  const findings: LintFinding[] = editorialFindings(publication, now, url).map(({ needle, after, ...f }) => ({
    ...f,
    line: f.line ?? lineOf(files.files.get(f.file), needle, after),
  }));
  for (const [key, cfg] of instrumentsOf(publication)) {
    const r = collected.instruments[key];
    if (!r || r.ok || /^(https?|file):/i.test(cfg.source)) continue;
    findings.push({
      severity: "warning",
      code: "upstream-fallback",
      file: cfg.source,
      field: `instruments.${key}`,
      message: `assemble would not publish this reading as fresh (${r.status}: ${r.error}); it would keep the last good value, marked fallbackUsed`,
      line: null,
    });
  }
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
  // One line a finding: a key or value it quotes cannot start another, forged, finding.
  for (const f of findings) log.info(`${f.severity}: ${oneLine(formatFinding(f))}`);
  log.info(
    `${surfaces.length} corpus surfaces valid; ${report.counts.claims} claims in ${report.counts.articles} French articles (${report.counts.reviewedClaims} reviewed); ${report.counts.errors} error(s), ${report.counts.warnings} warning(s), ${report.counts.notes} note(s)`,
  );
  return report;
}

/**
 * Every article or guide that cannot be read, named in one run: each after the first on its own
 * line, then the first as the error (exit 3), saying how many more there are and carrying them
 * all (`documents`).
 */
function everyBadDocument(bad: RiskError[]): RiskError {
  const [first, ...more] = bad as [RiskError, ...RiskError[]];
  if (!more.length) return first;
  for (const e of more) process.stderr.write(`risk-cli: ${oneLine(e.message)} [${e.code}]\n`);
  return new RiskError(
    "E_INPUT",
    `${first.message} (and ${more.length} more document(s) that cannot be read, named above)`,
    { ...first.data, documents: bad.map((e) => ({ message: e.message, ...e.data })) },
  );
}
