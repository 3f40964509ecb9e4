/** Whether this process runs as a step of a GitHub Actions job (the runner sets GITHUB_ACTIONS). */
export function inGitHubActions(env: Record<string, string | undefined>): boolean {
  return env.GITHUB_ACTIONS === "true";
}
