import { RiskError } from "../errors.ts";

/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation.
 *
 * ECMAScript's own number and string serialisation is what RFC 8785 prescribes, so the work
 * left is ordering object keys by UTF-16 code units (the default `sort()` order) and refusing
 * what JSON cannot carry faithfully: NaN, ±Infinity, lone surrogates, and non-plain values.
 * Errors name the `where` (a surface path or file) and the JSON path of the field; the path is
 * only worked out once something is wrong, so the common case builds no path strings.
 */
export function canonicalJson(value: unknown, where = "value"): string {
  try {
    return JSON.stringify(sortedCopy(value));
  } catch (e) {
    if (e !== FAULT && e !== INDEX_KEYS) throw e;
  }
  const out: string[] = [];
  try {
    write(value, out);
  } catch (e) {
    if (e !== FAULT) throw e;
    locate(value, where, "$");
  }
  return out.join("");
}

/** One member of a canonical object: its key and its `"key":value` text. */
export interface CanonicalMember {
  key: string;
  text: string;
}

/**
 * The members of the object `value` as canonical text, in the code-unit order of their keys, so
 * that a caller can join them with or without one of them (`generated`) or with members added
 * (a line's `recordType`) without serialising twice. `given` holds the canonical text of values
 * serialised already, by their path of keys below `value` joined with "/"; the objects on the
 * way to them are written member by member. Null when `value` is not a plain object. A fault
 * is reported as `canonicalJson` reports it, with the path from the top.
 */
export function canonicalMembers(
  value: unknown,
  where = "value",
  given?: ReadonlyMap<string, string>,
): CanonicalMember[] | null {
  if (!isPlainObject(value)) return null;
  const ways = new Set<string>();
  for (const path of given?.keys() ?? []) {
    const keys = path.split("/");
    for (let i = 1; i < keys.length; i++) ways.add(keys.slice(0, i).join("/"));
  }
  try {
    return membersOf(value, "", given, ways);
  } catch (e) {
    if (e !== FAULT && !(e instanceof RiskError && e.code === "E_CANONICAL")) throw e;
  }
  canonicalJson(value, where);
  throw new RiskError("E_CANONICAL", `Cannot serialise ${where}: a value is not JSON`, { surface: where });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function membersOf(
  record: Record<string, unknown>,
  path: string,
  given: ReadonlyMap<string, string> | undefined,
  ways: ReadonlySet<string>,
): CanonicalMember[] {
  const out: CanonicalMember[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    if (!key.isWellFormed()) throw FAULT;
    const at = path === "" ? key : `${path}/${key}`;
    out.push({ key, text: `${JSON.stringify(key)}:${valueText(item, at, given, ways)}` });
  }
  return out;
}

function valueText(
  item: unknown,
  at: string,
  given: ReadonlyMap<string, string> | undefined,
  ways: ReadonlySet<string>,
): string {
  switch (typeof item) {
    case "string":
      if (!item.isWellFormed()) throw FAULT;
      return JSON.stringify(item);
    case "number":
      if (!Number.isFinite(item)) throw FAULT;
      return JSON.stringify(item);
    case "boolean":
      return item ? "true" : "false";
  }
  const known = given?.get(at);
  if (known !== undefined) return known;
  if (ways.has(at) && isPlainObject(item))
    return `{${membersOf(item, at, given, ways)
      .map((m) => m.text)
      .join(",")}}`;
  return canonicalJson(item);
}

const FAULT = new Error("canonical JSON fault");
const INDEX_KEYS = new Error("integer-like keys");

/**
 * The fast path: the value with every object's keys in code-unit order, which the native
 * JSON.stringify (ECMAScript serialisation, as RFC 8785 asks) then writes in that order, about
 * twice as fast as writing piece by piece. An array or object already in order is kept as it is,
 * not copied: surfaces are validated through schemas whose keys are sorted
 * (core/render/encode.ts), so nearly every object comes back in order, and only the few that are
 * not (a record's keys, say) and their parents are copied. Objects with integer-like keys may
 * not keep that order in a copy (JavaScript enumerates those keys first, numerically), nor can
 * a `__proto__` key be copied as data: both give up to the piece-by-piece writer.
 */
function sortedCopy(value: unknown): unknown {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw FAULT;
      return value;
    case "number":
      if (!Number.isFinite(value)) throw FAULT;
      return value;
    case "boolean":
      return value;
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) {
        let copy: unknown[] | null = null;
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (item === undefined) throw FAULT;
          const out = sortedCopy(item);
          if (out !== item && copy === null) copy = value.slice(0, i);
          if (copy !== null) copy.push(out);
        }
        return copy ?? value;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw FAULT;
      if (inOrder(value as Record<string, unknown>)) return keptInOrder(value as Record<string, unknown>);
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      const copy: Record<string, unknown> = {};
      let indexKeys = 0;
      let written = 0;
      for (const key of keys) {
        const item = record[key];
        if (item === undefined) continue;
        if (!key.isWellFormed()) throw FAULT;
        // An integer-like key is enumerated first: fine only if it is the first key anyway.
        if (key === "__proto__" || (isIndexKey(key) && (indexKeys++ > 0 || written > 0))) throw INDEX_KEYS;
        copy[key] = sortedCopy(item);
        written++;
      }
      return copy;
    }
    default:
      throw FAULT;
  }
}

/**
 * True when the keys of `record`, in the order JavaScript enumerates them (the order
 * JSON.stringify writes), are strictly in code-unit order, all its own, none of them `__proto__`.
 */
function inOrder(record: Record<string, unknown>): boolean {
  let previous: string | null = null;
  for (const key in record) {
    if (key === "__proto__" || (previous !== null && !(previous < key)) || !Object.hasOwn(record, key)) return false;
    previous = key;
  }
  return true;
}

/** An object whose keys are in order: itself, or a copy in the same order when a member changes. */
function keptInOrder(record: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const key in record) {
    if (!key.isWellFormed()) throw FAULT;
    const item = record[key];
    const out = item === undefined ? undefined : sortedCopy(item);
    if (out !== item && copy === null) {
      copy = {};
      for (const earlier in record) {
        if (earlier === key) break;
        if (record[earlier] !== undefined) copy[earlier] = record[earlier];
      }
    }
    if (copy !== null && out !== undefined) copy[key] = out;
  }
  return copy ?? record;
}

/** Keys that JavaScript enumerates before all others, in numeric order (array indices). */
function isIndexKey(key: string): boolean {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

function write(value: unknown, out: string[]): void {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) throw FAULT;
      out.push(JSON.stringify(value));
      return;
    case "number":
      if (!Number.isFinite(value)) throw FAULT;
      out.push(JSON.stringify(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object": {
      if (value === null) {
        out.push("null");
        return;
      }
      if (Array.isArray(value)) {
        out.push("[");
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(",");
          if (value[i] === undefined) throw FAULT;
          write(value[i], out);
        }
        out.push("]");
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw FAULT;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      out.push("{");
      let first = true;
      for (const key of keys) {
        const item = record[key];
        if (item === undefined) continue;
        if (!key.isWellFormed()) throw FAULT;
        out.push(first ? "" : ",", JSON.stringify(key), ":");
        first = false;
        write(item, out);
      }
      out.push("}");
      return;
    }
    default:
      throw FAULT;
  }
}

/** The slow walk that runs only after a fault: finds the first bad value and names it. */
function locate(value: unknown, where: string, path: string): void {
  switch (typeof value) {
    case "string":
      if (!value.isWellFormed()) fail(where, path, "a string holds a lone surrogate");
      return;
    case "number":
      if (!Number.isFinite(value)) fail(where, path, `the number ${value} is not finite`);
      return;
    case "boolean":
      return;
    case "object": {
      if (value === null) return;
      if (Array.isArray(value)) {
        value.forEach((item, i) => {
          if (item === undefined) fail(where, `${path}[${i}]`, "an array item is undefined");
          locate(item, where, `${path}[${i}]`);
        });
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        fail(where, path, `a ${proto?.constructor?.name ?? "non-plain"} object is not JSON`);
      }
      for (const key of Object.keys(value as object).sort()) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        if (!key.isWellFormed()) fail(where, `${path}.${key}`, "a key holds a lone surrogate");
        locate(item, where, `${path}.${key}`);
      }
      return;
    }
    default:
      fail(where, path, `a ${typeof value} is not JSON`);
  }
}

function fail(where: string, path: string, problem: string): never {
  throw new RiskError("E_CANONICAL", `Cannot serialise ${where} at ${path}: ${problem}`, {
    surface: where,
    field: path,
  });
}
