import { resolve } from "node:path";
import { siteServer } from "../../app/serve.ts";
import { RiskError } from "../../core/errors.ts";

/** `risk-cli serve`: serves the site folder until stopped (Ctrl-C). */
export async function runServe(opts: { site: string; archive?: string; host: string; port: number; json: boolean }) {
  const site = resolve(opts.site);
  if (opts.archive !== undefined) {
    const { gitdirOf, requireArchive } = await import("../../archive/git/objects.ts");
    requireArchive(gitdirOf(resolve(opts.archive)));
  }
  let server: ReturnType<typeof siteServer>;
  try {
    server = siteServer(site, { archive: opts.archive });
  } catch {
    throw new RiskError("E_IO", `The site ${site} does not exist: run risk-cli assemble first, or give --site`);
  }
  await new Promise<void>((ok, fail) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      fail(
        new RiskError(
          "E_IO",
          `Cannot listen on ${opts.host}:${opts.port} (${e.code}): choose another --port or --host`,
        ),
      ),
    );
    server.listen(opts.port, opts.host, () => ok());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  process.stderr.write(
    `serving ${site} at http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}/ (Ctrl-C stops)\n`,
  );
  await new Promise<void>((ok) => {
    process.once("SIGINT", () => server.close(() => ok()));
    process.once("SIGTERM", () => server.close(() => ok()));
  });
  return { ok: true as const, site, host: opts.host, port };
}
