/**
 * `risk-cli serve` against the obvious alternative, a plain static file server from npm
 * (http-server) serving the same site folder, each in a process of its own, loaded by autocannon
 * from this process in the same run: requests per second and p99 latency on /api/v1/risk.json at
 * 100 connections (the two servers take turns, twice each, after a warm-up), then a burst of
 * 1,000 connections each sending one request, which must all be answered without error.
 *
 *   node dist/bench/serve.js [--seconds N]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { runAssembly } from "../app/assembly.ts";
import { demoPublication } from "../cli/paths.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";

const BIN = fileURLToPath(new URL("../bin/risk-cli.js", import.meta.url));
const HTTP_SERVER = createRequire(import.meta.url).resolve("http-server/bin/http-server");
const PATH = "/api/v1/risk.json";

interface Load {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface ServeResult {
  riskCli: Load;
  httpServer: Load;
  /** risk-cli serve's throughput over http-server's (at least 1 is the goal). */
  throughputRatio: number;
  /** risk-cli serve's p99 latency over http-server's (at most 1 is the goal). */
  p99Ratio: number;
  burst: { riskCli: { answered: number; errors: number }; httpServer: { answered: number; errors: number } };
}

async function start(command: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, command, { stdio: ["ignore", "ignore", "pipe"] });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}${PATH}`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  child.kill();
  throw new Error(`${command.join(" ")} did not answer on port ${port}`);
}

async function load(url: string, seconds: number): Promise<Load> {
  const r = await autocannon({ url, connections: 100, duration: seconds });
  return {
    requestsPerSecond: Math.round(r.requests.average),
    p99Ms: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

async function burst(url: string) {
  const r = await autocannon({ url, connections: 1000, amount: 1000, timeout: 30 });
  return { answered: r["2xx"], errors: r.errors + r.timeouts + r.non2xx };
}

const mean = (loads: Load[]): Load => ({
  requestsPerSecond: Math.round(loads.reduce((s, l) => s + l.requestsPerSecond, 0) / loads.length),
  p99Ms: loads.reduce((s, l) => s + l.p99Ms, 0) / loads.length,
  errors: loads.reduce((s, l) => s + l.errors, 0),
  non2xx: loads.reduce((s, l) => s + l.non2xx, 0),
});

export async function measureServe(
  options: { seconds?: number; log?: (m: string) => void } = {},
): Promise<ServeResult> {
  const seconds = options.seconds ?? 10;
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), "risk-bench-serve-"));
  const children: ChildProcess[] = [];
  try {
    const site = join(dir, "site");
    await runAssembly(
      { publication: demoPublication(), site, archive: join(dir, "archive"), now: "2026-11-21T12:00:00Z" },
      { fs: nodeFs, hash: nodeHasher, http: nodeHttp, log: { info: () => {}, warn: () => {} } },
    );
    const ports = { riskCli: 18_431, httpServer: 18_432 };
    children.push(await start([BIN, "serve", "--site", site, "--port", String(ports.riskCli)], ports.riskCli));
    // http-server with its defaults plus CORS, without its directory listing and logging.
    children.push(
      await start(
        [HTTP_SERVER, site, "-p", String(ports.httpServer), "-a", "127.0.0.1", "--cors", "-d", "false", "-s"],
        ports.httpServer,
      ),
    );
    const url = (port: number) => `http://127.0.0.1:${port}${PATH}`;
    await load(url(ports.riskCli), 2);
    await load(url(ports.httpServer), 2);
    const ours: Load[] = [];
    const theirs: Load[] = [];
    for (let round = 0; round < 2; round++) {
      ours.push(await load(url(ports.riskCli), seconds));
      log(`risk-cli serve: ${JSON.stringify(ours.at(-1))}`);
      theirs.push(await load(url(ports.httpServer), seconds));
      log(`http-server:    ${JSON.stringify(theirs.at(-1))}`);
    }
    const riskCli = mean(ours);
    const httpServer = mean(theirs);
    return {
      riskCli,
      httpServer,
      throughputRatio: Math.round((riskCli.requestsPerSecond / httpServer.requestsPerSecond) * 100) / 100,
      p99Ratio: Math.round((riskCli.p99Ms / httpServer.p99Ms) * 100) / 100,
      burst: { riskCli: await burst(url(ports.riskCli)), httpServer: await burst(url(ports.httpServer)) },
    };
  } finally {
    for (const c of children) c.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const seconds = Number(process.argv[process.argv.indexOf("--seconds") + 1]) || 10;
  const r = await measureServe({ seconds, log: (m) => console.log(m) });
  console.log(JSON.stringify(r, null, 2));
}
