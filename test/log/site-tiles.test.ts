import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { folderSite } from "../../app/site-writer.ts";
import { allCaches } from "../../app/caches.ts";
import { openArchive } from "../../archive/index.ts";
import { SITE_MARKER, SITE_MARKER_TEXT } from "../../archive/layout.ts";
import { rootOf } from "../../core/log/merkle.ts";
import { archiveWithFrames, at, git } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

const sha = (d: Uint8Array) => new Uint8Array(createHash("sha256").update(d).digest());
const blobId = (b: Uint8Array) => createHash("sha1").update(`blob ${b.byteLength}\0`).update(b).digest("hex");
const logFiles = (dir: string) =>
  Object.fromEntries(Object.entries(treeDigest(dir)).filter(([path]) => path.startsWith("log/")));

describe("the frame log served as static tiles beside the surfaces", () => {
  it("serves black-box.json's checkpoint and the archive's tiles, whose hashes give the checkpoint's root", async () => {
    const { site, archive } = await archiveWithFrames(5);
    const box = JSON.parse(readFileSync(`${site}/api/v1/black-box.json`, "utf8"));
    const checkpoint = readFileSync(`${site}/log/checkpoint`, "utf8");
    expect(checkpoint).toBe(box.log.checkpoint);
    // The same tiles as the head frame's tree, byte for byte.
    const archived = git(archive, "ls-tree", "-r", "--name-only", "refs/heads/main", "tile").split("\n");
    const served = Object.keys(logFiles(site)).filter((p) => p !== "log/checkpoint");
    expect(served).toEqual(archived.map((p) => `log/${p}`).sort());
    for (const path of archived) {
      const blob = execFileSync("git", ["--git-dir", archive, "cat-file", "blob", `refs/heads/main:${path}`]);
      expect(readFileSync(`${site}/log/${path}`).equals(blob), path).toBe(true);
    }
    // A monitor with only the static files: the leaf hashes of tile 0 give the checkpoint's root.
    const [, size, root] = checkpoint.split("\n");
    expect(Number(size)).toBe(4);
    const tile = readFileSync(`${site}/log/tile/0/000.p/4`);
    const leaves = Array.from({ length: 4 }, (_, i) => new Uint8Array(tile.subarray(i * 32, i * 32 + 32)));
    expect(Buffer.from(rootOf(sha, leaves)).toString("base64")).toBe(root);
    // The host files give them their types; replay --out writes the same log files.
    const headers = readFileSync(`${site}/_headers`, "utf8");
    expect(headers).toContain("/log/checkpoint\n  Content-Type: text/plain; charset=utf-8");
    expect(headers).toContain(
      "/log/tile/*\n  Content-Type: application/octet-stream\n  Cache-Control: public, max-age=31536000, immutable",
    );
    const out = `${tempDir("risk-tiles-")}/replay`;
    const r = runCli(["replay", "--date", at(60), "--archive", archive, "--out", out]);
    expect(r.status, r.stderr).toBe(0);
    expect(logFiles(out)).toEqual(logFiles(site));
  });

  it("never links a tile of the live site that was edited in place: it is written again from the archive", async () => {
    const dir = tempDir("risk-tiles-");
    const siteDir = `${dir}/site`;
    mkdirSync(`${siteDir}/log/tile/0`, { recursive: true });
    writeFileSync(`${siteDir}/${SITE_MARKER}`, SITE_MARKER_TEXT);
    const good = new Uint8Array(256 * 32).fill(7);
    const other = new Uint8Array(32).fill(9);
    writeFileSync(`${siteDir}/log/tile/0/000`, good);
    writeFileSync(`${siteDir}/log/tile/0/001`, other); // a file the new log does not name: not carried over
    mkdirSync(`${dir}/archive.git`);
    const archive = openArchive(`${dir}/archive.git`);
    const blobs = new Map([
      [blobId(good), good],
      [blobId(other), other],
    ]);
    const reads: string[] = [];
    const log = {
      checkpoint: "origin\n257\nroot\n",
      tiles: [
        { path: "tile/0/000", oid: blobId(good) },
        { path: "tile/0/001.p/1", oid: blobId(other) },
      ],
      read: async (oid: string) => {
        reads.push(oid);
        return blobs.get(oid)!;
      },
    };
    const caches = allCaches(true);
    const hash = { sha256: (b: Uint8Array) => createHash("sha256").update(b).digest("hex") };
    // Unchanged: linked, not read from the archive.
    let site = folderSite(siteDir, { archive, hash: hash as never, caches });
    await site.stage([], null);
    await site.stageLog(log);
    site.swap([]);
    expect(reads).toEqual([blobId(other)]);
    expect(readFileSync(`${siteDir}/log/tile/0/000`).equals(Buffer.from(good))).toBe(true);
    // Edited in place: the archive's bytes are served again.
    writeFileSync(`${siteDir}/log/tile/0/000`, new Uint8Array(256 * 32).fill(1));
    reads.length = 0;
    site = folderSite(siteDir, { archive, hash: hash as never, caches });
    await site.stage([], null);
    await site.stageLog(log);
    site.swap([]);
    expect(reads).toContain(blobId(good));
    expect(readFileSync(`${siteDir}/log/tile/0/000`).equals(Buffer.from(good))).toBe(true);
    expect(readFileSync(`${siteDir}/log/checkpoint`, "utf8")).toBe(log.checkpoint);
    expect(Object.keys(treeDigest(`${siteDir}/log`)).sort()).toEqual(["checkpoint", "tile/0/000", "tile/0/001.p/1"]);
  });
});
