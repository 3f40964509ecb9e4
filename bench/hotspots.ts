/**
 * Summarises a V8 .cpuprofile (from `node dist/bench/run.js --only scale --cpu-prof FILE` or
 * `node --cpu-prof`): the functions with the most self time and the most inclusive time, as
 * name (file:line) with paths relative to the project. Lines are those of the compiled dist/ files
 * (1-based); dist/x/y.js comes from x/y.ts.
 *
 *   node dist/bench/hotspots.js FILE [--top N] [--filter SUBSTRING]
 */
import * as fs from "node:fs";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const root = fileURLToPath(new URL("../../", import.meta.url));

function where(f: ProfileNode["callFrame"]): string {
  let url = f.url;
  if (url.startsWith("file://")) url = fileURLToPath(url);
  if (url.startsWith(root)) url = url.slice(root.length);
  const name = f.functionName || "(anonymous)";
  return url ? `${name} (${url}:${f.lineNumber + 1})` : name;
}

export function hotspots(profile: Profile, top: number, filter: string | null): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const selfByKey = new Map<string, number>();
  const inclByKey = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (const [id, ms] of self) {
    const node = byId.get(id)!;
    const key = where(node.callFrame);
    selfByKey.set(key, (selfByKey.get(key) ?? 0) + ms);
    // Inclusive: credit every distinct function on the stack once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = where(byId.get(cur)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclByKey.set(k, (inclByKey.get(k) ?? 0) + ms);
    }
  }
  const keep = (k: string) => !filter || k.includes(filter);
  const rows = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => keep(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join("\n");
  return `sampled ${total.toFixed(0)} ms\n\nself time\n${rows(selfByKey)}\n\ninclusive time\n${rows(inclByKey)}\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1]);
if (isMain) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) {
    process.stderr.write("usage: node dist/bench/hotspots.js FILE [--top N] [--filter SUBSTRING]\n");
    process.exit(2);
  }
  const topAt = args.indexOf("--top");
  const filterAt = args.indexOf("--filter");
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
  const filter = filterAt >= 0 ? (args[filterAt + 1] ?? null) : null;
  process.stdout.write(hotspots(JSON.parse(fs.readFileSync(file, "utf8")) as Profile, top, filter));
}
