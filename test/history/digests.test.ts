/**
 * The frame digest cache (archive/api/digests.ts): the risk-diff baselines it gives are the ones
 * the archive's day index gives, and it answers only while it belongs to the archive's head.
 */
import { RISK_DIFF_WINDOWS } from "../../core/surfaces/risk-diff.ts";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { BaselineFrame } from "../../core/frame.ts";
import { cachedBaseline } from "../../archive/api/digests.ts";
import { lastIndexedAtOrBefore } from "../../archive/api/replay.ts";
import { readFrameAs } from "../../archive/api/frames.ts";
import { previousState } from "../../archive/api/state.ts";
import { windowBaselines } from "../../archive/api/windows.ts";
import { headCommit, readCommit } from "../../archive/git/objects.ts";
import { git } from "../helpers/archive.ts";
import { tempDir } from "../helpers/tmp.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const START = Date.parse("2026-11-20T21:00:00Z");

async function archiveAcrossMidnight(frames: number) {
  const dir = tempDir("risk-digests-");
  const paths = { site: `${dir}/site`, archive: `${dir}/archive` };
  // Every 15 minutes, with one gap of two hours, across midnight.
  const times = Array.from({ length: frames }, (_, i) => START + i * 15 * 60_000 + (i >= 8 ? 2 * 3_600_000 : 0));
  for (const t of times) await runAssemble({ ...paths, now: iso(t), json: true });
  return { ...paths, times };
}

async function fromIndex(archive: string, head: string, instant: number) {
  const { tree } = await readCommit(archive, head);
  const entry = await lastIndexedAtOrBefore(archive, tree, instant);
  if (!entry) return null;
  return { commit: entry.commit, frame: (await readFrameAs(archive, entry.commit, BaselineFrame)).frame };
}

describe("the frame digest cache", () => {
  it("gives, for every instant it answers, the frame the archive's day index gives, and answers for nearly all", async () => {
    const { archive, times } = await archiveAcrossMidnight(24);
    const head = (await headCommit(archive))!;
    expect(readdirSync(`${archive}/risk-cli-frames`).sort()).toEqual([
      "2026-11-20.ndjson",
      "2026-11-20.ndjson.at",
      "2026-11-21.ndjson",
      "2026-11-21.ndjson.at",
      "HEAD",
    ]);
    let answered = 0;
    let asked = 0;
    // Every 7 minutes from the first frame to the one before the head (the head itself is taken from the previous state).
    for (let t = times[0]!; t < times.at(-1)!; t += 7 * 60_000) {
      asked++;
      const cached = cachedBaseline(archive, head, t);
      if (!cached) continue;
      answered++;
      expect(cached).toEqual(await fromIndex(archive, head, t));
    }
    expect(asked).toBeGreaterThan(50);
    expect(answered).toBe(asked);
    // Before the first frame there is nothing to enclose the instant: no answer, never a wrong one.
    expect(cachedBaseline(archive, head, times[0]! - 60_000)).toBeNull();
  });

  it("says nothing once the branch was moved behind its back, and starts again from the next assembly", async () => {
    const { archive, site, times } = await archiveAcrossMidnight(6);
    const commits = git(archive, "rev-list", "refs/heads/main").split("\n");
    git(archive, "update-ref", "refs/heads/main", commits[2]!); // back three frames
    const head = (await headCommit(archive))!;
    expect(cachedBaseline(archive, head, times[1]! + 60_000)).toBeNull();
    // The live site still publishes a dropped frame: an operator who meant the rollback removes it.
    rmSync(site, { recursive: true });
    await runAssemble({ site, archive, now: iso(times.at(-1)! + 15 * 60_000), json: true });
    const files = readdirSync(`${archive}/risk-cli-frames`).filter((n) => n.endsWith(".ndjson"));
    const lines = files.flatMap((f) =>
      readFileSync(`${archive}/risk-cli-frames/${f}`, "utf8").split("\n").filter(Boolean),
    );
    expect(lines).toHaveLength(1);
  });

  it("gives the risk-diff windows the same baselines as the archive, and is not trusted when a line is torn", async () => {
    // Every two hours for 26 hours: the one-day window has a baseline.
    const dir = tempDir("risk-digests-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive` };
    const times = Array.from({ length: 14 }, (_, i) => START + i * 2 * 3_600_000);
    for (const t of times) await runAssemble({ ...paths, now: iso(t), json: true });
    const now = iso(times.at(-1)! + 30 * 60_000);
    const windows = async () => {
      const previous = (await previousState(paths.archive, []))!;
      return windowBaselines(paths.archive, previous, now, RISK_DIFF_WINDOWS);
    };
    const cached = await windows();
    expect(cached.baselines[1]).not.toBeNull();
    expect(cached.baselines[1]!.frame.at).toBe(iso(times[1]!)); // 23:30 the day before falls after the 23:00 frame
    const head = (await headCommit(paths.archive))!;
    expect(cachedBaseline(paths.archive, head, Date.parse(now) - 86_400_000)).toEqual(cached.baselines[1]);

    // The same baselines with the cache switched off, while it is there.
    const previous = (await previousState(paths.archive, []))!;
    expect(await windowBaselines(paths.archive, previous, now, RISK_DIFF_WINDOWS, { digests: false })).toEqual(cached);

    rmSync(`${paths.archive}/risk-cli-frames`, { recursive: true });
    expect(cachedBaseline(paths.archive, head, Date.parse(now) - 86_400_000)).toBeNull();
    expect(await windows()).toEqual(cached);

    // Rebuilt by the next assembly; then a torn line makes it fall back to the archive again.
    await runAssemble({ ...paths, now, json: true });
    const head2 = (await headCommit(paths.archive))!;
    const file = `${paths.archive}/risk-cli-frames/${now.slice(0, 10)}.ndjson`;
    expect(existsSync(file)).toBe(true);
    writeFileSync(file, readFileSync(file, "utf8").slice(0, -20));
    expect(cachedBaseline(paths.archive, head2, Date.parse(now) - 60_000)).toBeNull();
  });
});
