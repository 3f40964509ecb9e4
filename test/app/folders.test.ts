/**
 * The folders `assemble` is given, as a publisher mistypes them: a folder that is not a site, an
 * archive folder that holds other files or is a file, folders on a file system that takes no new
 * folders, and a site published from another archive. Each is refused with its exit code, the
 * lock is released, and nothing is written where it should not be.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { isMountPoint } from "../../app/site-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

const at = (hour: number) => `2026-11-20T${String(hour).padStart(2, "0")}:00:00Z`;

/** Every command that reads or writes the archive other than assemble, as run in a folder holding a site. */
const ARCHIVE_COMMANDS = (remote: string) => [
  ["verify"],
  ["collect"],
  ["replay", "--date", "2026-03-01"],
  ["diff", "--from", "2026-03-01", "--to", "2026-03-02"],
  ["prove", "--frame", "000001-20260301T000000Z"],
  ["archive", "push", "--remote", remote],
  ["archive", "pull", "--remote", remote],
  ["traffic", "ingest", "/dev/null"],
  ["mcp"],
  ["serve", "--site", "site", "--port", "0"],
];

describe("the folders of an assembly", () => {
  it("release the lock when the site folder is refused", () => {
    const dir = tempDir("risk-folders-");
    expect(runCli(["assemble", "--now", at(10)], { cwd: dir }).status).toBe(0);
    mkdirSync(`${dir}/mine`);
    writeFileSync(`${dir}/mine/notes.txt`, "mine");
    const refused = runCli(["assemble", "--site", "mine", "--now", at(11)], { cwd: dir });
    expect(refused.status).toBe(2);
    expect(existsSync(`${dir}/archive.git/risk-cli.lock`)).toBe(false);
    expect(readFileSync(`${dir}/mine/notes.txt`, "utf8")).toBe("mine");
  });

  it("refuse an archive folder that holds other files, or that is a file, and write nothing there", () => {
    const dir = tempDir("risk-folders-");
    mkdirSync(`${dir}/docs`);
    writeFileSync(`${dir}/docs/notes.txt`, "mine");
    const folder = runCli(["assemble", "--archive", "docs", "--site", "site"], { cwd: dir });
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain("notes.txt");
    expect(readdirSync(`${dir}/docs`)).toEqual(["notes.txt"]);
    writeFileSync(`${dir}/afile`, "x");
    const file = runCli(["assemble", "--archive", "afile", "--site", "site"], { cwd: dir });
    expect(file.status).toBe(2);
    expect(file.stderr).toContain("is a file");
    expect(existsSync(`${dir}/site`)).toBe(false);
  });

  it("refuse an archive that is a file with exit 2 in every command, the ones that only read it too", () => {
    const dir = tempDir("risk-folders-");
    expect(runCli(["assemble", "--site", "site", "--now", at(0)], { cwd: dir }).status).toBe(0);
    writeFileSync(`${dir}/afile`, "x");
    for (const args of ARCHIVE_COMMANDS("https://example.org/x.git")) {
      const r = runCli([...args, "--archive", "afile"], { cwd: dir });
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain("--archive afile: it is a file");
    }
    expect(readFileSync(`${dir}/afile`, "utf8")).toBe("x");
  });

  it("refuse an archive that is a symbolic link looping or leading to nothing with exit 2 in every command, no stack printed", () => {
    const dir = tempDir("risk-folders-");
    expect(runCli(["assemble", "--site", "site", "--now", at(0)], { cwd: dir }).status).toBe(0);
    symlinkSync("self", `${dir}/self`);
    symlinkSync("nowhere.git", `${dir}/dangling`);
    for (const [link, said] of [
      ["self", "--archive self: it is a symbolic link that loops (it leads back to itself through links)"],
      ["dangling", "--archive dangling: it is a symbolic link to nothing (its target does not exist)"],
    ] as const)
      for (const args of [
        ...ARCHIVE_COMMANDS("http://127.0.0.1:9/x.git"),
        ["assemble", "--site", "site", "--now", at(10)],
      ]) {
        const r = runCli([...args, "--archive", link], { cwd: dir });
        expect(r.status, `${args.join(" ")} --archive ${link}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(said);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
    expect(readdirSync(dir).sort()).toEqual(["archive.git", "dangling", "self", "site"]);
  });

  it("refuse an archive folder that is a Git work tree, and write nothing there, with or without --push", () => {
    const dir = tempDir("risk-folders-");
    execFileSync("git", ["init", "-q", `${dir}/work`]);
    writeFileSync(`${dir}/work/notes.txt`, "mine");
    const before = treeDigest(`${dir}/work`);
    for (const args of [
      ["assemble", "--archive", "work", "--site", "site", "--now", at(10)],
      [
        "assemble",
        "--archive",
        "work",
        "--site",
        "site",
        "--now",
        at(10),
        "--push",
        "--remote",
        "http://127.0.0.1:9/a.git",
      ],
      ["archive", "pull", "--archive", "work", "--remote", "http://127.0.0.1:9/a.git"],
    ]) {
      const r = runCli(args, { cwd: dir });
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("Refusing --archive work: it is a Git work tree");
      expect(r.stderr).toContain("give an empty or new folder, or an existing risk-cli archive");
    }
    expect(treeDigest(`${dir}/work`)).toEqual(before);
    expect(existsSync(`${dir}/site`)).toBe(false);
  });

  it("take an archive holding the lock files a killed Git left, and gc.pid while a detached git gc runs", () => {
    const dir = tempDir("risk-folders-");
    expect(runCli(["assemble", "--archive", "a.git", "--site", "site", "--now", at(10)], { cwd: dir }).status).toBe(0);
    const left = ["packed-refs.lock", "HEAD.lock", "config.lock", "index.lock", "gc.pid", "gc.pid.lock"];
    for (const name of left) writeFileSync(`${dir}/a.git/${name}`, name === "gc.pid" ? "12345 host\n" : "");
    // archive pull checks the folder too, before it reaches the (unreachable) remote.
    const pull = runCli(["archive", "pull", "--archive", "a.git", "--remote", "http://127.0.0.1:9/none.git"], {
      cwd: dir,
    });
    expect(pull.status, pull.stderr).toBe(9);
    const r = runCli(["assemble", "--archive", "a.git", "--site", "site", "--now", at(12)], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(execFileSync("git", ["-C", `${dir}/a.git`, "log", "--format=%s", "main"], { encoding: "utf8" })).toContain(
      "frame 000002-",
    );
    // Git's files are left for Git.
    for (const name of left) expect(existsSync(`${dir}/a.git/${name}`), name).toBe(true);
    // Anything else is still refused.
    writeFileSync(`${dir}/a.git/notes.lock.txt`, "mine");
    const other = runCli(["assemble", "--archive", "a.git", "--site", "site", "--now", at(13)], { cwd: dir });
    expect(other.status).toBe(2);
    expect(other.stderr).toContain("notes.lock.txt");
  });

  it("take an existing archive folder, a new one and an empty one", () => {
    const dir = tempDir("risk-folders-");
    mkdirSync(`${dir}/empty`);
    expect(runCli(["assemble", "--archive", "empty", "--site", "a", "--now", at(10)], { cwd: dir }).status).toBe(0);
    expect(runCli(["assemble", "--archive", "empty", "--site", "a", "--now", at(11)], { cwd: dir }).status).toBe(0);
    expect(runCli(["assemble", "--archive", "new/deeper", "--site", "b", "--now", at(10)], { cwd: dir }).status).toBe(
      0,
    );
  });

  it.runIf(existsSync("/proc/self"))("fail at once, with exit 6, where the file system takes no new folder", () => {
    const dir = tempDir("risk-folders-");
    const site = runCli(["assemble", "--site", "/proc/risk-cli-site", "--archive", "a.git"], { cwd: dir });
    expect(site.status).toBe(6);
    expect(site.stderr).toContain("takes no new folders");
    expect(readdirSync(dir)).toEqual([]);
    const archive = runCli(["assemble", "--archive", "/proc/risk-cli-archive", "--site", "s"], { cwd: dir });
    expect(archive.status).toBe(6);
  });

  it.runIf(existsSync("/proc/self"))(
    "init into a folder its file system refuses: exit 6 naming it, never an internal error",
    () => {
      for (const target of ["/proc/risk-cli-init", "/proc/risk-cli-init/deeper"]) {
        const r = runCli(["init", target]);
        expect(r.status, r.stderr).toBe(6);
        expect(r.stderr).toContain(target);
        expect(r.stderr).toContain("takes no new folders");
        expect(r.stderr).not.toMatch(/internal error|ENOENT/);
      }
      // --detect reads an existing site: a folder that is not there is a usage error naming it.
      const detect = runCli(["init", "--detect", "/proc/risk-cli-init"]);
      expect(detect.status).toBe(2);
      expect(detect.stderr).toContain("/proc/risk-cli-init is not a folder");
    },
  );

  it("refuse to start a new archive beside a site published from another one", () => {
    const dir = tempDir("risk-folders-");
    for (const hour of [10, 11])
      expect(runCli(["assemble", "--archive", "old", "--now", at(hour)], { cwd: dir }).status).toBe(0);
    const before = treeDigest(`${dir}/site`);
    const refused = runCli(["assemble", "--now", at(12)], { cwd: dir });
    expect(refused.status).toBe(6);
    expect(refused.stderr).toContain("000002-20261120T110000Z");
    expect(treeDigest(`${dir}/site`)).toEqual(before);
    expect(existsSync(`${dir}/archive.git`)).toBe(false);
    expect(runCli(["assemble", "--archive", "old", "--now", at(12)], { cwd: dir }).status).toBe(0);
  });
});

describe("a site folder that is a mount point (a Docker volume, a bind mount)", () => {
  it("is found by device, or in Linux's mount table when a bind mount keeps the device", () => {
    const dir = tempDir("risk-mount-");
    mkdirSync(`${dir}/my site`);
    const line = (point: string) => `36 25 0:32 / ${point} rw,relatime shared:1 - ext4 /dev/sda1 rw`;
    expect(isMountPoint(`${dir}/my site`, line("/elsewhere"))).toBe(false);
    expect(isMountPoint(`${dir}/my site`, line(`${dir}/my\\040site`))).toBe(true);
    expect(isMountPoint("/", "")).toBe(true);
    expect(isMountPoint(`${dir}/missing`, "")).toBe(false);
  });

  const dir = tempDir("risk-mount-");
  mkdirSync(`${dir}/site`);
  // A bind mount needs root (the tests run as root in CI; elsewhere the mount is refused and this test says so).
  const mounted = spawnSync("mount", ["--bind", `${dir}/site`, `${dir}/site`]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync("umount", [`${dir}/site`]);
  });
  it.runIf(mounted)("is refused with exit 6 before any frame is committed, never an internal error", () => {
    const r = runCli(["assemble", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", at(10)]);
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/is a mount point/);
    expect(existsSync(`${dir}/archive.git/refs/heads/main`)).toBe(false);
    expect(readdirSync(`${dir}/site`)).toEqual([]);
  });
});
