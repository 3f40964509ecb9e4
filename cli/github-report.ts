/**
 * What each command tells a GitHub Actions job (loaded only there): an assembly's summary,
 * outputs and fallback warnings; lint findings and input errors as annotations on their file and
 * line, so that they show in a pull request's diff.
 */
import { resolve } from "node:path";
import type { AssemblySummary } from "../app/assembly.ts";
import type { LintReport } from "./commands/lint.ts";
import { isRiskError } from "../core/errors.ts";
import { annotation, reportAssembly, workspacePath } from "./github.ts";
import { defaultPublication } from "./paths.ts";
import { withoutTokens } from "./exit.ts";

type Args = { command: string; publication?: string };

function publicationDir(args: Args): string {
  // The command itself already said which publication it read.
  return resolve(args.publication ?? defaultPublication());
}

export async function reportToJob(args: Args, result: unknown): Promise<void> {
  const env = process.env;
  if (args.command === "assemble") reportAssembly(env, result as AssemblySummary);
  if (args.command === "lint") {
    const report = result as LintReport;
    for (const f of report.findings) {
      if (f.severity === "note") continue;
      const file = workspacePath(env, publicationDir(args), f.file) ?? undefined;
      process.stderr.write(
        `${annotation(f.severity === "error" ? "error" : "warning", `${f.message} (field ${f.field}) [${f.code}]`, {
          file,
          line: f.line ?? undefined,
          title: "risk-cli lint",
        })}\n`,
      );
    }
  }
}

export async function reportErrorToJob(args: Args, error: unknown): Promise<void> {
  if (!isRiskError(error)) return;
  const data = error.data as { file?: unknown; line?: unknown };
  const file =
    typeof data.file === "string" && "publication" in args
      ? (workspacePath(process.env, publicationDir(args), data.file) ?? undefined)
      : undefined;
  const line = typeof data.line === "number" ? data.line : undefined;
  process.stderr.write(
    `${annotation("error", withoutTokens(error.message), { file, line, title: `risk-cli ${args.command}` })}\n`,
  );
}
