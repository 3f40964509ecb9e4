/**
 * The folders an assembly writes or replaces, checked against each other before anything is
 * touched. The site folder is replaced whole at each assembly, so it must not be, or hold, the
 * archive, the publication, the current folder, the home folder or the root; the archive must not
 * sit inside the site (it would go with the old site) nor the site inside the archive.
 */
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
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
  const home = realPath(homedir());
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
