/**
 * One access-log line (Combined or Common Log Format, as nginx and Apache write them) read into
 * what the counts need and nothing more: the UTC day, the kind of read, the page, the referrer's
 * domain and the language. The client's address and user agent are used while the line is
 * classified and then dropped; nothing that could single out a visitor leaves this module.
 *
 * The rules, in order:
 * 1. A line that does not parse is `malformed` (counted, never fatal).
 * 2. A method other than GET is `other` (HEAD, POST, probes): dropped from the reads.
 * 3. A probe for a path that is no page of a static publication (wp-admin, wp-login, .env, .git,
 *    .php, cgi-bin, phpmyadmin...) is a `scan`; so is every request of a client that got ten or more
 *    404s in the same batch (the caller marks those).
 * 4. A request for /robots.txt is a `robot`.
 * 5. A successful read of a machine surface, by any client, is a `machine` read of its family:
 *    api (/api/), mcp (/mcp), feed (.xml), text (llms*.txt), download (.zip, .csv, .svg, .ndjson, .json).
 * 6. A social link preview (facebookexternalhit, Twitterbot, Slackbot, LinkedInBot, WhatsApp,
 *    Discordbot, TelegramBot, Embedly...) is a `preview`.
 * 7. A robot by its user agent (the isbot package's list), or a client with none, is a `robot`
 *    (every line of a Common Log Format, which has no user-agent field, among them).
 * 8. An unsuccessful request (not 2xx or 304) is `other`.
 * 9. Anything else ending in / or .html is a `human` read of that page.
 */
export type ReadKind = "human" | "machine" | "preview" | "robot" | "scan" | "other" | "malformed";
export type MachineFamily = "api" | "mcp" | "feed" | "text" | "download";

export interface LogLine {
  client: string;
  /** Epoch milliseconds. */
  at: number;
  method: string;
  path: string;
  status: number;
  referrer: string | null;
  agent: string | null;
  /** The Common Log Format: no referrer and no user-agent fields, so no agent to tell a robot by. */
  common: boolean;
}

/**
 * A Combined or Common Log Format line, after an optional first field naming the virtual host
 * (Apache's `vhost_combined`, `%v:%p %h ...`, and nginx formats that start with `$host`). The
 * request line is taken whole, escaped quotes included: one that is no `METHOD TARGET` (a TLS
 * handshake on the plain port, `"-"` for a connection that sent nothing, an SSH banner) is a
 * line of its own, never malformed; it is not a GET, so it counts for nothing.
 */
const LINE =
  /^(?:\S+ )?(\S+) \S+ \S+ \[(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})\] "([^"\\]*(?:\\.[^"\\]*)*)" (\d{3}) (?:\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?/;
const REQUEST = /^(\S+) (\S+)/;
const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

export function parseLogLine(line: string): LogLine | null {
  const m = LINE.exec(line);
  if (!m) return null;
  const [, client, dd, mon, yyyy, hh, mi, ss, zone, request, status, referrer, agent] = m;
  // A request line that is no request is kept as one with method "-" and no path.
  const [, method, target] = REQUEST.exec(request!) ?? ["", "-", ""];
  const month = MONTHS[mon!];
  if (month === undefined) return null;
  // Every field in its range: 30/Feb or 25:61 is malformed, never rolled over to another day.
  const [year, day, hour, minute, second] = [yyyy, dd, hh, mi, ss].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const zoneHours = Number(zone!.slice(1, 3));
  const zoneMinutes = Number(zone!.slice(3, 5));
  if (day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  if (zoneHours > 14 || zoneMinutes > 59) return null;
  const code = Number(status);
  if (code < 100 || code > 599) return null;
  const offset = (zone![0] === "-" ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  const at = Date.UTC(year, month, day, hour, minute, second) - offset * 60_000;
  let path = target!;
  const cut = path.search(/[?#]/);
  if (cut >= 0) path = path.slice(0, cut);
  // Most targets are plain paths; only an encoded or dotted one goes through URL's normalisation.
  if (path !== "" && (!path.startsWith("/") || path.includes("%") || path.includes("/."))) {
    try {
      path = new URL(path, "http://x").pathname;
    } catch {
      return null;
    }
  }
  return {
    client: client!,
    at,
    method: method!,
    path,
    status: code,
    referrer: referrer && referrer !== "-" ? referrer : null,
    agent: agent && agent !== "-" ? agent : null,
    common: agent === undefined,
  };
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

const PREVIEW =
  /facebookexternalhit|facebookcatalog|twitterbot|slackbot|linkedinbot|whatsapp|discordbot|telegrambot|embedly|skypeuripreview|redditbot|pinterest|vkshare|mastodon|bluesky|iframely|applebot-extended|snapchat|viber/i;
const SCAN_PATH =
  /(^|\/)(wp-admin|wp-login|wp-content|wp-includes|xmlrpc\.php|phpmyadmin|pma|cgi-bin|\.env|\.git|\.svn|\.aws|\.ds_store|server-status|actuator|vendor\/phpunit|boaform|admin\.php|config\.json|\.well-known\/security\.txt\.bak)|\.(php|asp|aspx|jsp|cgi|sql|bak|ini|sh)$/i;

export function familyOf(path: string): MachineFamily | null {
  if (path === "/mcp" || path.startsWith("/mcp/")) return "mcp";
  // The Atom feed sits under /api/: a feed first.
  if (path.endsWith(".xml")) return "feed";
  if (path.startsWith("/api/")) return "api";
  if (/^\/llms[^/]*\.txt$/.test(path)) return "text";
  if (/\.(zip|csv|svg|ndjson|json|txt)$/.test(path)) return "download";
  return null;
}

/** The kind of a parsed line; `isBot` is the robot list (isbot), given by the caller. */
export function classify(line: LogLine, isBot: (agent: string) => boolean): ReadKind {
  if (line.method !== "GET") return "other";
  if (SCAN_PATH.test(line.path)) return "scan";
  if (line.path === "/robots.txt") return "robot";
  const ok = (line.status >= 200 && line.status < 300) || line.status === 304;
  // A machine surface is read by programs: whatever the client, it is a machine read.
  if (ok && familyOf(line.path)) return "machine";
  if (line.agent && PREVIEW.test(line.agent)) return "preview";
  if (line.agent === null || isBot(line.agent)) return "robot";
  if (!ok) return "other";
  if (line.path.endsWith("/") || line.path.endsWith(".html")) return "human";
  return "other";
}

/** Where a referrer that names no domain (an IP address, a malformed host) is counted. */
export const OTHER_REFERRERS = "(address or invalid host)";

/**
 * The domain of a referrer URL (never its path or query), or null when it is the site's own or
 * none. A host that is an IP address or no valid domain name is never published as it came: it
 * is counted under OTHER_REFERRERS.
 */
export function referrerDomain(referrer: string | null, ownHost: string): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    host = new URL(referrer).hostname.toLowerCase();
  } catch {
    return null;
  }
  host = host.replace(/\.$/, "").replace(/^www\./, "");
  if (!host) return null;
  if (
    host ===
    ownHost
      .toLowerCase()
      .replace(/\.$/, "")
      .replace(/^www\./, "")
  )
    return null;
  const domain =
    host.length <= 253 &&
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(host) &&
    !/^[0-9.]+$/.test(host);
  return domain ? host : OTHER_REFERRERS;
}

/** A page's language: English under /en/, French otherwise. */
export const languageOf = (path: string): "fr" | "en" => (path === "/en/" || path.startsWith("/en/") ? "en" : "fr");

/** The page a human read counts for: `/x/index.html` is `/x/`. */
export const pageRead = (path: string) => path.replace(/\/index\.html$/, "/");
