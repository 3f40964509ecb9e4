/**
 * Footnotes as Goldmark and kramdown write them (`text[^label]`, and `[^label]: note` at the start
 * of a line) turned into plain words for the text corpora: a call becomes "(note 1)" and its
 * definition "Note 1 : …", numbered in the order of the first calls as those renderers number them
 * (notes never called come after). No `[^label]` markup is left outside code fences; a call to a
 * note that is not defined is dropped.
 */

// A label holds no bracket or space, so that no match reads past the next bracket (linear time).
const _CALL = /\[\^([^\][\s]+)\](?!\()/g;
const _DEFINITION = /^( {0,3})\[\^([^\][\s]+)\]:[ \t]*/;
const _FENCE = /^ {0,3}(```|~~~)/;

export function footnotesAsText(markdown: string, lang: "fr" | "en"): string {
  if (!markdown.includes("[^")) return markdown;
  const lines = markdown.split("\n");
  const prose: number[] = [];
  let fence = false;
  lines.forEach((line, i) => {
    if (_FENCE.test(line)) fence = !fence;
    else if (!fence) prose.push(i);
  });
  const definitions: string[] = [];
  const calls: string[] = [];
  for (const i of prose) {
    const d = _DEFINITION.exec(lines[i]!);
    if (d) definitions.push(d[2].toLowerCase());
    for (const m of (d ? lines[i]!.slice(d[0].length) : lines[i]!).matchAll(_CALL)) calls.push(m[1].toLowerCase());
  }
  const defined = new Set(definitions);
  const numbers = new Map<string, number>();
  for (const label of [...calls, ...definitions])
    if (defined.has(label) && !numbers.has(label)) numbers.set(label, numbers.size + 1);
  const colon = lang === "fr" ? " :" : ":";
  for (const i of prose) {
    const line = lines[i]!;
    const d = _DEFINITION.exec(line);
    const rest = (d ? line.slice(d[0].length) : line).replace(_CALL, (_, label: string, at: number, text: string) => {
      const n = numbers.get(label.toLowerCase());
      if (n === undefined) return "";
      return at > 0 && /\s/.test(text[at - 1]!) ? `(note ${n})` : ` (note ${n})`;
    });
    lines[i] = d ? `${d[1]}Note ${numbers.get(d[2].toLowerCase())}${colon} ${rest}` : rest;
  }
  return lines.join("\n");
}
