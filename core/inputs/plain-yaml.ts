/**
 * A reader for the plain frontmatter nearly every document has: `key: value` lines whose values are
 * one-line strings (plain, 'single' or "double" quoted without escapes), `true`/`false`/`null`,
 * plain decimal numbers, lists of those (block `- item` lines or a flow `[a, b]`) or one-line flow
 * mappings of those. On anything else (other numbers, nested maps, multi-line or escaped strings,
 * anchors, tags, comments after a value, duplicate keys...)
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
      const value = rest.startsWith("[") ? flowList(rest) : rest.startsWith("{") ? flowMapping(rest) : scalar(rest);
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
/** Numbers of the core schema (decimal, octal, hexadecimal, floats, infinities, not-a-number). */
const NUMBER =
  /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/**
 * The numbers this reader reads itself: decimal, without a sign but minus, a leading zero or an
 * exponent, of at most fifteen digits on each side of the point. yaml reads them with parseInt or
 * parseFloat, which give what Number gives for such text; the other forms are left to it.
 */
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;

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
  if (DECIMAL.test(raw)) return { value: Number(raw) };
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

/**
 * A flow mapping on one line, `{ fr: Stress financier, en: "Financial stress, US" }`: keys as at
 * the start of a block line, each followed by a colon and a space, values plain or quoted scalars
 * as `scalar` takes them (a plain one without a colon, a comma, a bracket or a brace; a quoted one
 * may hold commas). Anything else (a nested list or mapping, an empty value, a trailing comma, a
 * key written twice) gives up.
 *
 * Why: the configuration and the claim reviews write their labels and locators so. The yaml
 * library reading those two small files was compiled anew by V8 at each assembly of a long-lived
 * process, about a tenth of a first frame's CPU time at real scale.
 */
function flowMapping(raw: string): { value: Record<string, unknown> } | undefined {
  if (!raw.endsWith("}")) return undefined;
  const inner = raw.slice(1, -1);
  if (spaceTrimmed(inner) === "") return { value: {} };
  const out: Record<string, unknown> = {};
  let at = 0;
  for (;;) {
    FLOW_KEY.lastIndex = at;
    const k = FLOW_KEY.exec(inner);
    if (!k) return undefined;
    const key = k[1]!;
    if (Object.hasOwn(out, key) || SPECIAL_KEYS.has(key)) return undefined;
    at = FLOW_KEY.lastIndex;
    // The value runs to its closing quote, or to the next comma for a plain one.
    const quoted = inner[at] === '"' || inner[at] === "'";
    let end: number;
    if (inner[at] === '"') end = inner.indexOf('"', at + 1) + 1;
    else if (inner[at] === "'") {
      end = at + 1;
      for (;;) {
        const close = inner.indexOf("'", end);
        if (close < 0) return undefined;
        end = close + 1;
        if (inner[end] !== "'") break;
        end++;
      }
    } else {
      const comma = inner.indexOf(",", at);
      end = comma < 0 ? inner.length : comma;
    }
    if (end <= at) return undefined;
    const text = spaceTrimmed(inner.slice(at, end));
    if (text === "" || (!quoted && /[:[\]{}]/.test(text))) return undefined;
    const value = scalar(text);
    if (value === undefined) return undefined;
    out[key] = value.value;
    // After the value: spaces, then a comma and the next key, or the end.
    FLOW_NEXT.lastIndex = end;
    const next = FLOW_NEXT.exec(inner);
    if (!next) return undefined;
    if (next[1] === undefined) return { value: out };
    at = FLOW_NEXT.lastIndex;
  }
}

/** A key of a flow mapping, after spaces, then a colon and at least one space. */
const FLOW_KEY = / *([A-Za-z_][A-Za-z0-9_-]*): +/y;
/** Spaces after a flow mapping's value, then a comma (captured) or the end of the mapping. */
const FLOW_NEXT = / *(?:(,)|$)/y;

/**
 * The value of `text` when it is plain nested YAML, or undefined (read it with yaml). It takes
 * what registries such as the glossary are made of: block mappings and block lists nested by
 * indentation, each value a scalar `readPlainYaml` takes, a flow list of those, or a plain or
 * double-quoted string that runs on over more-indented lines (folded into one line, as YAML
 * folds them). Anything else gives up: a blank or comment line inside such a string, a list at
 * its key's own indentation, escapes, block scalars (`|`, `>`), anchors, tags, flow mappings...
 *
 * Why: the yaml library reads the real-scale glossary (470 entries, 490 KB) in about 100 ms, a
 * fifteenth of a first assembly; this reads it in a fraction of that. A property test holds it
 * to the library on generated nested documents.
 */
export function readPlainYamlBlocks(text: string): unknown {
  if (!SAFE_TEXT.test(text)) return undefined;
  const lines = text.split("\n").map(lineOf);
  const reader = blockReader.start(lines);
  try {
    const first = reader.next(0);
    if (first < 0 || lines[first]!.indent !== 0) return undefined;
    const value = reader.node(first, 0);
    // Everything was read: nothing is left but blank lines and comments.
    return reader.next(reader.at) < 0 ? value : undefined;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  } finally {
    reader.start([]);
  }
}

/**
 * A line with its indentation measured. A function of the module, as byId in
 * core/surfaces/common.ts says why.
 */
function lineOf(raw: string): Line {
  const content = raw.replace(/^ +/, "");
  return { indent: raw.length - content.length, content, skip: BLANK_OR_COMMENT.test(raw) };
}

interface Line {
  indent: number;
  /** The line without its indentation. */
  content: string;
  /** A blank line or a comment line. */
  skip: boolean;
}

const GIVE_UP = Symbol("not plain nested YAML");
const MAX_DEPTH = 32;
const giveUp = (): never => {
  throw GIVE_UP;
};

class BlockReader {
  /** The index of the first line not read yet. */
  at = 0;
  private lines: Line[] = [];

  /** Makes the reader read `lines` from the first. */
  start(lines: Line[]): this {
    this.lines = lines;
    this.at = 0;
    this.depth = 0;
    return this;
  }

  /** The first line from `i` on that is neither blank nor a comment, or -1. */
  next(i: number): number {
    while (i < this.lines.length && this.lines[i]!.skip) i++;
    return i < this.lines.length ? i : -1;
  }

  /** A list or a mapping whose first line is `i`, at that line's indentation `indent`. */
  node(i: number, indent: number): unknown {
    // Registries nest a few levels; deeper documents go to the library, which reads them without
    // running out of stack and says so when they are too deep.
    if (++this.depth > MAX_DEPTH) giveUp();
    const { content } = this.lines[i]!;
    const value = content === "-" || content.startsWith("- ") ? this.list(i, indent) : this.mapping(i, indent, content);
    this.depth--;
    return value;
  }
  private depth = 0;

  private list(i: number, indent: number): unknown[] {
    const items: unknown[] = [];
    let j: number = i;
    while (j >= 0 && this.lines[j]!.indent === indent) {
      const { content } = this.lines[j]!;
      if (content !== "-" && !content.startsWith("- ")) break;
      // The item's own text starts after the dash and its spaces.
      const rest = content.slice(1).replace(/^ +/, "");
      const column = indent + content.length - rest.length;
      if (spaceTrimmed(rest) === "") items.push(this.nested(j, indent, false));
      else if (KEY_LINE.test(rest)) items.push(this.mapping(j, column, rest));
      else items.push(this.scalarFrom(j, indent, spaceTrimmed(rest)));
      j = this.next(this.at);
    }
    this.at = j < 0 ? this.lines.length : j;
    if (j >= 0 && this.lines[j]!.indent > indent) giveUp();
    return items;
  }

  /** A mapping at `column`; its first key line is `i`, whose text from that column is `first`. */
  private mapping(i: number, column: number, first: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let j: number = i;
    let content = first;
    for (;;) {
      const m = KEY_LINE.exec(content) ?? giveUp();
      const key = m[1]!;
      if (Object.hasOwn(out, key) || SPECIAL_KEYS.has(key)) giveUp();
      const rest = spaceTrimmed(m[2] ?? "");
      out[key] = rest === "" ? this.nested(j, column, true) : this.scalarFrom(j, column, rest);
      j = this.next(this.at);
      if (j < 0 || this.lines[j]!.indent < column) break;
      if (this.lines[j]!.indent > column) giveUp();
      content = this.lines[j]!.content;
      // A list item at the mapping's column ends it (the list it belongs to goes on).
      if (content === "-" || content.startsWith("- ")) break;
    }
    this.at = j < 0 ? this.lines.length : j;
    return out;
  }

  /** The value under a key or dash with nothing after it on line `i`: a more-indented block, or null. */
  private nested(i: number, parent: number, underKey: boolean): unknown {
    const j = this.next(i + 1);
    if (j < 0 || this.lines[j]!.indent <= parent) {
      // A list at the key's own indentation is YAML too, but left to the library.
      if (underKey && j >= 0 && this.lines[j]!.indent === parent && /^-( |$)/.test(this.lines[j]!.content)) giveUp();
      this.at = i + 1;
      return null;
    }
    return this.node(j, this.lines[j]!.indent);
  }

  /**
   * The scalar that starts as `rest` on line `i` and may run on over the following lines
   * indented deeper than `parent`, folded as YAML folds them: each line break one space.
   */
  private scalarFrom(i: number, parent: number, rest: string): unknown {
    const block = BLOCK_HEADER.exec(rest);
    if (block) return this.blockScalar(i, parent, block[1] === ">", block[2] === "-");
    let end = i + 1;
    while (end < this.lines.length && !this.lines[end]!.skip && this.lines[end]!.indent > parent) end++;
    // A blank or comment line inside the run, before more of it, is more than this reader takes.
    const after = this.next(end);
    if (after >= 0 && this.lines[after]!.indent > parent) giveUp();
    this.at = end;
    if (end === i + 1) {
      if (rest.startsWith("[")) return (flowList(rest) ?? giveUp()).value;
      if (rest.startsWith("{")) return (flowMapping(rest) ?? giveUp()).value;
      return (scalar(rest) ?? giveUp()).value;
    }
    const more = this.lines.slice(i + 1, end).map((l) => spaceTrimmed(l.content));
    if (rest.startsWith('"')) {
      const last = more.at(-1)!;
      if (!last.endsWith('"')) giveUp();
      // Inside the quotes, a line's own spaces count except before a break: the first line keeps its
      // leading ones, the last its trailing ones.
      const pieces = [rest.slice(1).replace(/ +$/, ""), ...more.slice(0, -1), last.slice(0, -1)];
      if (pieces.some((p) => /["\\]/.test(p))) giveUp();
      return pieces.join(" ");
    }
    // A plain string: its first line a plain string, each further line one that cannot be read as
    // anything else (no indicator first, no `: `, no ` #`).
    const head = scalar(rest);
    if (head === undefined || typeof head.value !== "string" || rest.startsWith("'")) giveUp();
    for (const line of more)
      if (/^(#|:( |$))/.test(line) || line.includes(": ") || line.endsWith(":") || line.includes(" #")) giveUp();
    return [rest, ...more].join(" ");
  }

  /**
   * A block scalar (`>` folded or `|` literal, `-` to strip the last line break) whose lines all
   * sit at one indentation deeper than `parent`, none blank, none ending in a space: folded, they
   * are one line; literal, they keep their breaks. Comments do not exist inside it: every line is
   * its text.
   */
  private blockScalar(i: number, parent: number, folded: boolean, strip: boolean): string {
    let end = i + 1;
    while (end < this.lines.length && this.lines[end]!.content !== "" && this.lines[end]!.indent > parent) end++;
    const body = this.lines.slice(i + 1, end);
    const after = this.next(end);
    if (body.length === 0 || (after >= 0 && this.lines[after]!.indent > parent)) giveUp();
    // Lines of spaces after it may belong to it (as its trailing lines): left to the library.
    if (this.lines.slice(end, after < 0 ? undefined : after).some((l) => l.indent > 0)) giveUp();
    const indent = body[0]!.indent;
    if (body.some((l) => l.indent !== indent || l.content.endsWith(" "))) giveUp();
    this.at = end;
    const text = body.map((l) => l.content).join(folded ? " " : "\n");
    return strip ? text : `${text}\n`;
  }
}

/**
 * The one reader, started again for each text (reading is synchronous, so one at a time). A new
 * reader per text made V8 forget the shape of readers whenever the last one died, and with it
 * the optimised code of every method: a long-lived process (`serve`, the benchmarks) compiled the
 * reader again at every assembly, about 100 ms of compiler time each.
 */
const blockReader = new BlockReader();

/** The header of a block scalar this reader takes: folded or literal, clipped or stripped, nothing after. */
const BLOCK_HEADER = /^([>|])(-?)$/;
