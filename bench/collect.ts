/**
 * Parallel collection: five instruments whose upstream (a local node:http server) answers after
 * `delayMs` each. Collecting all five must take about the slowest single fetch, not their sum.
 * Measured in the same run: each instrument fetched alone (the slowest is the reference), then
 * all five through collectUpstream, as an assembly does.
 */
import * as fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectOne, collectUpstream, limitsOf } from "../core/inputs/collect.ts";
import { instrumentsOf, loadPublication } from "../core/inputs/publication.ts";
import { nodeFs, nodeHttp } from "../cli/runtime/node.ts";
import { demoPublication } from "../cli/paths.ts";

export interface CollectionBench {
  instruments: number;
  delayMs: number;
  runs: number;
  /** Median of each instrument fetched alone, the slowest of them. */
  slowestSingleMs: number;
  /** Median of the five collected one after the other (what parallelism saves). */
  sequentialMs: number;
  /** Median of the five collected by collectUpstream (in parallel). */
  parallelMs: number;
  /** parallelMs / slowestSingleMs: about 1 when the fetches overlap, about 5 when they do not. */
  ratio: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round1 = (x: number) => Math.round(x * 10) / 10;

export async function benchCollection(options: { delayMs?: number; runs?: number } = {}): Promise<CollectionBench> {
  const delayMs = options.delayMs ?? 200;
  const runs = options.runs ?? 5;
  const pubDir = fs.mkdtempSync(join(tmpdir(), "risk-bench-collect-"));
  fs.cpSync(demoPublication(), pubDir, { recursive: true });
  const files: Record<string, string> = {
    us: "us.json",
    eu: "eu.json",
    yen: "yen.json",
    energie: "energie.json",
    debt: "debt-latest.json",
  };
  const bodies = new Map(Object.entries(files).map(([k, f]) => [`/${k}`, fs.readFileSync(`${pubDir}/upstream/${f}`)]));
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? "");
    setTimeout(() => {
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
      res.end(body ?? "{}");
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    let config = fs.readFileSync(`${pubDir}/risk.config.yaml`, "utf8");
    for (const [k, f] of Object.entries(files))
      config = config.replace(`source: upstream/${f}`, `source: http://127.0.0.1:${port}/${k}`);
    fs.writeFileSync(`${pubDir}/risk.config.yaml`, config);
    const p = await loadPublication(nodeFs, pubDir);
    const ports = { fs: nodeFs, http: nodeHttp };
    const limits = limitsOf(p);
    const at = "2026-11-21T10:00:00Z";
    // Warm-up: connection set-up and JIT, once.
    await collectUpstream(p, ports, { attemptedAt: at });
    const single = new Map<string, number[]>();
    const sequential: number[] = [];
    const parallel: number[] = [];
    for (let i = 0; i < runs; i++) {
      let sum = 0;
      for (const [key, cfg] of instrumentsOf(p)) {
        const t = performance.now();
        const r = await collectOne(p.root, key, cfg.source, ports, limits);
        const ms = performance.now() - t;
        if (!r.ok) throw new Error(`bench upstream ${key} failed: ${r.error}`);
        single.set(key, [...(single.get(key) ?? []), ms]);
        sum += ms;
      }
      sequential.push(sum);
      const t = performance.now();
      const u = await collectUpstream(p, ports, { attemptedAt: at });
      parallel.push(performance.now() - t);
      const failed = Object.entries(u.instruments).filter(([, r]) => !r?.ok);
      if (failed.length) throw new Error(`bench collection failed for ${failed.map(([k]) => k).join(", ")}`);
    }
    const slowestSingleMs = Math.max(...[...single.values()].map(median));
    const parallelMs = median(parallel);
    return {
      instruments: single.size,
      delayMs,
      runs,
      slowestSingleMs: round1(slowestSingleMs),
      sequentialMs: round1(median(sequential)),
      parallelMs: round1(parallelMs),
      ratio: Math.round((parallelMs / slowestSingleMs) * 100) / 100,
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(pubDir, { recursive: true, force: true });
  }
}

export function collectionTable(b: CollectionBench): string {
  return [
    `Parallel collection: ${b.instruments} instruments, each upstream answering after ${b.delayMs} ms (local node:http), medians of ${b.runs} runs`,
    "| slowest single fetch | five one after the other | five in parallel (collectUpstream) | parallel / slowest single |",
    "|--:|--:|--:|--:|",
    `| ${b.slowestSingleMs} ms | ${b.sequentialMs} ms | ${b.parallelMs} ms | ${b.ratio.toFixed(2)}x |`,
  ].join("\n");
}
