import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../../cli/exit.ts";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { at, git } from "../helpers/archive.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";
import { generateNoteKey } from "../../app/note-signer.ts";

/** `frames` demo frames, 15 minutes apart, into a fresh archive; each frame's black-box checkpoint kept. */
async function framesWithCheckpoints(
  frames: number,
  options: { publication?: string; key?: string; dir?: string } = {},
) {
  const dir = options.dir ?? tempDir("risk-audit-");
  const checkpoints: string[] = [];
  const before = process.env.RISK_CHECKPOINT_KEY;
  if (options.key) process.env.RISK_CHECKPOINT_KEY = options.key;
  try {
    for (let i = 0; i < frames; i++) {
      await runAssemble({
        site: `${dir}/site`,
        archive: `${dir}/archive.git`,
        publication: options.publication,
        now: at(15 * i),
        json: true,
      });
      checkpoints.push(JSON.parse(readFileSync(`${dir}/site/api/v1/black-box.json`, "utf8")).log.checkpoint);
    }
  } finally {
    if (before === undefined) delete process.env.RISK_CHECKPOINT_KEY;
    else process.env.RISK_CHECKPOINT_KEY = before;
  }
  return { dir, archive: `${dir}/archive.git`, checkpoints };
}

function save(text: string): string {
  const file = join(tempDir("risk-cp-"), "checkpoint.txt");
  writeFileSync(file, text);
  return file;
}

/** The Python script of docs/audit.md, as written there. */
function auditScript(): string {
  const doc = readFileSync(join(ROOT, "docs/audit.md"), "utf8");
  const m = /`check_inclusion\.py`[^\n]*\n\n```python\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error("docs/audit.md lost its check_inclusion.py");
  const file = join(tempDir("risk-py-"), "check_inclusion.py");
  writeFileSync(file, m[1]!);
  return file;
}

describe("the frame log: checkpoints a stranger saves, and proofs", () => {
  it("verifies a signed checkpoint from 6 frames ago, and prints a consistency proof", async () => {
    const key = generateNoteKey("risques.example.org/risk-cli/frames");
    const { archive, checkpoints } = await framesWithCheckpoints(12, { key: key.privateKey });
    const saved = save(checkpoints[5]!);
    expect(checkpoints[5]).toMatch(
      /^risques\.example\.org\/risk-cli\/frames\n5\n[A-Za-z0-9+/]+=*\nframe 000005-\S+ [0-9a-f]{64}\n\n— /,
    );
    const r = runCli(["verify", "--archive", archive, "--checkpoint", saved, "--key", key.verifierKey, "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ signature: "valid", checkpointSize: 5, archiveSize: 12 });
    expect(out.proof.length).toBeGreaterThan(0);
    // Another key: the signature does not verify.
    const other = generateNoteKey("risques.example.org/risk-cli/frames").verifierKey;
    expect(runCli(["verify", "--archive", archive, "--checkpoint", saved, "--key", other]).status).toBe(1);
    // A key that is not a verifier key is a wrong command line, not an altered checkpoint; the
    // signing key given by mistake is never repeated.
    for (const [given, said] of [
      ["garbage", "--key is not a verifier key"],
      [key.privateKey, "--key is given a signing key (PRIVATE+KEY+...), which must stay secret"],
    ] as const) {
      const wrong = runCli(["verify", "--archive", archive, "--checkpoint", saved, "--key", given]);
      expect(wrong.status, wrong.stderr).toBe(EXIT.E_USAGE);
      expect(wrong.stderr).toContain(said);
      expect(wrong.stderr).not.toContain(key.privateKey.split("+").at(-1));
    }
    // The full verify ties the tiles to the frames and counts pinned frames (every test frame has --now).
    const full = runCli(["verify", "--archive", archive, "--json"]);
    expect(full.status, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toMatchObject({ frames: 12, log: { size: 12 }, clock: { pinned: 12, system: 0 } });
  });

  it("catches a rollback, naming the frame the checkpoint vouches for", async () => {
    const { archive, checkpoints } = await framesWithCheckpoints(8);
    const saved = save(checkpoints[7]!); // vouches for frames 1..7
    git(archive, "update-ref", "refs/heads/main", "refs/heads/main~2"); // the branch back two frames: 6 remain
    expect(runCli(["verify", "--archive", archive]).status).toBe(0); // the plain chain check cannot tell
    const r = runCli(["verify", "--archive", archive, "--checkpoint", saved]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/vouches for 7 frames, up to frame 000007-\S+ .*holds 6.*rollback/);
  });

  it("catches a branch removed altogether, naming the frame the checkpoint vouches for", async () => {
    const { archive, checkpoints } = await framesWithCheckpoints(3);
    const saved = save(checkpoints[2]!); // vouches for frames 1..2
    git(archive, "update-ref", "-d", "refs/heads/main");
    const r = runCli(["verify", "--archive", archive, "--checkpoint", saved]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/vouches for 2 frames, up to frame 000002-\S+ .*holds none.*rollback/);
  });

  it("refuses a checkpoint whose frame line was edited, and one of size 0, as malformed (exit 3)", async () => {
    const { archive, checkpoints } = await framesWithCheckpoints(4);
    const real = checkpoints[3]!; // vouches for frames 1..3
    const [, id, hash] = /^frame (\S+) ([0-9a-f]{64})$/m.exec(real)!;
    const otherId = checkpoints[2]!.match(/^frame (\S+) /m)![1]!;
    for (const edited of [
      real.replace(hash!, "0".repeat(64)),
      real.replace(id!, otherId),
      real.replace(id!, id!.replace(/T\d{6}Z$/, "T235959Z")),
    ]) {
      const r = runCli(["verify", "--archive", archive, "--checkpoint", save(edited)]);
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toContain("line was altered");
    }
    expect(runCli(["verify", "--archive", archive, "--checkpoint", save(real)]).status).toBe(0);
    const empty = runCli(["verify", "--archive", archive, "--checkpoint", save(checkpoints[0]!)]);
    expect(empty.status, empty.stderr).toBe(3);
    expect(empty.stderr).toMatch(/size is 0/);
  });

  it("catches a backdated re-forge after a rollback: frames recomputed with other data and earlier times", async () => {
    const { dir, archive, checkpoints } = await framesWithCheckpoints(8);
    const saved = save(checkpoints[7]!);
    git(archive, "update-ref", "refs/heads/main", "refs/heads/main~3");
    // The live site still publishes the dropped frame, so assemble would refuse (tested below): a
    // forger removes it first.
    rmSync(`${dir}/site`, { recursive: true });
    // Other data (an edited article), assembled with times before the dropped frames'.
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const article = join(
      pub,
      "content/articles/en",
      execFileSync("ls", [join(pub, "content/articles/en")])
        .toString()
        .split("\n")[0]!,
    );
    writeFileSync(article, `${readFileSync(article, "utf8")}\nA forged paragraph.\n`);
    for (const minutes of [15 * 5 - 5, 15 * 6 - 5, 15 * 7 - 5])
      await runAssemble({ site: `${dir}/site`, archive, publication: pub, now: at(minutes), json: true });
    expect(runCli(["verify", "--archive", archive]).status).toBe(0); // self-consistent: every hash recomputed
    const r = runCli(["verify", "--archive", archive, "--checkpoint", saved]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /first 7 frames do not hash to the checkpoint's root.*frame 000007-.*rewritten, or the archive forked/,
    );
  });

  it("catches a whole archive re-forged with every hash recomputed, and a fork", async () => {
    const real = await framesWithCheckpoints(6);
    const saved = save(real.checkpoints[5]!);
    const pub = join(tempDir("risk-forge-"), "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const config = join(pub, "risk.config.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace('attribution: "', 'attribution: "Forged '));
    const forged = await framesWithCheckpoints(6, { publication: pub });
    expect(runCli(["verify", "--archive", forged.archive]).status).toBe(0);
    const r = runCli(["verify", "--archive", forged.archive, "--checkpoint", saved]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/do not hash to the checkpoint's root/);
    // The genuine archive still extends it.
    expect(runCli(["verify", "--archive", real.archive, "--checkpoint", saved]).status).toBe(0);
  });

  it("proves a frame's inclusion in a saved checkpoint with docs/audit.md's Python script (standard library only)", async () => {
    const { archive, checkpoints } = await framesWithCheckpoints(10);
    const saved = save(checkpoints[9]!); // 9 frames
    const r = runCli(["prove", "--archive", archive, "--frame", "000003-20261121T103000Z", "--size", "9", "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const proofFile = join(tempDir("risk-proof-"), "proof.json");
    writeFileSync(proofFile, r.stdout);
    const script = auditScript();
    const ok = spawnSync("/usr/bin/python3", [script, proofFile, saved], { encoding: "utf8" });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("frame 000003-20261121T103000Z is in the log of 9 frames");
    // One changed hash in the proof: the script refuses it.
    const proof = JSON.parse(r.stdout);
    const h = proof.proof[0] as string;
    proof.proof[0] = `${h[0] === "0" ? "1" : "0"}${h.slice(1)}`;
    writeFileSync(proofFile, JSON.stringify(proof));
    expect(spawnSync("/usr/bin/python3", [script, proofFile, saved]).status).toBe(1);
    // A frame id the archive does not hold is exit 7.
    expect(runCli(["prove", "--archive", archive, "--frame", "000099-20261121T103000Z"]).status).toBe(7);
  });

  it("checks every served file with git and sha256sum, as docs/audit.md shows", async () => {
    const { archive, dir } = await framesWithCheckpoints(2);
    const commit = git(archive, "rev-parse", "HEAD");
    const frame = JSON.parse(execFileSync("git", ["--git-dir", archive, "show", `${commit}:frame.json`]).toString());
    for (const [path, rec] of Object.entries(
      frame.surfaces as Record<string, { storedSha256: string; sha256: string; stamped: boolean }>,
    )) {
      if (path === "/api/v1/history.ndjson") continue;
      const stored = execFileSync("bash", [
        "-c",
        `git --git-dir '${archive}' show '${commit}:site${path}' | sha256sum`,
      ]).toString();
      expect(stored.split(" ")[0], path).toBe(rec.storedSha256);
      if (!rec.stamped) {
        const served = execFileSync("sha256sum", [`${dir}/site${path}`]).toString();
        expect(served.split(" ")[0], path).toBe(rec.sha256);
      }
    }
  });
});

describe("the site cannot silently move backwards", () => {
  it("refuses to replace a site that publishes a frame the archive no longer holds, naming both", async () => {
    const { dir, archive } = await framesWithCheckpoints(4);
    git(archive, "update-ref", "refs/heads/main", "refs/heads/main~2");
    const r = runCli(["assemble", "--site", `${dir}/site`, "--archive", archive, "--now", at(200)]);
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/publishes frame 000004-\S+, which the archive does not hold \(its head is frame 000002-/);
    // A site one frame behind its archive (a run killed after its commit) is fine.
    const other = await framesWithCheckpoints(2);
    const { cpSync: cp, rmSync: rm } = await import("node:fs");
    const stale = `${other.dir}/stale-site`;
    cp(`${other.dir}/site`, stale, { recursive: true });
    await runAssemble({ site: `${other.dir}/site`, archive: other.archive, now: at(60), json: true });
    rm(`${other.dir}/site`, { recursive: true });
    cp(stale, `${other.dir}/site`, { recursive: true });
    expect(
      runCli(["assemble", "--site", `${other.dir}/site`, "--archive", other.archive, "--now", at(75)]).status,
    ).toBe(0);
  });
});

describe("the upstream documents are kept", () => {
  it("stores each upstream's exact bytes beside the frame, and replay --upstream gives them back", async () => {
    const { archive, dir } = await framesWithCheckpoints(2);
    const out = join(dir, "sent");
    const r = runCli(["replay", "--archive", archive, "--date", "2026-11-21T10:00:00Z", "--upstream", out, "--json"]);
    expect(r.status, r.stderr).toBe(0);
    for (const [key, file] of [
      ["us", "us.json"],
      ["debt", "debt-latest.json"],
    ])
      expect(readFileSync(join(out, `${key}.json`)).equals(readFileSync(join(ROOT, "demo/upstream", file!)))).toBe(
        true,
      );
    const frame = JSON.parse(execFileSync("git", ["--git-dir", archive, "show", "HEAD~1:frame.json"]).toString());
    expect(frame.upstream.us.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Two frames with the same upstream bytes share one blob.
    expect(git(archive, "rev-parse", "HEAD:upstream/us")).toBe(git(archive, "rev-parse", "HEAD~1:upstream/us"));
    expect(runCli(["verify", "--archive", archive]).status).toBe(0);
  });
});

describe("the checkpoint key is published", () => {
  it("names the verifier key in agents.json and the archive's README when checkpoints are signed", async () => {
    const key = generateNoteKey("risques.example.org/risk-cli/frames");
    const { dir, archive } = await framesWithCheckpoints(1, { key: key.privateKey });
    const agents = JSON.parse(readFileSync(`${dir}/site/agents.json`, "utf8"));
    expect(agents.preferredUse.some((u: string) => u.includes(key.verifierKey))).toBe(true);
    expect(git(archive, "show", "refs/heads/main:README.md")).toContain(`    ${key.verifierKey}\n`);
    const unsigned = await framesWithCheckpoints(1);
    expect(readFileSync(`${unsigned.dir}/site/agents.json`, "utf8")).not.toContain("verifier key");
    expect(git(unsigned.archive, "show", "refs/heads/main:README.md")).toContain("not signed by this publisher");
  });
});
