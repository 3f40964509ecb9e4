import type { Remote } from "../archive/api/transport.ts";
import { RiskError } from "../core/errors.ts";

/** The archive branch on a remote when none is given: a branch of the publisher's own repository. */
export const DEFAULT_ARCHIVE_BRANCH = "risk-archive";

/**
 * The archive's remote: the `--remote` and `--branch` flags, else `RISK_ARCHIVE_REMOTE` and
 * `RISK_ARCHIVE_BRANCH`, else (in a GitHub Actions job) the job's own repository. The token comes
 * from `RISK_ARCHIVE_TOKEN`, else `GITHUB_TOKEN`; it is never taken from a flag, so that it never
 * shows in a process list or a log.
 */
export function resolveRemote(
  flags: { remote?: string; branch?: string },
  env: Record<string, string | undefined>,
): Remote {
  const github =
    env.GITHUB_REPOSITORY && env.GITHUB_SERVER_URL
      ? `${env.GITHUB_SERVER_URL.replace(/\/+$/, "")}/${env.GITHUB_REPOSITORY}.git`
      : undefined;
  const url = flags.remote ?? (env.RISK_ARCHIVE_REMOTE || undefined) ?? github;
  if (!url)
    throw new RiskError(
      "E_USAGE",
      "No archive remote: give --remote https://host/owner/repo.git or set RISK_ARCHIVE_REMOTE (in GitHub Actions the job's repository is used).",
    );
  const branch = flags.branch ?? (env.RISK_ARCHIVE_BRANCH || undefined) ?? DEFAULT_ARCHIVE_BRANCH;
  const token = env.RISK_ARCHIVE_TOKEN || env.GITHUB_TOKEN || undefined;
  return { url, branch, token };
}
