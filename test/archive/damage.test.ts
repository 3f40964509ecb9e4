import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { describe, expect, it } from "vitest";
import { archiveWithFrames, at, git, replaceInTree, showBlob } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

const looseFile = (gitdir: string, oid: string) => `${gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;

describe("a damaged archive is named, never a crash", () => {
  it("a deleted frame commit: verify exits 1 naming the frame above the break, assemble refuses to append", async () => {
    const { archive, site, summaries } = await archiveWithFrames(3);
    const middle = git(archive, "rev-parse", "refs/heads/main~1");
    rmSync(looseFile(archive, middle));
    const v = runCli(["verify", "--archive", archive]);
    expect(v.status, v.stderr).toBe(1);
    expect(v.stderr).toContain(`frame ${summaries[2]!.frameId}`);
    expect(v.stderr).toMatch(/chain is broken/);
    const head = git(archive, "rev-parse", "refs/heads/main");
    const a = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(60)]);
    expect(a.status, a.stderr).toBe(6);
    expect(a.stderr).toMatch(/chain is broken: the commit of frame \S+ \(\w+\) is missing/);
    expect(a.stderr).toContain(`frame ${summaries[1]!.frameId}`);
    expect(git(archive, "rev-parse", "refs/heads/main")).toBe(head);
    // replay at that frame's time names it, from the replay index, with its commit.
    const r = runCli(["replay", "--archive", archive, "--date", summaries[1]!.at]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`frame ${summaries[1]!.frameId} at ${summaries[1]!.at} (commit ${middle})`);
    expect(r.stderr).not.toMatch(/from a clone/);
  });

  it("a frame commit deleted deep in the history, loose or packed: assemble refuses to append, with or without its list", async () => {
    const { archive, site, summaries } = await archiveWithFrames(6);
    // The list the assemblies kept names every frame, oldest first.
    const list = readFileSync(`${archive}/risk-cli-chain.txt`, "utf8").trim().split("\n");
    expect(list.map((line) => line.split(" ")[1])).toEqual(summaries.map((s) => s.frameId));
    const deep = git(archive, "rev-parse", "refs/heads/main~4");
    const head = git(archive, "rev-parse", "refs/heads/main");
    rmSync(looseFile(archive, deep));
    for (const extra of [[], ["--no-cache"]]) {
      const a = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(120), ...extra]);
      expect(a.status, a.stderr).toBe(6);
      expect(a.stderr).toMatch(/chain is broken/);
      expect(a.stderr).toContain(deep);
      expect(git(archive, "rev-parse", "refs/heads/main")).toBe(head);
    }
    // Packed: the list is checked against the pack indexes; a pack without that commit is refused.
    const { archive: packed, site: packedSite } = await archiveWithFrames(4);
    const gone = git(packed, "rev-parse", "refs/heads/main~2");
    execFileSync("git", ["--git-dir", packed, "repack", "-a", "-d", "-q"]);
    execFileSync("git", ["--git-dir", packed, "prune-packed"]);
    const ok = runCli(["assemble", "--site", packedSite, "--archive", packed, "--now", at(60)]);
    expect(ok.status, ok.stderr).toBe(0);
    // A new pack without the commit, as a careless filter would leave it.
    const objects = git(packed, "rev-list", "--objects", "--all")
      .split("\n")
      .map((line) => line.split(" ")[0]!)
      .filter((oid) => oid !== gone);
    const packDir = `${packed}/objects/pack`;
    const staging = `${packed}-new-pack`;
    mkdirSync(staging);
    execFileSync("git", ["--git-dir", packed, "pack-objects", "-q", `${staging}/pack`], {
      input: `${objects.join("\n")}\n`,
    });
    for (const name of readdirSync(packDir)) rmSync(`${packDir}/${name}`);
    for (const name of readdirSync(staging)) renameSync(`${staging}/${name}`, `${packDir}/${name}`);
    const before = git(packed, "rev-parse", "refs/heads/main");
    const a = runCli(["assemble", "--site", packedSite, "--archive", packed, "--now", at(75)]);
    expect(a.status, a.stderr).toBe(6);
    expect(a.stderr).toContain(gone);
    expect(git(packed, "rev-parse", "refs/heads/main")).toBe(before);
  });

  it("a head commit whose tree was rewritten in place: assemble refuses to carry the rewritten blob into a new frame", async () => {
    const { archive, site, summaries } = await archiveWithFrames(1);
    const head = git(archive, "rev-parse", "refs/heads/main");
    const llms = showBlob(archive, head, "site/llms.txt").toString("utf8");
    const tree = replaceInTree(archive, git(archive, "rev-parse", `${head}^{tree}`), "site/llms.txt", `x${llms}`);
    const raw = git(archive, "cat-file", "commit", head).replace(/^tree [0-9a-f]{40}/, `tree ${tree}`);
    const forged = execFileSync("git", ["--git-dir", archive, "hash-object", "-t", "commit", "-w", "--stdin"], {
      input: `${raw}\n`,
      encoding: "utf8",
    }).trim();
    git(archive, "update-ref", "refs/heads/main", forged);
    for (const extra of [[], ["--no-cache"]]) {
      const a = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(15), ...extra]);
      expect(a.status, a.stderr).toBe(6);
      expect(a.stderr).toContain(`head frame ${summaries[0]!.frameId}`);
      expect(a.stderr).toContain("site/llms.txt");
      expect(git(archive, "rev-parse", "refs/heads/main")).toBe(forged);
    }
    // --no-cache trusts no record of what this archive wrote, even one naming the forged head.
    writeFileSync(`${archive}/risk-cli-frames/HEAD`, `${forged}\n`);
    const strict = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(15), "--no-cache"]);
    expect(strict.status, strict.stderr).toBe(6);
    // The honest head, which this archive's assembly wrote, is appended to as before.
    git(archive, "update-ref", "refs/heads/main", head);
    const ok = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(30)]);
    expect(ok.status, ok.stderr).toBe(0);
  });

  it("a shallow or partial clone is named as such with the fetch that completes it (exit 6), never as tampering or damage", async () => {
    const { archive, dir } = await archiveWithFrames(3);
    git(archive, "config", "uploadpack.allowFilter", "true");
    const clones = [["--depth", "1"], ["--filter=blob:none"], ["--filter=tree:0"]];
    for (const [i, flags] of clones.entries()) {
      const clone = `${dir}/clone-${i}.git`;
      execFileSync("git", ["clone", "-q", "--bare", ...flags, `file://${archive}`, clone]);
      for (const args of [["verify"], ["replay", "--date", at(0), "--out", `${dir}/out-${i}`]]) {
        const r = runCli([...args, "--archive", clone]);
        expect(r.status, `${flags} ${args[0]}: ${r.stderr}`).toBe(6);
        expect(r.stderr).toContain(flags[0] === "--depth" ? "a shallow clone" : "a partial clone");
        expect(r.stderr).toContain(flags[0] === "--depth" ? "fetch --unshallow" : "fetch --refetch");
        expect(r.stderr).not.toMatch(/chain is broken|damaged|Verification failed/);
      }
    }
    // The fetch the message names completes the clone, which then verifies.
    const shallow = `${dir}/clone-0.git`;
    git(shallow, "fetch", "-q", "--unshallow");
    expect(runCli(["verify", "--archive", shallow]).status).toBe(0);
    const partial = `${dir}/clone-1.git`;
    git(partial, "config", "--unset", "remote.origin.partialclonefilter");
    git(partial, "fetch", "-q", "--refetch", "origin");
    const v = runCli(["verify", "--archive", partial]);
    expect(v.status, v.stderr).toBe(0);
  });

  it("an objects/info/alternates folder that no longer exists is named as such (exit 6), never as damage", async () => {
    const { archive, dir, site } = await archiveWithFrames(2);
    const borrower = `${dir}/borrower.git`;
    execFileSync("git", ["clone", "-q", "--bare", "--shared", archive, borrower]);
    renameSync(archive, `${dir}/moved.git`);
    for (const args of [
      ["verify"],
      ["replay", "--date", at(0), "--out", `${dir}/out`],
      ["assemble", "--site", site, "--now", at(30)],
    ]) {
      const r = runCli([...args, "--archive", borrower]);
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(6);
      expect(r.stderr).toContain("objects/info/alternates");
      expect(r.stderr).toContain("does not exist");
      expect(r.stderr).not.toMatch(/damaged|Verification failed|frame \?|moved\.git|\/tmp\//);
    }
    // Put back where the line says, the borrower reads again.
    renameSync(`${dir}/moved.git`, archive);
    expect(runCli(["verify", "--archive", borrower]).status).toBe(0);
  });

  it('a head commit deleted: verify exits 1 naming the commit, never a frame "?"', async () => {
    const { archive } = await archiveWithFrames(1);
    const head = git(archive, "rev-parse", "refs/heads/main");
    rmSync(looseFile(archive, head));
    const v = runCli(["verify", "--archive", archive]);
    expect(v.status, v.stderr).toBe(1);
    expect(v.stderr).toContain(`Verification failed at commit ${head.slice(0, 12)}: the head commit is missing`);
    expect(v.stderr).not.toContain("frame ?");
  });

  it("a SHA-256, reftable or unknown-extension Git repository is refused before anything is written (exit 6)", async () => {
    const dir = tempDir();
    const make = (name: string, ...config: string[][]) => {
      const gitdir = `${dir}/${name}.git`;
      execFileSync("git", ["init", "-q", "--bare", ...(name === "sha256" ? ["--object-format=sha256"] : []), gitdir]);
      for (const kv of config) git(gitdir, "config", ...kv);
      return gitdir;
    };
    const v1 = ["core.repositoryformatversion", "1"];
    const cases: [string, string][] = [
      [make("sha256"), "extensions.objectFormat"],
      [make("reftable", v1, ["extensions.refStorage", "reftable"]), "extensions.refStorage"],
      [make("unknown", v1, ["extensions.frobnicate", "true"]), "extensions.frobnicate"],
    ];
    for (const [archive, named] of cases) {
      const r = runCli(["assemble", "--site", `${archive}-site`, "--archive", archive, "--now", at(0)]);
      expect(r.status, r.stderr).toBe(6);
      expect(r.stderr).toContain(named);
      // Git itself may refuse these repositories: their objects folder is listed instead.
      expect(readdirSync(`${archive}/objects`).sort()).toEqual(["info", "pack"]);
      expect(runCli(["verify", "--archive", archive]).status).toBe(6);
    }
    // An extension that changes nothing risk-cli reads or writes is taken.
    const precious = make("precious", v1, ["extensions.preciousObjects", "true"]);
    const ok = runCli(["assemble", "--site", `${precious}-site`, "--archive", precious, "--now", at(0)]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(runCli(["verify", "--archive", precious]).status).toBe(0);
  });

  it("a flipped bit in a commit, and a deleted blob: verify exits 1 naming the frame, replay too", async () => {
    const { archive, summaries } = await archiveWithFrames(2);
    const first = git(archive, "rev-parse", "refs/heads/main~1");
    const file = looseFile(archive, first);
    const bytes = readFileSync(file);
    bytes[bytes.length - 3]! ^= 0x04;
    writeFileSync(file, bytes);
    const v = runCli(["verify", "--archive", archive]);
    expect(v.status, v.stderr).toBe(1);
    expect(v.stderr).toMatch(/damaged/);
    const { archive: a2, summaries: s2 } = await archiveWithFrames(2);
    const blob = git(a2, "rev-parse", "refs/heads/main:site/api/v1/risk.json");
    rmSync(looseFile(a2, blob));
    const v2 = runCli(["verify", "--archive", a2]);
    expect(v2.status, v2.stderr).toBe(1);
    expect(v2.stderr).toContain(`frame ${s2[1]!.frameId}`);
    const r = runCli(["replay", "--archive", a2, "--date", "2026-11-30", "--out", `${a2}-out`]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`frame ${s2[1]!.frameId}`);
    expect(summaries).toHaveLength(2);
  });

  it("a truncated pack: exit 1 (verify) or 6, with a message about the damaged pack, never a request to report a bug", async () => {
    const { archive } = await archiveWithFrames(3);
    execFileSync("git", ["--git-dir", archive, "repack", "-a", "-d", "-q"]);
    execFileSync("git", ["--git-dir", archive, "prune-packed"]);
    const packDir = `${archive}/objects/pack`;
    const pack = readdirSync(packDir).find((n) => n.endsWith(".pack"))!;
    truncateSync(`${packDir}/${pack}`, Math.floor(statSync(`${packDir}/${pack}`).size / 2));
    for (const args of [["verify"], ["replay", "--date", "2026-11-30", "--json"]]) {
      const r = runCli([...args, "--archive", archive]);
      expect([1, 6], `${args[0]}: ${r.stderr}`).toContain(r.status);
      expect(r.stderr).not.toMatch(/internal error|isomorphic-git/);
      expect(r.stderr).toMatch(/damaged|truncated/);
    }
  });
});
