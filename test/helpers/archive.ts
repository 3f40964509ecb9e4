import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { tempDir } from "./tmp.ts";

export const T0 = "2026-11-21T10:00:00Z";
export const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString().replace(".000Z", "Z");

/** A fresh site and archive with `frames` demo assemblies, 15 minutes apart from T0. */
export async function archiveWithFrames(frames: number, publication?: string) {
  const dir = tempDir("risk-arc-");
  const paths = { site: `${dir}/site`, archive: `${dir}/archive`, dir };
  const summaries = [];
  for (let i = 0; i < frames; i++) {
    summaries.push(await runAssemble({ ...paths, publication, now: at(15 * i), json: true }));
  }
  return { ...paths, summaries };
}

export function git(gitdir: string, ...args: string[]): string {
  return execFileSync("git", ["--git-dir", gitdir, ...args], {
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();
}

/**
 * Rewrites history as a forger would with git plumbing: commit `target` (counted from the root,
 * 0-based) gets its tree edited by `editTree`, and every later commit is re-parented onto the
 * rewrite with its own tree, message and dates kept.
 */
export function rewrite(
  gitdir: string,
  target: number,
  editTree: (tree: string) => string,
  options: { drop?: boolean } = {},
) {
  const commits = git(gitdir, "rev-list", "--reverse", "refs/heads/main").split("\n");
  let parent = target > 0 ? commits[target - 1]! : null;
  for (let i = target; i < commits.length; i++) {
    const c = commits[i]!;
    if (options.drop && i === target) continue;
    const tree =
      i === target ? editTree(git(gitdir, "rev-parse", `${c}^{tree}`)) : git(gitdir, "rev-parse", `${c}^{tree}`);
    const message = git(gitdir, "log", "-1", "--format=%B", c);
    const date = git(gitdir, "log", "-1", "--format=%ad", "--date=raw", c);
    const env = {
      ...process.env,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
      GIT_AUTHOR_NAME: "forger",
      GIT_AUTHOR_EMAIL: "f@x",
      GIT_COMMITTER_NAME: "forger",
      GIT_COMMITTER_EMAIL: "f@x",
    };
    parent = execFileSync(
      "git",
      ["--git-dir", gitdir, "commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", message],
      { encoding: "utf8", env },
    ).trim();
  }
  git(gitdir, "update-ref", "refs/heads/main", parent!);
}

/** A tree equal to `tree` with the blob at `path` replaced by `bytes`. */
export function replaceInTree(gitdir: string, tree: string, path: string, bytes: Buffer | string): string {
  const dir = tempDir("risk-forge-");
  const index = `${dir}/index`;
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync("git", ["--git-dir", gitdir, "read-tree", tree], { env });
  const file = `${dir}/blob`;
  writeFileSync(file, bytes);
  const oid = execFileSync("git", ["--git-dir", gitdir, "hash-object", "-w", file], { encoding: "utf8" }).trim();
  execFileSync("git", ["--git-dir", gitdir, "update-index", "--cacheinfo", `100644,${oid},${path}`], { env });
  return execFileSync("git", ["--git-dir", gitdir, "write-tree"], { encoding: "utf8", env }).trim();
}

export function showBlob(gitdir: string, rev: string, path: string): Buffer {
  return execFileSync("git", ["--git-dir", gitdir, "show", `${rev}:${path}`]);
}

export { readFileSync };
