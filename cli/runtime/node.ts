import { promises as fsp, readFileSync, statSync } from "node:fs";
import { decodeInput, inputReadError, MAX_INPUT_BYTES, tooLargeError } from "../../core/inputs/read.ts";
import { createHash } from "node:crypto";
import type { Hasher, Http, Logger, ReadOnlyFs } from "../../core/ports.ts";
import { VERSION } from "../../core/version.ts";
import { fetchHttp } from "./http.ts";
import { lookup } from "node:dns/promises";
import { isPrivateAddress } from "../../core/inputs/addresses.ts";
import { oneLine, printable } from "../terminal.ts";

/** The sorted names of the entries of `dir` that `keep` accepts; [] when `dir` does not exist. */
async function namesIn(dir: string, keep: (e: import("node:fs").Dirent) => boolean): Promise<string[]> {
  try {
    return (await fsp.readdir(dir, { withFileTypes: true }))
      .filter(keep)
      .map((e) => e.name)
      .sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

export const nodeFs: ReadOnlyFs = {
  // Synchronous reads: 450 small files read in ~7 ms, against ~35 ms through concurrent promises.
  async readText(path, options) {
    const st = statSync(path);
    if (!st.isFile()) throw inputReadError(path, "it is not a regular file");
    if (st.size > (options?.maxBytes ?? MAX_INPUT_BYTES)) throw tooLargeError(path, options?.maxBytes);
    return decodeInput(path, readFileSync(path), options?.maxBytes);
  },
  // Links too: one that leads out of the publication, or nowhere, is refused by name when read,
  // not passed over in silence.
  listFiles: (dir) => namesIn(dir, (e) => e.isFile() || e.isSymbolicLink()),
  listDirs: (dir) => namesIn(dir, (e) => e.isDirectory()),
  realPath: (path) => fsp.realpath(path),
  exists: (path) =>
    fsp.access(path).then(
      () => true,
      () => false,
    ),
};

export const nodeHasher: Hasher = {
  sha256: (bytes) => createHash("sha256").update(bytes).digest("hex"),
  sha256Parts(parts) {
    const h = createHash("sha256");
    for (const part of parts) h.update(part);
    return h.digest("hex");
  },
};

export function stderrLogger(quiet = false): Logger {
  return {
    info: (m) => {
      if (!quiet) process.stderr.write(`${printable(m)}\n`);
    },
    warn: (m) => process.stderr.write(`warning: ${oneLine(m)}\n`),
  };
}

/** HTTP(S) collection through Node's global fetch (undici). */
export const nodeHttp: Http = {
  ...fetchHttp({ userAgent: `risk-cli/${VERSION}` }),
  // Every address a name resolves to: one private answer is enough to refuse (DNS rebinding).
  async resolvesPrivate(hostname) {
    if (isPrivateAddress(hostname)) return true;
    try {
      const answers = await lookup(hostname, { all: true, verbatim: true });
      return answers.some((a) => isPrivateAddress(a.address));
    } catch {
      return false;
    }
  },
};
