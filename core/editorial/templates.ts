/**
 * The template syntax a site's generator evaluates in a body before it reads the Markdown, reduced
 * to what a reader of the page sees, so that none of it reaches a published text: Hugo's shortcodes
 * (`{{< name >}}`, `{{% name %}}`), Liquid's tags and outputs (`{% tag %}`, `{{ value }}`, Jekyll and
 * Eleventy) and Nunjucks' (the same, and `{# comments #}`). risk-cli evaluates none of them:
 *
 * - a comment (`{% comment %}…{% endcomment %}`, `{# … #}`) and a capture go whole;
 * - `{% raw %}…{% endraw %}` and Hugo's escaped `{{</* name *\/>}}` are text, as the page shows them;
 * - `{% highlight lang %}…{% endhighlight %}` is fenced code;
 * - control flow and assignments (`if`, `for`, `assign`, `set`…) go, what they hold stays;
 * - a shortcode, an include or any other tag keeps the text of its `title`, `caption`, `alt`,
 *   `source` and `label` parameters, as an MDX component does; a closing shortcode goes;
 * - a link whose address holds a tag (`[x]({{< ref "y" >}})`, `[x]({% post_url y %})`) keeps its
 *   text: the address is the generator's to compute;
 * - what the generator fills in and risk-cli cannot (an output `{{ site.title }}`, an include, a
 *   shortcode without text) is left out and reported, with its line, so the publisher can write it.
 *
 * Line breaks are kept where anything is removed, so that every line number is still the file's.
 * One pass: each search for a closer either finds one (and the scan goes on after it) or fails once
 * and is not tried again, so a flood of openers is read in linear time.
 */

export type TemplateSyntax = "hugo" | "liquid" | "nunjucks";

export interface DroppedTemplate {
  /** The line in the text given (1-based). */
  line: number;
  /** The tag as written, cut short. */
  tag: string;
}

/** Parameters whose value is text a reader sees. */
const TEXT_PARAMS = new Set(["title", "caption", "alt", "source", "label"]);
/** Liquid and Nunjucks tags that output nothing themselves: what they hold stays, silently. */
const CONTROL = new Set([
  "if",
  "elsif",
  "elif",
  "else",
  "endif",
  "unless",
  "endunless",
  "case",
  "when",
  "endcase",
  "for",
  "endfor",
  "break",
  "continue",
  "assign",
  "set",
  "endset",
  "increment",
  "decrement",
  "tablerow",
  "endtablerow",
  "cycle",
  "with",
  "endwith",
  "block",
  "endblock",
  "extends",
  "import",
  "from",
  "filter",
  "endfilter",
  "layout",
  "liquid",
]);
/** Tags whose content is never output. */
const DROPPED_BLOCKS: Record<string, string> = { comment: "endcomment", capture: "endcapture", macro: "endmacro" };
/** Hugo shortcodes that give an address (inside a link, the link keeps its text; elsewhere, gone). */
const ADDRESS_SHORTCODES = new Set(["ref", "relref"]);
/** A placeholder for a removed tag, so that a link whose address held one is known: never in a body (a control character, turned into a space before this runs). */
const MARK = "\u0000";

const newlines = (s: string) => s.replace(/[^\n]/g, "");
const shown = (tag: string) => {
  const one = tag.replace(/\s+/g, " ");
  return one.length > 60 ? `${one.slice(0, 59)}…` : one;
};

/** The text of a tag's `title="…"`-like parameters, in order. */
function textParams(inner: string): string[] {
  const out: string[] = [];
  for (const m of inner.matchAll(/([A-Za-z_][\w-]*)\s*[:=]\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)/g)) {
    if (!TEXT_PARAMS.has(m[1]!.toLowerCase())) continue;
    const value = (m[2] ?? m[3] ?? m[4] ?? "").replace(/\s+/g, " ").trim();
    if (value) out.push(value);
  }
  return out;
}

/** The body with the generator's template syntax reduced to what a reader sees, and what was left out. */
export function withoutTemplates(text: string, syntax: TemplateSyntax): { text: string; dropped: DroppedTemplate[] } {
  const dropped: DroppedTemplate[] = [];
  const opener = syntax === "hugo" ? /\{\{[<%]/g : syntax === "nunjucks" ? /\{[{%#]/g : /\{[{%]/g;
  if (!opener.test(text)) return { text, dropped };
  // Where the last search for each closer failed: no closer of that kind lies after it.
  const none = new Map<string, number>();
  const find = (closer: string, from: number) => {
    const failed = none.get(closer);
    if (failed !== undefined && from >= failed) return -1;
    const at = text.indexOf(closer, from);
    if (at < 0) none.set(closer, from);
    return at;
  };
  let line = 1;
  let counted = 0;
  const lineAt = (i: number) => {
    for (let k = text.indexOf("\n", counted); k >= 0 && k < i; k = text.indexOf("\n", k + 1)) line++;
    counted = Math.max(counted, i);
    return line;
  };
  const out: string[] = [];
  let last = 0;
  let marked = false;
  // A removed tag: its text params if any, else a mark (so a link holding it is found), its line breaks kept.
  const replace = (at: number, end: number, words: string[], report: boolean) => {
    out.push(text.slice(last, at), words.length ? ` ${words.join(" — ")} ` : MARK, newlines(text.slice(at, end)));
    if (!words.length) marked = true;
    if (report && !words.length) dropped.push({ line: lineAt(at), tag: shown(text.slice(at, end)) });
    last = end;
  };
  // Openers without text, by shortcode name, until a closing shortcode shows they held content.
  const pending = new Map<string, DroppedTemplate[]>();
  opener.lastIndex = 0;
  let i = 0;
  while (i < text.length) {
    opener.lastIndex = i;
    const m = opener.exec(text);
    if (!m) break;
    const at = m.index;
    const kind = m[0];
    if (syntax === "hugo") {
      // {{< name >}} or {{% name %}}.
      const delim = kind[2] === "<" ? ">" : "%";
      const escaped = text.startsWith("/*", at + 3);
      const closer = escaped ? `*/${delim}}}` : `${delim}}}`;
      const end = find(closer, at + 3);
      if (end < 0) {
        i = at + 3;
        continue;
      }
      const stop = end + closer.length;
      if (escaped) {
        // An escaped shortcode shows as the shortcode written.
        out.push(text.slice(last, at), kind, text.slice(at + 5, end), `${delim}}}`);
        last = i = stop;
        continue;
      }
      const inner = text.slice(at + 3, end).trim();
      const name = /^\/?\s*([\w./-]*)/.exec(inner)?.[1] ?? "";
      if (inner.startsWith("/")) {
        pending.delete(name);
        replace(at, stop, [], false);
        i = stop;
        continue;
      }
      const words = textParams(inner);
      replace(at, stop, words, false);
      if (!words.length && !ADDRESS_SHORTCODES.has(name)) {
        const d = { line: lineAt(at), tag: shown(text.slice(at, stop)) };
        const list = pending.get(name);
        if (list) list.push(d);
        else pending.set(name, [d]);
      }
      i = stop;
      continue;
    }
    if (kind === "{#") {
      const end = find("#}", at + 2);
      if (end < 0) {
        i = at + 2;
        continue;
      }
      replace(at, end + 2, [], false);
      i = end + 2;
      continue;
    }
    const closer = kind === "{{" ? "}}" : "%}";
    const end = find(closer, at + 2);
    if (end < 0) {
      i = at + 2;
      continue;
    }
    const stop = end + 2;
    const inner = text
      .slice(at + 2, end)
      .replace(/^-|-$/g, "")
      .trim();
    if (kind === "{{") {
      replace(at, stop, [], true);
      i = stop;
      continue;
    }
    const name = (/^[\w-]+/.exec(inner)?.[0] ?? "").toLowerCase();
    const endOf = (endName: string) => {
      const failed = none.get(endName);
      if (failed !== undefined && stop >= failed) return null;
      const re = new RegExp(`\\{%-?\\s*${endName}\\s*-?%\\}`, "g");
      re.lastIndex = stop;
      const found = re.exec(text);
      if (!found) none.set(endName, stop);
      return found ? { at: found.index, stop: found.index + found[0].length } : null;
    };
    if (name === "raw") {
      const close = endOf("endraw");
      if (close) {
        out.push(text.slice(last, at), newlines(text.slice(at, stop)), text.slice(stop, close.at));
        out.push(newlines(text.slice(close.at, close.stop)));
        last = i = close.stop;
        continue;
      }
    }
    if (name in DROPPED_BLOCKS) {
      const close = endOf(DROPPED_BLOCKS[name]!);
      // Never closed, the block holds the rest of the body, as Liquid reads it.
      const until = close ? close.stop : text.length;
      replace(at, until, [], false);
      i = until;
      continue;
    }
    if (name === "highlight" || name === "endhighlight") {
      // Fenced code when the tag stands on its own line, as Jekyll's highlight block is written.
      const lineStart = text.lastIndexOf("\n", at - 1) + 1;
      const lineEnd = text.indexOf("\n", stop);
      const alone =
        /^[ \t]*$/.test(text.slice(lineStart, at)) &&
        /^[ \t\r]*$/.test(text.slice(stop, lineEnd < 0 ? text.length : lineEnd));
      if (alone) {
        const lang = name === "highlight" ? (/^highlight\s+([\w+-]+)/.exec(inner)?.[1] ?? "") : "";
        out.push(text.slice(last, at), `\`\`\`${lang}`);
        last = i = stop;
        continue;
      }
      replace(at, stop, [], false);
      i = stop;
      continue;
    }
    if (CONTROL.has(name) || name.startsWith("end")) {
      replace(at, stop, [], false);
      i = stop;
      continue;
    }
    // An include, a plugin's tag, a shortcode: only its text parameters are known.
    replace(at, stop, textParams(inner), name !== "post_url" && name !== "link");
    i = stop;
  }
  for (const list of pending.values()) dropped.push(...list);
  out.push(text.slice(last));
  let result = out.join("");
  if (marked) {
    // A link whose address held a tag keeps its text; every other mark goes.
    result = result
      .replace(/!?\[([^[\]\n]{0,2000})\]\(([^()\n]{0,2000})\)/g, (whole, label: string, address: string) =>
        address.includes(MARK) ? label : whole,
      )
      .replaceAll(MARK, "");
  }
  dropped.sort((a, b) => a.line - b.line);
  return { text: result, dropped };
}
