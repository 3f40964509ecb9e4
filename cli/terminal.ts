/**
 * Text for a terminal or a CI log. A message can quote what a third party wrote (a key of an
 * upstream document, the path of a request): its control characters would move the cursor or
 * clear the screen, and a line it starts with `::` would be read by GitHub Actions as a workflow
 * command (add-mask, stop-commands, a forged error). Such characters are written as \u escapes.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Every control character but the line feed written as a \u escape. */
export function controlsEscaped(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** A message on one line: every control character escaped, line breaks included. */
export function oneLine(text: string): string {
  return text.replace(/\n/g, "\\n").replace(UNSAFE, escaped);
}

/** Lines as written, control characters escaped, and none beginning with `::`. */
export function printable(text: string): string {
  return text.replace(UNSAFE, escaped).replace(/^(\s*):(?=:)/gm, "$1\\u003a");
}

/**
 * JSON for standard output: JSON.stringify escapes C0 controls, but leaves DEL, C1 controls,
 * bidirectional overrides and line separators as they are; these are written as \u escapes too
 * (the same JSON value, since they can only stand inside strings).
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE, escaped);
}
