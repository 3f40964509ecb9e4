/**
 * A page of the site is the file index.html of a folder, served and named at the folder's URL
 * (`/series/`, as the contract names it), while integrity.json and the archive list it as that
 * file (`/series/index.html`). These two name one from the other.
 */
const INDEX = "index.html";

/** The file a path is served from: a folder's URL (`/series/`) gives its index.html; any other path is itself. */
export const pageFile = (path: string): string => (path.endsWith("/") ? `${path}${INDEX}` : path);

/** The URL a file is published at: a page's index.html (`/series/index.html`) gives its folder's URL; any other file its own path. */
export const publicUrl = (path: string): string => (path.endsWith(`/${INDEX}`) ? path.slice(0, -INDEX.length) : path);
