/**
 * Addresses an upstream's redirect must not lead to (server-side request forgery): loopback,
 * private, link-local (169.254.169.254 is the cloud metadata service), carrier-grade NAT, the
 * unspecified address, IPv6 unique-local and link-local, and IPv4-mapped forms of all of them.
 */

/** The four octets of a dotted IPv4 address, or null. */
function ipv4(text: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function privateV4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168)
  );
}

/** True when `address` (an IP literal, IPv6 with or without brackets) is not a public address. */
export function isPrivateAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, "").toLowerCase();
  const v4 = ipv4(text);
  if (v4) return privateV4(v4);
  if (!text.includes(":")) return false;
  // IPv4-mapped (::ffff:10.0.0.1) and its hexadecimal form (::ffff:a00:1).
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped) return isPrivateAddress(mapped[1]!);
  const hexMapped = /^(?:0*:)*:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(text);
  if (hexMapped) {
    const hi = Number.parseInt(hexMapped[1]!, 16);
    const lo = Number.parseInt(hexMapped[2]!, 16);
    return privateV4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  if (text === "::" || text === "::1" || /^0*(:0*)*:0*1$/.test(text)) return true;
  const first = Number.parseInt(text.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

/** True for host names that always mean this machine or its network (`localhost`, `*.localhost`, `*.local`, `*.internal`). */
export function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal");
}

/** True when a URL's host is a private address or a local name, as far as can be told without DNS. */
export function isPrivateHost(hostname: string): boolean {
  return isPrivateAddress(hostname) || isLocalName(hostname);
}

/**
 * True when a URL's host is this machine itself: `localhost`, 127.0.0.0/8 or ::1 (as a URL gives
 * them: IPv4 normalised, IPv6 in brackets). Narrower than isPrivateHost: another machine of the
 * local network is not this one.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host === "[::1]" || host === "::1") return true;
  const v4 = ipv4(host);
  return v4 !== null && v4[0] === 127;
}
