/**
 * SHA-256 (FIPS 180-4) in plain TypeScript whose running state can be written down and resumed.
 * The journal is served as one growing file: each frame records the state after the file's last
 * byte, so the next frame hashes only the line it appends instead of the whole year before it.
 * Node's and Deno's hashers cannot export their midstate, hence this one; it is checked against
 * node:crypto in the tests.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** The running state: eight words, the bytes not yet hashed (fewer than 64) and the length so far. */
export interface Sha256State {
  h: Uint32Array;
  tail: Uint8Array;
  length: number;
}

export function sha256Start(): Sha256State {
  return { h: Uint32Array.from(INITIAL), tail: new Uint8Array(0), length: 0 };
}

/** A new state after `bytes`; `state` is left as it was. */
export function sha256Update(state: Sha256State, bytes: Uint8Array): Sha256State {
  const h = Uint32Array.from(state.h);
  const w = new Uint32Array(64);
  let data = bytes;
  if (state.tail.byteLength > 0) {
    data = new Uint8Array(state.tail.byteLength + bytes.byteLength);
    data.set(state.tail, 0);
    data.set(bytes, state.tail.byteLength);
  }
  const full = data.byteLength - (data.byteLength % 64);
  for (let off = 0; off < full; off += 64) block(h, w, data, off);
  return { h, tail: data.slice(full), length: state.length + bytes.byteLength };
}

/** Lowercase hex digest of everything hashed into `state`; `state` stays usable. */
export function sha256Digest(state: Sha256State): string {
  const h = Uint32Array.from(state.h);
  const w = new Uint32Array(64);
  const n = state.tail.byteLength;
  const padded = new Uint8Array(n < 56 ? 64 : 128);
  padded.set(state.tail, 0);
  padded[n] = 0x80;
  const bits = state.length * 8;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.byteLength - 8, Math.floor(bits / 0x100000000));
  view.setUint32(padded.byteLength - 4, bits >>> 0);
  for (let off = 0; off < padded.byteLength; off += 64) block(h, w, padded, off);
  let hex = "";
  for (const word of h) hex += word.toString(16).padStart(8, "0");
  return hex;
}

/**
 * `<64 hex: the eight words>.<hex: the pending tail>.<decimal: the length in bytes>`: a string a
 * frame can carry and the next assembly (or `verify`) can resume from.
 */
export function encodeSha256State(state: Sha256State): string {
  let words = "";
  for (const word of state.h) words += word.toString(16).padStart(8, "0");
  let tail = "";
  for (const b of state.tail) tail += b.toString(16).padStart(2, "0");
  return `${words}.${tail}.${state.length}`;
}

export function decodeSha256State(text: string): Sha256State {
  const m = /^([0-9a-f]{64})\.((?:[0-9a-f]{2}){0,63})\.(\d+)$/.exec(text);
  if (!m) throw new Error(`Cannot resume SHA-256 from "${text.slice(0, 80)}": expected <64 hex>.<tail hex>.<length>`);
  const h = new Uint32Array(8);
  for (let i = 0; i < 8; i++) h[i] = parseInt(m[1]!.slice(i * 8, i * 8 + 8), 16);
  const tail = new Uint8Array(m[2]!.length / 2);
  for (let i = 0; i < tail.length; i++) tail[i] = parseInt(m[2]!.slice(i * 2, i * 2 + 2), 16);
  const length = Number(m[3]);
  if (length % 64 !== tail.length)
    throw new Error(
      `Cannot resume SHA-256: a length of ${length} leaves ${length % 64} pending bytes, not ${tail.length}`,
    );
  return { h, tail, length };
}

function block(h: Uint32Array, w: Uint32Array, data: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++) {
    const j = off + i * 4;
    w[i] = (data[j]! << 24) | (data[j + 1]! << 16) | (data[j + 2]! << 8) | data[j + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15]!;
    const b = w[i - 2]!;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = h[0]!,
    b = h[1]!,
    c = h[2]!,
    d = h[3]!,
    e = h[4]!,
    f = h[5]!,
    g = h[6]!,
    hh = h[7]!;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + S1 + ch + K[i]! + w[i]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + hh) | 0;
}
