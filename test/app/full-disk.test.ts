import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "../helpers/archive.ts";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";
import { updateBranch } from "../../archive/git/objects.ts";
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
    const r = runCli([
      "assemble",
      "--site",
      `${dir}/site`,
      "--archive",
      `${dir}/archive.git`,
      "--now",
      at(15),
      "--json",
    ]);
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/disk is full \(ENOSPC\)/);
    // The folder the failed write was in, the one to free: the new site is staged first.
    expect(r.stderr).toContain(
      `Cannot write the site folder ${dir}/site: the disk is full (ENOSPC). Nothing was published`,
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, code: "E_IO", errno: "ENOSPC" });
    expect(treeDigest(`${dir}/site`)).toEqual(site);
    expect(
      execFileSync("git", ["--git-dir", `${dir}/archive.git`, "rev-parse", "refs/heads/main"])
        .toString()
        .trim(),
    ).toBe(head);
    const leftovers = execFileSync("find", [`${dir}/archive.git/objects`, "-name", "tmp_obj_*"])
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

/** A second small tmpfs, remounted read-only once an archive is on it. */
const readOnlyPoint = tempDir("risk-ro-");
const roMounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", readOnlyPoint]).status === 0;
afterAll(() => {
  if (roMounted) spawnSync("umount", [readOnlyPoint]);
});

describe.runIf(roMounted)("a read-only archive (EROFS)", () => {
  it("is read by verify, replay and diff, and assemble exits 6 naming it without touching the site", () => {
    const archive = `${readOnlyPoint}/archive.git`;
    const site = `${tempDir("risk-ro-site-")}/site`;
    for (const minutes of [0, 15]) {
      const r = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(minutes)]);
      expect(r.status, r.stderr).toBe(0);
    }
    const before = treeDigest(site);
    expect(spawnSync("mount", ["-o", "remount,ro", readOnlyPoint]).status).toBe(0);
    // An auditor's read-only copy: everything that only reads works.
    const verify = runCli(["verify", "--archive", archive]);
    expect(verify.status, verify.stderr).toBe(0);
    const out = `${tempDir("risk-ro-out-")}/replay`;
    const replay = runCli(["replay", "--date", at(20), "--archive", archive, "--out", out]);
    expect(replay.status, replay.stderr).toBe(0);
    expect(runCli(["diff", "--from", at(0), "--to", at(20), "--archive", archive]).status).toBe(0);
    // Writing a frame cannot work: a documented exit, not an internal error, and the site is kept.
    const r = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(30)]);
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/read-only \(EROFS\)/);
    expect(r.stderr).not.toMatch(/internal error/i);
    expect(treeDigest(site)).toEqual(before);
  });
});

/** A third small tmpfs, filled to the last byte so that not even a lock file's name can be written. */
const fullPoint = tempDir("risk-full-");
const fullMounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", fullPoint]).status === 0;
afterAll(() => {
  if (fullMounted) spawnSync("umount", [fullPoint]);
});

describe.runIf(fullMounted)("a disk too full to write the lock file", () => {
  it("leaves no empty lock behind, names the archive folder, and the next run once space is freed succeeds", () => {
    const site = `${fullPoint}/site`;
    const archive = `${fullPoint}/archive.git`;
    const first = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    // Fill every block: the lock file can be created, but not one byte written into it.
    const filler = `${fullPoint}/filler`;
    const free = Number(execFileSync("df", ["--output=avail", "-B1", fullPoint]).toString().split("\n")[1]);
    writeFileSync(filler, Buffer.alloc(free));
    try {
      for (let i = 0; i < 64; i++) appendFileSync(filler, Buffer.alloc(4096));
    } catch {
      // Full.
    }
    const r = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(15)]);
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/disk is full \(ENOSPC\)/);
    expect(r.stderr).toContain(`the archive ${archive}`);
    expect(r.stderr).not.toContain("given on the command line");
    expect(existsSync(`${archive}/risk-cli.lock`)).toBe(false);
    expect(existsSync(`${archive}/risk-cli.lock.takeover`)).toBe(false);
    rmSync(filler);
    const next = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(15)]);
    expect(next.status, next.stderr).toBe(0);
  });
});

/** A fourth small tmpfs, filled once a frame is on it. */
const branchPoint = tempDir("risk-branch-");
const branchMounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", branchPoint]).status === 0;
afterAll(() => {
  if (branchMounted) spawnSync("umount", [branchPoint]);
});

describe.runIf(branchMounted)("a disk that fills as the branch moves", () => {
  it("leaves no lock on the branch, so the next run once space is freed is not held off", async () => {
    const dir = branchPoint;
    const archive = `${dir}/archive.git`;
    const first = runCli(["assemble", "--site", `${dir}/site`, "--archive", archive, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    const head = execFileSync("git", ["--git-dir", archive, "rev-parse", "refs/heads/main"]).toString().trim();
    // Every block taken: the ref's lock file can be created, not one byte written into it.
    const filler = `${branchPoint}/filler`;
    const free = Number(execFileSync("df", ["--output=avail", "-B1", branchPoint]).toString().split("\n")[1]);
    try {
      writeFileSync(filler, Buffer.alloc(free));
      for (let i = 0; i < 64; i++) appendFileSync(filler, Buffer.alloc(4096));
    } catch {
      // Full.
    }
    try {
      await expect(updateBranch(archive, head, head)).rejects.toMatchObject({ code: "ENOSPC" });
      expect(existsSync(`${archive}/refs/heads/main.lock`)).toBe(false);
    } finally {
      rmSync(filler, { force: true });
    }
    await updateBranch(archive, head, head);
    expect(existsSync(`${archive}/refs/heads/main.lock`)).toBe(false);
  });
});

/** Whether this process may run a command as `nobody` (root, with setpriv): modes then hold. */
const asNobody = process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0;

describe.runIf(asNobody)("caches that cannot be saved once the frame is published", () => {
  it("publish the frame with exit 0 and a warning naming the file, never a failure saying nothing was published", () => {
    const dir = tempDir("risk-caches-");
    const [site, archive, publication] = [`${dir}/site`, `${dir}/archive.git`, `${dir}/pub`];
    cpSync(`${ROOT}demo`, publication, { recursive: true });
    const paths = ["--publication", publication, "--site", site, "--archive", archive];
    const first = runCli(["assemble", ...paths, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    // Another account runs the next assembly: the folders are its own, but the cache files the
    // first account left (by its umask, as an earlier risk-cli left them) it may read at most.
    execFileSync("chown", ["-R", "nobody", dir]);
    execFileSync("sh", [
      "-c",
      'chown -R root "$0"/risk-cli-* && chmod -R go-w "$0"/risk-cli-* && chmod go-rwx "$0"/risk-cli-frames',
      archive,
    ]);
    // An edited guide: the memo of per-document results gains entries, appended to its log.
    const guide = `${publication}/content/guides/fr/lire-les-spreads.md`;
    writeFileSync(guide, `${readFileSync(guide, "utf8")}\nUn paragraphe ajouté.\n`);
    const r = spawnSync(
      "setpriv",
      ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, CLI, "assemble", ...paths].concat([
        "--now",
        at(15),
        "--json",
      ]),
      { encoding: "utf8", env: { ...process.env, SOURCE_DATE_EPOCH: "" } },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).frameId).toMatch(/^000002-/);
    expect(r.stderr).toMatch(
      /is published, but saving .* failed: permission denied \(EACCES\) at .*archive\.git\/risk-cli-/,
    );
    const served = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8")).frame.frameId;
    expect(served).toMatch(/^000002-/);
    expect(runCli(["verify", "--archive", archive]).status).toBe(0);
  });
});

describe.runIf(asNobody)("a site folder this account may not write (chmod -R a-w)", () => {
  it("is refused with exit 6 before anything is committed, and the site and the archive stay as they were", () => {
    const dir = tempDir("risk-ro-site-");
    const [site, archive] = [`${dir}/site`, `${dir}/archive.git`];
    const first = runCli(["assemble", "--site", site, "--archive", archive, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    execFileSync("chown", ["-R", "nobody", dir]);
    execFileSync("chmod", ["-R", "a-w", site]);
    const before = treeDigest(site);
    const head = () => execFileSync("git", ["--git-dir", archive, "rev-parse", "refs/heads/main"]).toString();
    const headBefore = head();
    const r = spawnSync(
      "setpriv",
      ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, CLI, "assemble"].concat([
        "--site",
        site,
        "--archive",
        archive,
        "--now",
        at(15),
      ]),
      { encoding: "utf8", env: { ...process.env, SOURCE_DATE_EPOCH: "" } },
    );
    expect(r.status, r.stderr).toBe(6);
    expect(r.stderr).toContain(`The site folder ${site} cannot be replaced`);
    expect(r.stderr).toContain("Nothing was written");
    expect(treeDigest(site)).toEqual(before);
    expect(head()).toBe(headBefore);
    expect(readdirSync(dir).sort()).toEqual(["archive.git", "site"]);
    expect(existsSync(`${archive}/risk-cli.lock`)).toBe(false);
  });
});

describe.runIf(asNobody)("a site this account may not read (chmod 000)", () => {
  it("is named as unreadable by serve and search, with exit 6, never as a link, a device or a folder risk-cli did not write", () => {
    const dir = tempDir("risk-unreadable-site-");
    const site = `${dir}/site`;
    const first = runCli(["assemble", "--site", site, "--archive", `${dir}/archive.git`, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    execFileSync("chown", ["-R", "nobody", dir]);
    const asNobodyRun = (...args: string[]) =>
      spawnSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, CLI, ...args], {
        encoding: "utf8",
        timeout: 20_000,
      });
    chmodSync(`${site}/api`, 0o000);
    const serve = asNobodyRun("serve", "--site", site, "--port", "0");
    expect({ status: serve.status, stderr: serve.stderr }).toMatchObject({
      status: 6,
      stderr: expect.stringContaining(`--site ${site} cannot be read: permission denied (EACCES)`),
    });
    chmodSync(`${site}/api`, 0o755);
    chmodSync(`${site}/api/v1/search-index.json`, 0o000);
    const search = asNobodyRun("search", "taux", "--site", site);
    expect({ status: search.status, stderr: search.stderr }).toMatchObject({
      status: 6,
      stderr: expect.stringContaining(
        "/api/v1/search-index.json in the site cannot be read: permission denied (EACCES); make the site readable",
      ),
    });
  });

  it("is answered by a running serve with 500 and nothing of the file, and named once to the operator", async () => {
    const dir = tempDir("risk-unreadable-served-");
    const site = `${dir}/site`;
    const first = runCli(["assemble", "--site", site, "--archive", `${dir}/archive.git`, "--now", at(0)]);
    expect(first.status, first.stderr).toBe(0);
    execFileSync("chown", ["-R", "nobody", dir]);
    chmodSync(`${site}/llms.txt`, 0o000);
    chmodSync(`${site}/series`, 0o000);
    const server = spawn(
      "setpriv",
      [
        "--reuid=nobody",
        "--regid=nogroup",
        "--clear-groups",
        process.execPath,
        CLI,
        "serve",
        "--site",
        site,
        "--port",
        "0",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    const origin = await new Promise<string>((found, fail) => {
      server.stderr.on("data", (c: Buffer) => {
        stderr += c.toString("utf8");
        const m = /at (http:\/\/[^/]+)\//.exec(stderr);
        if (m) found(m[1]!);
      });
      server.once("close", () => fail(new Error(stderr)));
    });
    try {
      for (const path of ["/llms.txt", "/llms.txt", "/series/", "/series", "/series/index.html", "/series/made/up"]) {
        const r = await fetch(`${origin}${path}`, { redirect: "manual" });
        const body = await r.text();
        expect({ path, status: r.status }).toEqual({ path, status: 500 });
        expect(r.headers.get("cache-control")).toBe("no-store");
        expect(body).not.toContain(dir);
        expect(body).not.toMatch(/EACCES|permission/i);
      }
      expect((await fetch(`${origin}/api/v1/risk.json`)).status).toBe(200);
      expect((await fetch(`${origin}/no/such/file.json`)).status).toBe(404);
      const warnings = stderr.split("\n").filter((line) => line.startsWith("warning: "));
      expect(warnings).toEqual([
        "warning: /llms.txt in the site cannot be read: permission denied; make the site readable by the user running risk-cli",
        "warning: /series/ in the site cannot be read: permission denied; make the site readable by the user running risk-cli",
      ]);
    } finally {
      server.kill("SIGTERM");
    }
  }, 30_000);
});
