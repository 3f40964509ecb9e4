import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/** What the fake upstream does at one path; switched between assemblies. */
export type Behaviour =
  | "good"
  | "http-500"
  | "http-304"
  | "no-answer"
  | "slow-drip"
  | "html-200"
  | "invalid-json"
  | "oversized"
  | "gzip-bomb"
  | "redirect-loop"
  | "schema-change"
  | "naive-timestamp"
  | "out-of-range"
  | { redirects: number }
  | { json: unknown; delayMs?: number };

export const reading = (instrument: string, value: number, publishedAt: string) => ({
  format: "risk-dashboard-reading/1",
  instrument,
  value,
  scale: 100,
  rawValue: 0.42,
  rawUnit: "écarts-types",
  observedAt: "2026-11-20T21:00:00Z",
  publishedAt,
  qualityStatus: "nominal",
});

// 40 MB of JSON whitespace inside a valid document: about 40 KB on the wire.
let bomb: Buffer | null = null;
const gzipBomb = () =>
  (bomb ??= gzipSync(Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(40_000_000, 0x20), Buffer.from('"}')]), {
    level: 9,
  }));

/**
 * A real HTTP server on 127.0.0.1 and a free port, serving one behaviour per path. Open
 * connections (a request left without answer, a drip) are destroyed on close.
 */
export async function upstreamServer(instrument = "us") {
  gzipBomb(); // compressed once, before any request, so that compressing never eats a timeout
  const behaviours = new Map<string, Behaviour>();
  const timers = new Set<NodeJS.Timeout>();
  let good = reading(instrument, 31.4, "2026-11-21T09:30:00Z");
  let hits = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits++;
    const path = (req.url ?? "/").split("?")[0]!;
    const loop = /^\/loop-(\d)$/.exec(path);
    if (loop) return redirect(res, `/loop-${(Number(loop[1]) + 1) % 2}`);
    const hop = /^\/hop-(\d+)-(.+)$/.exec(path);
    if (hop) return Number(hop[1]) > 0 ? redirect(res, `/hop-${Number(hop[1]) - 1}-${hop[2]}`) : json(res, good);
    const b = behaviours.get(path) ?? "good";
    if (typeof b === "object") {
      if ("redirects" in b) return redirect(res, `/hop-${b.redirects - 1}-x`);
      const t = setTimeout(() => json(res, b.json), b.delayMs ?? 0);
      timers.add(t);
      return;
    }
    switch (b) {
      case "good":
        return json(res, good);
      case "http-500":
        res.writeHead(500, { "content-type": "application/json" });
        return res.end('{"error":"internal"}');
      case "http-304":
        // Not Modified, though no conditional request was made: no Location, no body.
        res.writeHead(304);
        return res.end();
      case "no-answer":
        return; // the request stays open until the client gives up
      case "slow-drip": {
        res.writeHead(200, { "content-type": "application/json" });
        const body = JSON.stringify(good);
        let i = 0;
        const t = setInterval(() => (i < body.length ? res.write(body[i++]!) : clearInterval(t)), 100);
        timers.add(t);
        res.on("close", () => clearInterval(t));
        return;
      }
      case "html-200":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return res.end("<!doctype html><html><body><h1>Maintenance</h1></body></html>");
      case "invalid-json":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end('{"format": "risk-dashboard-reading/1", "value": 31.4,');
      case "oversized": {
        const body = JSON.stringify({ ...good, rawUnit: "x".repeat(6_000_000) });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        return res.end(body);
      }
      case "gzip-bomb":
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        return res.end(gzipBomb());
      case "redirect-loop":
        return redirect(res, "/loop-0");
      case "schema-change": {
        const { value, ...rest } = good;
        return json(res, { ...rest, format: "risk-dashboard-reading/2", score: value });
      }
      case "naive-timestamp":
        return json(res, { ...good, publishedAt: "2026-11-21T09:30:00" });
      case "out-of-range":
        return json(res, { ...good, value: 140 });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    set(path: string, b: Behaviour) {
      behaviours.set(path, b);
    },
    /** The document the "good" behaviour serves from now on. */
    serveGood(value: number, publishedAt: string) {
      good = reading(instrument, value, publishedAt);
    },
    get hits() {
      return hits;
    },
    async close() {
      for (const t of timers) clearTimeout(t), clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}
