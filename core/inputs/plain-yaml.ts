/**
 * A reader for the plain frontmatter nearly every document has: `key: value` lines whose values are
 * one-line strings (plain, 'single' or "double" quoted without escapes), `true`/`false`/`null`, or
 * lists of those (block `- item` lines or a flow `[a, b]`). On anything else (numbers, nested
 * maps, multi-line or escaped strings, anchors, tags, comments after a value, duplicate keys...)
 * it gives up and returns undefined, and the yaml library reads the text as before.
 *
 * Why hand-written: the yaml library builds a full document (tokens, nodes, source ranges) for
 * each file, which made YAML about a quarter of a first assembly at real scale (450 documents:
 * 150 ms of frontmatter parsing); this reader takes about a tenth of that. What it accepts it reads
 * exactly as yaml's `parseDocument(text).toJS()` does (YAML 1.2, core schema): a property test
 * compares the two on generated frontmatter, hostile characters included.
 */

/** The value of `text`, or undefined when the text is not plain frontmatter (read it with yaml). */
export function readPlainYaml(text: string): Record<string, unknown> | undefined {
  if (!SAFE_TEXT.test(text)) return undefined;
  const lines = text.split("\n");
  const out: Record<string, unknown> = {};
  let i = 0;
  const skippable = (line: string) => BLANK_OR_COMMENT.test(line);
  while (i < lines.length) {
    const line = lines[i]!;
    i++;
    if (skippable(line)) continue;
    const m = KEY_LINE.exec(line);
    if (!m) return undefined;
    const key = m[1]!;
    if (Object.hasOwn(out, key) || SPECIAL_KEYS.has(key)) return undefined;
    const rest = spaceTrimmed(m[2] ?? "");
    if (rest !== "") {
      const value = rest.startsWith("[") ? flowList(rest) : scalar(rest);
      if (value === undefined) return undefined;
      out[key] = value.value;
      continue;
    }
    // An empty value: a block list follows on the next lines, or the value is null.
    let j = i;
    while (j < lines.length && skippable(lines[j]!)) j++;
    const first = j < lines.length ? ITEM_LINE.exec(lines[j]!) : null;
    if (!first) {
      if (j < lines.length && /^ /.test(lines[j]!)) return undefined;
      out[key] = null;
      continue;
    }
    const indent = first[1]!;
    const items: unknown[] = [];
    while (j < lines.length) {
      if (skippable(lines[j]!)) {
        j++;
        continue;
      }
      const item = ITEM_LINE.exec(lines[j]!);
      if (!item) {
        // The list ends at the next key; anything else indented is more than this reader takes.
        if (/^ /.test(lines[j]!)) return undefined;
        break;
      }
      if (item[1] !== indent) return undefined;
      const raw = spaceTrimmed(item[2] ?? "");
      if (raw === "") items.push(null);
      else {
        const value = scalar(raw);
        if (value === undefined) return undefined;
        items.push(value.value);
      }
      j++;
    }
    out[key] = items;
    i = j;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Only characters YAML takes as they are: printable, no tab, no carriage return, no byte order
 * mark, no next-line or line-separator characters, no lone surrogate.
 */
const SAFE_TEXT = /^[\n\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const BLANK_OR_COMMENT = /^ *(#.*)?$/;
/** A key at the start of a line, then a colon, then nothing or a space and the value. */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:$| (.*)$)/;
/** Words that are not plain string keys in YAML's core schema, and a key JavaScript objects treat apart. */
const SPECIAL_KEYS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "__proto__"]);
/** A block list item: its indentation, then `-`, then nothing or a space and the value. */
const ITEM_LINE = /^( *)-(?:$| (.*)$)/;

/** Characters that may not start a plain scalar (YAML's indicators), or that this reader leaves to yaml. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;
/** Plain scalars that the core schema reads as something other than a string. */
const NULLS = new Set(["~", "null", "Null", "NULL"]);
const BOOLEANS = new Map([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);
/** Numbers of the core schema (decimal, octal, hexadecimal, floats, infinities, not-a-number): left to yaml. */
const NUMBER =
  /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** Without the spaces around: YAML's only white space here (JavaScript's trim would also take a no-break space). */
const spaceTrimmed = (text: string) => text.replace(/^ +| +$/g, "");

/** One scalar written on one line (already trimmed), or undefined when it is more than plain. */
function scalar(raw: string): { value: unknown } | undefined {
  if (raw.startsWith('"')) {
    // Double quotes: without escapes only, the text between them as it is.
    if (raw.length < 2 || !raw.endsWith('"')) return undefined;
    const inner = raw.slice(1, -1);
    return /["\\]/.test(inner) ? undefined : { value: inner };
  }
  if (raw.startsWith("'")) {
    // Single quotes: '' stands for one quote; any other quote ends the scalar early.
    if (raw.length < 2 || !raw.endsWith("'")) return undefined;
    const inner = raw.slice(1, -1);
    return /'/.test(inner.replace(/''/g, "")) ? undefined : { value: inner.replace(/''/g, "'") };
  }
  if (INDICATOR.test(raw) || raw.includes(": ") || raw.endsWith(":") || raw.includes(" #")) return undefined;
  if (NULLS.has(raw)) return { value: null };
  const flag = BOOLEANS.get(raw);
  if (flag !== undefined) return { value: flag };
  if (NUMBER.test(raw)) return undefined;
  return { value: raw };
}

/** A flow list `[a, b, "c"]` of plain or quoted scalars without commas or brackets inside. */
function flowList(raw: string): { value: unknown[] } | undefined {
  if (!raw.endsWith("]")) return undefined;
  const inner = raw.slice(1, -1);
  if (spaceTrimmed(inner) === "") return { value: [] };
  if (/[[\]{}]/.test(inner)) return undefined;
  const items: unknown[] = [];
  for (const part of inner.split(",")) {
    const item = spaceTrimmed(part);
    // An empty item: a trailing comma, or two in a row; yaml's reading of those is left to it.
    if (item === "" || item.includes(":") || item.includes("#")) return undefined;
    const value = scalar(item);
    if (value === undefined) return undefined;
    items.push(value.value);
  }
  return { value: items };
}
