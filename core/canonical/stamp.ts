import { RiskError } from "../errors.ts";

/**
 * The archive stores a stamped JSON surface without its top-level `generated` (the one value
 * that changes on every assembly), so that an unchanged surface adds no new blob. An assembly
 * serialises both forms from the same members (core/render/encode.ts `serialiseDocument`); the
 * way back, from the stored bytes to the served ones, works on canonical text with a small
 * scanner, so it never re-serialises the document.
 */

const KEY = "generated";

/** Inserts `"generated":"<at>"` at its canonical (sorted) place among the top-level members. */
export function stamp(stored: string, at: string): string {
  const member = `${JSON.stringify(KEY)}:${JSON.stringify(at)}`;
  const members = topLevelMembers(textView(stored));
  if (members.some((m) => m.key === KEY))
    throw new RiskError("E_ARCHIVE", "Cannot stamp: generated is already present");
  const next = members.find((m) => m.key > KEY);
  if (members.length === 0) return `{${member}}`;
  if (next) return `${stored.slice(0, next.start)}${member},${stored.slice(next.start)}`;
  const last = members[members.length - 1]!;
  return `${stored.slice(0, last.end)},${member}${stored.slice(last.end)}`;
}

/**
 * Where `stamp` splices the member into stored bytes: the byte offset and the comma that goes
 * before or after it (or a document with no member at all). It depends on the stored bytes only,
 * so a check that meets the same blob at many frames scans it once (see `stampParts`).
 */
export type StampPlan = { cut: number; lead: boolean } | null;

export function stampPlan(stored: Uint8Array): StampPlan {
  const members = topLevelMembers(bytesView(stored));
  if (members.some((m) => m.key === KEY))
    throw new RiskError("E_ARCHIVE", "Cannot stamp: generated is already present");
  if (members.length === 0) return null;
  const next = members.find((m) => m.key > KEY);
  return next ? { cut: next.start, lead: false } : { cut: members[members.length - 1]!.end, lead: true };
}

/**
 * `stamp` on bytes, as the pieces to hash in order (views of `stored`, nothing copied): a check of
 * served fingerprints hashes them without decoding, splicing or encoding the document. `plan` is
 * `stampPlan(stored)`, when the caller kept it.
 */
export function stampParts(stored: Uint8Array, at: string, plan: StampPlan = stampPlan(stored)): Uint8Array[] {
  const member = `${JSON.stringify(KEY)}:${JSON.stringify(at)}`;
  if (plan === null) return [utf8.encode(`{${member}}`)];
  return [
    stored.subarray(0, plan.cut),
    utf8.encode(plan.lead ? `,${member}` : `${member},`),
    stored.subarray(plan.cut),
  ];
}

/**
 * Moves a served document from one assembly instant to another: one scan, one splice. The
 * caller has checked `served` against its fingerprint, so the member is known to be there.
 */
export function restamp(served: Uint8Array, from: string, to: string): Uint8Array {
  const m = topLevelMembers(bytesView(served)).find((x) => x.key === KEY);
  const value = utf8.encode(JSON.stringify(to));
  if (!m || latin1(served, m.valueStart, m.end) !== JSON.stringify(from)) {
    throw new RiskError("E_ARCHIVE", `Cannot restamp: generated is not ${from}`);
  }
  const out = new Uint8Array(served.byteLength - (m.end - m.valueStart) + value.byteLength);
  out.set(served.subarray(0, m.valueStart), 0);
  out.set(value, m.valueStart);
  out.set(served.subarray(m.end), m.valueStart + value.byteLength);
  return out;
}

const utf8 = new TextEncoder();

/**
 * UTF-8 bytes can be scanned like the text: the bytes of a multi-byte character are all >= 0x80,
 * so they never look like a quote, a backslash or a bracket.
 */
function bytesView(bytes: Uint8Array): Scannable {
  return {
    length: bytes.byteLength,
    code: (i) => bytes[i]!,
    nextQuote: (from) => bytes.indexOf(34, from),
    slice: (a, b) => new TextDecoder().decode(bytes.subarray(a, b)),
  };
}

function textView(text: string): Scannable {
  return {
    length: text.length,
    code: (i) => text.charCodeAt(i),
    nextQuote: (from) => text.indexOf('"', from),
    slice: (a, b) => text.slice(a, b),
  };
}

function latin1(bytes: Uint8Array, a: number, b: number): string {
  return String.fromCharCode(...bytes.subarray(a, b));
}

interface Scannable {
  length: number;
  code(i: number): number;
  /** Index of the next `"` at or after `from`, or -1 (native search: strings are skipped fast). */
  nextQuote(from: number): number;
  slice(a: number, b: number): string;
}

interface Member {
  key: string;
  start: number;
  valueStart: number;
  end: number;
}

/**
 * Offsets of the members of the top-level object of compact (canonical) JSON text; with
 * `through`, the scan stops at the first member whose key sorts after it.
 */
function topLevelMembers(text: Scannable, through?: string): Member[] {
  if (text.code(0) !== 123) throw new RiskError("E_ARCHIVE", "Cannot stamp: the document is not a JSON object");
  const members: Member[] = [];
  let depth = 0;
  let i = 0;
  let current: Member | null = null;
  const n = text.length;
  while (i < n) {
    const c = text.code(i);
    if (c === 34 /* " */) {
      const start = i;
      let end = text.nextQuote(i + 1);
      // A quote preceded by an odd number of backslashes is escaped: keep looking.
      while (end > 0) {
        let slashes = 0;
        while (text.code(end - 1 - slashes) === 92 /* \ */) slashes++;
        if (slashes % 2 === 0) break;
        end = text.nextQuote(end + 1);
      }
      if (end < 0) throw new RiskError("E_ARCHIVE", "Cannot stamp: an unterminated string");
      i = end + 1;
      if (depth === 1 && current === null) {
        current = { key: JSON.parse(text.slice(start, i)) as string, start, valueStart: i + 1, end: -1 };
        if (through !== undefined && current.key > through) {
          members.push(current);
          return members;
        }
      }
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0 && current) {
        current.end = i;
        members.push(current);
        current = null;
      }
    } else if (c === 44 /* , */ && depth === 1 && current) {
      current.end = i;
      members.push(current);
      current = null;
    }
    i++;
  }
  return members;
}
