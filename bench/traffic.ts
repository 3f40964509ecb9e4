/**
 * Ingesting access logs against reading them at all: about 1 GB of Combined Log Format (5 million
 * lines, in ten gzipped rotated files) counted by `ingestLogs`, against `zcat FILES | wc -l` on the
 * same files, in the same run. Reports lines per second for both and the ratio.
 *
 *   node dist/bench/traffic.js [--lines N]
 */
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { ingestLogs, type TrafficState } from "../app/traffic.ts";

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "python-requests/2.32.3",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
];
const PATHS = [
  "/",
  "/series/",
  "/series/us-financial-stress/",
  "/api/v1/risk.json",
  "/llms.txt",
  "/en/press-resources/",
  "/wp-login.php",
];
const MONTH = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function logLine(i: number, t0: number): string {
  const d = new Date(t0 + i * 50);
  const stamp = `${String(d.getUTCDate()).padStart(2, "0")}/${MONTH[d.getUTCMonth()]}/${d.getUTCFullYear()}:${d.toISOString().slice(11, 19)} +0000`;
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const ref = i % 4 === 0 ? `https://news${i % 7}.example.com/story/${i % 1000}?utm_source=x` : "-";
  return `${ip} - - [${stamp}] "GET ${PATHS[i % PATHS.length]}?v=${i % 13} HTTP/1.1" ${i % 29 === 0 ? 404 : 200} ${1000 + (i % 5000)} "${ref}" "${AGENTS[i % AGENTS.length]}"`;
}

export async function measureTraffic(lines = 5_000_000, files = 10) {
  const dir = mkdtempSync(join(tmpdir(), "risk-bench-traffic-"));
  try {
    const t0 = Date.parse("2026-09-01T00:00:00Z");
    const per = Math.ceil(lines / files);
    let raw = 0;
    const paths: string[] = [];
    for (let f = 0; f < files; f++) {
      const text = `${Array.from({ length: per }, (_, j) => logLine(f * per + j, t0)).join("\n")}\n`;
      raw += Buffer.byteLength(text);
      const path = join(dir, `access.log.${files - f}.gz`);
      writeFileSync(path, gzipSync(text, { level: 6 }));
      paths.push(path);
    }
    const gz = paths.reduce((s, p) => s + statSync(p).size, 0);
    let start = performance.now();
    const counted = Number(execSync(`zcat ${paths.join(" ")} | wc -l`, { encoding: "utf8" }).trim());
    const zcatMs = performance.now() - start;
    const state: TrafficState = { version: 1, files: {}, days: {}, publishedThrough: null };
    start = performance.now();
    const cpu = process.cpuUsage();
    const report = await ingestLogs(paths, state, {
      now: "2026-11-25T00:00:00Z",
      ownHost: "risques.example.org",
      pages: new Set(PATHS),
    });
    const ingestMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return {
      lines: counted,
      rawBytes: raw,
      gzipBytes: gz,
      zcatWcMs: Math.round(zcatMs),
      ingestMs: Math.round(ingestMs),
      ingestCpuMs: Math.round((used.user + used.system) / 1000),
      zcatLinesPerSecond: Math.round(counted / (zcatMs / 1000)),
      ingestLinesPerSecond: Math.round(report.lines / (ingestMs / 1000)),
      ratio: Math.round((ingestMs / zcatMs) * 10) / 10,
      counted: report.counted,
      days: Object.keys(state.days).length,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const lines = Number(process.argv[process.argv.indexOf("--lines") + 1]) || 5_000_000;
  console.log(JSON.stringify(await measureTraffic(lines), null, 2));
}
