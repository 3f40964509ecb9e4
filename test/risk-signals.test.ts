/**
 * A misbehaving upstream, end to end: the `us` upstream is a real HTTP server on 127.0.0.1 that misbehaves in one
 * way per case, between two healthy assemblies. Each case must end with its documented status,
 * the last good value retained and flagged, the other instruments untouched, the assembly
 * completed; the next healthy assembly clears the fallback.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAssemble } from "../cli/commands/assemble.ts";
import { at, showBlob } from "./helpers/archive.ts";
import { demoCopy, editFile } from "./helpers/publication.ts";
import { tempDir } from "./helpers/tmp.ts";
import { upstreamServer, type Behaviour } from "./helpers/upstream-server.ts";

type Server = Awaited<ReturnType<typeof upstreamServer>>;
type Json = Record<string, any>;

let server: Server;
beforeAll(async () => {
  server = await upstreamServer("us");
});
afterAll(async () => {
  await server.close();
});

/** A demo publication whose `us` instrument is collected from `url`, with a short timeout. */
function publicationWith(url: string, options: { instrument?: string; timeoutSeconds?: number } = {}): string {
  const pub = demoCopy();
  const key = options.instrument ?? "us";
  editFile(
    `${pub}/risk.config.yaml`,
    (t) =>
      t.replace(new RegExp(`(\\n  ${key}:\\n(?:    .*\\n)*?    source: ).*`), `$1${url}`) +
      `collection:\n  timeoutSeconds: ${options.timeoutSeconds ?? 0.5}\n`,
  );
  return pub;
}

function site(dir: string) {
  const read = (path: string): Json => JSON.parse(readFileSync(`${dir}/site${path}`, "utf8"));
  return {
    risk: read("/api/v1/risk.json"),
    current: read("/api/v1/signals/current.json"),
    debt: read("/api/v1/debt-risk.json"),
  };
}

const CASES: [string, Behaviour, string, RegExp][] = [
  ["an HTTP 500", "http-500", "http-error", /HTTP 500/],
  ["an HTTP 304 Not Modified", "http-304", "http-error", /HTTP 304$/],
  ["no answer at all (timeout)", "no-answer", "timeout", /no complete answer within 500 ms/],
  ["a slow drip of bytes", "slow-drip", "timeout", /no complete answer within 500 ms/],
  ["an HTML page with status 200", "html-200", "unexpected-content", /HTML page with status 200/],
  ["invalid JSON", "invalid-json", "invalid-json", /not valid JSON/],
  ["an oversized body", "oversized", "too-large", /5000000-byte cap/],
  ["a gzip bomb", "gzip-bomb", "too-large", /after decompression/],
  ["a redirect loop", "redirect-loop", "redirect-error", /redirect loop/],
  ["a schema change", "schema-change", "invalid-document", /field format|field value|score/],
  ["a naive timestamp", "naive-timestamp", "invalid-document", /publishedAt.*without a time zone/],
  ["a value out of range", "out-of-range", "out-of-range", /value 140 is outside 0\.\.100/],
];

describe("collection from a misbehaving upstream over HTTP", () => {
  for (const [name, behaviour, status, reason] of CASES) {
    it(`keeps the last good value after ${name} (${status}), then clears the fallback once the upstream is healthy`, async () => {
      const path = `/case-${status}-${String(behaviour)}`;
      const dir = tempDir("risk-sig-");
      const pub = publicationWith(server.url(path));
      const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };

      server.set(path, "good");
      server.serveGood(31.4, "2026-11-21T09:30:00Z");
      await runAssemble({ ...paths, now: at(0) });
      const healthy = site(dir);
      expect(healthy.risk.indices.us).toMatchObject({
        value: 31.4,
        sourceStatus: "ok",
        fallbackUsed: false,
        lastSuccessAt: at(0),
      });

      server.set(path, behaviour);
      const broken = await runAssemble({ ...paths, now: at(15) });
      expect(broken.frameId).toBe(`000002-20261121T101500Z`);
      const s = site(dir);
      expect(s.risk.indices.us).toEqual({
        ...healthy.risk.indices.us,
        sourceStatus: status,
        qualityStatus: "degraded",
        fallbackUsed: true,
        lastAttemptAt: at(15),
        // kept: the value, its upstream publication time, the last successful check and collection
        value: 31.4,
        sourceUpdatedAt: "2026-11-21T09:30:00Z",
        sourceCheckedAt: at(0),
        lastSuccessAt: at(0),
      });
      expect(s.risk.status).toBe("degraded");
      expect(s.risk.missing).toEqual([]);
      const us = s.current.signals.find((x: Json) => x.instrument === "us");
      expect(us.reason).toMatch(reason);
      expect(us).toMatchObject({
        seriesDate: "2026-11-21",
        observedAt: "2026-11-20T21:00:00Z",
        fallbackUsed: true,
        sourceStatus: status,
      });
      // The other instruments are untouched.
      for (const key of ["eu", "yen", "energie", "debt"]) {
        expect(s.risk.indices[key]).toEqual({
          ...healthy.risk.indices[key],
          sourceCheckedAt: at(15),
          lastAttemptAt: at(15),
          lastSuccessAt: at(15),
        });
      }
      const frame = JSON.parse(showBlob(`${dir}/archive`, "HEAD", "frame.json").toString("utf8"));
      expect(frame.signals.us).toMatchObject({
        value: 31.4,
        fallbackUsed: true,
        sourceStatus: status,
        lastSuccessAt: at(0),
        lastAttemptAt: at(15),
      });
      expect(frame.signals.us.reason).toMatch(reason);

      server.set(path, "good");
      server.serveGood(44, "2026-11-21T10:20:00Z");
      await runAssemble({ ...paths, now: at(30) });
      const again = site(dir);
      expect(again.risk.indices.us).toMatchObject({
        value: 44,
        sourceStatus: "ok",
        qualityStatus: "nominal",
        fallbackUsed: false,
        sourceUpdatedAt: "2026-11-21T10:20:00Z",
        sourceCheckedAt: at(30),
        lastAttemptAt: at(30),
        lastSuccessAt: at(30),
      });
      expect(again.risk.status).toBe("nominal");
    });
  }

  it("reports an instrument missing, never invented, when it fails with no earlier value", async () => {
    const path = "/first-500";
    server.set(path, "http-500");
    const dir = tempDir("risk-sig-");
    const summary = await runAssemble({
      site: `${dir}/site`,
      archive: `${dir}/archive`,
      publication: publicationWith(server.url(path)),
      now: at(0),
      json: true,
    });
    expect(summary.ok).toBe(true);
    const s = site(dir);
    expect(s.risk.indices.us).toBeUndefined();
    expect(Object.keys(s.risk.indices)).toEqual(["debt", "energie", "eu", "yen"]);
    expect(s.risk.missing).toEqual([
      { instrument: "us", sourceStatus: "http-error", reason: `${server.url(path)}: HTTP 500`, lastAttemptAt: at(0) },
    ]);
    expect(s.current.missing).toEqual(s.risk.missing);
    expect(s.current.signals.map((x: Json) => x.instrument)).toEqual(["eu", "yen", "energie", "debt"]);
    const frame = JSON.parse(showBlob(`${dir}/archive`, "HEAD", "frame.json").toString("utf8"));
    expect(frame.signals.us).toMatchObject({
      value: null,
      level: null,
      sourceStatus: "http-error",
      lastSuccessAt: null,
    });
  });

  it("follows up to three redirects and refuses a fourth", async () => {
    const dir = tempDir("risk-sig-");
    server.serveGood(31.4, "2026-11-21T09:30:00Z");
    server.set("/three", { redirects: 3 });
    server.set("/four", { redirects: 4 });
    const three = publicationWith(server.url("/three"));
    await runAssemble({
      site: `${dir}/a/site`,
      archive: `${dir}/a/archive`,
      publication: three,
      now: at(0),
      json: true,
    });
    expect(JSON.parse(readFileSync(`${dir}/a/site/api/v1/risk.json`, "utf8")).indices.us).toMatchObject({
      value: 31.4,
      sourceStatus: "ok",
    });
    const four = publicationWith(server.url("/four"));
    await runAssemble({
      site: `${dir}/b/site`,
      archive: `${dir}/b/archive`,
      publication: four,
      now: at(0),
      json: true,
    });
    expect(JSON.parse(readFileSync(`${dir}/b/site/api/v1/risk.json`, "utf8")).missing).toEqual([
      {
        instrument: "us",
        sourceStatus: "redirect-error",
        reason: `${server.url("/four")}: more than 3 redirects`,
        lastAttemptAt: at(0),
      },
    ]);
  });
});

describe("one published value per instrument", () => {
  it("publishes the debt score with the same value and level on every surface, around the thresholds", async () => {
    const dir = tempDir("risk-sig-");
    const pub = demoCopy();
    const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };
    // The demo's debt thresholds: 25, 50, 75. Each score is published on its own UTC day, so the
    // canonical history keeps one row per score.
    const cases: [number, number, string][] = [
      [49.5, 49.5, "Modéré"],
      [49.94, 49.9, "Modéré"],
      [49.95, 50, "Élevé/Tendu"],
      [50, 50, "Élevé/Tendu"],
      [50.04, 50, "Élevé/Tendu"],
      [52.47, 52.5, "Élevé/Tendu"],
      [74.96, 75, "Crise"],
    ];
    for (const [day, [scoreRaw, value, level]] of cases.entries()) {
      const now = at(day * 24 * 60);
      editFile(`${pub}/upstream/debt-latest.json`, (t) =>
        JSON.stringify({ ...JSON.parse(t), scoreRaw, generatedAt: now }),
      );
      await runAssemble({ ...paths, now });
      const { risk, current, debt } = site(dir);
      const seen = {
        risk: [risk.indices.debt.value, risk.indices.debt.level],
        current: current.signals.filter((s: Json) => s.instrument === "debt").map((s: Json) => [s.value, s.level])[0],
        debt: [debt.signal.value, debt.signal.level],
      };
      expect(seen, `scoreRaw ${scoreRaw}`).toEqual({
        risk: [value, level],
        current: [value, level],
        debt: [value, level],
      });
      expect(debt.provenance.scoreRaw).toBe(scoreRaw);
    }
    // The canonical history, fused and per series, has the same published values for every closed day.
    const rows = (path: string) => {
      const [head, ...lines] = readFileSync(`${dir}/site${path}`, "utf8").trim().split("\n");
      const names = head.split(",");
      return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [names[i], c])));
    };
    const published = cases.slice(0, -1).map(([, value, level]) => [String(value), level]);
    expect(
      rows("/api/v1/signals/history.csv")
        .filter((r) => r.instrument === "debt")
        .map((r) => [r.value, r.level]),
    ).toEqual(published);
    expect(rows("/api/v1/signals/us-debt-risk/history.csv").map((r) => [r.value, r.level])).toEqual(published);
  });
});

describe("the debt source over HTTP", () => {
  it("retains the previous frame's provenance, buckets, sources and top signals with the retained debt value", async () => {
    const debtDoc = JSON.parse(readFileSync(new URL("../demo/upstream/debt-latest.json", import.meta.url), "utf8"));
    server.set("/debt", { json: debtDoc });
    const dir = tempDir("risk-sig-");
    const pub = publicationWith(server.url("/debt"), { instrument: "debt" });
    const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };
    await runAssemble({ ...paths, now: at(0) });
    const before = site(dir).debt;
    // provenance.scoreRaw rounded by the one rule (52.47 gives 52.5), as risk.json publishes it.
    expect(before.signal).toMatchObject({ value: 52.5, rawValue: 52.47, sourceStatus: "ok" });
    expect(before.provenance).toMatchObject({
      scoreRaw: 52.47,
      coverage: { observed: 0.85 },
      url: "https://debt.example.org/data/latest.json",
    });

    server.set("/debt", "html-200");
    await runAssemble({ ...paths, now: at(15) });
    const after = site(dir);
    expect(after.debt.status).toBe("degraded");
    expect(after.debt.signal).toMatchObject({
      value: 52.5,
      rawValue: 52.47,
      fallbackUsed: true,
      sourceStatus: "unexpected-content",
      qualityStatus: "degraded",
      lastSuccessAt: at(0),
      lastAttemptAt: at(15),
    });
    expect(after.debt.signal).toEqual(after.risk.indices.debt);
    for (const key of ["provenance", "buckets", "sources", "topSignals"]) expect(after.debt[key]).toEqual(before[key]);
  });

  it("refuses a debt score that includes the budget office's projections", async () => {
    const debtDoc = JSON.parse(readFileSync(new URL("../demo/upstream/debt-latest.json", import.meta.url), "utf8"));
    server.set("/debt-cbo", { json: { ...debtDoc, excludesBudgetOfficeProjections: false } });
    const dir = tempDir("risk-sig-");
    const pub = publicationWith(server.url("/debt-cbo"), { instrument: "debt" });
    await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, now: at(0), json: true });
    const { debt } = site(dir);
    expect(debt).toMatchObject({
      status: "missing",
      signal: null,
      provenance: null,
      buckets: [],
      missing: { instrument: "debt", sourceStatus: "invalid-document" },
    });
  });
});

describe("parallel collection", () => {
  it("collects five slow upstreams in about the time of one", async () => {
    const dir = tempDir("risk-sig-");
    const pub = demoCopy();
    for (const key of ["us", "eu", "yen", "energie"])
      server.set(`/slow-${key}`, {
        json: JSON.parse(readFileSync(`${pub}/upstream/${key}.json`, "utf8")),
        delayMs: 300,
      });
    server.set("/slow-debt", {
      json: JSON.parse(readFileSync(`${pub}/upstream/debt-latest.json`, "utf8")),
      delayMs: 300,
    });
    editFile(`${pub}/risk.config.yaml`, (t) =>
      t
        .replace(/source: upstream\/(us|eu|yen|energie)\.json/g, (_, k) => `source: ${server.url(`/slow-${k}`)}`)
        .replace("source: upstream/debt-latest.json", `source: ${server.url("/slow-debt")}`),
    );
    const t = performance.now();
    const summary = await runAssemble({
      site: `${dir}/site`,
      archive: `${dir}/archive`,
      publication: pub,
      now: at(0),
      json: true,
    });
    const ms = performance.now() - t;
    expect(summary.ok).toBe(true);
    expect(site(dir).risk.status).toBe("nominal");
    expect(ms).toBeGreaterThan(300);
    // Sequential collection would take 1.5 s; parallel takes 300 ms plus the assembly itself.
    expect(ms).toBeLessThan(1200);
  });
});
