import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { runReplay } from "../../cli/commands/replay.ts";
import { runVerify } from "../../cli/commands/verify.ts";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { frameHashOf } from "../../core/frame.ts";
import { BlackBox } from "../../core/surfaces/black-box.ts";
import { previousState } from "../../archive/api/state.ts";
import { VERSION } from "../../core/version.ts";
import { demoSurfaces } from "../helpers/publication.ts";
import { nodeHasher } from "../../cli/runtime/node.ts";
import { archiveWithFrames, at, git, replaceInTree, rewrite, showBlob } from "../helpers/archive.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";
import { CLI, ROOT } from "../helpers/cli.ts";
import { dirname } from "node:path";

/** The surfaces an assembly of the demo builds (per-series CSVs expanded). */
const SURFACES = await demoSurfaces();

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** `risk-cli assemble` in a process of its own, under a umask of 077 (nothing for the group). */
function assembleWithUmask077(site: string, archive: string, now: string): void {
  execFileSync(
    "sh",
    [
      "-c",
      'umask 077 && exec "$0" "$@"',
      process.execPath,
      CLI,
      "assemble",
      "--site",
      site,
      "--archive",
      archive,
      "--now",
      now,
      "--json",
    ],
    { stdio: "ignore" },
  );
}

describe("the archive", () => {
  it("holds one commit per frame, timed at the frame, with machine-readable trailers, and passes git fsck", async () => {
    const { archive, summaries } = await archiveWithFrames(3);
    const log = git(archive, "log", "--format=%H %at %ct%n%B%n--").split("\n--\n").filter(Boolean);
    expect(log).toHaveLength(3);
    const [newest] = log;
    expect(newest).toContain(`Frame-Id: ${summaries[2]!.frameId}`);
    expect(newest).toContain(`Frame-Hash: sha256:${summaries[2]!.frameHash}`);
    const seconds = String(Date.parse(at(30)) / 1000);
    expect(newest!.split("\n")[0]).toBe(`${summaries[2]!.commit} ${seconds} ${seconds}`);
    expect(() => git(archive, "fsck", "--full", "--strict")).not.toThrow();
  });

  it("serves JSON surfaces canonically, so sha256sum of each file is its integrity fingerprint", async () => {
    const { site } = await archiveWithFrames(1);
    const integrity = JSON.parse(readFileSync(`${site}/api/v1/integrity.json`, "utf8"));
    expect(integrity.surfaces.length).toBe(SURFACES.length - 1);
    for (const s of integrity.surfaces) {
      const bytes = readFileSync(`${site}${s.path}`);
      expect(sha256(bytes)).toBe(s.sha256);
      expect(bytes.byteLength).toBe(s.bytes);
      if (s.mediaType === "application/json")
        expect(bytes.toString("utf8")).toBe(canonicalJson(JSON.parse(bytes.toString("utf8"))));
    }
  });

  it("adds no new surface blob when nothing but the clock changed", async () => {
    const { archive, summaries } = await archiveWithFrames(2);
    // The frame itself, the replay index, the journal's day shard, the frame log's new partial
    // tile, and the five surfaces that must move: the three signal surfaces (attempt times), the
    // black box and integrity. The journal changes (one record more) but is stored as its day
    // shard, not under site/.
    expect(summaries[1]!.changed).toEqual([
      "/api/v1/black-box.json",
      "/api/v1/debt-risk.json",
      "/api/v1/history.ndjson",
      "/api/v1/integrity.json",
      "/api/v1/risk.json",
      "/api/v1/signals/current.json",
    ]);
    expect(summaries[1]!.blobsWritten).toBe(9);
    // Every blob the frame's commit brought into the archive is counted, no more and no fewer.
    const tree = (commit: string) =>
      new Map(
        git(archive, "ls-tree", "-r", commit)
          .trim()
          .split("\n")
          .map((l) => [l.split("\t")[1]!, l.split(" ")[2]!.split("\t")[0]!]),
      );
    const [before, after] = [tree("HEAD~1"), tree("HEAD")];
    const earlier = new Set(before.values());
    const added = [...after].filter(([, oid]) => !earlier.has(oid)).map(([path]) => path);
    expect(added.sort()).toEqual([
      "frame.json",
      expect.stringMatching(/^index\/2026\/11\/21\.json$/),
      expect.stringMatching(/^journal\/2026\/11\/21\.ndjson$/),
      "site/api/v1/black-box.json",
      "site/api/v1/debt-risk.json",
      "site/api/v1/integrity.json",
      "site/api/v1/risk.json",
      "site/api/v1/signals/current.json",
      "tile/0/000.p/1",
    ]);
  });

  it("gives the group read access to what it writes in a shared repository (core.sharedRepository), whatever the umask", async () => {
    const { archive, site } = await archiveWithFrames(1);
    git(archive, "config", "core.sharedRepository", "group");
    const before = new Set(
      execFileSync("find", [`${archive}/objects`, "-type", "f"], { encoding: "utf8" }).split("\n"),
    );
    assembleWithUmask077(site, archive, at(15));
    const added = execFileSync("find", [`${archive}/objects`, "-type", "f"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => f && !before.has(f));
    expect(added.length).toBeGreaterThan(3);
    for (const path of [...added, ...added.map((f) => dirname(f)), `${archive}/refs/heads/main`]) {
      const mode = statSync(path).mode;
      expect(mode & 0o040, path).toBe(0o040);
      if (statSync(path).isDirectory()) expect(mode & 0o050, path).toBe(0o050);
    }
  });

  it("gives the group read and write access to the cache files it keeps in a shared repository, whatever the umask", async () => {
    const dir = tempDir("risk-shared-");
    const [archive, site] = [`${dir}/archive.git`, `${dir}/site`];
    execFileSync("git", ["init", "--quiet", "--bare", "--shared=group", archive]);
    // Frames written by one account under a umask of 077, and the caches written, then rewritten
    // or appended to.
    for (const minutes of [0, 15, 30]) assembleWithUmask077(site, archive, at(minutes));
    const kept = execFileSync("find", [archive, "-maxdepth", "2", "-path", `${archive}/risk-cli*`], {
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
    expect(kept.map((f) => f.slice(archive.length + 1)).sort()).toEqual(
      expect.arrayContaining([
        "risk-cli-chain.txt",
        "risk-cli-frames",
        "risk-cli-memo.json",
        "risk-cli-site-stat.json",
      ]),
    );
    for (const path of kept) {
      const st = statSync(path);
      // Another account of the group reads them and writes them in its turn, as Git's own files.
      expect(st.mode & 0o060, path).toBe(0o060);
      if (st.isDirectory()) expect(st.mode & 0o2070, path).toBe(0o2070);
    }
  });

  it("refuses an assembly whose clock is not after the last frame", async () => {
    const { site, archive } = await archiveWithFrames(1);
    await expect(runAssemble({ site, archive, now: at(0), json: true })).rejects.toMatchObject({ code: "E_CLOCK" });
  });
});

describe("replay", () => {
  it("gives the last frame at or before a date-time, byte for byte as it was served", async () => {
    const { archive, dir, summaries } = await archiveWithFrames(3);
    const firstSite = `${dir}/first-site`;
    await runAssemble({ site: firstSite, archive: `${dir}/other-archive`, now: at(0), json: true });
    const out = `${dir}/replay`;
    const r = await runReplay({ archive, date: at(20), out, json: true });
    expect(r.frame.frameId).toBe(summaries[1]!.frameId);
    const exact = await runReplay({ archive, date: at(0), json: true });
    expect(exact.frame.frameId).toBe(summaries[0]!.frameId);
    const out0 = `${dir}/replay0`;
    await runReplay({ archive, date: at(0), out: out0, json: true });
    expect(treeDigest(out0)).toEqual(treeDigest(firstSite));
  });

  it("reads a date as the end of that UTC day", async () => {
    const { archive, summaries } = await archiveWithFrames(2);
    const r = await runReplay({ archive, date: "2026-11-21", json: true });
    expect(r.frame.frameId).toBe(summaries[1]!.frameId);
  });

  it("finds the last frame of an earlier day through the index", async () => {
    const dir = tempDir("risk-days-");
    const paths = { site: `${dir}/site`, archive: `${dir}/archive` };
    const times = ["2026-10-30T23:50:00Z", "2026-10-31T08:00:00Z", "2026-11-02T09:00:00Z", "2027-01-03T00:00:00Z"];
    const ids = [];
    for (const now of times) ids.push((await runAssemble({ ...paths, now, json: true, allowFuture: true })).frameId);
    expect((await runReplay({ archive: paths.archive, date: "2026-11-01", json: true })).frame.frameId).toBe(ids[1]);
    expect(
      (await runReplay({ archive: paths.archive, date: "2026-12-31T12:00:00+02:00", json: true })).frame.frameId,
    ).toBe(ids[2]);
    expect((await runReplay({ archive: paths.archive, date: "2026-10-31T07:59:59Z", json: true })).frame.frameId).toBe(
      ids[0],
    );
    expect((await runReplay({ archive: paths.archive, date: "2027-06-01", json: true })).frame.frameId).toBe(ids[3]);
  });

  it("is an error before the first frame, never an empty success", async () => {
    const { archive, dir } = await archiveWithFrames(1);
    await expect(runReplay({ archive, date: "2026-11-20", out: `${dir}/nothing`, json: true })).rejects.toMatchObject({
      code: "E_NO_FRAME",
      message: expect.stringContaining("the archive's first frame is at 2026-11-21T10:00:00Z"),
    });
    expect(existsSync(`${dir}/nothing`)).toBe(false);
  });

  it("refuses a date without a zone", async () => {
    const { archive } = await archiveWithFrames(1);
    await expect(runReplay({ archive, date: "2026-11-21T10:00:00", json: true })).rejects.toMatchObject({
      code: "E_USAGE",
    });
  });
});

describe("verify", () => {
  it("passes on an untouched archive and on a fresh clone of it", async () => {
    const { archive, dir } = await archiveWithFrames(3);
    expect((await runVerify({ archive, json: true })).frames).toBe(3);
    // --no-local packs the objects, as a clone over the network does.
    const clone = `${dir}/clone`;
    git(archive, "clone", "--no-local", "--quiet", archive, clone);
    expect(readdirSync(`${clone}/.git/objects/pack`).some((n) => n.endsWith(".pack"))).toBe(true);
    const report = await runVerify({ archive: clone, json: true });
    expect(report.frames).toBe(3);
    expect(
      (await runReplay({ archive: clone, date: at(15), out: `${dir}/from-clone`, json: true })).written?.files,
    ).toBe(SURFACES.length);
  });

  it("names the frame and path of a stored surface with one flipped byte", async () => {
    const { archive, summaries } = await archiveWithFrames(3);
    const path = "site/api/v1/catalog.json";
    rewrite(archive, 1, (tree) => {
      const bytes = showBlob(archive, tree, path);
      bytes[100] = bytes[100]! ^ 0x01;
      return replaceInTree(archive, tree, path, bytes);
    });
    await expect(runVerify({ archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: summaries[1]!.frameId, path: "/api/v1/catalog.json" },
    });
  });

  it("detects a flipped byte in a loose object file on disk", async () => {
    const { archive } = await archiveWithFrames(2);
    const oid = git(archive, "rev-parse", "HEAD:site/api/v1/catalog.ndjson");
    const file = `${archive}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
    const bytes = readFileSync(file);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    writeFileSync(file, bytes);
    await expect(runVerify({ archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { path: "/api/v1/catalog.ndjson" },
    });
  });

  it("detects a removed frame", async () => {
    const { archive, summaries } = await archiveWithFrames(3);
    rewrite(archive, 1, (t) => t, { drop: true });
    await expect(runVerify({ archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: summaries[2]!.frameId },
    });
  });

  it("detects a rewritten frame even when its own hash was recomputed", async () => {
    const { archive, summaries } = await archiveWithFrames(3);
    rewrite(archive, 1, (tree) => {
      const frame = JSON.parse(showBlob(archive, tree, "frame.json").toString("utf8"));
      frame.signals.us.value = 99.9;
      frame.frameHash = frameHashOf(frame, nodeHasher);
      return replaceInTree(archive, tree, "frame.json", canonicalJson(frame));
    });
    // The commit message still names the old hash: the rewrite shows at that frame.
    await expect(runVerify({ archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: summaries[1]!.frameId, path: "frame.json" },
    });
  });

  it("detects an integrity.json copied from another frame", async () => {
    const { archive, summaries } = await archiveWithFrames(3);
    const path = "site/api/v1/integrity.json";
    const older = showBlob(archive, "HEAD~2", path);
    rewrite(archive, 2, (tree) => replaceInTree(archive, tree, path, older));
    await expect(runVerify({ archive, json: true })).rejects.toMatchObject({
      code: "E_VERIFY",
      data: { frame: summaries[2]!.frameId, path: "/api/v1/integrity.json" },
    });
  });
});

describe("the archive lock", () => {
  it("refuses a second writer while the first is alive, naming its PID", async () => {
    const { site, archive } = await archiveWithFrames(1);
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(
        `${archive}/risk-cli.lock`,
        JSON.stringify({ pid: live.pid, host: hostname(), since: "2026-11-21T10:00:00.000Z" }),
      );
      const before = treeDigest(archive);
      await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({
        code: "E_LOCKED",
        message: expect.stringContaining(`archive is locked by PID ${live.pid}`),
      });
      expect(treeDigest(archive)).toEqual(before);
    } finally {
      live.kill();
    }
  });

  it("takes the lock in the same run when a killed process left its takeover file beside the stale lock", async () => {
    const { site, archive } = await archiveWithFrames(1);
    const dead = { pid: 4_194_303, host: hostname(), since: "2026-11-21T09:00:00.000Z" };
    writeFileSync(`${archive}/risk-cli.lock`, JSON.stringify(dead));
    writeFileSync(`${archive}/risk-cli.lock.takeover`, JSON.stringify(dead));
    const summary = await runAssemble({ site, archive, now: at(15), json: true });
    expect(summary.frameId).toMatch(/^000002-/);
    expect(readdirSync(archive).filter((n) => n.startsWith("risk-cli.lock"))).toEqual([]);
    // A live process's takeover file is never removed: the run stands aside (exit 5).
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      writeFileSync(`${archive}/risk-cli.lock`, JSON.stringify(dead));
      writeFileSync(
        `${archive}/risk-cli.lock.takeover`,
        JSON.stringify({ pid: live.pid, host: hostname(), since: "2026-11-21T10:00:00.000Z" }),
      );
      await expect(runAssemble({ site, archive, now: at(30), json: true })).rejects.toMatchObject({
        code: "E_LOCKED",
        message: expect.stringContaining("taking over the stale lock"),
      });
      expect(existsSync(`${archive}/risk-cli.lock.takeover`)).toBe(true);
    } finally {
      live.kill();
    }
  });

  it("replaces a stale lock whose writer is gone, and says so", async () => {
    const { site, archive } = await archiveWithFrames(1);
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => dead.on("exit", r));
    writeFileSync(
      `${archive}/risk-cli.lock`,
      JSON.stringify({ pid: dead.pid, host: hostname(), since: "2026-11-21T09:00:00.000Z" }),
    );
    const summary = await runAssemble({ site, archive, now: at(15), json: true });
    expect(summary.frameId).toMatch(/^000002-/);
    expect(existsSync(`${archive}/risk-cli.lock`)).toBe(false);
  });
});

describe("a lock or takeover file that names no holder", () => {
  const aged = (file: string, seconds: number) => {
    const then = new Date(Date.now() - seconds * 1000);
    utimesSync(file, then, then);
  };

  it("is waited for while fresh: its writer may be writing its name", async () => {
    const { site, archive } = await archiveWithFrames(1);
    writeFileSync(`${archive}/risk-cli.lock`, "");
    await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({
      code: "E_LOCKED",
      message: expect.stringContaining("names no holder yet"),
    });
    expect(existsSync(`${archive}/risk-cli.lock`)).toBe(true);
  });

  it("is removed once a minute old (a writer that died between creating and writing it), and the frame is made", async () => {
    const { site, archive } = await archiveWithFrames(1);
    writeFileSync(`${archive}/risk-cli.lock`, "");
    aged(`${archive}/risk-cli.lock`, 120);
    const summary = await runAssemble({ site, archive, now: at(15), json: true });
    expect(summary.frameId).toMatch(/^000002-/);
    expect(existsSync(`${archive}/risk-cli.lock`)).toBe(false);
  });

  it("as a takeover file a minute old, is removed and the same run takes over the stale lock", async () => {
    const { site, archive } = await archiveWithFrames(1);
    writeFileSync(`${archive}/risk-cli.lock`, "{");
    aged(`${archive}/risk-cli.lock`, 300);
    writeFileSync(`${archive}/risk-cli.lock.takeover`, "");
    aged(`${archive}/risk-cli.lock.takeover`, 300);
    const summary = await runAssemble({ site, archive, now: at(15), json: true });
    expect(summary.frameId).toMatch(/^000002-/);
    expect(readdirSync(archive).filter((n) => n.startsWith("risk-cli.lock"))).toEqual([]);
  });

  it("as a fresh takeover file, is waited for (exit 5): its writer may be writing its name", async () => {
    const { site, archive } = await archiveWithFrames(1);
    writeFileSync(`${archive}/risk-cli.lock`, "{");
    aged(`${archive}/risk-cli.lock`, 300);
    writeFileSync(`${archive}/risk-cli.lock.takeover`, "");
    await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({ code: "E_LOCKED" });
    expect(existsSync(`${archive}/risk-cli.lock.takeover`)).toBe(true);
  });

  it("is refused at once, never read, when a FIFO or a link to /dev/zero stands in its place", async () => {
    const { site, archive } = await archiveWithFrames(1);
    execFileSync("mkfifo", [`${archive}/risk-cli.lock`]);
    const started = Date.now();
    await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({
      code: "E_LOCKED",
      message: expect.stringContaining("is not a lock file risk-cli wrote"),
    });
    rmSync(`${archive}/risk-cli.lock`);
    symlinkSync("/dev/zero", `${archive}/risk-cli.lock`);
    await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({ code: "E_LOCKED" });
    rmSync(`${archive}/risk-cli.lock`);
    // A dead holder's lock with a FIFO as takeover file.
    writeFileSync(
      `${archive}/risk-cli.lock`,
      JSON.stringify({ pid: 4_194_303, host: hostname(), since: "2026-11-21T09:00:00.000Z" }),
    );
    execFileSync("mkfifo", [`${archive}/risk-cli.lock.takeover`]);
    await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({ code: "E_LOCKED" });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("dated over a minute in the future, or naming no real process (pid 0, -1), is taken as stale once a minute old", async () => {
    const { site, archive } = await archiveWithFrames(1);
    writeFileSync(`${archive}/risk-cli.lock`, "garbage");
    aged(`${archive}/risk-cli.lock`, -365 * 86_400);
    expect((await runAssemble({ site, archive, now: at(15), json: true })).frameId).toMatch(/^000002-/);
    for (const [i, pid] of [0, -1].entries()) {
      writeFileSync(
        `${archive}/risk-cli.lock`,
        JSON.stringify({ pid, host: hostname(), since: "2026-11-21T09:00:00.000Z" }),
      );
      aged(`${archive}/risk-cli.lock`, 120);
      expect((await runAssemble({ site, archive, now: at(30 + 15 * i), json: true })).frameId).toMatch(/^00000[34]-/);
    }
  });

  it("is never removed when it is a folder, however old", async () => {
    const { site, archive } = await archiveWithFrames(1);
    mkdirSync(`${archive}/risk-cli.lock`);
    aged(`${archive}/risk-cli.lock`, 300);
    await expect(runAssemble({ site, archive, now: at(15), json: true })).rejects.toMatchObject({
      code: "E_LOCKED",
      message: expect.stringContaining("is not a lock file risk-cli wrote"),
    });
    expect(existsSync(`${archive}/risk-cli.lock`)).toBe(true);
  });
});

describe("nothing is lost", () => {
  it("an invalid article leaves the site and the archive exactly as they were", async () => {
    const pub = demoCopy();
    const { site, archive } = await archiveWithFrames(1, pub);
    const before = { site: treeDigest(site), archive: treeDigest(archive) };
    editFile(`${pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) => t.replace(/^date: .*$/m, "date: hier"));
    await expect(runAssemble({ site, archive, publication: pub, now: at(15), json: true })).rejects.toMatchObject({
      code: "E_INPUT",
    });
    expect(treeDigest(site)).toEqual(before.site);
    expect(treeDigest(archive)).toEqual(before.archive);
    expect(readdirSync(`${site}/..`).sort()).toEqual(["archive", "site"]);
  });

  it("a lone surrogate in a title is refused naming the file, line and field, and nothing is written", async () => {
    const pub = demoCopy();
    const { site, archive } = await archiveWithFrames(1, pub);
    const before = { site: treeDigest(site), archive: treeDigest(archive) };
    editFile(`${pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) =>
      t.replace(/^title: .*$/m, 'title: "Spread \\uD800 cassé"'),
    );
    await expect(runAssemble({ site, archive, publication: pub, now: at(15), json: true })).rejects.toMatchObject({
      code: "E_INPUT",
      message: expect.stringMatching(
        /content\/articles\/fr\/spread-btp-bund-2026\.md:\d+ \(field title\).*lone UTF-16 surrogate/,
      ),
    });
    expect(treeDigest(site)).toEqual(before.site);
    expect(treeDigest(archive)).toEqual(before.archive);
  });
});

describe("a run killed while it writes a Git object", () => {
  it("leaves a temporary file that git gc neither reports nor keeps", async () => {
    const { archive } = await archiveWithFrames(1);
    // A process killed between writing an object's temporary file and renaming it into place.
    const child = `
      const fs = require("node:fs");
      fs.renameSync = () => process.kill(process.pid, "SIGKILL");
      require("node:module").syncBuiltinESMExports();
      import(${JSON.stringify(pathToFileURL(`${ROOT}dist/archive/git/objects.js`).href)}).then((o) =>
        o.writeBlob(${JSON.stringify(archive)}, new TextEncoder().encode("killed before its rename")),
      );
    `;
    const r = spawnSync(process.execPath, ["-e", child], { encoding: "utf8", timeout: 20_000 });
    expect(r.signal).toBe("SIGKILL");
    const left = execFileSync("find", [
      `${archive}/objects`,
      "-type",
      "f",
      "-newer",
      `${archive}/HEAD`,
      "!",
      "-name",
      "[0-9a-f]*",
    ])
      .toString()
      .trim()
      .split("\n")
      .filter(Boolean);
    expect(left).toHaveLength(1);
    const gc = spawnSync("git", ["--git-dir", archive, "gc", "--quiet"], { encoding: "utf8" });
    expect(gc.status).toBe(0);
    expect(gc.stderr).not.toMatch(/bad sha1 file|garbage found/);
    // Once older than gc.pruneExpire (two weeks), git gc removes it.
    execFileSync("touch", ["-d", "30 days ago", left[0]!]);
    const later = spawnSync("git", ["--git-dir", archive, "gc", "--quiet"], { encoding: "utf8" });
    expect(later.stderr).not.toMatch(/bad sha1 file|garbage found/);
    expect(existsSync(left[0]!)).toBe(false);
  });
});

describe("a run killed while it moves one of risk-cli's own refs", () => {
  it("leaves a lock file Git ignores, never a ref Git lists or fsck reports", async () => {
    const { archive } = await archiveWithFrames(1);
    const head = git(archive, "rev-parse", "HEAD").trim();
    for (const [module, call] of [
      ["archive/api/attestation-ref.js", `o.setAttestationsHead(${JSON.stringify(archive)}, ${JSON.stringify(head)})`],
      [
        "archive/git/objects.js",
        `o.writeLooseRef(${JSON.stringify(archive)}, ${JSON.stringify(`${archive}/refs/risk-cli/published/main`)}, ${JSON.stringify(head)})`,
      ],
    ] as const) {
      // A process killed between writing the new ref and renaming it into place.
      const child = `
        const fs = require("node:fs");
        fs.renameSync = () => process.kill(process.pid, "SIGKILL");
        require("node:module").syncBuiltinESMExports();
        import(${JSON.stringify(pathToFileURL(`${ROOT}dist/${module}`).href)}).then((o) => ${call});
      `;
      const r = spawnSync(process.execPath, ["-e", child], { encoding: "utf8", timeout: 20_000 });
      expect(r.signal).toBe("SIGKILL");
    }
    const left = execFileSync("find", [`${archive}/refs/risk-cli`, "-type", "f"])
      .toString()
      .trim()
      .split("\n");
    expect(left.sort()).toEqual([
      `${archive}/refs/risk-cli/attestations.lock`,
      `${archive}/refs/risk-cli/published/main.lock`,
    ]);
    expect(git(archive, "for-each-ref", "--format=%(refname)", "refs/risk-cli").trim()).toBe("");
    const fsck = spawnSync("git", ["--git-dir", archive, "fsck", "--no-dangling"], { encoding: "utf8" });
    expect(fsck.status).toBe(0);
    expect(fsck.stderr).not.toMatch(/invalid|bad ref/i);
  });
});

describe("reuse of unchanged surfaces", () => {
  it("gives the same bytes as a full rebuild, and rebuilds when the inputs change", async () => {
    const pub = demoCopy();
    const { site, archive, summaries } = await archiveWithFrames(2, pub);
    const corpus = SURFACES.filter((s) => s.reusable).map((s) => s.path);
    // The signal-history surfaces are reused too, by key: same day, no level change.
    const keyed = SURFACES.filter((s) => s.reuseKey).map((s) => s.path);
    expect(keyed).toContain("/api/v1/signals/history.json");
    expect(summaries[1]!.reused).toEqual(SURFACES.filter((s) => s.reusable || s.reuseKey).map((s) => s.path));
    expect(corpus).toEqual(
      expect.arrayContaining(["/api/v1/catalog.json", "/api/v1/claims.json", "/api/v1/search-index.json", "/llms.txt"]),
    );
    // Without a site folder nothing can be reused: a full rebuild of the same inputs must give
    // the same bytes, the corpus's indexing instant included.
    const reusedCopy = `${site}-reused`;
    cpSync(site, reusedCopy, { recursive: true });
    rmSync(site, { recursive: true });
    const rebuilt = await runAssemble({ site, archive, publication: pub, now: at(30), json: true });
    expect(rebuilt.reused).toEqual([]);
    // Only the surfaces that read the clock or the upstream readings change. Freshness and the
    // risk diff read the clock too, but move only when a producer expires or a window finds a new
    // baseline frame, which this half hour does not bring; the signal-history surfaces are rebuilt to the
    // same bytes (same day, no level change).
    const steady = ["/api/v1/freshness.json", "/api/v1/risk-diff.json", "/api/v1/risk.xml"];
    expect(rebuilt.changed).toEqual(
      SURFACES.filter((s) => !s.reusable && !s.reuseKey && !steady.includes(s.path))
        .map((s) => s.path)
        .sort(),
    );
    const content = (dir: string, path: string) => {
      const text = readFileSync(`${dir}${path}`, "utf8");
      if (!path.endsWith(".json")) return text;
      const { generated: _stamp, ...rest } = JSON.parse(text);
      return rest;
    };
    for (const path of corpus) expect(content(site, path), path).toEqual(content(reusedCopy, path));

    editFile(`${pub}/content/articles/fr/spread-btp-bund-2026.md`, (t) =>
      t.replace(/^title: .*$/m, 'title: "Un autre titre"'),
    );
    const edited = await runAssemble({ site, archive, publication: pub, now: at(45), json: true });
    // The contract is made of the schemas and the configuration, which an edited article leaves alone.
    expect(edited.reused).toEqual(["/openapi.json"]);
    expect(edited.changed).toContain("/api/v1/catalog.json");
    expect(readFileSync(`${site}/api/v1/catalog.json`, "utf8")).toContain("Un autre titre");

    // The publication's name is in the contract's title: renamed, the contract is built again.
    editFile(`${pub}/risk.config.yaml`, (t) => t.replace(/^name: .*$/m, "name: Observatoire renomme"));
    const renamed = await runAssemble({ site, archive, publication: pub, now: at(60), json: true });
    expect(renamed.reused).not.toContain("/openapi.json");
    expect(renamed.changed).toContain("/openapi.json");
    expect(readFileSync(`${site}/openapi.json`, "utf8")).toContain("Observatoire renomme");
  });

  it("never reuses an edited unstamped site file, though the file's stat data let a clean one skip its hash", async () => {
    const { site, archive } = await archiveWithFrames(2);
    const original = readFileSync(`${site}/llms.txt`, "utf8");
    const s2 = await runAssemble({ site, archive, now: at(30), json: true });
    expect(s2.reused).toContain("/llms.txt");
    // Same size, other bytes: the stat data change (mtime), so the file is hashed and rebuilt.
    writeFileSync(`${site}/llms.txt`, original.replace("Observatoire", "Observatoirf"));
    const s3 = await runAssemble({ site, archive, now: at(45), json: true });
    expect(s3.reused).not.toContain("/llms.txt");
    expect(readFileSync(`${site}/llms.txt`, "utf8")).toBe(original);
    await expect(runVerify({ archive, json: true })).resolves.toMatchObject({ frames: 4 });
  });

  it("never reuses a site file that no longer matches the previous frame", async () => {
    const { site, archive } = await archiveWithFrames(1);
    editFile(`${site}/api/v1/catalog.json`, (t) => t.replace("Observatoire", "Observatoirf"));
    const s = await runAssemble({ site, archive, now: at(15), json: true });
    expect(s.reused).not.toContain("/api/v1/catalog.json");
    expect(s.changed).not.toContain("/api/v1/catalog.json");
    expect(readFileSync(`${site}/api/v1/catalog.json`, "utf8")).not.toContain("Observatoirf");
    await expect(runVerify({ archive, json: true })).resolves.toMatchObject({ frames: 2 });
  });
});

describe("frames do not depend on where things are", () => {
  it("gives the same frame hash and commit for the same publication in two folders", async () => {
    const [a, b] = [demoCopy(), demoCopy()];
    const [x, y] = [tempDir("risk-loc-"), tempDir("risk-loc-")];
    const sa = await runAssemble({
      publication: a,
      site: `${x}/site`,
      archive: `${x}/archive`,
      now: at(0),
      json: true,
    });
    const sb = await runAssemble({ publication: b, site: `${y}/s`, archive: `${y}/a`, now: at(0), json: true });
    expect(sa.frameHash).toBe(sb.frameHash);
    expect(sa.commit).toBe(sb.commit);
  });
});

describe("what an assembly reads back from the head frame", () => {
  it("takes the head's black box on its recorded fingerprint only: a replaced blob goes through the schema", async () => {
    const { archive } = await archiveWithFrames(3);
    const path = "site/api/v1/black-box.json";
    const copies = [{ path: "/api/v1/black-box.json", schema: BlackBox }];
    const blackBoxOf = (state: Awaited<ReturnType<typeof previousState>>) =>
      (state!.copies.get("/api/v1/black-box.json") as BlackBox | undefined) ?? null;
    const trusted = await previousState(archive, copies, { trustedVersion: VERSION });
    const checked = await previousState(archive, copies, { trustedVersion: "another version" });
    // Trusted or schema-checked, the same document.
    expect(blackBoxOf(trusted)).toEqual(BlackBox.parse(blackBoxOf(checked)));
    expect(blackBoxOf(trusted)!.recentFrames).toHaveLength(2);

    // A blob that parses as JSON but breaks the schema, put in place of the head's: its hash no
    // longer matches the frame's record, so the schema runs and refuses it.
    const stored = JSON.parse(showBlob(archive, "HEAD", path).toString("utf8"));
    stored.recentFrames[0].frameHash = "not a hash";
    rewrite(archive, 2, (tree) => replaceInTree(archive, tree, path, canonicalJson(stored)));
    const forged = await previousState(archive, copies, { trustedVersion: VERSION });
    expect(blackBoxOf(forged)).toBeNull();
  });
});
