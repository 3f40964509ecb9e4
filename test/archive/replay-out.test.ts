import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { archiveWithFrames } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

describe("replay --out writes only where it may", () => {
  it("refuses an --out or --upstream folder inside the archive, holding it, or inside a site risk-cli writes, so that no later assembly stops or deletes it", async () => {
    const { site, archive } = await archiveWithFrames(1);
    const before = treeDigest(archive);
    for (const [option, dir, why] of [
      ["--out", join(archive, "replayed"), "inside the archive"],
      ["--upstream", join(archive, "up"), "inside the archive"],
      ["--out", join(site, "old"), "inside the site"],
      ["--upstream", join(site, "api", "up"), "inside the site"],
      ["--out", join(archive, ".."), "the archive"],
    ] as const) {
      const r = runCli(["replay", "--archive", archive, "--date", "2026-11-30", option, dir]);
      expect(r.status, `${option} ${dir}`).toBe(2);
      expect(r.stderr).toContain(why);
    }
    expect(treeDigest(archive)).toEqual(before);
    expect(existsSync(join(site, "old"))).toBe(false);
  });

  it("never writes through a link planted in the output folder, and refuses a folder it did not write", async () => {
    const { archive } = await archiveWithFrames(1);
    const dir = tempDir("risk-out-");
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "do not overwrite\n");
    const out = join(dir, "out");
    mkdirSync(join(out, "api/v1"), { recursive: true });
    symlinkSync(victim, join(out, "api/v1/risk.json"));
    const r = runCli(["replay", "--archive", archive, "--date", "2026-11-30", "--out", out]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not empty/);
    const forced = runCli(["replay", "--archive", archive, "--date", "2026-11-30", "--out", out, "--replace"]);
    expect(forced.status).toBe(2);
    expect(forced.stderr).toMatch(/did not write/);
    expect(readFileSync(victim, "utf8")).toBe("do not overwrite\n");
  });

  it("writes a new folder, replaces its own earlier replay with --replace, and refuses a file or a link as --out", async () => {
    const { archive } = await archiveWithFrames(2);
    const dir = tempDir("risk-out-");
    const out = join(dir, "as-of");
    expect(runCli(["replay", "--archive", archive, "--date", "2026-11-21T10:00:00Z", "--out", out]).status).toBe(0);
    const first = treeDigest(out);
    expect(runCli(["replay", "--archive", archive, "--date", "2026-11-30", "--out", out]).status).toBe(2);
    expect(runCli(["replay", "--archive", archive, "--date", "2026-11-30", "--out", out, "--replace"]).status).toBe(0);
    expect(treeDigest(out)).not.toEqual(first);
    const file = join(dir, "file.txt");
    writeFileSync(file, "x");
    const r = runCli(["replay", "--archive", archive, "--date", "2026-11-30", "--out", file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("is not a folder");
    symlinkSync(out, join(dir, "link"));
    expect(runCli(["replay", "--archive", archive, "--date", "2026-11-30", "--out", join(dir, "link")]).status).toBe(2);
    expect(existsSync(`${out}.tmp-${process.pid}`)).toBe(false);
  });
});
