/**
 * What the archive's history publishes: the changefeed, the risk diff, freshness, the bounded black box, replay's
 * frame print and `diff`, over series of assemblies on simulated days with upstream files and
 * corpus edited between frames.
 */
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runDiff } from "../../cli/commands/diff.ts";
import { runReplay } from "../../cli/commands/replay.ts";
import { runVerify } from "../../cli/commands/verify.ts";
import { EXIT } from "../../cli/exit.ts";
import { git, replaceInTree, rewrite } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir } from "../helpers/tmp.ts";

type Json = Record<string, any>;

const DAY = 86_400_000;
const T0 = "2026-11-21T10:00:00Z";
/** T0 plus days and minutes, as an assembly instant. */
const when = (days: number, minutes = 0) =>
  new Date(Date.parse(T0) + days * DAY + minutes * 60_000).toISOString().replace(".000Z", "Z");

/** A demo copy, a site and an archive; `assemble(now)` runs one assembly of it. */
function series() {
  const pub = demoCopy();
  const dir = tempDir("risk-hist-");
  const paths = { site: `${dir}/site`, archive: `${dir}/archive`, publication: pub, json: true };
  return {
    pub,
    dir,
    ...paths,
    // Simulated days run ahead of the clock: allowed, as a test of many days must.
    assemble: (now: string) => runAssemble({ ...paths, now, allowFuture: true }),
    read: (path: string): Json => JSON.parse(readFileSync(`${dir}/site${path}`, "utf8")),
    text: (path: string) => readFileSync(`${dir}/site${path}`, "utf8"),
  };
}

/** Sets an upstream reading's value and publication time. */
function upstream(pub: string, key: string, value: number, publishedAt: string) {
  editFile(`${pub}/upstream/${key}.json`, (t) => JSON.stringify({ ...JSON.parse(t), value, publishedAt }, null, 2));
}

describe("the changefeed", () => {
  it("records a semantic edit, a whitespace-only edit, a new article and a methodology version bump, each with its hashes", async () => {
    const s = series();
    await s.assemble(when(0));
    const first = s.read("/api/v1/changes.json");
    expect(first.entries).toEqual([]);
    expect(first.tracking.since.frameId).toBe("000001-20261121T100000Z");

    editFile(
      `${s.pub}/content/articles/fr/spread-btp-bund-2026.md`,
      (t) => `${t.trimEnd()}\n\nUn paragraphe ajouté, qui dit quelque chose de neuf.\n`,
    );
    editFile(`${s.pub}/content/articles/fr/liquidite-bancaire-repo.md`, (t) =>
      t.replace(/\n\n(?=[^\n])/, "\n\n\n").replace(/\. (?=[A-Z])/, ".   "),
    );
    writeFileSync(
      `${s.pub}/content/articles/fr/nouvel-article.md`,
      '---\ntitle: "Un nouvel article"\ndescription: "Ce qui est neuf."\ndate: 2026-11-22\ntopics: [banques-centrales]\n---\n\nTexte du nouvel article.\n',
    );
    editFile(`${s.pub}/content/methodologies/tension-carry-yen.yaml`, (t) =>
      t.replace(/^version: .*$/m, "version: 2.0.0"),
    );
    const edited = await s.assemble(when(1));
    const feed = s.read("/api/v1/changes.json");
    const byId = Object.fromEntries(feed.entries.map((e: Json) => [e.id, e]));

    expect(byId["article/fr/spread-btp-bund-2026"]).toMatchObject({
      status: "modified",
      semantic: true,
      category: "revision",
      frameId: edited.frameId,
      at: when(1),
    });
    expect(byId["article/fr/liquidite-bancaire-repo"]).toMatchObject({
      status: "modified",
      semantic: false,
      category: "revision",
    });
    expect(byId["article/fr/nouvel-article"]).toMatchObject({
      status: "added",
      semantic: true,
      category: "publication",
      version: "2026-11-22",
      previousHash: null,
      title: "Un nouvel article",
    });
    expect(byId["methodology/tension-carry-yen"]).toMatchObject({
      status: "modified",
      category: "policy",
      version: "2.0.0",
      versionChanged: true,
      semantic: true,
    });
    expect(byId["methodology/tension-carry-yen"].previousVersion).not.toBe("2.0.0");
    for (const e of feed.entries) {
      if (e.status === "modified") expect(e.hash).not.toBe(e.previousHash);
      expect(e.hash ?? e.previousHash).toMatch(/^[0-9a-f]{64}$/);
    }
    // seq numbers every entry, newest first, and the NDJSON twin carries the same entries.
    expect(feed.entries.map((e: Json) => e.seq)).toEqual(
      [...Array(feed.entries.length).keys()].map((i) => feed.entries.length - i),
    );
    expect(feed.window).toMatchObject({ total: feed.entries.length, oldestSeq: 1, truncated: false });
    expect(
      s
        .text("/api/v1/changes.ndjson")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(feed.entries);
    // The previous hash of an edit is the hash the object had when it was published before.
    editFile(`${s.pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => `${t.trimEnd()}\n\nEncore une phrase.\n`);
    await s.assemble(when(2));
    const again = s.read("/api/v1/changes.json").entries.find((e: Json) => e.id === "article/fr/spread-btp-bund-2026");
    expect(again.previousHash).toBe(byId["article/fr/spread-btp-bund-2026"].hash);
  });

  it("adds nothing, and keeps its bytes, in a steady-state assembly", async () => {
    const s = series();
    await s.assemble(when(0));
    editFile(`${s.pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => `${t.trimEnd()}\n\nUne phrase de plus.\n`);
    await s.assemble(when(0, 15));
    const before = s.read("/api/v1/changes.json");
    const ndjson = s.text("/api/v1/changes.ndjson");
    expect(before.entries.length).toBeGreaterThan(0);
    const steady = await s.assemble(when(0, 30));
    expect(steady.reused).toEqual(expect.arrayContaining(["/api/v1/changes.json", "/api/v1/changes.ndjson"]));
    expect(steady.changed).not.toContain("/api/v1/changes.json");
    const { generated: _a, ...rest } = s.read("/api/v1/changes.json");
    const { generated: _b, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    expect(s.text("/api/v1/changes.ndjson")).toBe(ndjson);
    await expect(runVerify({ archive: s.archive, json: true })).resolves.toMatchObject({ frames: 3 });
  });

  it("announces every article of 200 added at once, their claims too, then keeps the newest 200", async () => {
    const s = series();
    await s.assemble(when(0));
    for (let i = 0; i < 200; i++)
      writeFileSync(
        `${s.pub}/content/articles/fr/lot-${i}.md`,
        `---\ntitle: "Note ${i}"\ndescription: "Une note."\ndate: 2026-11-01\n---\n\nLe 3 mars 2026, l’indicateur ${i} a atteint ${i + 10},5 %, selon la [Banque de France](https://www.banque-france.fr/statistiques/${i}).\n`,
      );
    await s.assemble(when(0, 15));
    const feed = s.read("/api/v1/changes.json");
    const ids = new Set(feed.entries.map((e: Json) => e.id));
    for (let i = 0; i < 200; i++) expect(ids.has(`article/fr/lot-${i}`), `lot-${i}`).toBe(true);
    expect(feed.entries.filter((e: Json) => e.kind === "claim")).toHaveLength(200);
    expect(feed.window).toMatchObject({ total: 400, oldestSeq: 1, truncated: false });
    expect(s.text("/api/v1/changes.ndjson").trimEnd().split("\n")).toHaveLength(400);
    editFile(`${s.pub}/content/articles/fr/lot-0.md`, (t) => `${t}\nUne phrase de plus.\n`);
    await s.assemble(when(0, 30));
    const next = s.read("/api/v1/changes.json");
    expect(next.entries).toHaveLength(200);
    expect(next.window).toMatchObject({ total: 401, oldestSeq: 202, truncated: true });
  });
});

describe("the risk diff", () => {
  it("has no baseline while the archive is younger than a window, and says so", async () => {
    const s = series();
    await s.assemble(when(0));
    await s.assemble(when(0, 15));
    const diff = s.read("/api/v1/risk-diff.json");
    expect(diff.windows.map((w: Json) => w.window)).toEqual(["P1D", "P7D", "P30D"]);
    for (const w of diff.windows) {
      expect(w.baseline).toBeNull();
      expect(w.reason).toBe(
        `the archive is younger than ${w.days} day${w.days > 1 ? "s" : ""}: its first frame is at ${T0}`,
      );
      expect(w.confidence.level).toBe("none");
    }
  });

  it("compares with the last frame at or before each window start: signal moves, level changes, new data, models, articles, claims", async () => {
    const s = series();
    upstream(s.pub, "us", 31.4, when(0, -60));
    const base = await s.assemble(when(0));
    await s.assemble(when(0, 15));
    upstream(s.pub, "us", 55.2, when(1, 10));
    editFile(`${s.pub}/content/methodologies/stress-financier-us.yaml`, (t) =>
      t.replace(/^version: .*$/m, "version: 7.0.0"),
    );
    editFile(`${s.pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => `${t.trimEnd()}\n\nUn ajout qui compte.\n`);
    await s.assemble(when(1, 5));
    const w = s.read("/api/v1/risk-diff.json").windows.find((x: Json) => x.window === "P1D");
    // now − 1 day is T0 + 5 min: the frame at T0 is the last at or before it.
    expect(w.baseline).toMatchObject({ frameId: base.frameId, commit: base.commit, at: T0, lagSeconds: 300 });
    expect(w.reason).toBeNull();
    expect(w.signals.find((m: Json) => m.instrument === "us")).toEqual({
      instrument: "us",
      from: { value: 31.4, level: "Modéré", tone: "moderate" },
      to: { value: 55.2, level: "Élevé/Tendu", tone: "elevated" },
      change: 23.8,
      direction: "up",
      levelChanged: true,
    });
    expect(w.signals.find((m: Json) => m.instrument === "eu")).toMatchObject({
      change: 0,
      direction: "unchanged",
      levelChanged: false,
    });
    expect(w.sources.find((x: Json) => x.instrument === "us")).toMatchObject({
      newData: true,
      sourceUpdatedAtFrom: when(0, -60),
      sourceUpdatedAtTo: when(1, 10),
      stale: false,
    });
    expect(w.sources.find((x: Json) => x.instrument === "eu")).toMatchObject({ newData: false, stale: true });
    expect(w.models).toEqual([
      { slug: "stress-financier-us", from: expect.not.stringMatching(/^7\.0\.0$/), to: "7.0.0" },
    ]);
    expect(w.articles.updated.map((a: Json) => a.id)).toEqual(["article/fr/spread-btp-bund-2026"]);
    expect(w.articles.complete).toBe(true);
    expect(w.claims).toMatchObject({ added: [], complete: true });
    // Exact baseline, but eu, yen and energie are stale (their readings are older than PT24H).
    expect(w.confidence.level).toBe("medium");
    expect(w.confidence.basis).toEqual(
      expect.arrayContaining([
        `exact baseline: frame ${base.frameId}, 300 s before the window start`,
        "stale upstream now: eu, yen, energie",
      ]),
    );
    for (const longer of ["P7D", "P30D"])
      expect(s.read("/api/v1/risk-diff.json").windows.find((x: Json) => x.window === longer).baseline).toBeNull();
  });

  it("lists each article and claim once against the baseline: two edits are one update, an article removed and put back is no change", async () => {
    const s = series();
    await s.assemble(when(0));
    const spread = `${s.pub}/content/articles/fr/spread-btp-bund-2026.md`;
    const repo = `${s.pub}/content/articles/fr/liquidite-bancaire-repo.md`;
    const repoText = readFileSync(repo, "utf8");
    editFile(spread, (t) => `${t.trimEnd()}\n\nUn premier ajout qui compte.\n`);
    unlinkSync(repo);
    await s.assemble(when(0, 15));
    editFile(spread, (t) => `${t.trimEnd()}\n\nUn second ajout qui compte.\n`);
    writeFileSync(repo, repoText);
    await s.assemble(when(0, 30));
    await s.assemble(when(1, 5));
    const w = s.read("/api/v1/risk-diff.json").windows.find((x: Json) => x.window === "P1D");
    expect(w.baseline.at).toBe(T0);
    // The feed holds five entries for these two articles; the baseline differs from now by one update.
    expect(w.articles.updated.map((a: Json) => [a.id, a.at])).toEqual([
      ["article/fr/spread-btp-bund-2026", when(0, 30)],
    ]);
    expect(w.articles.added).toEqual([]);
    expect(w.articles.removed).toEqual([]);
    expect(w.claims.added).toEqual([]);
    expect(w.claims.corrected).toEqual([]);
  });
});

describe("freshness", () => {
  it("gives each producer its staleAfter and expiresAt, and turns a producer stale once staleAfter has passed", async () => {
    const s = series();
    upstream(s.pub, "us", 31.4, when(0, -60));
    await s.assemble(when(0));
    const fresh = s.read("/api/v1/freshness.json");
    const us = fresh.producers.find((p: Json) => p.id === "us");
    expect(us).toMatchObject({
      kind: "dashboard",
      staleAfter: "PT24H",
      updatedAt: when(0, -60),
      expiresAt: when(1, -60),
      timeliness: "fresh",
      fallbackUsed: false,
    });
    expect(fresh.producers.find((p: Json) => p.id === "debt")).toMatchObject({
      kind: "debt-source",
      staleAfter: "P2D",
      source: "https://debt.example.org/data/latest.json",
    });
    expect(fresh.producers.find((p: Json) => p.id === "debt").coverage.ratio).toBeGreaterThan(0);
    expect(fresh.producers.find((p: Json) => p.id === "editorial")).toMatchObject({
      kind: "editorial-corpus",
      staleAfter: "P30D",
      timeliness: "fresh",
    });
    expect(fresh.corpus.counts).toMatchObject({ articles: 13, guides: 4, methodologies: 5 });
    expect(fresh.corpus.latest.articles[0]).toMatchObject({ slug: "risk-confluence-autumn-2026" });
    expect(fresh.endpoints.map((e: Json) => e.path)).toEqual(
      expect.arrayContaining(["/api/v1/changes.json", "/api/v1/risk-diff.json", "/api/v1/freshness.json"]),
    );

    const steady = await s.assemble(when(0, 15));
    expect(steady.changed).not.toContain("/api/v1/freshness.json");
    await s.assemble(when(1, -61));
    expect(s.read("/api/v1/freshness.json").producers.find((p: Json) => p.id === "us").timeliness).toBe("fresh");
    await s.assemble(when(1, -60));
    const stale = s.read("/api/v1/freshness.json");
    expect(stale.producers.find((p: Json) => p.id === "us").timeliness).toBe("stale");
    // The corpus part of a steady-state assembly is the previous frame's, unchanged.
    expect(stale.corpus).toEqual(fresh.corpus);
  });

  it("is unknown for a producer with nothing published", async () => {
    const s = series();
    editFile(`${s.pub}/risk.config.yaml`, (t) =>
      t.replace("source: upstream/yen.json", "source: upstream/absent.json"),
    );
    await s.assemble(when(0));
    expect(s.read("/api/v1/freshness.json").producers.find((p: Json) => p.id === "yen")).toMatchObject({
      timeliness: "unknown",
      updatedAt: null,
      expiresAt: null,
      coverage: { ratio: 0 },
    });
  });
});

describe("the black box", () => {
  it("stays bounded after many frames: 24 recent frames and a summary of the last 30 days", async () => {
    const s = series();
    const sizes: number[] = [];
    for (let day = 0; day < 40; day++) {
      await s.assemble(when(day));
      sizes.push(Buffer.byteLength(s.text("/api/v1/black-box.json")));
    }
    const box = s.read("/api/v1/black-box.json");
    expect(box.recentFrames).toHaveLength(24);
    expect(box.days).toHaveLength(29);
    expect(box.days[0]).toMatchObject({ date: when(38).slice(0, 10), frames: 1, lastFrameAt: when(38) });
    expect(box.days.at(-1).date).toBe(when(10).slice(0, 10));
    expect(sizes[39]).toBe(sizes[35]);
    // With a month of frames every window has an exact baseline.
    const diff = s.read("/api/v1/risk-diff.json");
    expect(diff.windows.map((w: Json) => [w.window, w.baseline?.at, w.baseline?.lagSeconds])).toEqual([
      ["P1D", when(38), 0],
      ["P7D", when(32), 0],
      ["P30D", when(9), 0],
    ]);
    await expect(runVerify({ archive: s.archive, json: true })).resolves.toMatchObject({ frames: 40 });
  }, 60_000);

  it("counts the frames of each UTC day and names the first and the last", async () => {
    const s = series();
    const ids = [];
    for (const m of [0, 15, 30]) ids.push((await s.assemble(when(0, m))).frameId);
    await s.assemble(when(1));
    expect(s.read("/api/v1/black-box.json").days).toEqual([
      expect.objectContaining({
        date: "2026-11-21",
        frames: 3,
        firstFrameId: ids[0],
        lastFrameId: ids[2],
        lastFrameAt: when(0, 30),
      }),
    ]);
  });
});

describe("replay and diff", () => {
  async function twoDays() {
    const s = series();
    upstream(s.pub, "us", 31.4, when(0, -60));
    const a = await s.assemble(when(0));
    upstream(s.pub, "us", 77.7, when(1, -30));
    editFile(`${s.pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => `${t.trimEnd()}\n\nUne correction.\n`);
    const b = await s.assemble(when(1));
    return { s, a, b };
  }

  it("replay --date prints that date's frame: scores, statuses, models, freshness, hashes and changes", async () => {
    const { s, a } = await twoDays();
    const r = runCli(["replay", "--archive", s.archive, "--date", "2026-11-21"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`frame ${a.frameId} at ${T0} (commit ${a.commit})`);
    expect(r.stdout).toContain(`frame hash   sha256:${a.frameHash}`);
    expect(r.stdout).toMatch(/^us\s+31\.4\s+Modéré\s+moderate\s+ok\s+nominal\s+no\s+2026-11-21T09:00:00Z\s+1h 0m$/m);
    expect(r.stdout).toMatch(/^models\s+risque-dette-us \d/m);
    expect(r.stdout).toMatch(/^changes\s+\+\/agents\.json/m);
    expect(r.stdout).toMatch(/^\/api\/v1\/risk\.json\s+[0-9a-f]{64}\s+\d+$/m);
    const json = await runReplay({ archive: s.archive, date: "2026-11-21", json: true });
    expect(json.freshness.find((f) => f.instrument === "us")).toEqual({
      instrument: "us",
      sourceUpdatedAt: when(0, -60),
      ageSeconds: 3600,
      qualityStatus: "nominal",
      fallbackUsed: false,
    });
    expect(json.frame.models).toEqual(expect.objectContaining({ "stress-financier-us": expect.any(String) }));
  });

  it("diff --from --to lists the surfaces that changed and the signal moves", async () => {
    const { s, a, b } = await twoDays();
    const d = await runDiff({ archive: s.archive, from: "2026-11-21", to: "2026-11-22", json: true });
    expect(d.from.frameId).toBe(a.frameId);
    expect(d.to.frameId).toBe(b.frameId);
    expect(d.surfaces.changed).toEqual(
      expect.arrayContaining(["/api/v1/risk.json", "/api/v1/catalog.json", "/api/v1/changes.json"]),
    );
    expect(d.surfaces.changed).not.toContain("/openapi.json");
    expect(d.signals.find((m) => m.instrument === "us")).toEqual({
      instrument: "us",
      from: { value: 31.4, level: "Modéré" },
      to: { value: 77.7, level: "Crise" },
      change: 46.3,
      levelChanged: true,
    });
    expect(d.objects).toEqual([{ id: "article/fr/spread-btp-bund-2026", status: "modified", semantic: true }]);
    const text = runCli(["diff", "--archive", s.archive, "--from", "2026-11-21", "--to", "2026-11-22"]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^\s+~ \/api\/v1\/risk\.json$/m);
    expect(text.stdout).toMatch(/^us\s+31\.4\s+77\.7\s+\+46\.3\s+Modéré -> Crise$/m);
  });

  it("diff refuses a date before the first frame (exit 7) and a --from after --to", async () => {
    const { s } = await twoDays();
    await expect(
      runDiff({ archive: s.archive, from: "2026-11-20", to: "2026-11-22", json: true }),
    ).rejects.toMatchObject({
      code: "E_NO_FRAME",
      message: expect.stringContaining(`the archive's first frame is at ${T0}`),
    });
    const r = runCli(["diff", "--archive", s.archive, "--from", "2026-11-20", "--to", "2026-11-22"]);
    expect(r.status).toBe(EXIT.E_NO_FRAME);
    expect(r.status).toBe(7);
    await expect(
      runDiff({ archive: s.archive, from: "2026-11-22", to: "2026-11-21", json: true }),
    ).rejects.toMatchObject({ code: "E_USAGE" });
  });
});

describe("verify and the object manifest", () => {
  it("detects an object manifest rewritten after the fact", async () => {
    const s = series();
    await s.assemble(when(0));
    await s.assemble(when(0, 15));
    rewrite(s.archive, 0, (tree) => replaceInTree(s.archive, tree, "objects.json", "[]"));
    await expect(runVerify({ archive: s.archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      message: expect.stringMatching(/frame 000001-20261121T100000Z .*objects\.json: the object manifest hashes to/),
    });
    expect(git(s.archive, "rev-list", "--count", "refs/heads/main")).toBe("2");
  });
});
