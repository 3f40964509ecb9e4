import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "../helpers/archive.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

/** A small tmpfs to fill up (the tests run as root in CI; elsewhere the mount is refused and these tests say so). */
const mountPoint = tempDir("risk-disk-");
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint]).status === 0;
afterAll(() => {
  if (mounted) spawnSync("umount", [mountPoint]);
});

describe.runIf(mounted)("a full disk (ENOSPC) while assembling", () => {
  it("exits 6 naming it, leaves no temporary object, and keeps the previous site and archive whole", () => {
    const dir = `${mountPoint}/work`;
    mkdirSync(dir);
    const first = runCli(["assemble", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    const site = treeDigest(`${dir}/site`);
    const head = execFileSync("git", ["--git-dir", `${dir}/archive.git`, "rev-parse", "refs/heads/main"])
      .toString()
      .trim();
    // Fill the disk, leaving a few kilobytes.
    const free = Number(execFileSync("df", ["--output=avail", "-B1", mountPoint]).toString().split("\n")[1]);
    writeFileSync(`${mountPoint}/filler`, Buffer.alloc(Math.max(0, free - 64 * 1024)));
    const r = runCli(["assemble", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", at(15)]);
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/disk is full \(ENOSPC\)/);
    expect(treeDigest(`${dir}/site`)).toEqual(site);
    expect(
      execFileSync("git", ["--git-dir", `${dir}/archive.git`, "rev-parse", "refs/heads/main"])
        .toString()
        .trim(),
    ).toBe(head);
    const leftovers = execFileSync("find", [`${dir}/archive.git/objects`, "-name", ".tmp-*"])
      .toString()
      .trim();
    expect(leftovers).toBe("");
    execFileSync("git", ["--git-dir", `${dir}/archive.git`, "fsck", "--no-progress"]);
    expect(
      execFileSync("ls", [mountPoint])
        .toString()
        .split("\n")
        .filter((n) => n.startsWith("work") || n === "filler"),
    ).toEqual(["filler", "work"]);
  });
});
