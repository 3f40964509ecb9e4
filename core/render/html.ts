/**
 * The HTML of the pages risk-cli builds: valid HTML5, every text escaped, readable without
 * JavaScript (there is none), one stylesheet inline whose hash the Content-Security-Policy names
 * (nothing else may load but the site's own images), `lang` and `hreflang`, schema.org JSON-LD,
 * and a layout that fits a phone.
 */

/** Noncharacters (U+FFFE, U+FDD0...): HTML parsers report each as an error, and they mean nothing. */
const NONCHARACTERS = /\p{Noncharacter_Code_Point}/gu;

/** Escapes text for an HTML element's content or a quoted attribute; noncharacters are dropped. */
export function esc(value: string | number): string {
  return String(value)
    .replace(NONCHARACTERS, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * JSON for a `<script type="application/ld+json">` block: `<` escaped so no `</script>` closes it
 * early, and noncharacters escaped (the same string for a JSON reader, nothing for HTML's parser
 * to report).
 */
export function jsonLd(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(NONCHARACTERS, (c) =>
      Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""),
    );
}

export const PAGE_CSS = [
  ":root{color-scheme:light;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;line-height:1.5;color:#111;background:#fff}",
  // A long word (a label, a title, an address) breaks rather than widening the page past a phone's screen.
  "body{max-width:60rem;margin:0 auto;padding:1rem;overflow-wrap:break-word}",
  "h1{font-size:1.8rem;line-height:1.2}",
  "table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}",
  "caption{text-align:left;font-weight:bold;padding:.5rem 0}",
  "th,td{border:1px solid #999;padding:.4rem .6rem;text-align:left;vertical-align:top}",
  "pre{white-space:pre-wrap;word-break:break-all;background:#f3f3f3;padding:.75rem;border:1px solid #ccc}",
  "img{max-width:100%;height:auto}",
  "a{color:#0b4f9c}",
  "nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:1rem}",
].join("");

/** base64 of the bytes a hex string spells (the CSP's hash source is base64). */
export function hexToBase64(hex: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const bytes = hex.match(/../g)!.map((h) => Number.parseInt(h, 16));
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]!;
    out += b === undefined ? "=" : alphabet[(n >> 6) & 63]!;
    out += c === undefined ? "=" : alphabet[n & 63]!;
  }
  return out;
}

export interface PageOptions {
  lang: "fr" | "en";
  title: string;
  description: string;
  /** The page's own absolute URL. */
  canonical: string;
  /** The page in other languages, with its own. */
  alternates?: readonly { lang: "fr" | "en"; href: string }[];
  /** schema.org data about the page. */
  data: unknown;
  /** The body's HTML, already escaped where it holds text. */
  body: string;
  /** SHA-256 (hex) of PAGE_CSS, for the Content-Security-Policy. */
  cssSha256: string;
}

export function htmlPage(o: PageOptions): string {
  const csp = `default-src 'none'; img-src 'self' data:; style-src 'sha256-${hexToBase64(o.cssSha256)}'; base-uri 'none'; form-action 'none'`;
  const alternates = (o.alternates ?? [])
    .map((a) => `<link rel="alternate" hreflang="${a.lang}" href="${esc(a.href)}">`)
    .join("\n");
  return (
    "<!DOCTYPE html>\n" +
    `<html lang="${o.lang}">\n<head>\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">\n` +
    `<title>${esc(o.title)}</title>\n<meta name="description" content="${esc(o.description)}">\n` +
    `<link rel="canonical" href="${esc(o.canonical)}">\n${alternates}${alternates ? "\n" : ""}` +
    // No icon to fetch: a browser would otherwise ask for /favicon.ico, which the site does not hold.
    `<link rel="icon" href="data:,">\n` +
    `<style>${PAGE_CSS}</style>\n` +
    `<script type="application/ld+json">${jsonLd(o.data)}</script>\n` +
    `</head>\n<body>\n<main>\n${o.body}\n</main>\n</body>\n</html>\n`
  );
}
