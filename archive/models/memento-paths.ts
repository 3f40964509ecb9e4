/**
 * Where Memento's TimeMaps and mementos are served beside the site (archive/api/memento.ts,
 * app/serve.ts). Light on purpose: `serve` reads it without loading the archive's readers.
 */
export const TIMEMAP_PREFIX = "/timemap";
export const MEMENTO_PREFIX = "/memento";

/** The memento of `path` as frame `frameId` served it. */
export const mementoUri = (path: string, frameId: string) => `${MEMENTO_PREFIX}/${frameId}${path}`;

/** Page `page` of the TimeMap of `path`. */
export const timemapUri = (path: string, page = 1) => `${TIMEMAP_PREFIX}${path}${page > 1 ? `?page=${page}` : ""}`;
