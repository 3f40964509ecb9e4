/**
 * What a GitHub Actions job shows its reader: annotations (workflow commands on stderr, which the
 * runner reads as it reads stdout, so that `--json` output stays clean), a Markdown step summary
 * in `$GITHUB_STEP_SUMMARY`, and step outputs in `$GITHUB_OUTPUT`. Everything here is active only
 * when `GITHUB_ACTIONS` is "true"; everything it writes comes from published or already-redacted
 * text (frame fields, error messages), never from the environment's secrets.
 */
import { appendFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import type { AssemblySummary } from "../app/assembly.ts";
import { inGitHubActions } from "./github-env.ts";
import { systemRefusal } from "./exit.ts";
import { controlsEscaped } from "./terminal.ts";

export type Env = Record<string, string | undefined>;

/**
 * A workflow command's message: `%`, CR and LF escaped as the runner expects, and every other
 * control character (an escape sequence, a bidirectional override) as a \u escape, since the
 * runner shows the rest as it is.
 */
export function escapeData(text: string): string {
  return controlsEscaped(text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A"));
}

/** A workflow command's property value: also `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export interface Where {
  /** A path relative to the repository (the job's workspace). */
  file?: string;
  line?: number;
  title?: string;
}

/** One annotation line: `::error file=…,line=…::message`. */
export function annotation(level: "error" | "warning" | "notice", message: string, where: Where = {}): string {
  const props = [
    where.file ? `file=${escapeProperty(where.file)}` : "",
    where.line ? `line=${where.line}` : "",
    where.title ? `title=${escapeProperty(where.title)}` : "",
  ].filter(Boolean);
  return `::${level}${props.length ? ` ${props.join(",")}` : ""}::${escapeData(message)}`;
}

/**
 * A file of the publication as the job's workspace names it (what an annotation's `file=` needs
 * to show on the line in a pull request); null when it lies outside the workspace.
 */
export function workspacePath(env: Env, publicationDir: string, file: string): string | null {
  const workspace = env.GITHUB_WORKSPACE;
  const full = isAbsolute(file) ? file : `${publicationDir}/${file}`;
  if (!workspace) return null;
  const rel = relative(workspace, full);
  // `..pub/x.md` is inside; only `..` itself or a path through it leads out.
  const out = rel === ".." || rel.startsWith("../") || rel.startsWith("..\\") || isAbsolute(rel);
  return out ? null : rel.split("\\").join("/");
}

/** Appends `name=value` outputs, each in the runner's delimited form so that any value is safe. */
export function writeOutputs(env: Env, outputs: Record<string, string>): void {
  let text = "";
  for (const [name, value] of Object.entries(outputs)) {
    let delimiter = "risk_cli_eof";
    while (value.includes(delimiter)) delimiter += "_";
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  appendForJob(env, "GITHUB_OUTPUT", "the step outputs", text);
}

export function writeSummary(env: Env, markdown: string): void {
  appendForJob(env, "GITHUB_STEP_SUMMARY", "the step summary", markdown);
}

/**
 * Appends to the file a runner's variable names. These are written once the work is done (a
 * frame committed and pushed): a failure to write them (a missing folder, a full disk) is a
 * warning naming the variable, never the job's failure, and never the file's local path.
 */
function appendForJob(env: Env, variable: "GITHUB_OUTPUT" | "GITHUB_STEP_SUMMARY", what: string, text: string): void {
  const file = env[variable];
  if (!file) return;
  try {
    appendFileSync(file, text);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const why = typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${systemRefusal(code) ?? code})` : "";
    process.stderr.write(
      `${annotation("warning", `Could not write ${what} to the file $${variable} names${why}; the assembly itself is complete.`, { title: "risk-cli" })}\n`,
    );
  }
}

/** Text inside a code span: no line breaks, no pipes that would end the table cell. */
const code = (v: string) => v.replace(/[\r\n]+/g, " ").replace(/\|/g, "\\|");

/**
 * A table cell: one line, and every ASCII punctuation character backslash-escaped, as CommonMark
 * allows for any of them, so that a reason quoting an upstream's keys is shown as written and never
 * read as a link, an image, HTML or an autolink (the pipe's escape also keeps the cell whole).
 */
const cell = (v: unknown) =>
  String(v ?? "—")
    .replace(/[\r\n]+/g, " ")
    .replace(/[!-/:-@[-`{-~]/g, "\\$&");

/** The step summary of one assembly (and push): frame, signals, fallbacks, changes, bytes, times. */
export function assemblySummaryMarkdown(s: AssemblySummary & { pushed?: { remote: string; branch: string } }): string {
  const lines: string[] = [];
  lines.push(`### risk-cli: frame ${s.frameId}`, "");
  lines.push(`- at ${s.at}, frame hash \`sha256:${s.frameHash}\`, commit \`${s.commit.slice(0, 12)}\``);
  if (s.pushed) lines.push(`- pushed to ${cell(s.pushed.remote)} (branch \`${code(s.pushed.branch)}\`)`);
  lines.push(`- ${s.surfaces} surfaces, ${s.bytes} bytes; ${s.blobsWritten} new blobs in the archive`);
  const changes = [...s.added.map((p) => `+${p}`), ...s.changed.map((p) => `~${p}`), ...s.removed.map((p) => `-${p}`)];
  lines.push(`- changed: ${changes.length ? changes.map((c) => `\`${code(c)}\``).join(" ") : "nothing"}`, "");
  lines.push("| signal | value | level | source | quality | fallback | reason |", "|---|--:|---|---|---|---|---|");
  for (const sig of s.signals)
    lines.push(
      `| ${cell(sig.instrument)} | ${cell(sig.value)} | ${cell(sig.level)} | ${cell(sig.sourceStatus)} | ${cell(sig.qualityStatus)} | ${
        sig.fallbackUsed ? "yes" : "no"
      } | ${cell(sig.reason)} |`,
    );
  lines.push("", "| step | ms |", "|---|--:|");
  for (const [step, ms] of Object.entries(s.phasesMs)) lines.push(`| ${step} | ${ms} |`);
  if (s.warnings.length) {
    lines.push("", "Editorial warnings:", "");
    for (const w of s.warnings) lines.push(`- ${cell(w)}`);
  }
  return `${lines.join("\n")}\n\n`;
}

/** Everything an assembly tells the job: a warning per fallback or stale upstream, the summary, the outputs. */
export function reportAssembly(env: Env, s: AssemblySummary & { pushed?: { remote: string; branch: string } }): void {
  if (!inGitHubActions(env)) return;
  for (const f of s.fallbacks)
    process.stderr.write(
      `${annotation(
        "warning",
        `${f.instrument}: ${f.sourceStatus === "ok" ? (f.qualityStatus ?? "ok") : f.sourceStatus}${
          f.fallbackUsed ? ", last good value kept" : ""
        }${f.reason ? `: ${f.reason}` : ""}`,
        { title: "risk-cli upstream" },
      )}\n`,
    );
  writeSummary(env, assemblySummaryMarkdown(s));
  writeOutputs(env, {
    "frame-id": s.frameId,
    "frame-hash": s.frameHash,
    commit: s.commit,
    changed: String(s.added.length + s.changed.length + s.removed.length > 0),
    fallbacks: JSON.stringify(s.fallbacks),
    site: s.site,
  });
}
