import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../archive/lock.ts";
import { ROOT } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

const LOCK_MODULE = pathToFileURL(join(ROOT, "dist/archive/lock.js")).href;
const CHILD = join(ROOT, "test/fixtures/lock-child.mjs");
// A PID above Linux's default pid_max: no process holds it.
const DEAD_PID = 4_194_303;

function contender(dir: string, step: string, delayMs: number, log: string, startAt: number) {
  return new Promise<number | null>((ok) => {
    const child = spawn(
      process.execPath,
      [CHILD, LOCK_MODULE, dir, step, String(delayMs), "150", log, String(startAt)],
      {
        stdio: "ignore",
      },
    );
    child.on("close", (code) => ok(code));
  });
}

describe("the archive lock under contention", () => {
  const steps = ["create", "read-holder", "takeover", "reread-holder", "remove-stale"];
  const cases = [
    ...steps.map((step) => ({ step, leftTakeover: false })),
    // A killed contender's takeover file beside the stale lock: cleared, and still one holder at a time.
    ...["takeover", "remove-takeover", "reread-holder"].map((step) => ({ step, leftTakeover: true })),
  ];
  for (const { step, leftTakeover } of cases) {
    it(`lets one contender at a time hold it, a stale lock${leftTakeover ? ", a dead process's takeover file" : ""} and a delay at "${step}" notwithstanding`, async () => {
      const dir = tempDir("risk-lock-");
      const dead = JSON.stringify({ pid: DEAD_PID, host: hostname(), since: "2026-11-21T00:00:00.000Z" });
      writeFileSync(`${dir}/risk-cli.lock`, dead);
      if (leftTakeover) writeFileSync(`${dir}/risk-cli.lock.takeover`, dead);
      const log = `${dir}/holders.log`;
      writeFileSync(log, "");
      const startAt = Date.now() + 400;
      // Four processes start together; two of them pause 120 ms at the step under test.
      const codes = await Promise.all([0, 1, 2, 3].map((i) => contender(dir, step, i < 2 ? 120 : 0, log, startAt)));
      expect(
        codes.every((c) => c === 0 || c === 5),
        `exit codes ${codes}`,
      ).toBe(true);
      const events = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const [kind, pid, t] = l.split(" ");
          return { kind, pid, t: Number(t) };
        })
        .sort((a, b) => a.t - b.t);
      expect(events.length).toBeGreaterThanOrEqual(2);
      // Never two holders at once: starts and ends alternate, each end by the process that started.
      let holder: string | null = null;
      for (const e of events) {
        if (e.kind === "start") {
          expect(holder, `two holders at once: ${holder} and ${e.pid}`).toBeNull();
          holder = e.pid!;
        } else {
          expect(e.pid).toBe(holder);
          holder = null;
        }
      }
      expect(codes.filter((c) => c === 0).length).toBe(events.length / 2);
      expect(existsSync(`${dir}/risk-cli.lock.takeover`)).toBe(false);
      expect(readdirSync(dir).filter((n) => n.startsWith("risk-cli.lock.takeover"))).toEqual([]);
    });
  }
});

describe("a lock naming this process's own PID", () => {
  it("is stale when this process does not hold it (a dead run whose PID this one was given), and held when it does", () => {
    const dir = tempDir("risk-lock-");
    const left = { pid: process.pid, host: hostname(), since: "2026-11-21T00:00:00.000Z" };
    writeFileSync(`${dir}/risk-cli.lock`, JSON.stringify(left));
    writeFileSync(`${dir}/risk-cli.lock.takeover`, JSON.stringify(left));
    const warnings: string[] = [];
    const lock = acquireLock(dir, new Date(), (m) => warnings.push(m));
    expect(warnings.join("\n")).toContain(`PID ${process.pid}`);
    expect(warnings.join("\n")).toContain("this run was given its PID");
    expect(existsSync(`${dir}/risk-cli.lock.takeover`)).toBe(false);
    // Held by this process now: another assembly in it waits, as one in another process would.
    expect(() => acquireLock(dir, new Date(), () => {})).toThrow(/locked by PID/);
    lock.release();
    expect(existsSync(`${dir}/risk-cli.lock`)).toBe(false);
    acquireLock(dir, new Date(), () => {}).release();
  });
});
