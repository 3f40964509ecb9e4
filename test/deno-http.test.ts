/**
 * The fetch adapter must behave the same on Deno as on Node: the same redirect left unfollowed,
 * the same timeout on a slow drip, the same cut at the cap inside a gzip bomb.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchHttp } from "../cli/runtime/http.ts";
import { ROOT } from "./helpers/cli.ts";
import { upstreamServer } from "./helpers/upstream-server.ts";

const run = promisify(execFile);
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const ENV = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };

describe("the fetch adapter on Deno", () => {
  let server: Awaited<ReturnType<typeof upstreamServer>>;
  beforeAll(async () => {
    server = await upstreamServer();
    server.set("/r", { redirects: 1 });
    server.set("/drip", "slow-drip");
    server.set("/bomb", "gzip-bomb");
    server.set("/page", "html-200");
  });
  afterAll(async () => {
    await server.close();
  });

  it("gives the same results as on Node for a good document, a redirect, a slow drip, a gzip bomb and an HTML page", async () => {
    const urls = ["/good", "/r", "/drip", "/bomb", "/page"].map((p) => server.url(p));
    const args = ["300", "1000000", ...urls];
    const { stdout } = await run(
      DENO,
      ["run", "--allow-net", "--allow-read", join(ROOT, "test/fixtures/http-probe.ts"), ...args],
      { cwd: ROOT, env: ENV },
    );
    const deno = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const http = fetchHttp();
    const node = [];
    for (const url of urls) {
      const { elapsedMs: _e, ...r } = await http.get(url, {
        timeoutMs: 300,
        maxBytes: 1_000_000,
        accept: "application/json",
      });
      node.push(r.kind === "response" ? { ...r, body: r.body.byteLength } : { kind: r.kind });
    }
    expect(node.map((r) => r.kind)).toEqual(["response", "response", "timeout", "too-large", "response"]);
    expect(node[1]).toMatchObject({ status: 302, headers: { location: "/hop-0-x" } });
    expect(deno).toEqual(node);
  }, 30_000);
});
