import { isMap, isScalar, LineCounter, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { inputError } from "../errors.ts";
import { readPlainYamlBlocks } from "./plain-yaml.ts";

/**
 * Parses YAML (or JSON, which the YAML parser also reads, for locating lines) and validates it
 * with a zod schema. A failure names the file, the 1-based line and the dotted field, and says
 * what was expected. `lineOffset` shifts lines for frontmatter that does not start a file.
 */
export function parseWithSchema<S extends z.ZodType>(
  file: string,
  text: string,
  schema: S,
  options: { json?: boolean; lineOffset?: number; keysOnce?: boolean } = {},
): z.infer<S> {
  const lineOffset = options.lineOffset ?? 0;
  if (options.json) {
    // JSON needs the YAML parser only to locate a line once something is wrong.
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw inputError(
        file,
        jsonErrorLine(text, e as Error),
        undefined,
        `invalid JSON (${(e as Error).message}); fix the syntax`,
      );
    }
    // JSON.parse keeps the last of two values of one key without a word, where the YAML reader
    // refuses the second: both are refused, so that no value the publisher wrote is dropped unseen.
    const twice = options.keysOnce === false ? null : duplicateKey(text);
    if (twice !== null)
      throw inputError(
        file,
        twice.line + lineOffset,
        twice.key,
        "the key is written twice in one object, and JSON keeps the last value silently; keep one",
      );
    const result = schema.safeParse(data, { reportInput: true });
    if (result.success) return result.data;
    // The YAML reader locates the line, at about 4 s a megabyte: a larger document (a third
    // party's, up to the collection's cap) is named by its field alone.
    return fail(file, text.length <= LOCATE_MAX_CHARS ? parse(text) : null, result.error, lineOffset);
  }
  // Plain nested YAML, read without the library; anything else, or a value the schema refuses,
  // goes through the library, which locates the problem.
  const plain = readPlainYamlBlocks(text);
  if (plain !== undefined) {
    const fast = schema.safeParse(plain, { reportInput: true });
    if (fast.success) return fast.data;
  }
  const { doc, counter } = parse(text);
  const err = doc.errors[0];
  if (err) {
    const line = counter.linePos(err.pos[0]).line + lineOffset;
    throw inputError(file, line, undefined, yamlProblem(err, text, lineOffset));
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // The yaml library refuses documents whose aliases would expand without bound (an alias bomb).
    if (e instanceof ReferenceError || /alias/i.test((e as Error).message))
      throw inputError(file, undefined, undefined, "too many YAML aliases (*name) expand here; write the values out");
    throw e;
  }
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  return fail(file, { doc, counter }, result.error, lineOffset);
}

/** The largest JSON text whose failing field is located by its line (see parseWithSchema). */
const LOCATE_MAX_CHARS = 256 * 1024;

/**
 * The line of a JSON syntax error: from the position the parser's message gives, or else from the
 * YAML reader when the text is small enough for it (see LOCATE_MAX_CHARS).
 */
function jsonErrorLine(text: string, error: Error): number | undefined {
  const at = /\bposition (\d+)/.exec(error.message);
  if (!at) {
    if (text.length > LOCATE_MAX_CHARS) return undefined;
    const { doc, counter } = parse(text);
    return doc.errors[0] ? counter.linePos(doc.errors[0].pos[0]).line : undefined;
  }
  const end = Math.min(Number(at[1]), text.length);
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * What a YAML parse error says, for a publisher: the library's first line, except where it names
 * its own limit (a stack exhausted by lists nested thousands deep), which is said as the input's.
 */
export function yamlProblem(
  error: { code: string; message: string; pos?: [number, number] },
  text?: string,
  lineOffset = 0,
): string {
  if (error.code === "RESOURCE_EXHAUSTION" || /call stack/i.test(error.message))
    return "invalid YAML: its lists or mappings are nested too deeply to be read; write the value flat";
  if (error.code === "DUPLICATE_KEY" && text !== undefined && error.pos) {
    // The key as written on its line, and the line that wrote it first at the same indentation.
    const keyOf = (l: string) => /^([ \t]*)(["']?)([^"':\n]{1,80})\2[ \t]*:/.exec(l);
    const start = text.lastIndexOf("\n", error.pos[0] - 1) + 1;
    const end = text.indexOf("\n", start);
    const m = keyOf(text.slice(start, end < 0 ? text.length : end));
    if (m) {
      const first = text
        .slice(0, start)
        .split("\n")
        .findIndex((l) => {
          const k = keyOf(l);
          return k !== null && k[1] === m[1] && k[3] === m[3];
        });
      const where = first >= 0 ? ` (first on line ${first + 1 + lineOffset})` : "";
      return `the key ${JSON.stringify(m[3]!.trim())} is written twice${where}: YAML takes a key once, and generators differ on which value wins; keep the one you mean`;
    }
  }
  return `invalid YAML: ${error.message.split("\n")[0]}`;
}

function parse(text: string): { doc: Document; counter: LineCounter } {
  const counter = new LineCounter();
  // Warnings (a complex key, an unknown tag) would go to the console: errors are what is reported.
  // Merge keys (`<<: *defaults`) are read as Jekyll's, Hugo's and Astro's YAML readers read them.
  const doc = parseDocument(text, {
    lineCounter: counter,
    uniqueKeys: true,
    merge: true,
    prettyErrors: false,
    logLevel: "error",
  });
  return { doc, counter };
}

function fail(
  file: string,
  located: { doc: Document; counter: LineCounter } | null,
  error: z.ZodError,
  lineOffset: number,
): never {
  const issue = error.issues[0]!;
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  let field = path.map(String).join(".");
  let keyForLine: string | undefined;
  if (issue.code === "unrecognized_keys") {
    keyForLine = issue.keys[0];
    field = [...path.map(String), keyForLine].filter(Boolean).join(".");
  }
  const line = located === null ? undefined : lineOf(located.doc, located.counter, path, keyForLine);
  const failure = inputError(
    file,
    line === undefined ? undefined : line + lineOffset,
    field || "(document)",
    explain(issue),
  );
  // The same problem without any quoted input, for messages that are published (upstream reasons).
  failure.data.problem = explainWithoutInput(issue);
  throw failure;
}

function explainWithoutInput(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return "an unknown key";
    case "invalid_type":
      return issue.input === undefined ? "missing" : `${issue.expected} expected`;
    case "invalid_value":
      return "not one of the allowed values";
    case "invalid_format":
      return `not in the ${issue.format} format`;
    default:
      // The schema's own messages (refinements, sizes) name the rule, never the input.
      return issue.message || issue.code.replace(/_/g, " ");
  }
}

export function explain(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown key ${issue.keys
        .slice(0, 3)
        .map((k) => quote(k))
        .join(
          ", ",
        )}${issue.keys.length > 3 ? ` and ${issue.keys.length - 3} more` : ""}; remove it or check its spelling`;
    case "invalid_type":
      return issue.input === undefined
        ? `the field is required (${issue.expected} expected)`
        : `${issue.expected} expected, got ${describe(issue.input)}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${describe(issue.input)}`;
    case "invalid_format":
      return `${issue.message}; expected format ${issue.format}, got ${describe(issue.input)}`;
    default:
      return sizeProblem(issue) ?? issue.message;
  }
}

/**
 * A size the schema gives no message of its own for, said as what to do: zod's own words
 * ("Too small: expected string to have >=1 characters") name no action.
 */
function sizeProblem(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "too_small" && issue.code !== "too_big") return undefined;
  if (!/^Too (small|big):/.test(issue.message)) return undefined;
  const what = issue.origin === "string" ? "characters" : issue.origin === "array" ? "items" : undefined;
  if (!what) return undefined;
  const size = Number(issue.code === "too_small" ? issue.minimum : issue.maximum);
  if (issue.code === "too_small" && size === 1)
    return issue.origin === "string"
      ? "the field is empty; write its text"
      : "the list is empty; give at least one item";
  return issue.code === "too_small"
    ? `at least ${size} ${what} expected; write more`
    : `at most ${size} ${what}; shorten it`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data (a !!binary value)";
  if (value instanceof Date) {
    // TOML's dates and times (smol-toml's TomlDate) say which of the four kinds they are.
    const toml = value as Date & { isTime?: () => boolean; isDate?: () => boolean; isLocal?: () => boolean };
    if (toml.isTime?.()) return "a time of day without a date";
    if (toml.isDate?.()) return "a date";
    return toml.isLocal?.() ? "a date-time without a zone" : "a date-time";
  }
  if (value instanceof Map || value instanceof Set) return "a mapping of a kind JSON cannot hold (!!omap, !!set)";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${quote(value)}`;
}

/**
 * A value quoted in a message, cut short: a message names the problem, it never reproduces an
 * input (a symlinked registry, a secret in a file) at length.
 */
export function quote(value: unknown, max = 60): string {
  const text = JSON.stringify(typeof value === "string" ? value : String(value)) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 2)}…"` : text;
}

function lineOf(
  doc: Document,
  counter: LineCounter,
  path: (string | number)[],
  key: string | undefined,
): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (!node || typeof node !== "object" || !("range" in node)) continue;
    const range = (node as { range?: [number, number, number] }).range;
    if (!range) continue;
    if (depth === path.length && key && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      if (pair && isScalar(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0]).line;
    }
    if (depth < path.length && isMap(node)) {
      const missing = path[depth];
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === missing);
      if (pair && isScalar(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0]).line;
    }
    return counter.linePos(range[0]).line;
  }
  return undefined;
}

/** Splits `---` YAML frontmatter from a Markdown body; the frontmatter starts at line 2. */
export function splitFrontmatter(file: string, text: string): { yaml: string; body: string; bodyLine: number } {
  const normalised = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!normalised.startsWith("---\n")) {
    throw inputError(file, 1, undefined, "a Markdown file must start with YAML frontmatter between two `---` lines");
  }
  const end = normalised.indexOf("\n---", 3);
  if (end < 0 || (normalised[end + 4] !== "\n" && end + 4 !== normalised.length)) {
    throw inputError(file, 1, undefined, "the frontmatter is not closed by a `---` line");
  }
  const yaml = normalised.slice(4, end + 1);
  const body = normalised.slice(end + 5);
  const bodyLine = yaml.split("\n").length + 2;
  return { yaml, body, bodyLine };
}

/**
 * The first key given twice in one object of a valid JSON text, with its line, or null.
 * Hand-written because JSON.parse keeps the last value without a word, and the yaml library,
 * which reports duplicates, takes about a hundred times as long on a large document (measured on
 * 8 MB of JSON: 5.6 s against 50 ms for this scan, and 32 ms for JSON.parse).
 */
export function duplicateKey(text: string): { key: string; line: number } | null {
  // One set of keys per open object; null for an open array.
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) line++;
    else if (c === 0x7b) {
      open.push(new Set());
      keyNext = true;
    } else if (c === 0x5b) {
      open.push(null);
      keyNext = false;
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
      keyNext = false;
    } else if (c === 0x2c) keyNext = open.at(-1) instanceof Set;
    else if (c === 0x22) {
      // A string: no raw line break can stand in one, and \" does not end it.
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      if (keyNext) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const keys = open.at(-1) as Set<string>;
        if (keys.has(key)) return { key, line };
        keys.add(key);
        keyNext = false;
      }
      i = end;
    }
  }
  return null;
}
