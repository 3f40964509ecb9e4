/**
 * A reader of Git packfiles: version 2 `.idx` files (what `git clone`, `git gc` and `git repack`
 * write; version 1 too) and version 2 or 3 `.pack` files. One object is found through the index's fan-out
 * table and a binary search on its sorted SHA-1 table, then read at its offset in the pack with
 * `fs.readSync` (the pack is never read whole), inflated with node:zlib, and rebuilt from its delta
 * chain (OFS_DELTA and REF_DELTA) when it is stored as a delta.
 *
 * isomorphic-git, by contrast, loads and checks the whole pack on its first read in a process
 * (0.8 s at 35,000 frames), where a replay needs a dozen objects. The index is not read whole
 * either (PackIndex).
 *
 * Only node:fs and node:zlib are used, so the same code runs under Deno.
 */
import * as fs from "node:fs";
import { join, isAbsolute, resolve } from "node:path";
import { inflateSync } from "node:zlib";

export type ObjectType = "commit" | "tree" | "blob" | "tag";

export interface GitObject {
  type: ObjectType;
  body: Buffer;
}

/** A pack or index this reader does not understand (another version): the caller may fall back. */
export class PackUnsupportedError extends Error {
  override name = "PackUnsupportedError";
}

/** A pack or index whose bytes do not make sense (truncated, corrupt, a delta out of bounds). */
export class PackCorruptError extends Error {
  override name = "PackCorruptError";
}

const TYPES: Record<number, ObjectType> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag" };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const IDX_MAGIC = 0xff744f63; // "\377tOc"

// ---------------------------------------------------------------------------------------------
// The index

/** Bytes read at an offset: a whole Buffer (tests), or a file read piece by piece. */
export interface ByteSource {
  readonly size: number;
  /** `length` bytes at `at`; fewer only past the end. */
  read(at: number, length: number): Buffer;
  /** The same, into `target` (no allocation); returns the filled part of it. */
  readInto(target: Buffer, at: number, length: number): Buffer;
  close(): void;
}

/** Up to `length` bytes of `fd` at `at` into the start of `buf` (positioned reads until done or the end); the part filled. */
function readAt(fd: number, buf: Buffer, at: number, length: number): Buffer {
  const n = Math.max(0, length);
  let got = 0;
  while (got < n) {
    const r = fs.readSync(fd, buf, got, n - got, at + got);
    if (r === 0) break;
    got += r;
  }
  return buf.subarray(0, got);
}

function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    read: (at, length) => buf.subarray(at, at + length),
    readInto: (_target, at, length) => buf.subarray(at, at + length),
    close() {},
  };
}

/** A file opened once and read with positioned reads: an index is never read whole. */
function fileSource(path: string): ByteSource {
  const fd = fs.openSync(path, "r");
  let size: number;
  try {
    size = fs.fstatSync(fd).size;
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  let open = true;
  const readInto = (buf: Buffer, at: number, length: number): Buffer =>
    readAt(fd, buf, at, Math.min(length, size - at));
  return {
    size,
    read: (at, length) => readInto(Buffer.allocUnsafe(Math.max(0, Math.min(length, size - at))), at, length),
    readInto,
    close() {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}

/**
 * A pack index, read where a lookup needs it; nothing is parsed into per-object JS values.
 * Version 2 (what Git writes): 8 bytes of header, 256 fan-out counts, N sorted object ids, N
 * CRC-32s, N 4-byte offsets (high bit set: an index into the next table), the 8-byte offsets of
 * objects past 2 GiB, then two checksums. Version 1 (no header): the fan-out, then N entries of a
 * 4-byte offset and an object id.
 *
 * Only the header and the fan-out table are read up front (1 KiB). A lookup then reads the ids
 * that share the object's first byte (1/256 of the table) and its offset: a year of frames packs
 * 900,000 objects in a 25 MB index, which a process that wants a dozen objects must not read
 * whole (that alone made an assembly on a packed archive slower as its history grew).
 */
export class PackIndex {
  readonly count: number;
  readonly version: 1 | 2;
  private readonly fanout: Buffer;
  private readonly oids: number;
  private readonly stride: number;
  private readonly offsets: number;
  private readonly large: number;
  private readonly largeCount: number;
  private readonly src: ByteSource;
  private scratch = Buffer.alloc(0);

  constructor(
    readonly path: string,
    source: Buffer | ByteSource,
  ) {
    const src = Buffer.isBuffer(source) ? bufferSource(source) : source;
    this.src = src;
    const size = src.size;
    const truncated = () => new PackCorruptError(`pack index ${path} is truncated (${size} bytes)`);
    if (size < 1024 + 40) throw truncated();
    const head = src.read(0, 8 + 1024);
    if (head.readUInt32BE(0) === IDX_MAGIC) {
      const version = head.readUInt32BE(4);
      if (version !== 2)
        throw new PackUnsupportedError(`pack index ${path} is version ${version}; versions 1 and 2 are read`);
      this.version = 2;
      this.fanout = head.subarray(8, 8 + 1024);
      this.count = this.fanout.readUInt32BE(255 * 4);
      this.oids = 8 + 1024;
      this.stride = 20;
      this.offsets = this.oids + 24 * this.count; // past the object ids and the CRC-32s
      this.large = this.offsets + 4 * this.count;
      const rest = size - 40 - this.large;
      if (rest < 0 || rest % 8 !== 0)
        throw new PackCorruptError(`pack index ${path} has ${size} bytes, which does not fit ${this.count} objects`);
      this.largeCount = rest / 8;
    } else {
      this.version = 1;
      this.fanout = head.subarray(0, 1024);
      this.count = this.fanout.readUInt32BE(255 * 4);
      this.oids = 1024 + 4;
      this.stride = 24;
      this.offsets = 1024;
      this.large = 0;
      this.largeCount = 0;
      if (size !== 1024 + 24 * this.count + 40)
        throw new PackCorruptError(`pack index ${path} has ${size} bytes, which does not fit ${this.count} objects`);
    }
  }

  /** Opens the index file at `path` for lookups (closed by `close`). */
  static open(path: string): PackIndex {
    const src = fileSource(path);
    try {
      return new PackIndex(path, src);
    } catch (e) {
      src.close();
      throw e;
    }
  }

  /** The object's offset in the pack, or -1. `oid` is the 20-byte binary object id. */
  find(oid: Uint8Array): number {
    const first = oid[0]!;
    const lo = first === 0 ? 0 : this.fanout.readUInt32BE((first - 1) * 4);
    const hi = this.fanout.readUInt32BE(first * 4);
    if (hi > this.count || lo > hi)
      throw new PackCorruptError(`pack index ${this.path}: the fan-out table is not sorted`);
    if (lo === hi) return -1;
    // The ids sharing the first byte, in one read into a buffer kept for it; then a binary search.
    const length = (hi - lo) * this.stride;
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 2 * this.scratch.length));
    const bucket = this.src.readInto(this.scratch, this.oids + lo * this.stride, length);
    if (bucket.length !== length) throw new PackCorruptError(`pack index ${this.path} is truncated`);
    let a = 0;
    let b = hi - lo;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const at = mid * this.stride;
      const c = bucket.compare(oid, 0, 20, at, at + 20); // the entry against the target
      if (c === 0) return this.offsetAt(lo + mid);
      if (c > 0)
        b = mid; // the entry sorts after the target
      else a = mid + 1;
    }
    return -1;
  }

  /**
   * Which of `oids` (hex) this index holds. Reads each first-byte bucket that a query falls in
   * once, then binary-searches it in memory: checking the 35,040 commits of a year of frames
   * costs one pass over the index instead of 35,040 small reads.
   */
  holds(oids: readonly string[]): Set<string> {
    const byFirst = new Map<number, Buffer[]>();
    for (const hex of oids) {
      const bin = Buffer.from(hex, "hex");
      const group = byFirst.get(bin[0]!);
      if (group) group.push(bin);
      else byFirst.set(bin[0]!, [bin]);
    }
    const found = new Set<string>();
    for (const [first, group] of byFirst) {
      const lo = first === 0 ? 0 : this.fanout.readUInt32BE((first - 1) * 4);
      const hi = this.fanout.readUInt32BE(first * 4);
      if (hi > this.count || lo > hi)
        throw new PackCorruptError(`pack index ${this.path}: the fan-out table is not sorted`);
      if (lo === hi) continue;
      const length = (hi - lo) * this.stride;
      const bucket = this.src.readInto(Buffer.allocUnsafe(length), this.oids + lo * this.stride, length);
      if (bucket.length !== length) throw new PackCorruptError(`pack index ${this.path} is truncated`);
      for (const oid of group) {
        let a = 0;
        let b = hi - lo;
        while (a < b) {
          const mid = (a + b) >>> 1;
          const at = mid * this.stride;
          const c = bucket.compare(oid, 0, 20, at, at + 20);
          if (c === 0) {
            found.add(oid.toString("hex"));
            break;
          }
          if (c > 0) b = mid;
          else a = mid + 1;
        }
      }
    }
    return found;
  }

  /** The offset of the i-th object in oid order. */
  offsetAt(i: number): number {
    const small = this.src.read(this.offsets + i * (this.version === 2 ? 4 : 24), 4).readUInt32BE(0);
    if (this.version === 1 || (small & 0x80000000) === 0) return small;
    const k = small & 0x7fffffff;
    if (k >= this.largeCount)
      throw new PackCorruptError(`pack index ${this.path}: object ${i} names 64-bit offset ${k} of ${this.largeCount}`);
    const big = this.src.read(this.large + k * 8, 8);
    return big.readUInt32BE(0) * 2 ** 32 + big.readUInt32BE(4);
  }

  /** The checksum of the pack this index describes (the pack's last 20 bytes). */
  packChecksum(): Buffer {
    return this.src.read(this.src.size - 40, 20);
  }

  /** The i-th object id in sorted order, as hex. */
  oidAt(i: number): string {
    return this.src.read(this.oids + i * this.stride, 20).toString("hex");
  }

  close(): void {
    this.src.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Deltas

/** Reads a delta header's size: 7 bits a byte, least significant first. Returns [value, next]. */
function deltaSize(delta: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  let c: number;
  do {
    if (at >= delta.length) throw new PackCorruptError("delta header is truncated");
    c = delta[at++]!;
    value += (c & 0x7f) * scale;
    scale *= 128;
  } while (c & 0x80);
  return [value, at];
}

/**
 * Applies a Git delta to `base`: the base's size, the result's size, then instructions, each
 * either a copy from the base (high bit set; bits 0-3 say which offset bytes follow, bits 4-6
 * which size bytes; a size of 0 means 0x10000) or an insertion of the next 1-127 literal bytes.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Buffer {
  let [sourceSize, at] = deltaSize(delta, 0);
  if (sourceSize !== base.length)
    throw new PackCorruptError(`delta expects a base of ${sourceSize} bytes, the base has ${base.length}`);
  let targetSize: number;
  [targetSize, at] = deltaSize(delta, at);
  const out = Buffer.allocUnsafe(targetSize);
  let n = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[at++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) size += delta[at++]! << (8 * bit);
      if (size === 0) size = 0x10000;
      if (at > delta.length) throw new PackCorruptError("delta copy instruction is truncated");
      if (offset + size > base.length || n + size > targetSize)
        throw new PackCorruptError(
          `delta copies ${size} bytes at ${offset} out of a ${base.length}-byte base into a ${targetSize}-byte result`,
        );
      out.set(base.subarray(offset, offset + size), n);
      n += size;
    } else if (op !== 0) {
      if (at + op > delta.length || n + op > targetSize)
        throw new PackCorruptError("delta insertion runs past the delta or the result");
      out.set(delta.subarray(at, at + op), n);
      n += op;
      at += op;
    } else {
      throw new PackCorruptError("delta has the reserved instruction 0");
    }
  }
  if (n !== targetSize) throw new PackCorruptError(`delta produced ${n} bytes, its header says ${targetSize}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The pack

/** Resolved objects by pack and offset, least recently used first; bounded in bytes. */
class BaseCache {
  private readonly map = new Map<string, GitObject>();
  private bytes = 0;
  constructor(private readonly maxBytes: number) {}
  get(key: string): GitObject | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }
  set(key: string, obj: GitObject): void {
    if (obj.body.length > this.maxBytes / 4 || this.map.has(key)) return;
    this.map.set(key, obj);
    this.bytes += obj.body.length;
    while (this.bytes > this.maxBytes) {
      const [oldest, value] = this.map.entries().next().value!;
      this.map.delete(oldest);
      this.bytes -= value.body.length;
    }
  }
  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}

/** Delta bases shared by every pack of the process: delta chains of successive frames share them. */
const bases = new BaseCache(32 << 20);

/** What the header at an offset says: the type, the inflated size, where data starts, the base. */
interface Entry {
  type: number;
  size: number;
  dataAt: number;
  baseOffset?: number;
  baseOid?: Buffer;
}

/** One `.pack` with its `.idx`: the index is read on the first lookup, the pack opened then too. */
export class Pack {
  private idx: PackIndex | null = null;
  private fd: number | null = null;
  private end = 0; // the offset of the trailing checksum

  constructor(readonly packPath: string) {}

  get indexPath(): string {
    return this.packPath.replace(/\.pack$/, ".idx");
  }

  index(): PackIndex {
    if (!this.idx) this.idx = PackIndex.open(this.indexPath);
    return this.idx;
  }

  /**
   * The offset of `oid` (20 bytes) in this pack, or -1. The first hit opens the pack, so that a
   * pack deleted by a concurrent repack fails here (ENOENT), not mid-read; a pack that holds none
   * of the objects asked for is never opened, only its index.
   */
  find(oid: Uint8Array): number {
    const offset = this.index().find(oid);
    if (offset >= 0) this.open();
    return offset;
  }

  private open(): number {
    if (this.fd !== null) return this.fd;
    const fd = fs.openSync(this.packPath, "r");
    try {
      const size = fs.fstatSync(fd).size;
      const head = Buffer.alloc(12);
      if (size < 32 || fs.readSync(fd, head, 0, 12, 0) !== 12)
        throw new PackCorruptError(`pack ${this.packPath} is truncated`);
      if (head.toString("latin1", 0, 4) !== "PACK")
        throw new PackCorruptError(`pack ${this.packPath} does not start with PACK`);
      const version = head.readUInt32BE(4);
      if (version !== 2 && version !== 3) throw new PackUnsupportedError(`pack ${this.packPath} is version ${version}`);
      const count = head.readUInt32BE(8);
      if (count !== this.index().count)
        throw new PackCorruptError(`pack ${this.packPath} holds ${count} objects, its index ${this.index().count}`);
      // The index records the pack's trailing checksum: a pack and an index that do not belong
      // together are refused rather than read at wrong offsets.
      const trailer = Buffer.alloc(20);
      if (fs.readSync(fd, trailer, 0, 20, size - 20) !== 20 || !trailer.equals(this.index().packChecksum())) {
        throw new PackCorruptError(
          `pack ${this.packPath} does not match its index ${this.indexPath} (another checksum)`,
        );
      }
      this.end = size - 20;
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    this.fd = fd;
    return fd;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.idx?.close();
    this.idx = null;
  }

  private bytesAt(offset: number, length: number): Buffer {
    const fd = this.open();
    const n = Math.max(0, Math.min(length, this.end - offset));
    return readAt(fd, Buffer.allocUnsafe(n), offset, n);
  }

  private where(offset: number): string {
    return `pack ${this.packPath}, offset ${offset}`;
  }

  /** Reads the header at `offset`, and the start of its data into `window`. */
  private entry(offset: number, window: Buffer): Entry {
    let at = 0;
    const next = () => {
      if (at >= window.length) throw new PackCorruptError(`${this.where(offset)}: the object header is truncated`);
      return window[at++]!;
    };
    let c = next();
    const type = (c >> 4) & 7;
    let size = c & 15;
    let scale = 16;
    while (c & 0x80) {
      c = next();
      size += (c & 0x7f) * scale;
      scale *= 128;
    }
    if (type === OFS_DELTA) {
      c = next();
      let back = c & 0x7f;
      while (c & 0x80) {
        c = next();
        back = (back + 1) * 128 + (c & 0x7f);
      }
      if (back <= 0 || back > offset)
        throw new PackCorruptError(
          `${this.where(offset)}: the delta's base lies ${back} bytes before, outside the pack`,
        );
      return { type, size, dataAt: at, baseOffset: offset - back };
    }
    if (type === REF_DELTA) {
      if (at + 20 > window.length)
        throw new PackCorruptError(`${this.where(offset)}: the delta's base id is truncated`);
      const baseOid = Buffer.from(window.subarray(at, at + 20));
      return { type, size, dataAt: at + 20, baseOid };
    }
    if (!TYPES[type]) throw new PackCorruptError(`${this.where(offset)}: unknown object type ${type}`);
    return { type, size, dataAt: at };
  }

  /**
   * The header at `offset` and its inflated data (the object, or the delta). Reads a window large
   * enough for any deflate stream of that size (zlib's bound) and grows it if inflate needs more.
   */
  private raw(offset: number): { entry: Entry; data: Buffer } {
    this.open();
    if (offset < 12 || offset >= this.end) throw new PackCorruptError(`${this.where(offset)}: outside the pack`);
    let window = this.bytesAt(offset, 64);
    const entry = this.entry(offset, window);
    let length = entry.dataAt + entry.size + (entry.size >> 10) + 64;
    for (;;) {
      if (window.length < length && offset + window.length < this.end) window = this.bytesAt(offset, length);
      let data: Buffer;
      try {
        data = inflateSync(window.subarray(entry.dataAt));
      } catch (e) {
        const truncated = (e as { code?: string }).code === "Z_BUF_ERROR" && offset + window.length < this.end;
        if (truncated) {
          length = window.length * 2;
          continue;
        }
        throw new PackCorruptError(`${this.where(offset)}: cannot inflate the object (${(e as Error).message})`);
      }
      if (data.length !== entry.size)
        throw new PackCorruptError(
          `${this.where(offset)}: inflated to ${data.length} bytes, the header says ${entry.size}`,
        );
      return { entry, data };
    }
  }

  /**
   * The object at `offset`, with its delta chain resolved. `byOid` finds a REF_DELTA base that is
   * not in this pack (a thin pack completed elsewhere). Walks the chain iteratively, stopping at
   * a cached base, then applies the deltas from the base up.
   */
  objectAt(offset: number, byOid: (oid: Buffer) => GitObject | null): GitObject {
    const deltas: { offset: number; delta: Buffer }[] = [];
    let base: GitObject | undefined;
    let at = offset;
    const seen = new Set<number>();
    while (!base) {
      const cached = bases.get(`${this.packPath}\0${at}`);
      if (cached) {
        base = cached;
        break;
      }
      if (seen.has(at)) throw new PackCorruptError(`${this.where(at)}: the delta chain loops`);
      seen.add(at);
      const { entry, data } = this.raw(at);
      if (entry.type !== OFS_DELTA && entry.type !== REF_DELTA) {
        base = { type: TYPES[entry.type]!, body: data };
        if (deltas.length > 0) bases.set(`${this.packPath}\0${at}`, base);
        break;
      }
      deltas.push({ offset: at, delta: data });
      if (entry.baseOffset !== undefined) {
        at = entry.baseOffset;
        continue;
      }
      const local = this.find(entry.baseOid!);
      if (local >= 0) {
        at = local;
        continue;
      }
      const outside = byOid(entry.baseOid!);
      if (!outside)
        throw new PackCorruptError(
          `${this.where(at)}: the delta's base ${entry.baseOid!.toString("hex")} is in no pack and not loose`,
        );
      base = outside;
    }
    for (let i = deltas.length - 1; i >= 0; i--) {
      const { offset: o, delta } = deltas[i]!;
      try {
        base = { type: base.type, body: applyDelta(base.body, delta) };
      } catch (e) {
        throw new PackCorruptError(`${this.where(o)}: ${(e as Error).message}`);
      }
      // The object asked for is returned, not cached: only bases are worth keeping.
      if (i > 0) bases.set(`${this.packPath}\0${o}`, base);
    }
    return base;
  }
}

// ---------------------------------------------------------------------------------------------
// The packs of a repository

/**
 * The packs of an objects folder and of its alternates. The pack folder is listed on the first
 * lookup and again when an object is not found (a `git gc` may have packed it meanwhile).
 */
export class PackStore {
  private packs = new Map<string, Pack>();
  private listed = false;
  private readonly dirs: string[];
  private readonly lost: string[] = [];

  constructor(readonly objectsDir: string) {
    this.dirs = objectDirs(objectsDir, this.lost);
  }

  /** The objects folders searched: this one, then its alternates (read once). */
  get objectDirs(): readonly string[] {
    return this.dirs;
  }

  /** The alternates named in an `info/alternates` file that are not folders (moved, deleted). */
  get missingAlternates(): readonly string[] {
    return this.lost;
  }

  private list(): boolean {
    let changed = !this.listed;
    this.listed = true;
    for (const dir of this.dirs) {
      let names: string[];
      try {
        names = fs.readdirSync(join(dir, "pack"));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw e;
      }
      // Newest packs first: an assembly reads recent objects, which `git gc --auto` leaves in
      // its newest packs, so older indexes are seldom searched. The order changes no result.
      const fresh: [string, number][] = [];
      for (const name of names) {
        if (!name.endsWith(".pack")) continue;
        const path = join(dir, "pack", name);
        if (this.packs.has(path) || !names.includes(name.replace(/\.pack$/, ".idx"))) continue;
        let mtime: number;
        try {
          mtime = fs.statSync(path).mtimeMs;
        } catch {
          continue; // removed by a repack since the listing
        }
        fresh.push([path, mtime]);
      }
      fresh.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      for (const [path] of fresh) this.packs.set(path, new Pack(path));
      if (fresh.length) changed = true;
    }
    return changed;
  }

  private locate(oid: Buffer): { pack: Pack; offset: number } | null {
    for (const [path, pack] of this.packs) {
      let offset: number;
      try {
        offset = pack.find(oid);
      } catch (e) {
        // Removed by a `git repack -d` since the folder was listed: its objects are in a new pack.
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
        this.packs.delete(path);
        continue;
      }
      if (offset >= 0) return { pack, offset };
    }
    return null;
  }

  /** The object `oid` (40 hex digits) from a pack, or null when no pack holds it. */
  read(oid: string, loose?: (oid: string) => GitObject | null): GitObject | null {
    if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error(`"${oid}" is not a Git object id (40 lowercase hex digits)`);
    const bin = Buffer.from(oid, "hex");
    if (!this.listed) this.list();
    let hit = this.locate(bin);
    if (!hit && this.list()) hit = this.locate(bin);
    if (!hit) return null;
    const byOid = (base: Buffer): GitObject | null => {
      const hex = base.toString("hex");
      return loose?.(hex) ?? this.read(hex, loose);
    };
    return hit.pack.objectAt(hit.offset, byOid);
  }

  /** Which of `oids` (40 hex digits each) some pack holds, from the indexes alone: no object is read. */
  holding(oids: readonly string[]): Set<string> {
    this.list();
    const found = new Set<string>();
    let rest = oids;
    for (const [path, pack] of this.packs) {
      if (rest.length === 0) break;
      try {
        for (const oid of pack.index().holds(rest)) found.add(oid);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
        this.packs.delete(path);
      }
      rest = rest.filter((oid) => !found.has(oid));
    }
    return found;
  }

  /** How many packs were found (for error messages). */
  get size(): number {
    if (!this.listed) this.list();
    return this.packs.size;
  }

  close(): void {
    for (const pack of this.packs.values()) pack.close();
  }
}

/**
 * `dir` and the folders named by its `info/alternates` (recursively, as Git does, 5 deep); a named
 * folder that does not exist goes to `lost`, so that an object missing with it is blamed on it.
 */
function objectDirs(dir: string, lost: string[], depth = 0, seen = new Set<string>()): string[] {
  const self = resolve(dir);
  if (seen.has(self) || depth > 5) return [];
  seen.add(self);
  if (depth > 0 && !fs.statSync(self, { throwIfNoEntry: false })?.isDirectory()) {
    lost.push(self);
    return [];
  }
  const out = [self];
  let text: string;
  try {
    text = fs.readFileSync(join(self, "info", "alternates"), "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    const path = line.trim();
    if (!path || path.startsWith("#")) continue;
    out.push(...objectDirs(isAbsolute(path) ? path : resolve(self, path), lost, depth + 1, seen));
  }
  return out;
}

const stores = new Map<string, PackStore>();

/** The pack store of a Git directory, made once per process. */
export function packStore(gitdir: string): PackStore {
  const key = resolve(gitdir);
  let store = stores.get(key);
  if (!store) {
    store = new PackStore(join(key, "objects"));
    stores.set(key, store);
  }
  return store;
}

/** Closes every pack opened and forgets every index and cached base (tests, long-lived hosts). */
export function closePacks(): void {
  for (const store of stores.values()) store.close();
  stores.clear();
  bases.clear();
}
