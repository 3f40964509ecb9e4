import { renameSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { humanAge } from "../../cli/format/age.ts";
import { runCli } from "../helpers/cli.ts";
import { demoCopy } from "../helpers/publication.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

describe("risk-cli collect", () => {
  it("prints each instrument's status, value, age and the reason for a fallback, and writes nothing", async () => {
    const pub = demoCopy();
    const dir = tempDir("risk-collect-");
    await runAssemble({
      site: `${dir}/site`,
      archive: `${dir}/archive`,
      publication: pub,
      now: "2026-11-21T10:00:00Z",
      json: true,
    });
    renameSync(`${pub}/upstream/yen.json`, `${pub}/upstream/yen.json.bak`);
    const before = treeDigest(dir);

    const r = runCli([
      "collect",
      "--publication",
      pub,
      "--archive",
      `${dir}/archive`,
      "--now",
      "2026-11-21T12:00:00Z",
      "--json",
    ]);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      ok: true,
      attemptedAt: "2026-11-21T12:00:00Z",
      fallbackFrame: "000001-20261121T100000Z",
    });
    expect(report.instruments.map((i: { instrument: string }) => i.instrument)).toEqual([
      "us",
      "eu",
      "yen",
      "energie",
      "debt",
    ]);
    expect(report.instruments[0]).toMatchObject({
      sourceStatus: "ok",
      value: 31.4,
      fallbackUsed: false,
      ageSeconds: 6.5 * 3600,
      reason: null,
    });
    expect(report.instruments[2]).toMatchObject({
      instrument: "yen",
      sourceStatus: "unreachable",
      qualityStatus: "degraded",
      value: 57.9,
      fallbackUsed: true,
      lastSuccessAt: "2026-11-21T10:00:00Z",
      sourceUpdatedAt: "2026-11-21T05:35:00Z",
    });
    expect(report.instruments[2].reason).toMatch(/yen\.json/);

    const text = runCli([
      "collect",
      "--publication",
      pub,
      "--archive",
      `${dir}/archive`,
      "--now",
      "2026-11-21T12:00:00Z",
    ]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(
      /^yen\s+unreachable\s+degraded\s+57\.9\s+Élevé\/Tendu\s+6h 25m\s+yes, from 2026-11-21T10:00:00Z$/m,
    );
    // The reason names the file inside the publication and the failure, never a local path.
    expect(text.stdout).toMatch(/^yen: upstream\/yen\.json: the file cannot be read \(ENOENT\)$/m);
    expect(text.stdout).not.toContain(dir);
    expect(treeDigest(dir)).toEqual(before);
  });

  it("reports an instrument missing when there is no archive to fall back on", () => {
    const pub = demoCopy();
    renameSync(`${pub}/upstream/us.json`, `${pub}/upstream/us.json.bak`);
    const r = runCli(["collect", "--publication", pub, "--archive", `${tempDir()}/none`, "--json"]);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.fallbackFrame).toBeNull();
    expect(report.instruments[0]).toMatchObject({
      instrument: "us",
      sourceStatus: "unreachable",
      value: null,
      fallbackUsed: false,
    });
    expect(report.instruments[0].reason).toMatch(/no earlier value: missing/);
  });

  it("has help with examples", () => {
    const r = runCli(["collect", "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("risk-cli collect --publication ./my-publication --archive ./archive.git --json");
  });

  it("writes ages as days, hours, minutes or seconds", () => {
    expect([humanAge(45), humanAge(600), humanAge(23400), humanAge(183600), humanAge(-120)]).toEqual([
      "45s",
      "10m",
      "6h 30m",
      "2d 3h",
      "in the future by 2m",
    ]);
  });
});
