import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers/cli.ts";
import { demoCopy } from "../helpers/publication.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

/**
 * An assembly stopped by SIGINT or SIGTERM once its frame is committed, before the site is
 * swapped: the signal is sent by the run itself at that point, so the test does not race it.
 */
function stoppedRun(signal: "SIGINT" | "SIGTERM", dir: string, publication: string) {
  const script = `${dir}/stopped.mjs`;
  writeFileSync(
    script,
    `const { runAssembly } = await import(${JSON.stringify(`${ROOT}dist/app/assembly.js`)});
const { nodeFs, nodeHasher, nodeHttp } = await import(${JSON.stringify(`${ROOT}dist/cli/runtime/node.js`)});
const log = { info: () => {}, warn: (m) => process.stderr.write(m + "\\n") };
await runAssembly(
  {
    publication: ${JSON.stringify(publication)},
    site: ${JSON.stringify(`${dir}/site`)},
    archive: ${JSON.stringify(`${dir}/archive.git`)},
    now: "2026-11-21T12:15:00Z",
    beforeSwap: async () => {
      process.kill(process.pid, ${JSON.stringify(signal)});
      await new Promise((r) => setTimeout(r, 20000));
    },
  },
  { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log },
);
process.stderr.write("finished\\n");
`,
  );
  return spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 30_000 });
}

describe("an assembly stopped by a signal", () => {
  for (const [signal, status] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`by ${signal}: exits ${status}, releases the lock, removes its staging folder, and the next run starts at once`, () => {
      const dir = tempDir("risk-stop-");
      const publication = demoCopy();
      const args = ["--publication", publication, "--site", `${dir}/site`, "--archive", `${dir}/archive.git`];
      expect(runCli(["assemble", ...args, "--now", "2026-11-21T12:00:00Z"]).status).toBe(0);
      const before = treeDigest(`${dir}/site`);

      const r = stoppedRun(signal, dir, publication);
      expect(r.status).toBe(status);
      expect(r.stderr).toContain(`Stopped by ${signal}: the frame`);
      expect(r.stderr).toContain("is in the archive, but the site folder was left as it was");
      expect(r.stderr).not.toContain("finished");
      expect(existsSync(`${dir}/archive.git/risk-cli.lock`)).toBe(false);
      expect(readdirSync(dir).filter((n) => /^site\.(tmp|old)-/.test(n))).toEqual([]);
      expect(treeDigest(`${dir}/site`)).toEqual(before);

      expect(runCli(["verify", "--archive", `${dir}/archive.git`]).status).toBe(0);
      const next = runCli(["assemble", ...args, "--now", "2026-11-21T12:30:00Z", "--json"]);
      expect(next.status).toBe(0);
      expect(next.stderr).not.toMatch(/lock/i);
    });
  }
});
