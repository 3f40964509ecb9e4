/**
 * Text for a terminal or a CI log. A message can quote what a third party wrote (a key of an
 * upstream document, the path of a request): its control characters would move the cursor or
 * clear the screen, and a line it starts with `::` would be read by GitHub Actions as a workflow
 * command (add-mask, stop-commands, a forged error). Such characters are written as \u escapes.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * GitHub's runner reads `##[name]` anywhere in a line of a job's log as a workflow command (its
 * older form: `##[error]`, `##[add-mask]`, `##[stop-commands]`), so text quoted from a file or
 * an upstream must never print it: the second `#` is written `\u0023`.
 */
const OLD_COMMAND = /##\[/g;
const OLD_COMMAND_ESCAPED = "#\\u0023[";

/** Every control character but the line feed written as a \u escape; no `##[`. */
export function controlsEscaped(text: string): string {
  return text.replace(UNSAFE, escaped).replace(OLD_COMMAND, OLD_COMMAND_ESCAPED);
}

/** A message on one line: every control character escaped, line breaks included; no `##[`. */
export function oneLine(text: string): string {
  return controlsEscaped(text.replace(/\n/g, "\\n"));
}

/** Lines as written, control characters escaped, none beginning with `::`, and no `##[`. */
export function printable(text: string): string {
  return controlsEscaped(text).replace(/^(\s*):(?=:)/gm, "$1\\u003a");
}

/**
 * JSON for standard output: JSON.stringify escapes C0 controls, but leaves DEL, C1 controls,
 * bidirectional overrides and line separators as they are; these are written as \u escapes too
 * (the same JSON value, since they can only stand inside strings), and so is the `#` that would
 * make `##[`.
 */
export function jsonText(value: unknown, indent?: number): string {
  // `##[` can only stand inside a string, where `\u0023` is the same `#`.
  return controlsEscaped(JSON.stringify(value, null, indent));
}
