/**
 * The archive as a Merkle log (RFC 6962 / RFC 9162 hashing, as Certificate Transparency and
 * Go's checksum database): each frame's hash is a leaf, in frame order. A leaf hashes as
 * SHA-256(0x00 || data), an inner node as SHA-256(0x01 || left || right); the tree over n
 * leaves splits at the largest power of two below n. From any later tree head, an inclusion
 * proof shows that a frame is in the log, and a consistency proof that an earlier head's log is
 * a prefix of it: a rollback, a rewrite or a fork cannot produce one.
 *
 * Hashes are raw 32-byte arrays; the hash function comes in as a parameter so that this module
 * stays pure.
 */
export type Sha256 = (data: Uint8Array) => Uint8Array;
export type Hash = Uint8Array;

export function leafHash(sha: Sha256, data: Uint8Array): Hash {
  const buf = new Uint8Array(data.byteLength + 1);
  buf[0] = 0;
  buf.set(data, 1);
  return sha(buf);
}

export function nodeHash(sha: Sha256, left: Hash, right: Hash): Hash {
  const buf = new Uint8Array(65);
  buf[0] = 1;
  buf.set(left, 1);
  buf.set(right, 33);
  return sha(buf);
}

/** The largest power of two strictly less than n (n >= 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The roots of subtrees already computed, by their [from, to) range: a check that takes the root
 * of a tree, of a prefix of it and a proof between them shares one, so each node is hashed once.
 */
export type RootMemo = Map<number, Hash>;

/** The root over `leaves` (leaf hashes); SHA-256 of nothing for the empty tree. */
export function rootOf(sha: Sha256, leaves: readonly Hash[], from = 0, to = leaves.length, memo?: RootMemo): Hash {
  const n = to - from;
  if (n === 0) return sha(new Uint8Array(0));
  if (n === 1) return leaves[from]!;
  const key = from * 2 ** 26 + to; // ranges of up to 2^26 leaves, a thousand years of frames
  const known = memo?.get(key);
  if (known) return known;
  const k = split(n);
  const root = nodeHash(sha, rootOf(sha, leaves, from, from + k, memo), rootOf(sha, leaves, from + k, to, memo));
  memo?.set(key, root);
  return root;
}

/** The audit path of leaf `index` in the tree of `leaves` (RFC 9162, section 2.1.3.1). */
export function inclusionProof(sha: Sha256, index: number, leaves: readonly Hash[]): Hash[] {
  if (!(index >= 0 && index < leaves.length))
    throw new RangeError(`leaf ${index} is not in a tree of ${leaves.length}`);
  const path: Hash[] = [];
  const walk = (i: number, from: number, to: number) => {
    const n = to - from;
    if (n <= 1) return;
    const k = split(n);
    if (i < k) {
      walk(i, from, from + k);
      path.push(rootOf(sha, leaves, from + k, to));
    } else {
      walk(i - k, from + k, to);
      path.push(rootOf(sha, leaves, from, from + k));
    }
  };
  walk(index, 0, leaves.length);
  return path;
}

/** The consistency proof from the tree of the first `m` leaves to the tree of all (RFC 9162, 2.1.4.1). */
export function consistencyProof(sha: Sha256, m: number, leaves: readonly Hash[], memo?: RootMemo): Hash[] {
  const n = leaves.length;
  if (!(m >= 0 && m <= n)) throw new RangeError(`a tree of ${m} is not a prefix of a tree of ${n}`);
  if (m === 0 || m === n) return [];
  const proof: Hash[] = [];
  const sub = (m: number, from: number, to: number, complete: boolean) => {
    const n = to - from;
    if (m === n) {
      if (!complete) proof.push(rootOf(sha, leaves, from, to, memo));
      return;
    }
    const k = split(n);
    if (m <= k) {
      sub(m, from, from + k, complete);
      proof.push(rootOf(sha, leaves, from + k, to, memo));
    } else {
      sub(m - k, from + k, to, false);
      proof.push(rootOf(sha, leaves, from, from + k, memo));
    }
  };
  sub(m, 0, n, true);
  return proof;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);

/** Whether `proof` shows leaf `leaf` at `index` in the tree of `size` with root `root` (RFC 9162, 2.1.3.2). */
export function verifyInclusion(
  sha: Sha256,
  leaf: Hash,
  index: number,
  size: number,
  proof: readonly Hash[],
  root: Hash,
): boolean {
  if (!(index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sha, p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(sha, r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/**
 * Whether `proof` shows that the tree of `m` leaves with root `oldRoot` is a prefix of the tree of
 * `n` leaves with root `newRoot` (RFC 9162, 2.1.4.2).
 */
export function verifyConsistency(
  sha: Sha256,
  m: number,
  n: number,
  proof: readonly Hash[],
  oldRoot: Hash,
  newRoot: Hash,
): boolean {
  if (!(m >= 0 && m <= n)) return false;
  if (m === n) return proof.length === 0 && equal(oldRoot, newRoot);
  if (m === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = [...proof];
  // When m is a power of two, the old root is the first node of the path.
  if ((m & (m - 1)) === 0) path.unshift(oldRoot);
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(sha, c, fr);
      sr = nodeHash(sha, c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sha, sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, oldRoot) && equal(sr, newRoot);
}

/**
 * The right edge of a tree: the roots of its perfect subtrees, largest first (one per set bit
 * of the size). Appending a leaf and taking the root then cost O(log n), so each frame extends
 * the log from the previous frame's edge without reading the earlier frames.
 */
export function appendToEdge(sha: Sha256, edge: readonly Hash[], size: number, leaf: Hash): Hash[] {
  const out = [...edge];
  let h = leaf;
  let s = size;
  while (s % 2 === 1) {
    h = nodeHash(sha, out.pop()!, h);
    s = Math.floor(s / 2);
  }
  out.push(h);
  return out;
}

/** The root of a tree from its right edge (see appendToEdge). */
export function rootOfEdge(sha: Sha256, edge: readonly Hash[]): Hash {
  if (edge.length === 0) return sha(new Uint8Array(0));
  let h = edge[edge.length - 1]!;
  for (let i = edge.length - 2; i >= 0; i--) h = nodeHash(sha, edge[i]!, h);
  return h;
}

export const toHex = (h: Uint8Array) => Array.from(h, (b) => b.toString(16).padStart(2, "0")).join("");

export function fromHex(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new Error(`not lowercase hex: ${hex.slice(0, 20)}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
