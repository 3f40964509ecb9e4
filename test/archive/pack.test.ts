import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import git from "isomorphic-git";
import * as fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runReplay } from "../../cli/commands/replay.ts";
import { runVerify } from "../../cli/commands/verify.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import {
  initRepository,
  readBlob,
  readCommit,
  readTree,
  writeBlob,
  writeCommit,
  writeTree,
} from "../../archive/git/objects.ts";
import {
  PackCorruptError,
  PackIndex,
  PackStore,
  PackUnsupportedError,
  applyDelta,
  closePacks,
  packStore,
} from "../../archive/git/pack.ts";
import { archiveWithFrames, at, git as gitCli } from "../helpers/archive.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

const FRAMES = 6;
const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: "1" };
const run = (gitdir: string, args: string[], input?: string | Buffer): Buffer =>
  execFileSync("git", ["--git-dir", gitdir, ...args], { env: ENV, input, maxBuffer: 256 << 20 });

interface Expected {
  oid: string;
  type: string;
  body: Buffer;
}

/** Every object of the repository, with the bytes `git cat-file` gives, in one `--batch` call. */
function catAll(gitdir: string): Expected[] {
  const oids = run(gitdir, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"])
    .toString("latin1")
    .trim()
    .split("\n");
  const out = run(gitdir, ["cat-file", "--batch"], `${oids.join("\n")}\n`);
  const objects: Expected[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    const [oid, type, size] = out.toString("latin1", at, eol).split(" ");
    const body = out.subarray(eol + 1, eol + 1 + Number(size));
    objects.push({ oid: oid!, type: type!, body });
    at = eol + 1 + Number(size) + 1;
  }
  return objects;
}

/** The type numbers of every entry of a pack (6 = OFS_DELTA, 7 = REF_DELTA), from its index. */
function entryTypes(packPath: string): Set<number> {
  const idx = new PackIndex(packPath.replace(/\.pack$/, ".idx"), readFileSync(packPath.replace(/\.pack$/, ".idx")));
  const pack = readFileSync(packPath);
  const types = new Set<number>();
  for (let i = 0; i < idx.count; i++) types.add((pack[idx.offsetAt(i)]! >> 4) & 7);
  return types;
}

const packsOf = (gitdir: string) =>
  readdirSync(join(gitdir, "objects", "pack"))
    .filter((n) => n.endsWith(".pack"))
    .map((n) => join(gitdir, "objects", "pack", n));
const looseCount = (gitdir: string) =>
  Number(/^count: (\d+)$/m.exec(run(gitdir, ["count-objects", "-v"]).toString())![1]);

/** Our reader gives, for every object, exactly the type and bytes `git cat-file` gives. */
function expectSameAsGit(gitdir: string): number {
  const expected = catAll(gitdir);
  const store = packStore(gitdir);
  const differing: string[] = [];
  for (const e of expected) {
    const got = store.read(e.oid);
    if (!got || got.type !== e.type || !got.body.equals(e.body)) differing.push(e.oid);
  }
  expect(differing).toEqual([]);
  return expected.length;
}

let archive: string;
let root: string;
const repos: Record<string, string> = {};

beforeAll(async () => {
  const made = await archiveWithFrames(FRAMES);
  archive = made.archive;
  root = made.dir;
  const clone = (name: string) => {
    const to = join(root, name);
    execFileSync("git", ["clone", "--quiet", "--bare", "--no-local", archive, to], { env: ENV });
    return to;
  };
  repos.clone = clone("clone.git");
  repos.aggressive = clone("aggressive.git");
  run(repos.aggressive, ["gc", "--quiet", "--aggressive", "--prune=now"]);
  repos.deep = clone("deep.git");
  run(repos.deep, ["repack", "-a", "-d", "-f", "-q", "--window=50", "--depth=50"]);
  // Without delta-base-offset, a pack names each delta's base by its object id: REF_DELTA.
  repos.refDelta = clone("ref-delta.git");
  run(repos.refDelta, [
    "-c",
    "repack.useDeltaBaseOffset=false",
    "repack",
    "-a",
    "-d",
    "-f",
    "-q",
    "--window=50",
    "--depth=50",
  ]);
  // Every object past byte 64 of the pack goes to the index's 64-bit offset table.
  repos.large = join(root, "large.git");
  execFileSync("git", ["init", "--quiet", "--bare", repos.large], { env: ENV });
  const all = run(archive, ["rev-list", "--objects", "--all"]);
  run(
    archive,
    ["pack-objects", "-q", "--delta-base-offset", "--index-version=2,64", join(repos.large, "objects", "pack", "pack")],
    all,
  );
  // Two packs: the first three frames, then the rest.
  repos.multi = join(root, "multi.git");
  execFileSync("git", ["init", "--quiet", "--bare", repos.multi], { env: ENV });
  run(
    archive,
    ["pack-objects", "-q", "--revs", "--delta-base-offset", join(repos.multi, "objects", "pack", "pack")],
    "main~3\n",
  );
  run(
    archive,
    ["pack-objects", "-q", "--revs", "--delta-base-offset", join(repos.multi, "objects", "pack", "pack")],
    "main\n^main~3\n",
  );
  for (const r of [repos.large, repos.multi])
    run(r, ["update-ref", "refs/heads/main", gitCli(archive, "rev-parse", "main")]);
});

afterAll(() => closePacks());
afterEach(() => vi.restoreAllMocks());

describe("the pack reader", () => {
  it("reads every object of a fresh packed clone exactly as git cat-file does", () => {
    expect(looseCount(repos.clone!)).toBe(0);
    expect(expectSameAsGit(repos.clone!)).toBeGreaterThan(FRAMES * 10);
  });

  it("resolves the OFS_DELTA chains of git gc --aggressive and of repack --window=50 --depth=50", () => {
    for (const r of [repos.aggressive!, repos.deep!]) {
      expect(looseCount(r)).toBe(0);
      expect(packsOf(r).some((p) => entryTypes(p).has(6))).toBe(true);
      expectSameAsGit(r);
    }
  });

  it("resolves REF_DELTA entries, whose base is named by its object id", () => {
    const [pack] = packsOf(repos.refDelta!);
    const types = entryTypes(pack!);
    expect(types.has(7)).toBe(true);
    expect(types.has(6)).toBe(false);
    expectSameAsGit(repos.refDelta!);
  });

  it("follows the index's 64-bit offset table", () => {
    const [pack] = packsOf(repos.large!);
    const idx = readFileSync(pack!.replace(/\.pack$/, ".idx"));
    const count = new PackIndex("x", idx).count;
    // Bytes beyond the fixed tables are 8-byte offsets.
    expect((idx.length - 1072 - 28 * count - 40) / 8).toBeGreaterThan(count / 2);
    expectSameAsGit(repos.large!);
  });

  it("searches every pack of the repository", () => {
    expect(packsOf(repos.multi!)).toHaveLength(2);
    expectSameAsGit(repos.multi!);
  });

  it("returns null for an object in no pack, and rejects what is not an object id", () => {
    expect(packStore(repos.clone!).read("0".repeat(40))).toBeNull();
    expect(packStore(repos.clone!).read("ff".repeat(20))).toBeNull();
    expect(() => packStore(repos.clone!).read("HEAD")).toThrow(/not a Git object id/);
  });

  it("reads a pack through a version 1 index too", () => {
    const v1 = join(root, "v1.git");
    cpSync(repos.deep!, v1, { recursive: true });
    const [pack] = packsOf(v1);
    execFileSync("git", ["index-pack", "--index-version=1", "-o", pack!.replace(/\.pack$/, ".idx"), pack!], {
      env: ENV,
      cwd: root,
    });
    expect(new PackIndex("v1", readFileSync(pack!.replace(/\.pack$/, ".idx"))).version).toBe(1);
    expectSameAsGit(v1);
  });
});

describe("reading an archive's objects (archive/git/objects.ts)", () => {
  it("gives the same commits, trees and blobs as isomorphic-git, without calling it, in a packed clone", async () => {
    const gitdir = repos.aggressive!;
    const objects = catAll(gitdir);
    const expected = {
      commits: await Promise.all(
        objects.filter((o) => o.type === "commit").map((o) => git.readCommit({ fs, gitdir, oid: o.oid })),
      ),
      trees: await Promise.all(
        objects.filter((o) => o.type === "tree").map((o) => git.readTree({ fs, gitdir, oid: o.oid })),
      ),
    };
    const spies = [
      vi.spyOn(git, "readBlob"),
      vi.spyOn(git, "readTree"),
      vi.spyOn(git, "readCommit"),
      vi.spyOn(git, "readObject"),
    ];
    for (const { oid, commit } of expected.commits) {
      const c = await readCommit(gitdir, oid);
      expect(c).toEqual({
        oid,
        tree: commit.tree,
        parents: commit.parent,
        message: commit.message,
        // risk-cli writes messages with one final newline, which isomorphic-git's normalised form keeps.
        rawMessage: commit.message,
        authorTime: commit.author.timestamp,
        committerTime: commit.committer.timestamp,
        // risk-cli writes UTC times, which isomorphic-git reads as an offset of 0.
        authorZone: commit.author.timezoneOffset === 0 ? "+0000" : "not UTC",
        committerZone: commit.committer.timezoneOffset === 0 ? "+0000" : "not UTC",
        author: `${commit.author.name} <${commit.author.email}>`,
        committer: `${commit.committer.name} <${commit.committer.email}>`,
      });
    }
    for (const { oid, tree } of expected.trees) expect(await readTree(gitdir, oid)).toEqual(tree);
    for (const o of objects.filter((x) => x.type === "blob"))
      expect(Buffer.from(await readBlob(gitdir, o.oid)).equals(o.body)).toBe(true);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it("writes commits byte for byte as isomorphic-git does (same oid), for a root and a child, with awkward messages", async () => {
    const gitdir = tempDir("risk-commit-");
    await initRepository(gitdir);
    const tree = await writeTree(gitdir, [
      { mode: "100644", path: "a", oid: await writeBlob(gitdir, new TextEncoder().encode("a")), type: "blob" },
    ]);
    let parents: string[] = [];
    for (const message of [
      "frame 000001\n\nRisk-Frame: x\n",
      "\n\r\nleading blank lines, a CR\r\nand none at the end",
      "é ü ß 漢字\n\n\n",
    ]) {
      const c = {
        tree,
        parents,
        message,
        time: 1_795_000_000,
        name: "Risk Publication",
        email: "risk-cli@example.org",
      };
      const ours = await writeCommit(gitdir, c);
      const who = { name: c.name, email: c.email, timestamp: c.time, timezoneOffset: 0 };
      const theirs = await git.writeCommit({
        fs,
        gitdir,
        dryRun: true,
        commit: { tree, parent: parents, message, author: who, committer: who },
      });
      expect(ours).toBe(theirs);
      parents = [ours];
    }
    expect(() => gitCli(gitdir, "fsck", "--strict", parents[0]!)).not.toThrow();
  });

  it("names a missing object clearly", async () => {
    const missing = "0123456789abcdef0123456789abcdef01234567";
    await expect(readBlob(repos.clone!, missing)).rejects.toMatchObject({
      code: "E_ARCHIVE",
      message: expect.stringContaining(
        `Git object ${missing} is missing: it is not a loose object, and none of the archive's 1 pack(s) holds it`,
      ),
    });
    await expect(readCommit(repos.clone!, missing)).rejects.toThrow(/is missing/);
    await expect(readTree(archive, missing)).rejects.toThrow(/none of the archive's 0 pack\(s\)/);
  });

  it("refuses an object of another type than asked", async () => {
    const commit = gitCli(repos.clone!, "rev-parse", "main");
    // Archive damage (a tree pointing a commit where a file belongs): exit 6, or 1 under verify.
    await expect(readBlob(repos.clone!, commit)).rejects.toMatchObject({
      code: "E_ARCHIVE",
      data: { damaged: true },
      message: expect.stringContaining(`${commit} is a commit where a blob belongs`),
    });
  });

  it("falls back to isomorphic-git when a pack is one the reader does not understand", async () => {
    const blob = catAll(repos.clone!).find((o) => o.type === "blob")!;
    vi.spyOn(PackStore.prototype, "read").mockImplementation(() => {
      throw new PackUnsupportedError("a pack from the future");
    });
    const spy = vi.spyOn(git, "readBlob");
    expect(Buffer.from(await readBlob(repos.clone!, blob.oid)).equals(blob.body)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("reads objects both loose and packed: an archive that was gc'ed, then assembled again, verifies", async () => {
    const { archive: arc, site } = await archiveWithFrames(3);
    run(arc, ["gc", "--quiet", "--prune=now"]);
    expect(looseCount(arc)).toBe(0);
    await runAssemble({ site, archive: arc, now: at(45), json: true });
    expect(looseCount(arc)).toBeGreaterThan(0);
    const spy = vi.spyOn(git, "readBlob");
    expect((await runVerify({ archive: arc, json: true })).frames).toBe(4);
    expect(spy).not.toHaveBeenCalled();
  });

  it("replays and verifies every packed variant of the archive", async () => {
    const asWritten = join(tempDir("risk-pack-replay-"), "out");
    await runReplay({ archive, date: at(40), out: asWritten, json: true });
    for (const gitdir of Object.values(repos)) {
      expect((await runVerify({ archive: gitdir, json: true })).frames).toBe(FRAMES);
      const out = join(tempDir("risk-pack-replay-"), "out");
      const r = await runReplay({ archive: gitdir, date: at(40), out, json: true });
      expect(r.frame.frameId).toMatch(/^000003-/);
      expect(treeDigest(out)).toEqual(treeDigest(asWritten));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-built packs: the delta format, and a delta whose base lies in another pack.

/** A delta size varint. */
const varint = (n: number) => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
};

/** A copy instruction: offset and size bytes as present, size 0x10000 written as none. */
const copy = (offset: number, size: number) => {
  let op = 0x80;
  const args: number[] = [];
  for (let i = 0; i < 4; i++) {
    const b = (offset >>> (8 * i)) & 0xff;
    if (b) {
      op |= 1 << i;
      args.push(b);
    }
  }
  const s = size === 0x10000 ? 0 : size;
  for (let i = 0; i < 3; i++) {
    const b = (s >>> (8 * i)) & 0xff;
    if (b) {
      op |= 0x10 << i;
      args.push(b);
    }
  }
  return [op, ...args];
};
const insert = (bytes: Buffer) => [bytes.length, ...bytes];
const delta = (base: Buffer, target: number, ...ops: number[][]) =>
  Buffer.from([...varint(base.length), ...varint(target), ...ops.flat()]);

describe("the delta format", () => {
  const base = Buffer.from("The quick brown fox jumps over the lazy dog");

  it("copies ranges of the base and inserts literal bytes", () => {
    const d = delta(
      base,
      23,
      copy(4, 5),
      insert(Buffer.from(" red ")),
      copy(16, 3),
      insert(Buffer.from(" leaps!")),
      copy(0, 3),
    );
    expect(applyDelta(base, d).toString()).toBe("quick red fox leaps!The");
  });

  it("reads a copy size of 0 as 0x10000 and offsets over several bytes", () => {
    const big = Buffer.alloc(0x30000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const d = delta(big, 0x10000 + 3, copy(0x10203, 0x10000), copy(0x1, 3));
    expect(applyDelta(big, d).equals(Buffer.concat([big.subarray(0x10203, 0x20203), big.subarray(1, 4)]))).toBe(true);
  });

  it("rejects a delta that copies past its base, a wrong base size, a wrong result size and the reserved instruction", () => {
    expect(() => applyDelta(base, delta(base, 10, copy(40, 10)))).toThrow(PackCorruptError);
    expect(() => applyDelta(base.subarray(1), delta(base, 3, copy(0, 3)))).toThrow(/base of 43 bytes/);
    expect(() => applyDelta(base, delta(base, 4, copy(0, 3)))).toThrow(/produced 3 bytes/);
    expect(() => applyDelta(base, delta(base, 3, [0], copy(0, 3)))).toThrow(/reserved/);
  });
});

type PackEntry =
  | { kind: "blob"; body: Buffer }
  | { kind: "ofs"; base: number; delta: Buffer }
  | { kind: "ref"; base: string; delta: Buffer };

const oidOf = (type: string, body: Buffer) =>
  createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** The type-and-size header of a pack entry. */
function entryHeader(type: number, size: number): number[] {
  const out = [(type << 4) | (size & 15)];
  size = Math.floor(size / 16);
  while (size > 0) {
    out[out.length - 1]! |= 0x80;
    out.push(size & 0x7f);
    size = Math.floor(size / 128);
  }
  return out;
}

/** A pack of `entries` (an OFS_DELTA names an earlier entry by index), and its version 2 index. */
function writePack(dir: string, entries: PackEntry[], oids: string[]): void {
  const parts: Buffer[] = [Buffer.from("PACK"), Buffer.from([0, 0, 0, 2]), Buffer.alloc(4)];
  parts[2]!.writeUInt32BE(entries.length);
  let offset = 12;
  const offsets: number[] = [];
  const crcs: number[] = [];
  for (const e of entries) {
    offsets.push(offset);
    let head: number[];
    const data = e.kind === "blob" ? e.body : e.delta;
    if (e.kind === "blob") head = entryHeader(3, data.length);
    else if (e.kind === "ref") head = [...entryHeader(7, data.length), ...Buffer.from(e.base, "hex")];
    else {
      let back = offset - offsets[e.base]!;
      const enc = [back & 0x7f];
      while ((back >>= 7)) enc.unshift(0x80 | (--back & 0x7f));
      head = [...entryHeader(6, data.length), ...enc];
    }
    const bytes = Buffer.concat([Buffer.from(head), deflateSync(data)]);
    parts.push(bytes);
    crcs.push(crc32(bytes));
    offset += bytes.length;
  }
  const body = Buffer.concat(parts);
  const checksum = createHash("sha1").update(body).digest();
  const name = checksum.toString("hex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `pack-${name}.pack`), Buffer.concat([body, checksum]));
  const order = oids
    .map((oid, i) => ({ oid, offset: offsets[i]!, crc: crcs[i]! }))
    .sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const fanout = Buffer.alloc(1024);
  for (let b = 0; b < 256; b++)
    fanout.writeUInt32BE(order.filter((o) => parseInt(o.oid.slice(0, 2), 16) <= b).length, b * 4);
  const offs = Buffer.alloc(4 * order.length);
  order.forEach((o, i) => offs.writeUInt32BE(o.offset, i * 4));
  const crcTable = Buffer.alloc(4 * order.length);
  order.forEach((o, i) => crcTable.writeUInt32BE(o.crc, i * 4));
  const idx = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...order.map((o) => Buffer.from(o.oid, "hex")),
    crcTable,
    offs,
    checksum,
  ]);
  writeFileSync(join(dir, `pack-${name}.idx`), Buffer.concat([idx, createHash("sha1").update(idx).digest()]));
}

describe("hand-built packs", () => {
  const v1 = Buffer.from("alpha beta gamma delta epsilon\n".repeat(20));
  const v2 = Buffer.concat([v1.subarray(0, 300), Buffer.from("zeta\n"), v1.subarray(300)]);
  const v3 = Buffer.concat([Buffer.from("eta\n"), v2]);
  const d12 = delta(v1, v2.length, copy(0, 300), insert(Buffer.from("zeta\n")), copy(300, v1.length - 300));
  const d23 = delta(v2, v3.length, insert(Buffer.from("eta\n")), copy(0, v2.length));
  const [o1, o2, o3] = [v1, v2, v3].map((b) => oidOf("blob", b)) as [string, string, string];

  it("resolves a REF_DELTA on an OFS_DELTA on a blob, and git agrees with the pack", () => {
    const gitdir = join(tempDir("risk-handpack-"), "repo.git");
    execFileSync("git", ["init", "--quiet", "--bare", gitdir], { env: ENV });
    const dir = join(gitdir, "objects", "pack");
    writePack(
      dir,
      [
        { kind: "blob", body: v1 },
        { kind: "ofs", base: 0, delta: d12 },
        { kind: "ref", base: o2, delta: d23 },
      ],
      [o1, o2, o3],
    );
    // git itself accepts the pack and the index (it throws otherwise).
    run(gitdir, ["verify-pack", packsOf(gitdir)[0]!.replace(/\.pack$/, ".idx")]);
    const store = packStore(gitdir);
    expect(store.read(o3)).toEqual({ type: "blob", body: v3 });
    expect(store.read(o2)).toEqual({ type: "blob", body: v2 });
    expect(store.read(o1)).toEqual({ type: "blob", body: v1 });
    expect(run(gitdir, ["cat-file", "blob", o3]).equals(v3)).toBe(true);
  });

  it("finds a REF_DELTA base in another pack, or loose", async () => {
    const gitdir = join(tempDir("risk-thinpack-"), "repo.git");
    execFileSync("git", ["init", "--quiet", "--bare", gitdir], { env: ENV });
    const dir = join(gitdir, "objects", "pack");
    writePack(dir, [{ kind: "blob", body: v1 }], [o1]);
    writePack(dir, [{ kind: "ref", base: o1, delta: d12 }], [o2]);
    // A base that is loose: written by git.
    const loose = join(gitdir, "v2");
    writeFileSync(loose, v2);
    expect(run(gitdir, ["hash-object", "-w", loose]).toString().trim()).toBe(o2);
    writePack(join(gitdir, "objects", "pack"), [{ kind: "ref", base: o2, delta: d23 }], [o3]);
    expect(Buffer.from(await readBlob(gitdir, o3)).equals(v3)).toBe(true);
    expect(packStore(gitdir).read(o2)).toEqual({ type: "blob", body: v2 });
  });

  it("reports a corrupt delta with the pack and offset", () => {
    const gitdir = join(tempDir("risk-badpack-"), "repo.git");
    execFileSync("git", ["init", "--quiet", "--bare", gitdir], { env: ENV });
    writePack(
      join(gitdir, "objects", "pack"),
      [
        { kind: "blob", body: v1 },
        { kind: "ofs", base: 0, delta: delta(v1, 10, copy(v1.length - 2, 10)) },
      ],
      [o1, o2],
    );
    expect(() => packStore(gitdir).read(o2)).toThrow(/pack .*\.pack, offset \d+: delta copies/);
  });
});

describe("a pack that does not match its index", () => {
  it("is refused, not read at wrong offsets", () => {
    const gitdir = join(tempDir("risk-mismatch-"), "repo.git");
    execFileSync("git", ["init", "--quiet", "--bare", gitdir], { env: ENV });
    const body = Buffer.from("a lone blob\n");
    writePack(join(gitdir, "objects", "pack"), [{ kind: "blob", body }], [oidOf("blob", body)]);
    const [pack] = packsOf(gitdir);
    const bytes = readFileSync(pack!);
    bytes.fill(0, bytes.length - 20);
    writeFileSync(pack!, bytes);
    expect(() => packStore(gitdir).read(oidOf("blob", body))).toThrow(/does not match its index/);
  });
});

describe("under Deno", () => {
  it("replays a packed clone as under Node", async () => {
    const ROOT = fileURLToPath(new URL("../..", import.meta.url));
    const DENO = join(ROOT, "node_modules", ".bin", "deno");
    expect(statSync(DENO).isFile()).toBe(true);
    const args = ["replay", "--archive", repos.deep!, "--date", at(40), "--json"];
    const out = execFileSync(
      DENO,
      ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", join(ROOT, "cli", "main.ts"), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, TZ: "UTC", NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" },
        encoding: "utf8",
      },
    );
    expect(JSON.parse(out)).toEqual(
      JSON.parse(JSON.stringify(await runReplay({ archive: repos.deep!, date: at(40), json: true }))),
    );
  });
});
