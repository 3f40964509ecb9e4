/**
 * What was published at an instant, read from the archive (the frame at or before it) or, without
 * an archive, from the site folder (its current assembly only). The MCP server answers from this,
 * so that an answer never holds anything published after the instant it was asked about.
 */
import * as fs from "node:fs";
import { join, resolve } from "node:path";
import { openArchive, type Archive, type FoundFrame } from "../archive/index.ts";
import { parseInstant } from "../archive/models/instant.ts";
import { RiskError } from "../core/errors.ts";
import type { Hasher } from "../core/ports.ts";

export const INTEGRITY_PATH = "/api/v1/integrity.json";

/** One assembly as it was served: its surfaces' paths, media types and bytes. */
export interface PublishedView {
  /** The frame's identifier, or null for a site read without its archive. */
  frameId: string | null;
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
    const instant = asOf === undefined ? Number.POSITIVE_INFINITY : parseInstant(asOf);
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
    let text: string;
    try {
      text = fs.readFileSync(join(root, INTEGRITY_PATH), "utf8");
    } catch {
      throw new RiskError("E_IO", "The site has no /api/v1/integrity.json: run risk-cli assemble first");
    }
    if (text === this.siteIntegrity.text && this.siteIntegrity.view) return this.siteIntegrity.view;
    let listing: { generated: string; surfaces: { path: string; mediaType: string; sha256: string; bytes: number }[] };
    try {
      listing = JSON.parse(text);
      if (typeof listing.generated !== "string" || !Array.isArray(listing.surfaces)) throw new Error("shape");
    } catch {
      throw new RiskError("E_INPUT", "The site's /api/v1/integrity.json is not risk-cli's: assemble the site again");
    }
    const surfaces = new Map(
      listing.surfaces.map((s) => [s.path, { mediaType: s.mediaType, sha256: s.sha256, bytes: s.bytes }]),
    );
    surfaces.set(INTEGRITY_PATH, {
      mediaType: "application/json",
      sha256: this.hash.sha256(new TextEncoder().encode(text)),
      bytes: Buffer.byteLength(text),
    });
    const view: PublishedView = {
      frameId: null,
      frameHash: null,
      commit: null,
      at: listing.generated,
      surfaces,
      found: null,
      async read(path) {
        if (!surfaces.has(path)) return null;
        try {
          return new Uint8Array(fs.readFileSync(join(root, path)));
        } catch {
          return null;
        }
      },
    };
    this.siteIntegrity = { text, view };
    return view;
  }
}
