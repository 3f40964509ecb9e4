/**
 * The effects `core/` may use, passed in as arguments. `cli/runtime/*` implements them for
 * Node and Deno; tests pass in-memory ones.
 */
export interface ReadOnlyFs {
  /**
   * Text of a file, UTF-8. Rejects when the file is missing, or over `maxBytes` (default
   * MAX_INPUT_BYTES, the cap of a publication's own input files).
   */
  readText(path: string, options?: { maxBytes?: number }): Promise<string>;
  /**
   * Names of everything but folders directly inside `dir` (regular files, symbolic links, FIFOs,
   * devices), sorted; [] when `dir` does not exist. What is not a regular file is refused when read.
   */
  listFiles(dir: string): Promise<string[]>;
  /** Names of the folders directly inside `dir` (symbolic links not followed), sorted; [] when `dir` does not exist. */
  listDirs(dir: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
  /** The path with every symbolic link resolved; absent where links cannot be seen (in-memory tests). */
  realPath?(path: string): Promise<string>;
}

export interface Clock {
  now(): Date;
}

export interface Hasher {
  /** Lowercase hex SHA-256 of the bytes. */
  sha256(bytes: Uint8Array): string;
  /** SHA-256 of the concatenation of the parts (strings as UTF-8), without building it. */
  sha256Parts(parts: readonly (string | Uint8Array)[]): string;
  /**
   * For each tail, SHA-256 of `prefix` followed by that tail (bytes), the prefix hashed once for
   * all: two documents that share their first megabytes cost one pass over them.
   */
  sha256Branches(prefix: readonly Uint8Array[], tails: readonly (readonly Uint8Array[])[]): string[];
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface Ports {
  fs: ReadOnlyFs;
  hash: Hasher;
  log: Logger;
}

/** One HTTP GET, without following redirects: `cli/runtime/http.ts` implements it over `fetch`. */
export interface HttpRequest {
  /** Milliseconds for the whole exchange, body included; past it the request is aborted. */
  timeoutMs: number;
  /** Largest body accepted, in bytes after content decoding (gzip, deflate, br). */
  maxBytes: number;
  /** The Accept header. */
  accept: string;
}

export type HttpResult =
  | {
      kind: "response";
      status: number;
      /** Lowercased header names; only content-type and location are read. */
      headers: Record<string, string>;
      body: Uint8Array;
      elapsedMs: number;
    }
  | { kind: "timeout" | "too-large" | "network"; message: string; elapsedMs: number };

export interface Http {
  get(url: string, request: HttpRequest): Promise<HttpResult>;
  /**
   * True when a host name resolves to a private, loopback or link-local address (DNS), so that a
   * redirect cannot reach the machine's own network through a name. Absent: names are not resolved.
   */
  resolvesPrivate?(hostname: string): Promise<boolean>;
}

/**
 * Results of pure computations kept from earlier assemblies. `remember` gives what `compute`
 * returned before for the same `kind` and `parts` (which must name everything the result depends
 * on), or computes it now. Results must be plain JSON values. A memo that keeps nothing is always
 * correct: `noMemo`.
 */
export interface Memo {
  remember<T>(kind: string, parts: readonly string[], compute: () => T): T;
}

export const noMemo: Memo = { remember: (_kind, _parts, compute) => compute() };
