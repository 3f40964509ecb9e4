/**
 * The effects `core/` may use, passed in as arguments. `cli/runtime/*` implements them for
 * Node and Deno; tests pass in-memory ones.
 */
export interface ReadOnlyFs {
  /** Text of a file, UTF-8. Rejects when the file is missing. */
  readText(path: string): Promise<string>;
  /** Names of the regular files directly inside `dir`, sorted; [] when `dir` does not exist. */
  listFiles(dir: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
}

export interface Clock {
  now(): Date;
}

export interface Hasher {
  /** Lowercase hex SHA-256 of the bytes. */
  sha256(bytes: Uint8Array): string;
  /** SHA-256 of the concatenation of the parts (strings as UTF-8), without building it. */
  sha256Parts(parts: readonly (string | Uint8Array)[]): string;
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
