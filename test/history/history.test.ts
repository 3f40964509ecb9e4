/**
 * History from the archive: a series of assemblies whose `us` reading crosses the
 * elevated threshold, skips a day, and comes back down. Everything published about the history
 * (journal, fused history, CSVs, Atom) is read from the site and the archive as a user would.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runReplay } from "../../cli/commands/replay.ts";
import { runVerify } from "../../cli/commands/verify.ts";
import { csvField, xmlText } from "../../core/render/text.ts";
import { SignalHistoryLine } from "../../core/surfaces/signal-history.ts";
import { git, replaceInTree, rewrite, showBlob } from "../helpers/archive.ts";
import { demoCopy } from "../helpers/publication.ts";
import { ROOT } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

type Json = Record<string, any>;
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const ELEVATED_AT = "2026-11-21T10:30:00Z";
const CHANGE_ID = "000003-20261121T103000Z/us";

function setUs(pub: string, value: number, extra: Json = {}) {
  writeFileSync(
    `${pub}/upstream/us.json`,
    JSON.stringify({
      format: "risk-dashboard-reading/1",
      instrument: "us",
      value,
      scale: 100,
      rawValue: value / 100,
      rawUnit: "écarts-types",
      observedAt: "2026-11-20T21:00:00Z",
      publishedAt: "2026-11-21T05:30:00Z",
      qualityStatus: "nominal",
      ...extra,
    }),
  );
}

/** Frames (instant, us value): two days with frames, a day without, then a fourth day. */
const SERIES: [string, number][] = [
  ["2026-11-21T10:00:00Z", 31.4],
  ["2026-11-21T10:15:00Z", 40],
  [ELEVATED_AT, 55], // Modéré -> Élevé/Tendu
  ["2026-11-21T10:45:00Z", 56],
  ["2026-11-22T09:00:00Z", 57], // closes 2026-11-21 (last point 56)
  ["2026-11-24T08:00:00Z", 20], // closes 2026-11-22 (57); nothing on 2026-11-23; Élevé/Tendu -> Détendu
  ["2026-11-24T08:15:00Z", 21],
];

async function series(options: { upto?: number; keep?: (i: number, site: string) => void } = {}) {
  const pub = demoCopy();
  const dir = tempDir("risk-hist-");
  const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };
  const summaries = [];
  for (const [i, [now, value]] of SERIES.slice(0, options.upto ?? SERIES.length).entries()) {
    setUs(pub, value);
    summaries.push(await runAssemble({ ...paths, now }));
    options.keep?.(i, paths.site);
  }
  const read = (path: string) => readFileSync(`${paths.site}${path}`, "utf8");
  return { ...paths, dir, pub, summaries, read, json: (path: string): Json => JSON.parse(read(path)) };
}

const lines = (text: string): Json[] =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("level changes", () => {
  it("appear once in history.ndjson, history.json and risk.xml, with ids that stay the same in later assemblies", async () => {
    const early = await series({ upto: 4 });
    const late = await series();
    for (const s of [early, late]) {
      const ndjson = lines(s.read("/api/v1/signals/history.ndjson")).filter((l) => l.recordType === "level-change");
      expect(ndjson.filter((l) => l.id === CHANGE_ID)).toHaveLength(1);
      expect(ndjson.find((l) => l.id === CHANGE_ID)).toMatchObject({
        instrument: "us",
        seriesId: "us-financial-stress",
        at: ELEVATED_AT,
        fromLevel: "Modéré",
        toLevel: "Élevé/Tendu",
        fromValue: 40,
        toValue: 55,
        backtestable: false,
      });
      expect(s.json("/api/v1/signals/history.json").levelChanges).toEqual(ndjson);
      const xml = s.read("/api/v1/risk.xml");
      expect(
        xml.split("<id>tag:risques.example.org,2026-11-21:level-change/000003-20261121T103000Z/us</id>"),
      ).toHaveLength(2);
    }
    // The later series adds the fall back to Détendu, newest first in the feed.
    const ids = [...late.read("/api/v1/risk.xml").matchAll(/<entry>\s*<id>([^<]+)<\/id>/g)].map((m) => m[1]);
    expect(ids).toEqual([
      "tag:risques.example.org,2026-11-24:level-change/000006-20261124T080000Z/us",
      "tag:risques.example.org,2026-11-21:level-change/000003-20261121T103000Z/us",
    ]);
    // Each was found against the archive's previous frame, and the journal records it there.
    const journal = lines(late.read("/api/v1/history.ndjson"));
    expect(journal.filter((r) => r.levelChanges.length > 0).map((r) => [r.frameId, r.levelChanges])).toEqual([
      ["000003-20261121T103000Z", [CHANGE_ID]],
      ["000006-20261124T080000Z", ["000006-20261124T080000Z/us"]],
    ]);
  });

  it("escape markup and drop XML-illegal characters of an upstream string in risk.xml, which jing validates against RFC 4287", async () => {
    const pub = demoCopy();
    const dir = tempDir("risk-atom-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };
    setUs(pub, 30);
    await runAssemble({ ...paths, now: "2026-11-21T10:00:00Z" });
    // An upstream text with a control character is an invalid document (never published); the
    // XML writer still drops what XML 1.0 cannot carry, should any other string hold it.
    setUs(pub, 80, { rawUnit: 'σ</content><script>alert("x")</script> & ]]>' });
    await runAssemble({ ...paths, now: "2026-11-21T10:15:00Z" });
    const file = `${paths.site}/api/v1/risk.xml`;
    const xml = readFileSync(file, "utf8");
    expect(xml).toContain("σ&lt;/content&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ]]&gt;");
    expect(xmlText("a\u0001\u0008\u001b\uFFFE\uD800b")).toBe("ab");
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    expect(xml).not.toContain("<script>");
    expect(() =>
      execFileSync("jing", ["-c", `${ROOT}test/fixtures/atom-rfc4287.rnc`, file], { encoding: "utf8" }),
    ).not.toThrow();
  });

  it("make jing fail on a feed that breaks RFC 4287, so the validation above can fail", async () => {
    const dir = tempDir("risk-atom-bad-");
    const bad = `${dir}/bad.xml`;
    writeFileSync(
      bad,
      '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>\n',
    );
    expect(() =>
      execFileSync("jing", ["-c", `${ROOT}test/fixtures/atom-rfc4287.rnc`, bad], { encoding: "utf8", stdio: "pipe" }),
    ).toThrow();
  });
});

describe("the fused signal history", () => {
  it("keeps the last point of each closed UTC day, without interpolating the day that had no frame", async () => {
    const s = await series();
    const history = s.json("/api/v1/signals/history.json");
    const us = history.observations.filter((o: Json) => o.instrument === "us");
    expect(us.map((o: Json) => [o.seriesDate, o.value, o.frameId])).toEqual([
      ["2026-11-21", 56, "000004-20261121T104500Z"],
      ["2026-11-22", 57, "000005-20261122T090000Z"],
    ]);
    expect(history.coverage).toMatchObject({
      firstSeriesDate: "2026-11-21",
      lastSeriesDate: "2026-11-22",
      openDay: "2026-11-24",
      days: 2,
      observations: 10,
    });
    expect(history.current).toMatchObject({ seriesDate: "2026-11-24", evidenceTier: "current-snapshot" });
    expect(history.dailyJournal.map((d: Json) => [d.seriesDate, d.records])).toEqual([
      ["2026-11-21", 4],
      ["2026-11-22", 1],
    ]);
    expect(history.attestedFrames.map((f: Json) => [f.seriesDate, f.frameId, f.commit])).toEqual([
      ["2026-11-21", "000004-20261121T104500Z", s.summaries[3]!.commit],
      ["2026-11-22", "000005-20261122T090000Z", s.summaries[4]!.commit],
    ]);
    expect(history.evidenceTiers.map((t: Json) => t.id)).toEqual([
      "operational-archive",
      "attested-archive",
      "current-snapshot",
    ]);
    expect(history.backtestPolicy).toMatchObject({ backtestable: ["observation"], notBacktestable: ["level-change"] });
    // The NDJSON stream: meta, then observations, then level changes, the same rows as the JSON.
    const stream = lines(s.read("/api/v1/signals/history.ndjson"));
    expect(stream.map((l) => l.recordType)).toEqual([
      "meta",
      ...Array(10).fill("observation"),
      "level-change",
      "level-change",
    ]);
    expect(stream.filter((l) => l.recordType === "observation")).toEqual(history.observations);
    for (const line of stream) expect(SignalHistoryLine.safeParse(line).success).toBe(true);
  });

  it("dates a point by its publication day (seriesDate), apart from the upstream observation (observedAt)", async () => {
    const s = await series({ upto: 5 });
    const point = s.json("/api/v1/signals/history.json").observations.find((o: Json) => o.instrument === "us");
    expect(point).toMatchObject({
      seriesDate: "2026-11-21",
      observedAt: "2026-11-20T21:00:00Z",
      publishedAt: "2026-11-21T10:45:00Z",
      evidenceTier: "attested-archive",
      backtestable: true,
    });
  });

  it("marks a day whose last frame retained a value after an upstream failure as operational-archive", async () => {
    const s = await series({ upto: 4 });
    rmSync(`${s.pub}/upstream/us.json`);
    await runAssemble({
      site: s.site,
      archive: s.archive,
      publication: s.pub,
      json: true,
      now: "2026-11-21T23:45:00Z",
    });
    setUs(s.pub, 50);
    await runAssemble({
      site: s.site,
      archive: s.archive,
      publication: s.pub,
      json: true,
      now: "2026-11-22T00:00:00Z",
    });
    const us = s.json("/api/v1/signals/history.json").observations.find((o: Json) => o.instrument === "us");
    expect(us).toMatchObject({
      seriesDate: "2026-11-21",
      value: 56,
      fallbackUsed: true,
      sourceStatus: "unreachable",
      evidenceTier: "operational-archive",
    });
    const eu = s.json("/api/v1/signals/history.json").observations.find((o: Json) => o.instrument === "eu");
    expect(eu.evidenceTier).toBe("attested-archive");
  });

  it("publishes a per-series CSV that pandas.read_csv loads with seriesDate as a DatetimeIndex and numeric values", async () => {
    const s = await series();
    const file = `${s.site}/api/v1/signals/us-financial-stress/history.csv`;
    const script = [
      "import json, sys, pandas",
      'df = pandas.read_csv(sys.argv[1], parse_dates=["seriesDate"], index_col="seriesDate")',
      "numeric = pandas.api.types.is_numeric_dtype",
      'print(json.dumps({"index": type(df.index).__name__, "value": numeric(df["value"]), "raw": numeric(df["rawValue"]),',
      '  "dates": [d.strftime("%Y-%m-%d") for d in df.index], "values": df["value"].tolist(), "columns": list(df.columns)}))',
    ].join("\n");
    const out = JSON.parse(execFileSync("/usr/bin/python3", ["-c", script, file], { encoding: "utf8" }));
    expect(out).toMatchObject({
      index: "DatetimeIndex",
      value: true,
      raw: true,
      dates: ["2026-11-21", "2026-11-22"],
      values: [56, 57],
    });
    expect(out.columns).toContain("observedAt");
    // The flat CSV holds every series.
    const flat = s.read("/api/v1/signals/history.csv").trimEnd().split("\n");
    expect(flat[0]!.startsWith("seriesDate,seriesId,instrument,value,")).toBe(true);
    expect(flat).toHaveLength(11);
  });

  it("quotes CSV fields with a comma, a quote or a line break, and strips control characters", async () => {
    const pub = demoCopy();
    const dir = tempDir("risk-csv-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };
    // An upstream text with a line break or a control character is an invalid document (never
    // published); the CSV writer still quotes the one and strips the other, should any string hold them.
    expect(csvField('a, "b"\nc\u0001')).toBe('"a, ""b""\nc"');
    setUs(pub, 30, { rawUnit: 'écarts, "types" ligne' });
    await runAssemble({ ...paths, now: "2026-11-21T10:00:00Z" });
    await runAssemble({ ...paths, now: "2026-11-22T10:00:00Z" });
    const csv = readFileSync(`${paths.site}/api/v1/signals/us-financial-stress/history.csv`, "utf8");
    expect(csv).toContain(',"écarts, ""types"" ligne",');
    const script =
      'import sys, pandas\ndf = pandas.read_csv(sys.argv[1], parse_dates=["seriesDate"], index_col="seriesDate")\nprint(df["rawUnit"].iloc[0])';
    expect(
      execFileSync("/usr/bin/python3", ["-c", script, `${paths.site}/api/v1/signals/us-financial-stress/history.csv`], {
        encoding: "utf8",
      }),
    ).toBe('écarts, "types" ligne\n');
  });

  it("publishes a JSON Schema 2020-12 of the three line types, generated from the zod schemas", async () => {
    const s = await series({ upto: 1 });
    const schema = s.json("/api/v1/signals/schema.json");
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.oneOf).toEqual([
      { $ref: "#/$defs/SignalHistoryMeta" },
      { $ref: "#/$defs/SignalObservation" },
      { $ref: "#/$defs/SignalLevelChange" },
    ]);
    expect(Object.keys(schema.$defs).sort()).toEqual(["SignalHistoryMeta", "SignalLevelChange", "SignalObservation"]);
    const recordType = (name: string) => schema.$defs[name].properties.recordType.const;
    expect(["SignalHistoryMeta", "SignalObservation", "SignalLevelChange"].map(recordType)).toEqual([
      "meta",
      "observation",
      "level-change",
    ]);
    expect(schema.$defs.SignalObservation.properties.backtestable.const).toBe(true);
    expect(schema.$defs.SignalLevelChange.properties.backtestable.const).toBe(false);
  });
});

describe("the operational journal", () => {
  it("holds one record per assembly, is stored as UTC-day shards, and replays byte for byte at any frame", async () => {
    const copies: string[] = [];
    const s = await series({
      keep: (i, site) => {
        const copy = `${site}-at-${i}`;
        cpSync(site, copy, { recursive: true });
        copies.push(copy);
      },
    });
    const journal = s.read("/api/v1/history.ndjson");
    expect(lines(journal).map((r) => r.frameId)).toEqual(s.summaries.map((x) => x.frameId));
    expect(git(s.archive, "ls-tree", "-r", "--name-only", "HEAD", "journal").split("\n")).toEqual([
      "journal/2026/11/21.ndjson",
      "journal/2026/11/22.ndjson",
      "journal/2026/11/24.ndjson",
    ]);
    expect(git(s.archive, "ls-tree", "-r", "--name-only", "HEAD", "site/api/v1/history.ndjson")).toBe("");
    const integrity = s.json("/api/v1/integrity.json").surfaces.find((x: Json) => x.path === "/api/v1/history.ndjson");
    expect(integrity).toMatchObject({ sha256: sha256(Buffer.from(journal)), bytes: Buffer.byteLength(journal) });
    for (const i of [1, 4, 6]) {
      const out = `${s.dir}/replay-${i}`;
      await runReplay({ archive: s.archive, date: SERIES[i]![0], out, json: true });
      expect(treeDigest(out)).toEqual(treeDigest(copies[i]!));
    }
    expect((await runVerify({ archive: s.archive, json: true })).frames).toBe(SERIES.length);
  });

  it("lists in each record's changed what replay lists as added or changed, the journal and integrity.json included", async () => {
    const s = await series({ upto: 3 });
    const records = lines(s.read("/api/v1/history.ndjson"));
    for (const [i, record] of records.entries()) {
      const { frame } = await runReplay({ archive: s.archive, date: SERIES[i]![0], json: true });
      expect(record.frameId).toBe(frame.frameId);
      expect(record.changed).toEqual([...frame.changes.added, ...frame.changes.changed].sort());
      expect(record.changed).toEqual(expect.arrayContaining(["/api/v1/history.ndjson", "/api/v1/integrity.json"]));
    }
  });

  it("is rebuilt from the archive's shards when the site folder is gone (a fresh clone)", async () => {
    const s = await series({ upto: 3 });
    const before = s.read("/api/v1/history.ndjson");
    rmSync(s.site, { recursive: true });
    setUs(s.pub, 56);
    await runAssemble({ site: s.site, archive: s.archive, publication: s.pub, json: true, now: SERIES[3]![0] });
    const after = s.read("/api/v1/history.ndjson");
    expect(after.startsWith(before)).toBe(true);
    expect(lines(after)).toHaveLength(4);
    expect(sha256(Buffer.from(after))).toBe(
      s.json("/api/v1/integrity.json").surfaces.find((x: Json) => x.path === "/api/v1/history.ndjson").sha256,
    );
    await runVerify({ archive: s.archive, json: true });
  });

  it("leaves the live journal as it was when the assembly fails at its commit", async () => {
    const s = await series({ upto: 2 });
    const before = readFileSync(`${s.site}/api/v1/history.ndjson`);
    // The branch cannot move (its ref lock is taken), so the commit fails after the new site,
    // with the journal copied and appended to, was staged.
    mkdirSync(`${s.archive}/refs/heads/main.lock`, { recursive: true });
    await expect(
      runAssemble({ site: s.site, archive: s.archive, publication: s.pub, json: true, now: SERIES[2]![0] }),
    ).rejects.toMatchObject({ code: "E_LOCKED" });
    expect(readFileSync(`${s.site}/api/v1/history.ndjson`).equals(before)).toBe(true);
    expect(readdirSync(dirname(s.site)).sort()).toEqual(["archive", "site"]);
  });

  it("fails verify, naming the frame and the shard, when an old journal shard is tampered with", async () => {
    const s = await series({ upto: 6 });
    // Frame 6 (2026-11-24) rewrites the 2026-11-21 shard, as a forger editing an old record would.
    const path = "journal/2026/11/21.ndjson";
    rewrite(s.archive, 5, (tree) => {
      const text = showBlob(s.archive, tree, path).toString("utf8").replace('"value":56', '"value":65');
      return replaceInTree(s.archive, tree, path, text);
    });
    await expect(runVerify({ archive: s.archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: s.summaries[5]!.frameId, path },
    });
  });

  it("fails verify when the record a frame appended was changed, even in its own frame", async () => {
    const s = await series({ upto: 3 });
    const path = "journal/2026/11/21.ndjson";
    rewrite(s.archive, 2, (tree) =>
      replaceInTree(
        s.archive,
        tree,
        path,
        showBlob(s.archive, tree, path).toString("utf8").replace('"value":55', '"value":54'),
      ),
    );
    await expect(runVerify({ archive: s.archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: s.summaries[2]!.frameId, path: "/api/v1/history.ndjson" },
    });
  });

  it("fails verify when a daily point in the history shards is rewritten", async () => {
    const s = await series({ upto: 6 });
    const path = "history/daily/2026/11.ndjson";
    rewrite(s.archive, 5, (tree) =>
      replaceInTree(
        s.archive,
        tree,
        path,
        showBlob(s.archive, tree, path).toString("utf8").replace('"value":57', '"value":75'),
      ),
    );
    await expect(runVerify({ archive: s.archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: s.summaries[5]!.frameId, path },
    });
  });
});

describe("cost per frame", () => {
  it("writes the same objects at frame 202 as at frame 106: nothing grows with the history", {
    timeout: 300_000,
  }, async () => {
    const dir = tempDir("risk-cost-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive`, json: true };
    const objectBytes = () => {
      let total = 0;
      for (const line of execFileSync("find", [`${paths.archive}/objects`, "-type", "f"], { encoding: "utf8" })
        .trim()
        .split("\n"))
        total += statSync(line).size;
      return total;
    };
    const cost: Record<number, { blobs: number; bytes: number }> = {};
    const T0 = Date.parse("2026-11-21T00:00:00Z");
    for (let n = 1; n <= 202; n++) {
      const before = n === 106 || n === 202 ? objectBytes() : 0;
      const now = new Date(T0 + (n - 1) * 15 * 60_000).toISOString().replace(".000Z", "Z");
      const summary = await runAssemble({ ...paths, now });
      if (n === 106 || n === 202) cost[n] = { blobs: summary.blobsWritten, bytes: objectBytes() - before };
    }
    // Frames 106 and 202 are at the same time of day (202 = 106 + 96), so the day's journal shard
    // holds as many records, and both are past the black box's 24 recent frames (it is full);
    // frame 202 has one more closed day and 96 more journal records behind it.
    expect(cost[202]!.blobs).toBe(cost[106]!.blobs);
    // The one object that grows is the frame log's last partial tile (tile/0/000.p/N: N hashes of
    // 32 bytes), bounded by a full tile (256 hashes, 8 KB) whatever the history's length.
    expect(cost[202]!.bytes - cost[106]!.bytes).toBeLessThan(256 * 32 + 0.02 * cost[106]!.bytes);
    expect(cost[202]!.bytes / cost[106]!.bytes).toBeGreaterThan(0.98);
    expect(lines(readFileSync(`${paths.site}/api/v1/history.ndjson`, "utf8"))).toHaveLength(202);
  });
});
