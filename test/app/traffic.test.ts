import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  commonLogWarning,
  ingestLogs,
  logFiles,
  readTrafficState,
  type TrafficState,
  writeTrafficState,
} from "../../app/traffic.ts";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { OTHER_REFERRERS } from "../../core/traffic/classify.ts";
import { emptyDay, OTHER_PAGES, OTHER_PAGES_EN, publishDay } from "../../core/traffic/counts.ts";
import { runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const PREVIEWS = [
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "Twitterbot/1.0",
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
];
const HUMANS = [CHROME, FIREFOX, SAFARI];

const MONTH = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** A Combined Log Format line, as nginx writes it, at a UTC instant written in +01:00. */
function line(
  ip: string,
  at: string,
  path: string,
  o: { status?: number; ref?: string; ua?: string; method?: string } = {},
) {
  const d = new Date(Date.parse(at) + 3_600_000);
  const stamp = `${String(d.getUTCDate()).padStart(2, "0")}/${MONTH[d.getUTCMonth()]}/${d.getUTCFullYear()}:${d.toISOString().slice(11, 19)} +0100`;
  return `${ip} - - [${stamp}] "${o.method ?? "GET"} ${path} HTTP/1.1" ${o.status ?? 200} 5120 "${o.ref ?? "-"}" "${o.ua ?? CHROME}"`;
}

/** Day 1's lines, whose published counts are known in advance (see the expectations below). */
function day1(): string[] {
  const at = (n: number) =>
    `2026-11-20T${String(8 + Math.floor(n / 60)).padStart(2, "0")}:${String(n % 60).padStart(2, "0")}:00Z`;
  const out: string[] = [];
  let n = 0;
  const read = (path: string, times: number, ref?: string) => {
    for (let i = 0; i < times; i++)
      out.push(line(`203.0.113.${(n % 200) + 1}`, at(n++), path, { ua: HUMANS[i % 3], ref }));
  };
  read("/series/", 6, "https://news.example.com/story/123?utm=x");
  read("/donnees/agents/", 5, "https://news.example.com/story/456");
  read("/articles/spread-btp-bund-2026/", 4, "https://blog.example.net/secret-post");
  read("/en/press-resources/", 6);
  // IPv6 readers count like the others.
  out.push(line("2001:db8::1", at(n++), "/en/press-resources/index.html", { ua: FIREFOX }));
  for (let i = 0; i < 7; i++)
    out.push(line("198.51.100.7", at(n++), "/api/v1/risk.json", { ua: "python-requests/2.32" }));
  for (let i = 0; i < 3; i++) out.push(line("198.51.100.8", at(n++), "/api/v1/risk.xml", { ua: FIREFOX }));
  for (let i = 0; i < 6; i++) out.push(line("192.0.2.10", at(n++), "/series/", { ua: PREVIEWS[i % 3] }));
  for (let i = 0; i < 4; i++) out.push(line("192.0.2.20", at(n++), "/", { ua: GOOGLEBOT }));
  out.push(line("192.0.2.21", at(n++), "/robots.txt", { ua: CHROME }));
  out.push(line("192.0.2.30", at(n++), "/wp-admin/setup.php", { status: 404 }));
  out.push(line("192.0.2.30", at(n++), "/.env", { status: 404 }));
  // A burst of 404s: every request of that client is a scan, its one page read included.
  for (let i = 0; i < 12; i++) out.push(line("192.0.2.40", at(n++), `/nope-${i}/`, { status: 404 }));
  out.push(line("192.0.2.40", at(n++), "/series/"));
  out.push(line("203.0.113.9", at(n++), "/series/", { method: "POST", status: 405 }));
  return out;
}

const day2 = () =>
  Array.from({ length: 9 }, (_, i) =>
    line(`203.0.113.${i + 1}`, `2026-11-21T1${i % 10}:00:00Z`, "/series/us-financial-stress/"),
  );
const today = () => [line("203.0.113.1", "2026-11-22T08:00:00Z", "/series/")];

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

describe("human traffic from access logs", () => {
  it("counts day by day with k=5, never publishes today, never counts a line twice, and keeps no identifier", async () => {
    const dir = tempDir("risk-traffic-");
    const logs = `${dir}/logs`;
    const pub = demoCopy();
    const site = `${dir}/site`;
    const archive = `${dir}/archive`;
    // A first frame so that the archive exists for `traffic ingest`.
    await runAssemble({ publication: pub, site, archive, now: "2026-11-20T06:00:00Z", json: true });
    const all = [
      ...day1(),
      "garbage line",
      '127.0.0.1 - - [99/Foo/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1',
      ...day2(),
    ];
    // Split across rotated files: the oldest gzipped, one plain, and a gzip cut in the middle.
    mkdirSync(logs);
    writeFileSync(`${logs}/access.log.2.gz`, gzipSync(`${all.slice(0, 20).join("\n")}\n`));
    writeFileSync(`${logs}/access.log.1`, `${all.slice(20).join("\n")}\n`);
    // 120 distinct reads of 2026-11-22, of which the first half of the compressed bytes holds dozens.
    const cut = gzipSync(
      `${Array.from({ length: 120 }, (_, i) =>
        line(
          `203.0.113.${(i % 50) + 1}`,
          `2026-11-22T0${Math.floor(i / 60)}:${String(i % 60).padStart(2, "0")}:00Z`,
          "/series/",
          {
            ua: HUMANS[i % 3],
          },
        ),
      ).join("\n")}\n`,
    );
    writeFileSync(`${logs}/other.log.gz`, cut.subarray(0, Math.floor(cut.byteLength / 2)));
    writeFileSync(`${logs}/access.log`, `${today().join("\n")}\nan unfinished line without its newline`);

    const ingest = () =>
      runCli([
        "traffic",
        "ingest",
        ...readdirSync(logs).map((f) => `${logs}/${f}`),
        "--archive",
        archive,
        "--publication",
        pub,
        "--json",
      ]);
    const first = ingest();
    expect(first.status, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.malformed).toBe(2);
    expect(report.truncated).toEqual([`${logs}/other.log.gz`]);
    const state = readFileSync(`${archive}/risk-cli-traffic.json`, "utf8");
    // Again, the same files: nothing new; a rotation (access.log -> access.log.1 with a new line) counts the new line only.
    const again = JSON.parse(ingest().stdout);
    expect(again.counted).toBe(0);
    expect(readFileSync(`${archive}/risk-cli-traffic.json`, "utf8")).toBe(state);

    const summary = await runAssemble({ publication: pub, site, archive, now: "2026-11-22T10:00:00Z", json: true });
    expect(summary.frameId).toMatch(/^000002-/);
    const traffic = JSON.parse(readFileSync(`${site}/api/v1/human-traffic.json`, "utf8"));
    expect(traffic.source).toBe("access-logs");
    expect(traffic.days.map((d: { date: string }) => d.date)).toEqual(["2026-11-21", "2026-11-20"]);
    const d1 = traffic.days[1];
    expect(d1.human.total).toEqual({ reads: 22, suppressed: false });
    expect(d1.human.languages.cells).toEqual([
      { key: "fr", reads: 15 },
      { key: "en", reads: 7 },
    ]);
    // fr: /series/ 6 named; /articles/… 4 is under k, so /donnees/agents/ (5) joins it: other 9 in 2 cells.
    expect(d1.human.pages.fr).toEqual({ cells: [{ key: "/series/", reads: 6 }], other: { cells: 2, reads: 9 } });
    expect(d1.human.pages.en).toEqual({
      cells: [{ key: "/en/press-resources/", reads: 7 }],
      other: { cells: 0, reads: 0 },
    });
    // Referrers by domain only; blog.example.net (4) is under k and is not named.
    expect(d1.human.referrers.cells).toEqual([{ key: "news.example.com", reads: 11 }]);
    expect(d1.human.referrers.other).toEqual({ cells: 2, reads: 11 });
    expect(d1.machine.api).toEqual({ reads: 7, suppressed: false });
    expect(d1.machine.feed).toEqual({ reads: null, suppressed: true });
    expect(d1.machine.mcp).toEqual({ reads: null, suppressed: false });
    expect(d1.previews).toEqual({ reads: 6, suppressed: false });
    expect(d1.robots).toEqual({ reads: 5, suppressed: false });
    expect(d1.scans).toEqual({ reads: 15, suppressed: false });
    expect(traffic.days[0].human.total).toEqual({ reads: 9, suppressed: false });

    // Late lines for a published day: dropped, counted as late; the published day never changes.
    writeFileSync(
      `${logs}/late.log`,
      `${day1()
        .slice(0, 8)
        // Another server's log: its lines for 2026-11-20 come at other times, after that day was published.
        .map((l) => l.replace(/\/2026:\d\d:/, "/2026:21:"))
        .join("\n")}\n`,
    );
    expect(runCli(["traffic", "ingest", `${logs}/late.log`, "--archive", archive, "--publication", pub]).status).toBe(
      0,
    );
    renameSync(`${logs}/access.log`, `${logs}/access.log.0`);
    // Late lines count on the day they arrived (the machine's today), published once it is
    // settled: no line of a later day comes here, so a week after it closed.
    const arrived = new Date().toISOString().slice(0, 10);
    const next = new Date(Date.parse(`${arrived}T10:00:00Z`) + 8 * 86_400_000).toISOString().replace(".000Z", "Z");
    await runAssemble({ publication: pub, site, archive, now: next, allowFuture: true, json: true });
    const later = JSON.parse(readFileSync(`${site}/api/v1/human-traffic.json`, "utf8"));
    expect(later.days.find((d: { date: string }) => d.date === "2026-11-20")).toEqual(d1);
    expect(later.days.map((d: { date: string }) => d.date)).toContain(arrived);
    expect(later.days.find((d: { date: string }) => d.date === arrived).late).toEqual({ reads: 8, suppressed: false });
    // Day 3 had 1 read in access.log and the complete lines of the cut gzip: published once settled.
    const d3 = later.days.find((d: { date: string }) => d.date === "2026-11-22");
    expect(d3.human.total.reads, JSON.stringify(d3.human.total)).toBeGreaterThanOrEqual(20);
    expect(d3.human.total.reads).toBeLessThan(121);

    // No address, user agent or referrer path anywhere: the site, the archive's state, the frames.
    const secrets = [
      "203.0.113.",
      "2001:db8::1",
      "198.51.100.",
      "192.0.2.",
      "Mozilla/5.0",
      "story/123",
      "secret-post",
      "blog.example.net",
      "python-requests",
    ];
    for (const file of [...files(site), `${archive}/risk-cli-traffic.json`]) {
      const text = readFileSync(file, "latin1");
      for (const s of secrets) expect(text.includes(s), `${s} in ${file}`).toBe(false);
    }
    const { execFileSync } = await import("node:child_process");
    const everything = execFileSync("git", ["--git-dir", archive, "log", "-p", "--all"], {
      encoding: "latin1",
      maxBuffer: 1 << 28,
    });
    for (const s of secrets) expect(everything.includes(s), s).toBe(false);
  }, 120_000);

  it("publishes a day whole when the logs are ingested at their daily rotation, not only its first hours", async () => {
    const dir = tempDir("risk-traffic-rotation-");
    const pub = demoCopy();
    const site = `${dir}/site`;
    const archive = `${dir}/archive`;
    await runAssemble({ publication: pub, site, archive, now: "2026-11-10T00:00:00Z", json: true });
    const reads = (day: string, hours: number[]) =>
      hours.map((h, i) => line(`203.0.113.${i + 1}`, `${day}T${String(h).padStart(2, "0")}:00:00Z`, "/series/"));
    // logrotate runs at 05:25 UTC and its hook ingests access.log.1: the lines since the last rotation.
    const hook = async (at: string, lines: string[]) => {
      const file = join(dir, `access.log.1-${at.slice(0, 10)}`);
      writeFileSync(file, `${lines.join("\n")}\n`);
      const state = readTrafficState(archive);
      const options = { now: at, ownHost: "risques.example.org", pages: new Set(["/series/"]) };
      await ingestLogs([file], state, options);
      writeTrafficState(archive, state);
    };
    await hook("2026-11-11T05:25:00Z", [
      ...reads("2026-11-10", [6, 9, 12, 15, 18, 21, 22, 23]),
      ...reads("2026-11-11", [1, 2, 3, 4, 5, 5]),
    ]);
    // The first assembly after midnight: 2026-11-11 has only its first five hours in the logs read.
    await runAssemble({ publication: pub, site, archive, now: "2026-11-12T00:05:00Z", json: true });
    const published = () => JSON.parse(readFileSync(`${site}/api/v1/human-traffic.json`, "utf8")).days;
    expect(published().map((d: { date: string }) => d.date)).toEqual(["2026-11-10"]);
    await hook("2026-11-12T05:25:00Z", [
      ...reads("2026-11-11", [6, 8, 10, 12, 14, 16, 18, 20, 22, 23]),
      ...reads("2026-11-12", [1, 2, 3, 4, 5]),
    ]);
    await runAssemble({ publication: pub, site, archive, now: "2026-11-12T06:00:00Z", json: true });
    const [day, before] = published();
    expect([day.date, day.human.total.reads, day.late.reads]).toEqual(["2026-11-11", 16, null]);
    expect([before.date, before.human.total.reads]).toEqual(["2026-11-10", 8]);
  }, 60_000);

  it("gives no figure under k that subtraction could recover, in any day or pair of frames", async () => {
    const { breakdown, publishDay, emptyDay, K } = await import("../../core/traffic/counts.ts");
    const fc = await import("fast-check");
    const pages = [
      "/",
      "/series/",
      "/donnees/agents/",
      "/articles/a/",
      "/en/",
      "/en/press-resources/",
      "/en/articles/b/",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: pages.length, maxLength: pages.length }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 4, maxLength: 4 }),
        (perPage, refSplit) => {
          const d = emptyDay();
          pages.forEach((p, i) => {
            const n = perPage[i]!;
            if (!n) return;
            d.pages[p] = n;
            d.human += n;
            d.languages[p.startsWith("/en/") || p === "/en/" ? "en" : "fr"] += n;
          });
          // Split the reads over referrers: four domains, the rest direct.
          let left = d.human;
          ["a.example", "b.example", "c.example", "d.example"].forEach((dom, i) => {
            const n = Math.min(left, refSplit[i]!);
            if (n) d.referrers[dom] = n;
            left -= n;
          });
          if (left) d.referrers[""] = left;
          const pub = publishDay("2026-11-20", d);
          const ok = (n: number) => n === 0 || n >= K;
          if (pub.human.total.reads === null) return pub.human.pages === null && pub.human.referrers === null;
          const total = pub.human.total.reads;
          const sum = (b: { cells: { reads: number }[] }) => b.cells.reduce((s, c) => s + c.reads, 0);
          // Every stated figure, and every total minus the named cells of a breakdown.
          const derived: number[] = [total];
          for (const b of [pub.human.languages!, pub.human.referrers!]) {
            derived.push(...b.cells.map((c) => c.reads), b.other.reads, total - sum(b));
            if (b.other.reads !== total - sum(b)) return false;
          }
          const langs = new Map(pub.human.languages!.cells.map((c) => [c.key, c.reads]));
          for (const [key, b] of Object.entries(pub.human.pages!)) {
            const base = key === "all" ? total : langs.get(key)!;
            derived.push(...b.cells.map((c) => c.reads), b.other.reads, base - sum(b));
            if (b.other.reads !== base - sum(b)) return false;
          }
          // Both languages minus every named page of both.
          const allNamed = Object.values(pub.human.pages!).reduce((s, b) => s + sum(b), 0);
          derived.push(total - allNamed);
          return derived.every(ok);
        },
      ),
      { numRuns: 3000 },
    );
    // The check can fail: a bucket of one cell under k is what it refuses.
    expect(breakdown({ a: 10, b: 3 }).other.reads).not.toBe(3);
  });
});

describe("access logs that a careless or hostile server hands over", () => {
  const at = (n: number) =>
    `2026-11-20T10:${String(Math.floor(n / 60) % 60).padStart(2, "0")}:${String(n % 60).padStart(2, "0")}Z`;
  const lines = (n: number, path = "/series/", from = 0) =>
    Array.from({ length: n }, (_, i) => line(`203.0.113.${(i % 200) + 1}`, at(from + i), path));
  const fresh = (): TrafficState => ({ version: 1, files: {}, days: {}, publishedThrough: null });
  const options = { now: "2026-11-21T10:00:00Z", ownHost: "risques.example.org", pages: new Set(["/series/"]) };

  it("leaves out a damaged gzip, a gzip bomb, a device and a FIFO, naming each, and counts the rest", async () => {
    const dir = tempDir("risk-traffic-hostile-");
    writeFileSync(join(dir, "good.log"), `${lines(10).join("\n")}\n`);
    writeFileSync(join(dir, "damaged.gz"), Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(5000)]));
    // Compresses to a few KB, gunzips to 64 MiB: over the cap given here.
    writeFileSync(join(dir, "bomb.gz"), gzipSync(Buffer.alloc(64 << 20, 0x41)));
    execFileSync("mkfifo", [join(dir, "fifo.log")]);
    // A Unix socket, which cannot even be opened.
    execFileSync("python3", [
      "-c",
      "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])",
      join(dir, "socket.log"),
    ]);
    const files = ["good.log", "damaged.gz", "bomb.gz", "fifo.log", "socket.log"].map((f) => join(dir, f));
    const state = fresh();
    const report = await ingestLogs([...files, "/dev/zero"], state, { ...options, maxBytes: 8 << 20 });
    expect(report.counted).toBe(10);
    expect(Object.fromEntries(report.skipped.map((s) => [s.file.replace(`${dir}/`, ""), s.reason]))).toEqual({
      "damaged.gz": expect.stringContaining("not a gzip stream"),
      "bomb.gz": "gunzips to over 8 MiB",
      "fifo.log": "not a regular file",
      "socket.log": "not a regular file",
      "/dev/zero": "not a regular file",
    });
  });

  it("tells apart two logs that both start with a line too long to read", async () => {
    const dir = tempDir("risk-traffic-long-first-");
    writeFileSync(join(dir, "a.log"), `${"x".repeat(5 << 20)}\n`);
    writeFileSync(join(dir, "b.log"), `${"y".repeat((1 << 20) + 100_000)}\n${lines(20).join("\n")}\n`);
    const state = fresh();
    await ingestLogs([join(dir, "a.log")], state, options);
    const report = await ingestLogs([join(dir, "b.log")], state, options);
    expect(report.counted).toBe(20);
    expect(report.alreadyCounted).toBe(0);
  });

  it("finds a log that a glob matches through a symbolic link, as the file it leads to", async () => {
    const dir = tempDir("risk-traffic-glob-link-");
    mkdirSync(join(dir, "logs"));
    writeFileSync(join(dir, "real-access.log"), `${lines(3).join("\n")}\n`);
    symlinkSync(join(dir, "real-access.log"), join(dir, "logs/access.log"));
    symlinkSync(join(dir, "nowhere.log"), join(dir, "logs/access.log.1"));
    expect(await logFiles(dir, ["logs/access.log*"])).toEqual([join(dir, "logs/access.log")]);
  });

  it("counts the same content once when a batch names it twice, as a copy, a link or its .gz", async () => {
    const dir = tempDir("risk-traffic-twice-");
    const text = `${lines(30).join("\n")}\n`;
    writeFileSync(join(dir, "access.log"), text);
    writeFileSync(join(dir, "access.log.1.gz"), gzipSync(text));
    symlinkSync(join(dir, "access.log"), join(dir, "link.log"));
    const state = fresh();
    const files = ["access.log", "access.log", "access.log.1.gz", "link.log"].map((f) => join(dir, f));
    const report = await ingestLogs(files, state, options);
    expect(report.counted).toBe(30);
    expect(report.alreadyCounted).toBe(90);
    expect(state.days["2026-11-20"]!.human).toBe(30);
  });

  it("does not gunzip again a rotated log whose lines are all counted, and reads it again once they are not", async () => {
    const dir = tempDir("risk-traffic-sealed-");
    const file = join(dir, "access.log.2.gz");
    // Random referrers keep the gzip large: its middle lies beyond the 64 KiB read at each end.
    const all = Array.from({ length: 6000 }, (_, i) =>
      line(`203.0.113.${(i % 200) + 1}`, at(i % 600), "/series/", {
        ref: `https://example.com/${randomBytes(48).toString("hex")}`,
      }),
    );
    const gz = gzipSync(`${all.join("\n")}\n`);
    expect(gz.length).toBeGreaterThan(4 * 65536);
    writeFileSync(file, gz);
    const state = fresh();
    expect((await ingestLogs([file], state, options)).counted).toBe(6000);
    expect(Object.values(state.sealed ?? {})).toHaveLength(1);

    // Its middle damaged, ends and size kept: read again, this gzip could not be gunzipped. It is
    // known by its fingerprint, so its lines are taken as counted without gunzipping it.
    const damaged = Buffer.from(gz);
    damaged.fill(0x55, 2 * 65536, 2 * 65536 + 4096);
    writeFileSync(file, damaged);
    const again = await ingestLogs([file], state, options);
    expect(again).toMatchObject({ counted: 0, alreadyCounted: 6000, skipped: [], files: 1 });

    // Counts forgotten (a state started again): the fingerprint alone counts nothing as done, and
    // the log is gunzipped, here found damaged.
    const forgotten = { ...state, files: {} };
    const read = await ingestLogs([file], forgotten, options);
    expect(read.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/not a gzip stream/)]);

    // The same log whole again after a rotation renamed it: still not gunzipped, still counted once.
    writeFileSync(file, gz);
    renameSync(file, join(dir, "access.log.3.gz"));
    const renamed = await ingestLogs([join(dir, "access.log.3.gz")], state, options);
    expect(renamed).toMatchObject({ counted: 0, alreadyCounted: 6000 });
    expect(state.days["2026-11-20"]!.human).toBe(6000);
  });

  it("counts a log first read with one or two lines only once when it grows", async () => {
    const dir = tempDir("risk-traffic-grow-");
    const file = join(dir, "access.log");
    const all = lines(100);
    const state = fresh();
    writeFileSync(file, `${all.slice(0, 1).join("\n")}\n`);
    expect((await ingestLogs([file], state, options)).counted).toBe(1);
    writeFileSync(file, `${all.slice(0, 2).join("\n")}\n`);
    expect((await ingestLogs([file], state, options)).counted).toBe(1);
    writeFileSync(file, `${all.join("\n")}\n`);
    expect((await ingestLogs([file], state, options)).counted).toBe(98);
    expect((await ingestLogs([file], state, options)).counted).toBe(0);
    expect(Object.keys(state.files)).toHaveLength(1);
  });

  it("streams a log of over 1 GiB, counting its lines without holding it in memory", async () => {
    const dir = tempDir("risk-traffic-huge-");
    const file = join(dir, "access.log");
    // Lines, then a 1.1 GiB hole (a sparse file: zeros read, no disk taken), then lines again.
    writeFileSync(file, `${lines(12).join("\n")}\n`);
    const hole = Math.round(1.1 * 2 ** 30);
    truncateSync(file, statSync(file).size + hole);
    appendFileSync(file, `\n${lines(12, "/series/", 20).join("\n")}\n`);
    const rssBefore = process.resourceUsage().maxRSS;
    const state = fresh();
    const report = await ingestLogs([file], state, options);
    const grewMiB = (process.resourceUsage().maxRSS - rssBefore) / 1024;
    expect(report.skipped).toEqual([]);
    // The zeros are one line over a megabyte: malformed, never held whole.
    expect([report.counted, report.malformed]).toEqual([24, 1]);
    expect(state.days["2026-11-20"]!.human).toBe(24);
    expect(grewMiB).toBeLessThan(256);
  }, 60_000);

  it("reads lines that start with the virtual host, and counts a request line that is no request as dropped, not malformed", async () => {
    const dir = tempDir("risk-traffic-vhost-");
    const file = join(dir, "other_vhosts_access.log");
    const garbage = [
      // A TLS handshake on the plain port, a connection that sent nothing, an SSH banner, as nginx writes them.
      '203.0.113.9 - - [20/Nov/2026:10:00:00 +0000] "\\x16\\x03\\x01\\x00\\xF1\\x01" 400 157 "-" "-"',
      '203.0.113.9 - - [20/Nov/2026:10:00:01 +0000] "-" 400 0 "-" "-"',
      '203.0.113.9 - - [20/Nov/2026:10:00:02 +0000] "SSH-2.0-Go" 400 157 "-" "-"',
    ];
    writeFileSync(
      file,
      `${[
        // Apache's vhost_combined (%v:%p first), and nginx's `$host $remote_addr ...`.
        ...lines(3).map((l) => `risques.example.org:443 ${l}`),
        ...lines(3, "/series/", 10).map((l) => `risques.example.org ${l}`),
        ...garbage,
      ].join("\n")}\n`,
    );
    const state = fresh();
    const report = await ingestLogs([file], state, options);
    expect(report.malformed).toBe(0);
    expect(report.counted).toBe(9);
    expect(state.days["2026-11-20"]!.pages).toEqual({ "/series/": 6 });
  });

  it("says how many lines of a Common Log Format it counted as robots, for want of a user agent", async () => {
    const dir = tempDir("risk-traffic-common-");
    const file = join(dir, "access.log");
    // Common Log Format: the Combined line without its referrer and user agent.
    const common = lines(6).map((l) => l.replace(/ "[^"]*" "[^"]*"$/, ""));
    writeFileSync(file, `${[...common, ...lines(2, "/series/", 10)].join("\n")}\n`);
    const state = fresh();
    const report = await ingestLogs([file], state, options);
    expect(report).toMatchObject({ counted: 8, common: 6, malformed: 0 });
    expect(state.days["2026-11-20"]).toMatchObject({ human: 2, robots: 6 });
    expect(commonLogWarning(report.common)).toMatch(
      /^6 line\(s\) in the Common Log Format.*none counts as a human read.*Combined/,
    );
  });

  it("never names a path that is no page of the publication, nor an address as a referrer; impossible dates are malformed", async () => {
    const dir = tempDir("risk-traffic-keys-");
    const file = join(dir, "access.log");
    const odd = [
      line("203.0.113.1", at(1), "/alice.smith@example.com/"),
      line("203.0.113.2", at(2), `/${"a".repeat(3000)}/`),
      line("203.0.113.3", at(3), "/series/", { ref: "http://192.168.1.10/x" }),
      line("203.0.113.4", at(4), "/series/", { ref: "http://[2001:db8::1]/x" }),
      line("203.0.113.5", at(5), "/series/", { ref: "https://Evil.Example./x" }),
      line("203.0.113.6", at(6), "/series/", { ref: "https://evil.example/y" }),
      line("203.0.113.7", at(7), "/series/", { status: 999 }),
    ];
    const impossible = [
      '203.0.113.8 - - [30/Feb/2026:10:00:00 +0000] "GET /series/ HTTP/1.1" 200 5 "-" "x"',
      '203.0.113.9 - - [20/Nov/2026:25:61:61 +0000] "GET /series/ HTTP/1.1" 200 5 "-" "x"',
      '203.0.113.9 - - [20/Nov/2026:10:00:00 +9999] "GET /series/ HTTP/1.1" 200 5 "-" "x"',
    ];
    writeFileSync(file, `${[...odd, ...impossible].join("\n")}\n`);
    const state = fresh();
    const report = await ingestLogs([file], state, options);
    expect(report.malformed).toBe(4);
    const day = state.days["2026-11-20"]!;
    expect(day.pages).toEqual({ [OTHER_PAGES]: 2, "/series/": 4 });
    expect(day.referrers).toEqual({ "": 2, [OTHER_REFERRERS]: 2, "evil.example": 2 });
    // A path under /en/ that is no page is counted with the English reads.
    writeFileSync(file, `${line("203.0.113.10", at(8), "/en/no-such-page/")}\n`);
    await ingestLogs([file], state, options);
    expect(state.days["2026-11-20"]!.pages[OTHER_PAGES_EN]).toBe(1);
    expect(state.days["2026-11-20"]!.languages.en).toBe(1);
  });
});

describe("reads of paths that are no page, in each language", () => {
  it("are counted apart, so that each language's pages add up to its total and no figure under k can be subtracted", () => {
    const d = emptyDay();
    d.human = 22;
    d.languages = { fr: 10, en: 12 };
    d.pages = { "/": 10, "/en/": 10, [OTHER_PAGES_EN]: 2 };
    const day = publishDay("2026-11-20", d);
    const { languages, pages } = day.human;
    expect(languages!.cells).toEqual([
      { key: "en", reads: 12 },
      { key: "fr", reads: 10 },
    ]);
    for (const l of ["fr", "en"] as const) {
      const total = languages!.cells.find((c) => c.key === l)!.reads;
      const b = pages![l]!;
      expect(b.cells.reduce((n, c) => n + c.reads, 0) + b.other.reads, l).toBe(total);
      // What subtraction recovers is the "other" bucket: never a figure between 1 and k - 1.
      expect(b.other.reads === 0 || b.other.reads >= 5, l).toBe(true);
    }
    expect(pages!.fr!.cells).toEqual([{ key: "/", reads: 10 }]);
    // With one language published, both kinds of other path are one cell.
    const mixed = emptyDay();
    mixed.human = 14;
    mixed.languages = { fr: 12, en: 2 };
    mixed.pages = { "/": 6, [OTHER_PAGES]: 6, [OTHER_PAGES_EN]: 2 };
    expect(publishDay("2026-11-20", mixed).human.pages!.all!.cells).toContainEqual({ key: OTHER_PAGES, reads: 8 });
  });
});
