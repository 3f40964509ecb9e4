import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { siteServer } from "../../app/serve.ts";
import { brokenLink } from "../../archive/regular-file.ts";
import { denoPermissionError, denoRefused, RiskError } from "../../core/errors.ts";
import { oneLine } from "../terminal.ts";

/** `risk-cli serve`: serves the site folder until stopped (Ctrl-C). */
export async function runServe(opts: {
  site: string;
  archive?: string;
  host: string;
  port: number;
  mcp: boolean;
  mcpOrigins: readonly string[];
  json: boolean;
}) {
  if (opts.host.trim() === "")
    throw new RiskError(
      "E_USAGE",
      "--host is empty, which would listen on every interface: give the address to listen on, such as 127.0.0.1 (the default)",
    );
  const site = resolve(opts.site);
  requireSite(site, opts.site);
  if (opts.archive !== undefined) {
    const { gitdirOf, refuseArchiveFile, requireArchive } = await import("../../archive/git/objects.ts");
    refuseArchiveFile(opts.archive);
    requireArchive(gitdirOf(resolve(opts.archive)));
  }
  for (const origin of opts.mcpOrigins) checkOrigin(origin);
  // The MCP SDK is loaded only when the endpoint is asked for.
  const mcp = opts.mcp
    ? (await import("../../app/mcp.ts")).mcpHttpHandler({
        site,
        archive: opts.archive,
        allowedOrigins: opts.mcpOrigins,
        hash: (await import("../runtime/node.ts")).nodeHasher,
        log: (line) => process.stderr.write(`${oneLine(line)}\n`),
      })
    : undefined;
  await requireListening(opts.host, opts.port);
  let server: ReturnType<typeof siteServer>;
  try {
    server = siteServer(site, {
      archive: opts.archive,
      mcp,
      log: (line) => process.stderr.write(`${oneLine(line)}\n`),
    });
  } catch {
    throw new RiskError("E_IO", `The site ${site} does not exist: run risk-cli assemble first, or give --site`);
  }
  await new Promise<void>((ok, fail) => {
    // Deno run without --allow-net refuses the listen itself: the fix is the runtime's flag.
    const refused = (e: NodeJS.ErrnoException) =>
      denoPermissionError(e) ??
      new RiskError("E_IO", `Cannot listen on ${opts.host}:${opts.port} (${e.code}): choose another --port or --host`);
    server.once("error", (e: NodeJS.ErrnoException) => fail(refused(e)));
    try {
      server.listen(opts.port, opts.host, () => ok());
    } catch (e) {
      fail(refused(e as NodeJS.ErrnoException));
    }
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  const origin = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
  process.stderr.write(`serving ${site} at ${origin}/${mcp ? `, MCP at ${origin}/mcp` : ""} (Ctrl-C stops)\n`);
  await new Promise<void>((ok) => {
    process.once("SIGINT", () => server.close(() => ok()));
    process.once("SIGTERM", () => server.close(() => ok()));
  });
  return { ok: true as const, site, host: opts.host, port };
}

/**
 * On Deno, the permission to listen, asked before the socket is opened: Deno refuses an ungranted
 * listen only on a later tick, where no caller can catch it, and the process dies with its stack.
 * Asked as a request, so that a terminal may still grant it when prompted.
 */
async function requireListening(host: string, port: number): Promise<void> {
  type Permissions = { request(d: { name: "net"; host: string }): Promise<{ state: string }> };
  const deno = (globalThis as { Deno?: { permissions: Permissions } }).Deno;
  if (!deno) return;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if ((await deno.permissions.request({ name: "net", host: where })).state !== "granted")
    throw denoRefused("net", where);
}

/** An origin allowed to call the MCP endpoint: scheme, host and optional port, nothing else. */
function checkOrigin(origin: string): void {
  let url: URL | null = null;
  try {
    url = new URL(origin);
  } catch {
    // refused below
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== origin)
    throw new RiskError(
      "E_USAGE",
      `--mcp-origin ${origin.slice(0, 80)} is not an origin: give a scheme, a host and an optional port, as https://agents.example.org`,
    );
}

/**
 * A folder risk-cli assembled (or replayed): it holds api/v1/integrity.json as a regular file.
 * Anything else (`/`, `/etc`, a home folder, a file) is refused before a socket is opened: a
 * folder that does not exist with exit 6, anything else that exists with exit 2.
 */
function requireSite(site: string, given: string): void {
  let exists = false;
  let folder = false;
  let listed = false;
  try {
    const st = statSync(site);
    exists = true;
    folder = st.isDirectory();
    listed = statSync(join(site, "api/v1/integrity.json")).isFile();
  } catch (e) {
    // Told below; but a permission Deno refuses is the command line's, not the folder's, and a
    // folder this account may not read is said to be so, not taken for one risk-cli did not write.
    const refused = denoPermissionError(e);
    if (refused) throw refused;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM")
      throw new RiskError(
        "E_IO",
        `--site ${given.slice(0, 200)} cannot be read: permission denied (${code}); make it readable by the user running risk-cli`,
      );
  }
  if (exists && !folder)
    throw new RiskError(
      "E_USAGE",
      `--site ${given.slice(0, 200)} is a file, not a site folder: give the folder risk-cli assemble or replay --out wrote, as --site ./site`,
    );
  const link = folder ? null : brokenLink(site);
  if (link)
    throw new RiskError(
      "E_USAGE",
      `--site ${given.slice(0, 200)} is ${link}: give the site folder itself, as --site ./site`,
    );
  if (!folder)
    throw new RiskError("E_IO", `The site ${site} does not exist: run risk-cli assemble first, or give --site`);
  if (!listed)
    throw new RiskError(
      "E_USAGE",
      `--site ${given.slice(0, 200)} is not a risk-cli site (it has no api/v1/integrity.json): give the folder risk-cli assemble or replay --out wrote, as --site ./site`,
    );
}
