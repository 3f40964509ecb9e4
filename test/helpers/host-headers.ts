/** The headers a Netlify or Cloudflare Pages host would send for `path`, from the site's _headers. */
export function hostHeadersFor(text: string, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  let applies = false;
  for (const line of text.split("\n")) {
    if (!line) continue;
    if (!line.startsWith(" ")) {
      applies = line === path || (line.endsWith("/*") && path.startsWith(line.slice(0, -1)));
      continue;
    }
    if (!applies) continue;
    const i = line.indexOf(":");
    out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}
