/**
 * Keeping the archive token out of messages. A remote can echo a request back (an HTML page, a
 * pkt-line ERR) with the token in it, whole, in base64 as HTTP basic authentication sent it, or
 * cut; GitHub's log masking hides only the whole token, so every trace is removed here.
 */
import { Buffer } from "node:buffer";

/** The user name risk-cli sends with the token in HTTP basic authentication. */
export const TOKEN_USER = "x-access-token";

/** Runs of this many characters of a secret's forms are removed wherever they stand. */
const RUN = 8;

/**
 * The text with every run of 8 or more characters (the whole secret when it is shorter) taken
 * from the secret or from its base64 forms (`x-access-token:secret` as sent, and the secret at
 * each of base64's three alignments) replaced by `***`: the secret, a long prefix of it, or its
 * encoding cut short never show.
 */
export function withoutSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  const runs = new Map<number, Set<string>>();
  for (const form of secretForms(secret)) {
    const size = Math.min(RUN, form.length);
    let set = runs.get(size);
    if (!set) runs.set(size, (set = new Set()));
    for (let i = 0; i + size <= form.length; i++) set.add(form.slice(i, i + size));
  }
  const hidden = new Uint8Array(text.length);
  for (const [size, set] of runs)
    for (let i = 0; i + size <= text.length; i++) if (set.has(text.slice(i, i + size))) hidden.fill(1, i, i + size);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (!hidden[i]) out += text[i];
    else if (i === 0 || !hidden[i - 1]) out += "***";
  }
  return out;
}

/** The secret as it may travel: itself, and base64 of it behind 0, 1 or 2 bytes and behind the user name. */
function secretForms(secret: string): string[] {
  const base64 = (prefix: string) => {
    const encoded = Buffer.from(`${prefix}${secret}`).toString("base64").replace(/=+$/, "");
    // What the prefix alone determines (whole groups of three bytes) is no secret.
    return encoded.slice(Math.floor(Buffer.byteLength(prefix) / 3) * 4);
  };
  return [secret, base64(""), base64("x"), base64("xx"), base64(`${TOKEN_USER}:`)];
}
