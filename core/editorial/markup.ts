/**
 * MDX and inline HTML reduced to the text a reader would read, before anything is published from a
 * document's body (the text corpora, the search index, the claims). MDX `import`/`export` lines and
 * block expressions go; a component keeps its text props (title, caption, alt, source, label) and
 * its children, and one that carries no text is dropped and reported; `<style>` and `<script>` go
 * whole; an `<svg>` gives only its `<title>`; an `<img>` its `alt`; any other element its content.
 * HTML comments stay: they carry the claim markers. Line breaks are kept where markup is removed,
 * so that every line number the claims engine reports is still the file's.
 *
 * Hand-written, not an MDX or HTML parser: those build a syntax tree and a JavaScript program for
 * every file (the MDX compiler alone is dozens of modules), where this needs one linear pass that
 * never fails on a file a publisher's own build accepts. Every scan is bounded: a tag's attributes
 * are read for at most MAX_TAG characters, and the search for an element's end is memoised, so a
 * flood of `<` costs no more than plain text.
 */

export interface DroppedMarkup {
  /** The line in the body (1-based; the caller adds the frontmatter's lines). */
  line: number;
  component: string;
}

/** Props whose value is text a reader sees: kept where the component stood. */
const TEXT_PROPS = ["title", "caption", "alt", "source", "label"];
/** Elements removed with all they hold. */
const REMOVED = new Set(["style", "script", "template", "noscript"]);
const MAX_TAG = 4_000;
/** C0 controls but tab, line feed and carriage return; DEL; C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attrs: Map<string, string | null>;
  end: number;
}

/** Reads the tag starting at `i` (text[i] is `<`), or null when it is not one. */
function readTag(text: string, i: number): Tag | null {
  let j = i + 1;
  const closing = text[j] === "/";
  if (closing) j++;
  const nameStart = j;
  if (!/[A-Za-z]/.test(text[j] ?? "")) return null;
  while (j < text.length && /[A-Za-z0-9.:_-]/.test(text[j]!)) j++;
  const name = text.slice(nameStart, j);
  const next = text[j];
  if (next !== ">" && next !== "/" && !/\s/.test(next ?? "")) return null;
  const attrs = new Map<string, string | null>();
  const limit = Math.min(text.length, i + MAX_TAG);
  while (j < limit) {
    while (j < limit && /\s/.test(text[j]!)) j++;
    if (text[j] === ">") return { name, closing, selfClosing: false, attrs, end: j + 1 };
    if (text[j] === "/" && text[j + 1] === ">") return { name, closing, selfClosing: true, attrs, end: j + 2 };
    if (text[j] === "{") {
      // A spread or expression attribute: {...props}.
      const close = matchBrace(text, j, limit);
      if (close < 0) return null;
      j = close + 1;
      continue;
    }
    const attrStart = j;
    while (j < limit && /[^\s=>/{}"']/.test(text[j]!)) j++;
    if (j === attrStart) return null;
    const attr = text.slice(attrStart, j);
    if (text[j] !== "=") {
      attrs.set(attr, null);
      continue;
    }
    j++;
    const quote = text[j];
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, j + 1);
      if (close < 0 || close >= limit) return null;
      attrs.set(attr, text.slice(j + 1, close));
      j = close + 1;
    } else if (quote === "{") {
      const close = matchBrace(text, j, limit);
      if (close < 0) return null;
      const expression = text.slice(j + 1, close).trim();
      // A string literal in braces is text; any other expression is code.
      const literal = /^(["'`])([^"'`]*)\1$/.exec(expression);
      attrs.set(attr, literal ? literal[2]! : null);
      j = close + 1;
    } else {
      const valueStart = j;
      while (j < limit && /[^\s>]/.test(text[j]!)) j++;
      attrs.set(attr, text.slice(valueStart, j));
    }
  }
  return null;
}

/** The index of the brace closing the one at `i`, strings skipped; -1 past `limit`. */
function matchBrace(text: string, i: number, limit: number): number {
  let depth = 0;
  for (let j = i; j < limit; j++) {
    const c = text[j];
    if (c === '"' || c === "'" || c === "`") {
      const close = text.indexOf(c, j + 1);
      if (close < 0 || close >= limit) return -1;
      j = close;
    } else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return j;
  }
  return -1;
}

const newlines = (s: string) => s.replace(/[^\n]/g, "");

/** Line numbers of positions met in increasing order, counted once through the text. */
function lineCounter(text: string) {
  let line = 1;
  let at = 0;
  return (i: number) => {
    for (let k = text.indexOf("\n", at); k >= 0 && k < i; k = text.indexOf("\n", k + 1)) line++;
    at = Math.max(at, i);
    return line;
  };
}

/** The body with its markup reduced to readable text, and what was dropped. */
export function readableBody(body: string, options: { mdx: boolean }): { text: string; dropped: DroppedMarkup[] } {
  const dropped: DroppedMarkup[] = [];
  // Control characters become spaces: same length, so that offsets and line numbers stay the file's.
  body = body.replace(CONTROL, " ");
  // Fenced code is shown as written: markup inside it is the subject of the text.
  const parts = body.split(/^( {0,3}(?:```|~~~)[^\n]*\n[\s\S]*?^ {0,3}(?:```|~~~)[ \t]*$)/m);
  let offset = 0;
  const lineOf = lineCounter(body);
  const out: string[] = [];
  for (const [k, part] of parts.entries()) {
    if (k % 2 === 1) out.push(part);
    else {
      let text = options.mdx ? withoutModuleStatements(part) : part;
      const first = lineOf(offset);
      if (text.includes("<"))
        text = reduceMarkup(text, (line, component) => dropped.push({ line: line + first - 1, component }));
      out.push(text);
    }
    offset += part.length;
  }
  return { text: out.join(""), dropped };
}

const BLANK = /^[ \t\r]*$/;

/**
 * MDX's `import`/`export` statements, blanked, and block expressions (`{...}` alone on their lines). As in MDX, a statement starts with `import` or
 * `export` and a space at the start of a line that begins a block (the document's or a part's first
 * line, or one after a blank line or a heading), never inside a paragraph, and runs to the next blank
 * line, or further while a bracket is open or the line ends with `,` or `=`.
 */
function withoutModuleStatements(text: string): string {
  const lines = text.split("\n");
  let blockStart = true;
  let inStatement = false;
  let depth = 0;
  let continues = false;
  let expression = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const blank = BLANK.test(line);
    if (!inStatement && blockStart && /^(?:import|export)(?:\s|$)/.test(line)) {
      inStatement = true;
      expression = false;
      depth = 0;
    } else if (!inStatement && /^\{/.test(line)) {
      inStatement = true;
      expression = true;
      depth = 0;
    } else if (inStatement && blank && depth <= 0 && !continues) inStatement = false;
    if (inStatement) {
      for (const c of line)
        depth += c === "{" || c === "(" || c === "[" ? 1 : c === "}" || c === ")" || c === "]" ? -1 : 0;
      if (!blank) continues = /[,=]\s*$/.test(line) || /^(?:import|export)\s*\{?\s*$/.test(line);
      lines[i] = "";
      // A block expression ends with its closing brace.
      if (expression && depth <= 0) inStatement = false;
    }
    blockStart = blank || /^ {0,3}#{1,6}(?:\s|$)/.test(line);
  }
  return lines.join("\n");
}

function reduceMarkup(text: string, drop: (line: number, component: string) => void): string {
  const out: string[] = [];
  const lineAt = lineCounter(text);
  // The next closing tag of each name after a position, memoised so that a flood of unclosed
  // elements is not searched for again and again.
  const closeMemo = new Map<string, { from: number; at: number }>();
  const closeOf = (name: string, from: number): number => {
    const known = closeMemo.get(name);
    if (known && known.from <= from && (known.at < 0 || known.at >= from)) return known.at;
    const re = new RegExp(`</${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*>`, "gi");
    re.lastIndex = from;
    const m = re.exec(text);
    const at = m ? m.index : -1;
    closeMemo.set(name, { from, at });
    return at;
  };
  let i = 0;
  let last = 0;
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    if (lt < 0) break;
    if (text.startsWith("<!--", lt)) {
      const end = text.indexOf("-->", lt + 4);
      i = end < 0 ? text.length : end + 3;
      continue;
    }
    const tag = readTag(text, lt);
    if (!tag) {
      i = lt + 1;
      continue;
    }
    out.push(text.slice(last, lt));
    const lower = tag.name.toLowerCase();
    const component = /^[A-Z]/.test(tag.name) || tag.name.includes(".");
    let resume = tag.end;
    if (!tag.closing && (REMOVED.has(lower) || lower === "svg")) {
      const close = tag.selfClosing ? -1 : closeOf(tag.name, tag.end);
      const inner = close < 0 ? "" : text.slice(tag.end, close);
      resume = close < 0 ? tag.end : text.indexOf(">", close) + 1;
      out.push(newlines(text.slice(lt, resume)));
      if (lower === "svg") {
        const titles = [...inner.matchAll(/<title[^>]*>([^<]*)<\/title\s*>/gi)]
          .map((m) => m[1]!.trim())
          .filter(Boolean);
        if (titles.length) out.push(` ${titles.join(" ")} `);
      }
    } else if (tag.closing) {
      out.push(" ");
    } else {
      const words = [...tag.attrs]
        .filter(([name, value]) => value && (TEXT_PROPS.includes(name) || (lower === "img" && name === "alt")))
        .map(([, value]) => value!.replace(/\s+/g, " ").trim())
        .filter(Boolean);
      if (component && words.length === 0 && tag.selfClosing) drop(lineAt(lt), tag.name);
      out.push(words.length ? ` ${words.join(" — ")} ` : " ");
      out.push(newlines(text.slice(lt, tag.end)));
    }
    i = last = resume;
  }
  out.push(text.slice(last));
  return out.join("");
}
