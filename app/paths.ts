/**
 * The folders an assembly writes or replaces, checked against each other before anything is
 * touched. The site folder is replaced whole at each assembly, so it must not be, or hold, the
 * archive, the publication, the current folder, the home folder or the root; the archive must not
 * sit inside the site (it would go with the old site) nor the site inside the archive.
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { refuseArchiveFile } from "../archive/index.ts";
import { SITE_MARKER } from "../archive/layout.ts";
import { RiskError } from "../core/errors.ts";

/** The real path of `p`: symbolic links of its existing part resolved, the rest kept as given. */
export function realPath(p: string): string {
  const abs = resolve(p);
  if (existsSync(abs)) return realpathSync(abs);
  const parent = dirname(abs);
  if (parent === abs) return abs;
  return join(realPath(parent), basename(abs));
}

const within = (inner: string, outer: string) =>
  inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);

export function checkAssemblyPaths(paths: { site: string; archive: string; publication: string }): void {
  const site = realPath(paths.site);
  const archive = realPath(paths.archive);
  const publication = realPath(paths.publication);
  const refuse = (why: string): never => {
    throw new RiskError("E_USAGE", `Refusing --site ${paths.site}: ${why}. Nothing was changed.`, {
      site: paths.site,
    });
  };
  const cwd = realPath(process.cwd());
  const home = realPath(homeFolder());
  if (site === realPath(sep)) refuse("it is the root folder, which each assembly would replace whole");
  if (within(cwd, site)) refuse("it is the current folder or holds it, and each assembly replaces the site whole");
  if (within(home, site)) refuse("it is the home folder or holds it, and each assembly replaces the site whole");
  if (within(archive, site)) refuse(`the archive ${paths.archive} is inside it and would be deleted with the old site`);
  if (within(site, archive)) refuse(`it is inside the archive ${paths.archive}`);
  if (within(publication, site))
    refuse(`the publication ${paths.publication} is inside it and would be deleted with the old site`);
  if (archive === publication)
    throw new RiskError(
      "E_USAGE",
      `Refusing --archive ${paths.archive}: it is the publication folder. Give the archive a folder of its own. Nothing was changed.`,
      { archive: paths.archive },
    );
}

/**
 * A folder `replay` writes (`--out`, `--upstream`) must stay apart from what assemblies own: not
 * the archive, inside it or holding it (the archive would then hold files that are not Git's, and
 * every later assembly would refuse it), and not inside a site risk-cli writes (the next assembly
 * replaces the site whole, and the replay with it).
 */
export function checkReplayOutput(option: string, given: string, archiveGiven: string): void {
  const out = realPath(given);
  const archive = realPath(archiveGiven);
  const refuse = (why: string): never => {
    throw new RiskError("E_USAGE", `Refusing ${option} ${given}: ${why}. Nothing was written.`, { [option]: given });
  };
  if (within(out, archive)) refuse(`it is inside the archive ${archiveGiven}, which must hold Git's files only`);
  if (within(archive, out)) refuse(`the archive ${archiveGiven} is inside it`);
  for (let dir = dirname(out); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, SITE_MARKER)))
      refuse(`it is inside the site ${dir}, which the next assembly replaces whole`);
}

/**
 * The user's home folder: $HOME (or %USERPROFILE%) as the shell has it, which is also what Node's
 * os.homedir() reads first; the account database only without them. Deno asks for a permission
 * of its own (--allow-sys=homedir) for the latter, which the documented command does not grant.
 */
function homeFolder(): string {
  return process.env.HOME || process.env.USERPROFILE || homedir();
}

/** What Git keeps in a repository's folder; an archive folder may hold these and risk-cli's own files. */
export const GIT_FOLDER_ENTRIES: ReadonlySet<string> = new Set([
  "HEAD",
  "config",
  "description",
  "hooks",
  "info",
  "objects",
  "refs",
  "packed-refs",
  "logs",
  "branches",
  "FETCH_HEAD",
  "ORIG_HEAD",
  "index",
  "shallow",
  "COMMIT_EDITMSG",
  "modules",
  "worktrees",
  "lfs",
  "gc.log",
  "gc.pid",
]);

/**
 * Whether `name` is Git's in a repository's folder: one of its entries, or the lock Git takes
 * while it rewrites one (`packed-refs.lock`, `HEAD.lock`, `config.lock`, `index.lock`, `gc.pid.lock`),
 * which a Git killed meanwhile leaves behind (`git gc --auto` runs detached, and a CI runner ends
 * it with the job). risk-cli reads none of them and moves its branch under a lock of its own.
 */
export function isGitEntry(name: string): boolean {
  return GIT_FOLDER_ENTRIES.has(name.endsWith(".lock") ? name.slice(0, -".lock".length) : name);
}

/**
 * The archive folder that an assembly will write a bare Git repository into: it must not exist
 * yet, be empty, or already be a bare Git repository. A file, a folder holding other files
 * (documents, sources), or a Git work tree (its frames would be committed onto the branch checked
 * out there, under the work tree's files) is refused before anything is written.
 */
export function checkArchiveFolder(archive: string): void {
  const refuse = (why: string): never => {
    throw new RiskError("E_USAGE", `Refusing --archive ${archive}: ${why}. Nothing was changed.`, { archive });
  };
  refuseArchiveFile(archive);
  let entries: string[];
  try {
    entries = readdirSync(archive);
  } catch (e) {
    if (e instanceof RiskError) throw e;
    // A folder that does not exist yet is created by the first frame; other refusals are the
    // file system's, reported when the archive is written.
    return;
  }
  if (entries.includes(".git")) {
    const files = entries.filter((name) => name !== ".git");
    refuse(
      `it is a Git work tree (it holds .git${files.length > 0 ? ` and ${files.slice(0, 3).join(", ")}${files.length > 3 ? ", ..." : ""}` : ""}), not a bare repository, and an assembly would commit its frames onto the branch checked out there; give an empty or new folder, or an existing risk-cli archive (a bare repository)`,
    );
  }
  const others = entries.filter((name) => !isGitEntry(name) && !name.startsWith("risk-cli"));
  if (others.length > 0)
    refuse(
      `it holds files that are not a Git repository's (${others.slice(0, 3).join(", ")}${others.length > 3 ? ", ..." : ""}), and an assembly would write a repository among them; give the archive's folder, or an empty or new one`,
    );
}
