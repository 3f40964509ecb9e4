import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { loadPublication, type Publication } from "../../core/inputs/publication.ts";
import { adaptDocument, roundValue } from "../../core/inputs/upstream.ts";
import { levelOf } from "../../core/levels.ts";
import { durationSeconds, resolveSignals } from "../../core/signals.ts";
import { signalFreshness } from "../../core/surfaces/freshness.ts";
import { fetchHttp } from "../../cli/runtime/http.ts";
import { nodeFs } from "../../cli/runtime/node.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { reading, upstreamServer } from "../helpers/upstream-server.ts";

const NOW = "2026-11-21T10:00:00Z";

async function configError(edit: (text: string) => string): Promise<string> {
  const dir = demoCopy();
  editFile(`${dir}/risk.config.yaml`, edit);
  try {
    await loadPublication(nodeFs, dir);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("the publication loaded without error");
}

describe("instrument configuration", () => {
  it("names the key of a source that is neither a path nor an http:, https: or file: URL", async () => {
    const message = await configError((t) =>
      t.replace("source: upstream/eu.json", "source: ftp://example.org/eu.json"),
    );
    expect(message).toMatch(/risk\.config\.yaml:\d+ \(field instruments\.eu\.source\): .*http:, https: or file: URL/);
  });

  it("names the key of a staleAfter in months, which has no fixed length", async () => {
    const message = await configError((t) => t.replace("staleAfter: P2D", "staleAfter: P1M"));
    expect(message).toMatch(/\(field instruments\.debt\.staleAfter\): .*without years or months/);
  });

  it("names the key of a collection limit that is not a positive number", async () => {
    const message = await configError((t) => `${t}collection:\n  timeoutSeconds: -1\n`);
    expect(message).toMatch(/\(field collection\.timeoutSeconds\)/);
  });
});

describe("the one rounding rule and the levels", () => {
  it("rounds to one decimal, half away from zero, including binary near-halves", () => {
    expect([
      roundValue(52.47),
      roundValue(2.25),
      roundValue(2.35),
      roundValue(-2.25),
      roundValue(0.05),
      roundValue(99.95),
    ]).toEqual([52.5, 2.3, 2.4, -2.3, 0.1, 100]);
  });

  it("rounds a value written just under a half down and a binary near-half of arithmetic up", () => {
    expect([
      roundValue(49.9499999999),
      roundValue(49.949999),
      roundValue((4.995 / 10) * 100),
      roundValue(49.95),
      roundValue(1e-7),
      roundValue(0.04999),
      roundValue(-0.05),
      roundValue(100),
      roundValue(1234567.85),
    ]).toEqual([49.9, 49.9, 50, 50, 0, 0, -0.1, 100, 1234567.9]);
    // The level follows the rounded value: 49.9499999999 is Modéré, not Élevé/Tendu.
    expect(levelOf(roundValue(49.9499999999), { moderate: 25, elevated: 50, crisis: 75 }).level).toBe("Modéré");
  });

  it("treats each threshold as the inclusive lower bound of its level", () => {
    const t = { moderate: 25, elevated: 50, crisis: 75 };
    expect([0, 24.9, 25, 49.9, 50, 74.9, 75, 100].map((v) => levelOf(v, t).tone)).toEqual([
      "calm",
      "calm",
      "moderate",
      "moderate",
      "elevated",
      "elevated",
      "crisis",
      "crisis",
    ]);
    expect(levelOf(50, t).level).toBe("Élevé/Tendu");
  });

  it("gives expiresAt to the millisecond an upstream published, so that both call a value stale at the same instant", async () => {
    const dir = demoCopy();
    editFile(`${dir}/upstream/us.json`, (t) =>
      t.replace('"publishedAt": "2026-11-21T05:30:00Z"', '"publishedAt": "2026-11-21T07:30:00.999+02:00"'),
    );
    const pub = await loadPublication(nodeFs, dir);
    const at = async (now: string) => {
      const u = await collectUpstream(pub, { fs: nodeFs }, { attemptedAt: now });
      const us = resolveSignals(pub, u, null)[0]!;
      return { quality: us.present && us.qualityStatus, ...signalFreshness(us, now) };
    };
    expect(await at("2026-11-22T05:30:00Z")).toEqual({
      quality: "nominal",
      updatedAt: "2026-11-21T05:30:00.999Z",
      expiresAt: "2026-11-22T05:30:00.999Z",
      timeliness: "fresh",
    });
    expect(await at("2026-11-22T05:30:01Z")).toMatchObject({ quality: "stale", timeliness: "stale" });
  });

  it("is described by the demo's guide on risk levels with the staleAfter its config gives", async () => {
    const demo = await loadPublication(nodeFs, `${ROOT}demo`);
    const after = Object.values(demo.config.instruments).map((c) => c!.staleAfter);
    expect(after).toEqual(["PT24H", "PT24H", "PT24H", "PT24H", "P2D"]);
    const fr = readFileSync(`${ROOT}demo/content/guides/fr/lire-les-niveaux-de-risque.md`, "utf8");
    const en = readFileSync(`${ROOT}demo/content/guides/en/reading-risk-levels.md`, "utf8");
    expect(fr).toContain(
      "périmés vingt-quatre heures après leur publication par la source, le risque de la dette après deux jours",
    );
    expect(en).toContain("stale twenty-four hours after the source published them, debt risk after two days");
  });

  it("reads ISO 8601 durations in weeks, days, hours, minutes and seconds", () => {
    expect([
      durationSeconds("PT6H"),
      durationSeconds("P2D"),
      durationSeconds("P1W"),
      durationSeconds("P1DT30M"),
      durationSeconds("PT90S"),
    ]).toEqual([21600, 172800, 604800, 88200, 90]);
  });
});

describe("upstream adapters", () => {
  const doc = (over: Record<string, unknown>) =>
    JSON.stringify({ ...reading("us", 31.4, "2026-11-21T09:30:00Z"), ...over });

  it("publishes a date-time with an offset in UTC, and refuses a naive one", () => {
    expect(adaptDocument("us", "u", doc({ publishedAt: "2026-11-21T11:30:00+02:00" })).publishedAt).toBe(
      "2026-11-21T09:30:00Z",
    );
    expect(() => adaptDocument("us", "u", doc({ observedAt: "2026-11-20 21:00:00" }))).toThrow(
      /field observedAt at line 1: a date-time without a time zone/,
    );
  });

  it("refuses a value below zero, above the scale, or not a number", () => {
    expect(() => adaptDocument("us", "u", doc({ value: -0.1 }))).toThrow("value -0.1 is outside 0..100");
    expect(() => adaptDocument("us", "u", doc({ value: 100.1 }))).toThrow("value 100.1 is outside 0..100");
    expect(() => adaptDocument("us", "u", doc({ value: "NaN" }))).toThrow(/field value/);
    expect(() => adaptDocument("us", "u", '{"value": NaN}')).toThrow(/not valid JSON/);
  });

  it("refuses a reading of another instrument", () => {
    expect(() => adaptDocument("eu", "u", doc({}))).toThrow(
      'field instrument: a reading of another instrument, not "eu"',
    );
  });
});

describe("collectUpstream over files", () => {
  let p: Publication;
  beforeAll(async () => {
    p = await loadPublication(nodeFs, `${ROOT}demo`);
  });

  it("reads a file: URL like a path of the publication", async () => {
    const url = pathToFileURL(`${ROOT}demo/upstream/us.json`).href;
    const withUrl = {
      ...p,
      config: { ...p.config, instruments: { us: { ...p.config.instruments.us!, source: url } } },
    };
    const u = await collectUpstream(withUrl, { fs: nodeFs }, { attemptedAt: NOW });
    expect(u.instruments.us).toMatchObject({ ok: true, source: url, reading: { value: 31.4 } });
  });

  it("reports a missing file as unreachable and a file over the cap as too-large", async () => {
    const broken = {
      ...p,
      config: {
        ...p.config,
        instruments: { ...p.config.instruments, us: { ...p.config.instruments.us!, source: "upstream/nope.json" } },
      },
    };
    const u = await collectUpstream(broken, { fs: nodeFs }, { attemptedAt: NOW, limits: { maxBytes: 100 } });
    expect(u.instruments.us).toMatchObject({ ok: false, status: "unreachable" });
    expect(u.instruments.eu).toMatchObject({ ok: false, status: "too-large" });
    expect(Object.keys(u.instruments)).toEqual(["us", "eu", "yen", "energie", "debt"]);
  });

  it("marks a fresh reading older than staleAfter as stale, without falling back", async () => {
    const u = await collectUpstream(p, { fs: nodeFs }, { attemptedAt: "2026-11-22T06:00:00Z" });
    const [us] = resolveSignals(p, u, null);
    expect(us).toMatchObject({
      present: true,
      sourceStatus: "ok",
      qualityStatus: "stale",
      fallbackUsed: false,
      value: 31.4,
    });
    expect(us!.present && us!.reason).toMatch(/PT24H or more ago/);
  });

  it("calls a reading exactly staleAfter old stale, as freshness.json does from its expiresAt on", async () => {
    // The demo's us reading was published at 2026-11-21T05:30:00Z with staleAfter PT24H.
    const at = async (now: string) => {
      const u = await collectUpstream(p, { fs: nodeFs }, { attemptedAt: now });
      const us = resolveSignals(p, u, null)[0]!;
      return { quality: us.present && us.qualityStatus, timeliness: signalFreshness(us, now).timeliness };
    };
    expect(await at("2026-11-22T05:29:59Z")).toEqual({ quality: "nominal", timeliness: "fresh" });
    expect(await at("2026-11-22T05:30:00Z")).toEqual({ quality: "stale", timeliness: "stale" });
  });
});

describe("the fetch adapter", () => {
  let server: Awaited<ReturnType<typeof upstreamServer>>;
  beforeAll(async () => {
    server = await upstreamServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const http = fetchHttp();
  const request = { timeoutMs: 400, maxBytes: 5_000_000, accept: "application/json" };

  it("gives a redirect back without following it", async () => {
    server.set("/r", { redirects: 1 });
    const r = await http.get(server.url("/r"), request);
    expect(r).toMatchObject({ kind: "response", status: 302, headers: { location: "/hop-0-x" } });
  });

  it("times out a slow drip, the body included, within its timer", async () => {
    server.set("/drip", "slow-drip");
    const r = await http.get(server.url("/drip"), request);
    expect(r.kind).toBe("timeout");
    expect(r.elapsedMs).toBeGreaterThanOrEqual(395);
    expect(r.elapsedMs).toBeLessThan(1000);
  });

  it("stops reading a gzip bomb at the cap after decompression", async () => {
    server.set("/bomb", "gzip-bomb");
    const r = await http.get(server.url("/bomb"), { ...request, timeoutMs: 5000, maxBytes: 1_000_000 });
    expect(r).toMatchObject({ kind: "too-large" });
  });

  it("reports a refused connection as a network failure", async () => {
    const closed = await upstreamServer();
    const url = closed.url("/x");
    await closed.close();
    const r = await http.get(url, request);
    expect(r).toMatchObject({ kind: "network" });
    expect(r.kind !== "response" && r.message).toMatch(/ECONNREFUSED/);
  });
});

describe("a file written by hand", () => {
  it("with an HTML body is never a value, whatever its name", async () => {
    const dir = demoCopy();
    writeFileSync(`${dir}/upstream/us.json`, "<html><body>Service unavailable</body></html>");
    const u = await collectUpstream(await loadPublication(nodeFs, dir), { fs: nodeFs }, { attemptedAt: NOW });
    expect(u.instruments.us).toMatchObject({ ok: false, status: "unexpected-content" });
    expect(u.instruments.eu).toMatchObject({ ok: true });
  });
});

describe("a value retained past its expiry", () => {
  it("is stale on every surface of the frame, as freshness.json says, with the reason for both", () => {
    const pub = demoCopy();
    const out = tempDir("risk-retained-stale-");
    const run = (now: string) =>
      runCli(["assemble", "--publication", pub, "--site", `${out}/site`, "--archive", `${out}/a.git`, "--now", now]);
    expect(run("2026-11-21T12:00:00Z").status).toBe(0);
    writeFileSync(`${pub}/upstream/yen.json`, "{broken");
    // The retained reading is younger than staleAfter: degraded.
    expect(run("2026-11-21T13:00:00Z").status).toBe(0);
    const yen = (file: string) => JSON.parse(readFileSync(`${out}/site/api/v1/${file}`, "utf8"));
    const current = () =>
      yen("signals/current.json").signals.find((s: { instrument: string }) => s.instrument === "yen");
    expect(current().qualityStatus).toBe("degraded");
    // Days later, past its expiry: stale, on the signals as in freshness.json and the risk diff.
    expect(run("2026-11-24T12:00:00Z").status).toBe(0);
    expect(current()).toMatchObject({ qualityStatus: "stale", fallbackUsed: true });
    expect(current().reason).toMatch(/the value retained was published at .*, PT\w+ or more ago/);
    expect(yen("freshness.json").producers.find((p: { id: string }) => p.id === "yen").timeliness).toBe("stale");
    expect(yen("risk.json").indices.yen.qualityStatus).toBe("stale");
    const window = yen("risk-diff.json").windows[0];
    expect(window.sources.find((s: { instrument: string }) => s.instrument === "yen").stale).toBe(true);
  });
});
