/**
 * What was published at an instant, read from the archive (the frame at or before it) or, without
 * an archive, from the site folder (its current assembly only). The MCP server answers from this,
 * so that an answer never holds anything published after the instant it was asked about.
 */
import * as fs from "node:fs";
import { join, resolve, sep } from "node:path";
import { openArchive, type Archive, type FoundFrame } from "../archive/index.ts";
import { parseDateOrDateTime } from "../core/dates.ts";
import { INSTANT_RULE } from "../archive/models/instant.ts";
import { denoPermissionError, RiskError } from "../core/errors.ts";
import type { Hasher } from "../core/ports.ts";
import { brokenLink, readRegularFile } from "../archive/regular-file.ts";

export const INTEGRITY_PATH = "/api/v1/integrity.json";

/** A frame identifier as integrity.json gives it: its sequence number and time. */
const FRAME_ID = /^\d{6,}-\d{8}T\d{6}Z$/;

/** Largest site file read as a surface; a larger one is refused before a byte is read. */
export const MAX_SURFACE_BYTES = 256 * 1024 * 1024;
/** Largest integrity.json read. */
const MAX_INTEGRITY_BYTES = 32 * 1024 * 1024;

/** What an instant argument must be, after its name: as replay --date says it. */

/**
 * The epoch milliseconds of an instant given by a client, read by the parser `replay --date` uses
 * (`parseDateOrDateTime`): a date (the end of that UTC day) or a date-time with its zone (a T or a space between),
 * any year from 0000 to 9999, a leap second as the last instant of its day; null for anything
 * else (a rolled-over date, another form).
 */
export function instantMs(text: string): number | null {
  if (text.length > 40) return null;
  return parseDateOrDateTime(text);
}

/** The epoch milliseconds of the instant `name` gives, or a usage error naming the argument. */
export function readInstant(text: string, name: string): number {
  const ms = instantMs(text);
  if (ms === null)
    throw new RiskError("E_USAGE", `${name} "${text.slice(0, 40)}" is not an instant: give ${INSTANT_RULE}`, {
      [name]: text.slice(0, 40),
    });
  return ms;
}

/** The rule an instant argument follows, to say it in an error. */
export const instantRule = (name: string) => `${name} must be ${INSTANT_RULE}`;

/** One assembly as it was served: its surfaces' paths, media types and bytes. */
export interface PublishedView {
  /**
   * The frame's identifier: from the archive, or, for a site read without its archive, as the
   * site's integrity.json names it (null when it names none).
   */
  frameId: string | null;
  /** Where the frame was read: its archive (frame and bytes checked), or the site folder alone. */
  frameFrom: "archive" | "site";
  frameHash: string | null;
  commit: string | null;
  /** When the assembly was published (ISO 8601, UTC). */
  at: string;
  surfaces: ReadonlyMap<string, { mediaType: string; sha256: string; bytes: number }>;
  /** The bytes of a surface as served, or null when this assembly did not publish it. */
  read(path: string): Promise<Uint8Array | null>;
  /** The frame itself, when the view comes from the archive. */
  found: FoundFrame | null;
}

/** Where published assemblies are read from: an archive, a site folder, or both. */
export class PublishedSource {
  readonly archive: Archive | null;
  readonly siteDir: string | null;
  private readonly views = new Map<string, Promise<PublishedView>>();

  /** SHA-256, to check each surface read from the archive against its recorded fingerprint. */
  readonly hash: Hasher;

  constructor(options: { site?: string; archive?: string; hash: Hasher }) {
    this.hash = options.hash;
    this.archive = options.archive ? openArchive(options.archive) : null;
    this.siteDir = options.site ? resolve(options.site) : null;
    if (!this.archive && !this.siteDir)
      throw new RiskError("E_USAGE", "Give a site folder (--site) or an archive (--archive) to answer from");
  }

  /**
   * The assembly published at or before `asOf` (a date, meaning the end of that UTC day, or a
   * date-time), or the latest one. Without an archive only the site's own assembly can answer,
   * and only for an instant at or after it was published.
   */
  async at(asOf?: string): Promise<PublishedView> {
    const instant = asOf === undefined ? Number.POSITIVE_INFINITY : readInstant(asOf, "asOf");
    if (this.archive) {
      const found = await this.archive.frameAt(Number.isFinite(instant) ? instant : 8.64e15);
      const key = found.commit;
      let view = this.views.get(key);
      if (!view) {
        view = this.frameView(found);
        if (this.views.size > 64) this.views.clear();
        this.views.set(key, view);
      }
      return view;
    }
    const view = await this.siteView();
    if (instant < Date.parse(view.at))
      throw new RiskError(
        "E_NO_FRAME",
        `This server reads only the site's current assembly, published at ${view.at}; an earlier instant needs the archive (start it with --archive)`,
        { asOf: asOf ?? null },
      );
    return view;
  }

  private async frameView(found: FoundFrame): Promise<PublishedView> {
    const { servedBytes } = await import("../archive/api/frames.ts");
    const gitdir = this.archive!.gitdir;
    const hash = this.hash;
    const surfaces = new Map(
      Object.entries(found.frame.surfaces).map(([path, s]) => [
        path,
        { mediaType: s.mediaType, sha256: s.sha256, bytes: s.bytes },
      ]),
    );
    const bytes = new Map<string, Uint8Array>();
    return {
      frameId: found.frame.frameId,
      frameFrom: "archive",
      frameHash: found.frame.frameHash,
      commit: found.commit,
      at: found.frame.at,
      surfaces,
      found,
      async read(path) {
        const known = surfaces.get(path);
        if (!known) return null;
        let b = bytes.get(path);
        if (!b) {
          b = await servedBytes(gitdir, found.tree, found.frame, path);
          if (hash.sha256(b) !== known.sha256)
            throw new RiskError(
              "E_VERIFY",
              `Frame ${found.frame.frameId}: ${path} does not match its recorded fingerprint; run risk-cli verify`,
              { frame: found.frame.frameId, path },
            );
          bytes.set(path, b);
        }
        return b;
      },
    };
  }

  private siteIntegrity = { text: "", view: null as PublishedView | null };

  private async siteView(): Promise<PublishedView> {
    const root = this.siteDir!;
    let raw: Uint8Array | null;
    try {
      raw = readSiteFile(root, INTEGRITY_PATH, (size) => {
        if (size > MAX_INTEGRITY_BYTES)
          throw new RiskError(
            "E_INPUT",
            `The site's ${INTEGRITY_PATH} is over ${MAX_INTEGRITY_BYTES} bytes, so not risk-cli's: assemble the site again`,
          );
      });
    } catch (e) {
      if (e instanceof RiskError) throw e;
      raw = null;
    }
    if (!raw) throw new RiskError("E_IO", `The site has no ${INTEGRITY_PATH}: run risk-cli assemble first`);
    const text = Buffer.from(raw).toString("utf8");
    if (text === this.siteIntegrity.text && this.siteIntegrity.view) return this.siteIntegrity.view;
    let listing: { generated: string; surfaces: SiteSurface[]; frame?: { frameId?: unknown } };
    try {
      listing = JSON.parse(text);
      if (
        typeof listing.generated !== "string" ||
        !Array.isArray(listing.surfaces) ||
        !listing.surfaces.every(isSiteSurface)
      )
        throw new Error("shape");
    } catch {
      throw new RiskError("E_INPUT", `The site's ${INTEGRITY_PATH} is not risk-cli's: assemble the site again`);
    }
    const surfaces = new Map(
      listing.surfaces.map((s) => [s.path, { mediaType: s.mediaType, sha256: s.sha256, bytes: s.bytes }]),
    );
    surfaces.set(INTEGRITY_PATH, {
      mediaType: "application/json",
      sha256: this.hash.sha256(raw),
      bytes: raw.byteLength,
    });
    const integrity = raw;
    const hash = this.hash;
    const named = listing.frame?.frameId;
    const view: PublishedView = {
      frameId: typeof named === "string" && FRAME_ID.test(named) ? named : null,
      frameFrom: "site",
      frameHash: null,
      commit: null,
      at: listing.generated,
      surfaces,
      found: null,
      async read(path) {
        const known = surfaces.get(path);
        if (!known) return null;
        if (path === INTEGRITY_PATH) return integrity;
        // A site file is answered as published only when its bytes are those integrity.json
        // fingerprints: the size is compared before reading, the SHA-256 after.
        const differs = () =>
          new RiskError(
            "E_VERIFY",
            `${path} differs from what the site's ${INTEGRITY_PATH} fingerprints (sha256 ${known.sha256}, ${known.bytes} bytes): it was changed after assembly, so it is not answered as published; assemble the site again, or answer from the archive (--archive)`,
            { path },
          );
        const bytes = readSiteFile(root, path, (size) => {
          if (size !== known.bytes || size > MAX_SURFACE_BYTES) throw differs();
        });
        if (!bytes)
          throw new RiskError(
            "E_IO",
            `${path} is listed in the site's ${INTEGRITY_PATH} but missing from the site: assemble the site again`,
            { path },
          );
        if (hash.sha256(bytes) !== known.sha256) throw differs();
        return bytes;
      },
    };
    this.siteIntegrity = { text, view };
    return view;
  }
}

interface SiteSurface {
  path: string;
  mediaType: string;
  sha256: string;
  bytes: number;
}

const isSiteSurface = (s: unknown): s is SiteSurface => {
  const { path, mediaType, sha256, bytes } = (s ?? {}) as Record<string, unknown>;
  return (
    typeof path === "string" &&
    path.startsWith("/") &&
    typeof mediaType === "string" &&
    typeof sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(sha256) &&
    Number.isSafeInteger(bytes) &&
    (bytes as number) >= 0
  );
};

/**
 * The bytes of the site file at `path` (a site path, as /api/v1/risk.json), or null when there is
 * none. Only a regular file whose real path lies inside the site's real path is read: a symbolic
 * link leading out of the site, a device, a FIFO or a folder is refused without reading it (the
 * file is opened without following a final link and without blocking, and checked on its open
 * descriptor). `check` sees the file's size before any byte is read and may refuse it.
 */
export function readSiteFile(root: string, path: string, check: (size: number) => void): Uint8Array | null {
  const segments = path.split("/").slice(1);
  if (
    !path.startsWith("/") ||
    segments.some((s) => s === "" || s === "." || s === ".." || s.includes("\\") || s.includes("\0"))
  )
    throw new RiskError("E_USAGE", `${path.slice(0, 200)} is not a site path: give one as /api/v1/risk.json`);
  const refused = () =>
    new RiskError(
      "E_INPUT",
      `${path} in the site is not a regular file inside it (a symbolic link leading out of the site, a device, a FIFO or a folder): it is not answered as published`,
      { path },
    );
  // A file or folder this account may not read is said to be so, not taken for a link or a device.
  const failed = (e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM")
      return new RiskError(
        "E_IO",
        `${path} in the site cannot be read: permission denied (${code}); make the site readable by the user running risk-cli`,
        { path },
      );
    return denoPermissionError(e) ?? refused();
  };
  let real: string;
  let rootReal: string;
  try {
    rootReal = fs.realpathSync(root);
    real = fs.realpathSync(join(root, ...segments));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw failed(e);
  }
  if (!real.startsWith(rootReal + sep)) throw refused();
  let bytes: Buffer | "not-regular" | "refused";
  try {
    bytes = readRegularFile(real, {
      followLink: false,
      admit: (size) => {
        check(size);
        return true;
      },
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    if (e instanceof RiskError) throw e;
    throw failed(e);
  }
  if (bytes === "not-regular" || bytes === "refused") throw refused();
  return bytes;
}

/**
 * The folders a server is started with, checked before it answers anyone: the archive when one is
 * given, and the site when it is what answers or was named. An I/O error (exit 6) names the option.
 */
export async function requireFolders(options: { site?: string; archive?: string; siteNeeded: boolean }): Promise<void> {
  if (options.archive !== undefined) {
    const { gitdirOf, isRepository, refuseArchiveFile } = await import("../archive/git/objects.ts");
    refuseArchiveFile(options.archive);
    const dir = resolve(options.archive);
    if (!fs.existsSync(dir))
      throw new RiskError("E_IO", `--archive ${dir} does not exist: give the archive folder risk-cli assemble writes`, {
        archive: dir,
      });
    if (!isRepository(gitdirOf(dir)))
      throw new RiskError("E_ARCHIVE", `--archive ${dir} is not a Git repository, so not an archive: check --archive`, {
        archive: dir,
      });
  }
  if (options.site !== undefined && options.siteNeeded) {
    const dir = resolve(options.site);
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(dir);
    } catch {
      // refused below
    }
    const link = st ? null : brokenLink(dir);
    if (link) throw new RiskError("E_USAGE", `--site ${dir} is ${link}: give the site folder itself`, { site: dir });
    if (!st)
      throw new RiskError(
        "E_IO",
        `--site ${dir} does not exist: give the site folder risk-cli assemble writes${options.archive === undefined ? ", or --archive" : ""}`,
        { site: dir },
      );
    if (!st.isDirectory())
      throw new RiskError("E_IO", `--site ${dir} is not a folder: give the site folder`, { site: dir });
  }
}
