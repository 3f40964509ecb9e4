/**
 * A number as a reader of the text's language writes it: in French a decimal comma and a narrow
 * no-break space between groups of three digits ("52,5", "1 000"), as Intl's fr-FR does; in
 * English the number as JSON has it ("52.5"). Both write the shortest form of the value, so
 * 50 is "50" on every page and chart, never "50.0". Written by hand rather than through Intl,
 * whose output follows the ICU data of each runtime, so Node and Deno give the same bytes.
 * Only for text a person reads: JSON, CSV, data attributes and coordinates keep the number as is.
 */
export function numberText(value: number, lang: "fr" | "en"): string {
  const plain = String(value);
  if (lang === "en") return plain;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(plain);
  // An exponent form (beyond 1e21 or under 1e-6) is no value a scale publishes; only its point changes.
  if (!m) return plain.replace(".", ",");
  const [, sign, int, frac] = m;
  const grouped = int!.replace(/\B(?=(\d{3})+$)/g, "\u202F");
  return `${sign}${grouped}${frac === undefined ? "" : `,${frac}`}`;
}
