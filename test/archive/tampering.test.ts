/**
 * An auditor's archive, tampered with by someone who knows Git: the replay index steered
 * (a backdated entry, a look-ahead entry, a dropped entry, a shard that is not JSON), frame.json
 * replaced by garbage, a gitlink where a tile belongs, and commit messages edited. `verify` must
 * fail naming the frame (exit 1); `replay`, `diff` and `prove` must refuse, never give the wrong
 * frame and never exit 70.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { frameMessage } from "../../archive/models/message.ts";
import { nodeHasher } from "../../cli/runtime/node.ts";
import { canonicalJson } from "../../core/canonical/jcs.ts";
import { stamp } from "../../core/canonical/stamp.ts";
import { frameHashOf } from "../../core/frame.ts";
import { CLI, runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

const TIMES = [
  "2026-02-28T10:00:00Z",
  "2026-02-28T23:59:59Z",
  "2026-03-01T00:00:00Z",
  "2026-03-01T10:00:00Z",
  "2026-03-02T10:00:00Z",
];

let dir: string;
let checkpoint: string;

beforeAll(() => {
  dir = tempDir("risk-tamper-");
  for (const now of TIMES) expect(runCli(["assemble", "--now", now], { cwd: dir }).status).toBe(0);
  const box = JSON.parse(readFileSync(`${dir}/site/api/v1/black-box.json`, "utf8"));
  checkpoint = `${dir}/checkpoint.txt`;
  writeFileSync(checkpoint, box.log.checkpoint);
}, 60_000);

/** A copy of the archive, with its environment for git and git run in it. */
function archiveCopy(prefix: string) {
  const copy = `${tempDir(prefix)}/a.git`;
  cpSync(`${dir}/archive.git`, copy, { recursive: true });
  const env = { ...process.env, GIT_DIR: copy };
  const git = (...args: string[]) => execFileSync("git", args, { env, encoding: "utf8" }).trim();
  return { copy, env, git };
}

/** A copy of the archive whose head commit is rewritten by `edit` (git commands in the copy). */
function tampered(
  edit: (git: (...args: string[]) => string, put: (path: string, text: string, mode?: string) => void) => void,
) {
  const copy = `${tempDir("risk-tampered-")}/a.git`;
  cpSync(`${dir}/archive.git`, copy, { recursive: true });
  const index = `${copy}.index`;
  const env = { ...process.env, GIT_DIR: copy, GIT_INDEX_FILE: index };
  const git = (...args: string[]) => execFileSync("git", args, { env, encoding: "utf8" }).trim();
  const put = (path: string, text: string, mode = "100644") => {
    const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { env, input: text, encoding: "utf8" }).trim();
    git("update-index", "--add", "--cacheinfo", `${mode},${blob},${path}`);
  };
  const head = git("rev-parse", "main");
  git("read-tree", head);
  edit(git, put);
  const tree = git("write-tree");
  const raw = git("cat-file", "commit", head).replace(/^tree [0-9a-f]{40}/, `tree ${tree}`);
  const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
    env,
    input: `${raw}\n`,
    encoding: "utf8",
  }).trim();
  git("update-ref", "refs/heads/main", commit);
  rmSync(index, { force: true });
  return copy;
}

/** A copy whose head commit message is edited by `edit`. */
function retold(edit: (message: string) => string) {
  const { copy, env, git } = archiveCopy("risk-retold-");
  const head = git("rev-parse", "main");
  const raw = execFileSync("git", ["cat-file", "commit", head], { env, encoding: "utf8" });
  const [headers, message] = [raw.slice(0, raw.indexOf("\n\n")), raw.slice(raw.indexOf("\n\n") + 2)];
  const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
    env,
    input: `${headers}\n\n${edit(message)}`,
    encoding: "utf8",
  }).trim();
  git("update-ref", "refs/heads/main", commit);
  return copy;
}

/** A copy of `source`'s archive whose head frame.json is edited, its frameHash and commit message made to match. */
function reframed(source: string, edit: (frame: Record<string, any>) => void) {
  const copy = `${tempDir("risk-resigned-")}/a.git`;
  cpSync(`${source}/archive.git`, copy, { recursive: true });
  const env = { ...process.env, GIT_DIR: copy, GIT_INDEX_FILE: `${copy}.index` };
  const git = (...args: string[]) => execFileSync("git", args, { env, encoding: "utf8" }).trim();
  const frame = JSON.parse(git("show", "main:frame.json"));
  edit(frame);
  const { frameHash: _old, ...body } = frame;
  frame.frameHash = frameHashOf(body as never, nodeHasher);
  const input = canonicalJson(frame);
  const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { env, input, encoding: "utf8" }).trim();
  git("read-tree", "main");
  git("update-index", "--cacheinfo", `100644,${blob},frame.json`);
  const tree = git("write-tree");
  const raw = execFileSync("git", ["cat-file", "commit", "main"], { env, encoding: "utf8" });
  const headers = raw.slice(0, raw.indexOf("\n\n")).replace(/^tree [0-9a-f]{40}/, `tree ${tree}`);
  const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
    env,
    input: `${headers}\n\n${frameMessage(frame as never)}`,
    encoding: "utf8",
  }).trim();
  git("update-ref", "refs/heads/main", commit);
  return { copy, frame };
}

const run = (archive: string, ...args: string[]) => runCli([...args, "--archive", archive]);

describe("a tampered replay index", () => {
  it("is caught when an entry is backdated: replay and diff refuse, verify fails", () => {
    const a = tampered((git, put) => {
      const first = git("rev-parse", "main~4");
      const shard = JSON.parse(git("show", "main:index/2026/02/28.json"))[0];
      put("index/2026/02/27.json", JSON.stringify([{ ...shard, at: "2026-02-27T10:00:00Z", commit: first }]));
    });
    expect(run(a, "replay", "--date", "2026-02-27T12:00:00Z").status).toBe(1);
    expect(run(a, "diff", "--from", "2026-02-27T12:00:00Z", "--to", "2026-03-02").status).toBe(1);
    const verify = run(a, "verify");
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain("index/2026/02/27.json");
  });

  it("is caught when an entry is redirected to another frame's commit, naming both commits", () => {
    let other = "";
    const a = tampered((git, put) => {
      other = git("rev-parse", "main~1");
      const entries = JSON.parse(git("show", "main:index/2026/03/01.json"));
      put("index/2026/03/01.json", JSON.stringify([{ ...entries[0], commit: other }, ...entries.slice(1)]));
    });
    const verify = run(a, "verify");
    expect(verify.status).toBe(1);
    expect(verify.stderr).toMatch(
      new RegExp(
        `the replay index gives frame \\S+ at \\S+ \\(commit ${other}\\) where the chain has frame \\S+ at \\S+ \\(commit [0-9a-f]{40}\\)`,
      ),
    );
  });

  it("is caught when an entry looks ahead, or is dropped", () => {
    const ahead = tampered((git, put) =>
      put(
        "index/2026/03/01.json",
        git("show", "main:index/2026/03/01.json").replace("2026-03-01T10:00:00Z", "2026-03-01T00:00:01Z"),
      ),
    );
    expect(run(ahead, "replay", "--date", "2026-03-01T05:00:00Z").status).toBe(1);
    expect(run(ahead, "verify").status).toBe(1);
    const dropped = tampered((git, put) => {
      const entries = JSON.parse(git("show", "main:index/2026/03/01.json"));
      put("index/2026/03/01.json", JSON.stringify(entries.slice(1)));
    });
    const verify = run(dropped, "verify");
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain("the index was rewritten");
  });

  it("is caught when a shard is not JSON, without an internal error", () => {
    const a = tampered((_git, put) => put("index/2026/03/01.json", "garbage"));
    expect(run(a, "verify").status).toBe(1);
    expect(run(a, "replay", "--date", "2026-03-01T05:00:00Z").status).toBe(1);
    expect(run(a, "diff", "--from", "2026-03-01", "--to", "2026-03-02").status).toBe(1);
  });
});

describe("a tampered head tree or commit message", () => {
  it("garbage for frame.json: verify fails naming it; replay, diff, prove and the checkpoint refuse", () => {
    const a = tampered((_git, put) => put("frame.json", "garbage"));
    const verify = run(a, "verify");
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain("frame.json");
    for (const args of [
      ["replay", "--date", "2026-03-01T05:00:00Z"],
      ["diff", "--from", "2026-03-01", "--to", "2026-03-02"],
      ["prove", "--frame", "000002-20260228T235959Z"],
      ["verify", "--checkpoint", checkpoint],
    ]) {
      const r = run(a, ...args);
      expect([1, 6], `${args.join(" ")}: ${r.stderr}`).toContain(r.status);
    }
  });

  it("a commit where a tile belongs: verify fails, prove refuses", () => {
    const a = tampered((git) =>
      git("update-index", "--cacheinfo", `160000,${git("rev-parse", "main~4")},tile/0/000.p/4`),
    );
    expect(run(a, "verify").status).toBe(1);
    expect([1, 6]).toContain(run(a, "prove", "--frame", "000002-20260228T235959Z").status);
  });

  it("a file added at the top of a frame, under upstream/, or an empty index shard: verify fails", () => {
    for (const [path, text] of [
      ["evil.sh", "x"],
      ["upstream/evil", "x"],
      ["index/2026/01/01.json", "[]"],
    ] as const) {
      const verify = run(
        tampered((_git, put) => put(path, text)),
        "verify",
      );
      expect(verify.status, path).toBe(1);
      expect(verify.stderr).toContain(path);
    }
  });

  it("a surface, frame.json or an upstream document re-stored as a symbolic link or an executable: verify fails naming it", () => {
    for (const [path, mode] of [
      ["site/llms.txt", "120000"],
      ["site/api/v1/risk.json", "100755"],
      ["frame.json", "100755"],
    ] as const) {
      const a = tampered((git) => {
        const blob = git("rev-parse", `main:${path}`);
        git("update-index", "--cacheinfo", `${mode},${blob},${path}`);
      });
      const verify = run(a, "verify");
      expect(verify.status, path).toBe(1);
      expect(verify.stderr).toContain(`stored with mode ${mode}`);
      expect(verify.stderr).toContain("000005-");
    }
  });

  it("a head frame.json whose signal is rewritten, frameHash and message made to match: verify fails, as the frame's own surfaces publish another", () => {
    // A frame whose readings are published (its value rewritten), and one of these early-2026
    // frames whose readings are from the future and missing (the reason published beside it).
    const present = tempDir("risk-present-");
    expect(runCli(["assemble", "--now", "2026-11-22T10:00:00Z"], { cwd: present }).status).toBe(0);
    for (const [source, field] of [
      [present, "value"],
      [dir, "reason"],
    ] as const) {
      let instrument = "";
      const { copy, frame } = reframed(source, (frame) => {
        [instrument] = Object.keys(frame.signals).filter(
          (k) => (frame.signals[k].value !== null) === (field === "value"),
        ) as [string];
        const signal = frame.signals[instrument];
        signal[field] = field === "value" ? Math.round((signal.value + 11.2) * 10) / 10 : "a reason nobody published";
      });
      const verify = run(copy, "verify");
      expect(verify.status, field).toBe(1);
      expect(verify.stderr).toContain(`signals.${instrument}.${field}`);
      expect(verify.stderr).toContain(frame.frameId);
    }
  });

  it("a head frame whose black-box.json log, risk.json index or debt-risk.json value contradicts frame.json, every hash recomputed: verify fails", () => {
    const present = tempDir("risk-surfaced-");
    for (const now of ["2026-11-22T10:00:00Z", "2026-11-22T10:15:00Z"])
      expect(runCli(["assemble", "--now", now], { cwd: present }).status).toBe(0);
    const edits: [string, string, (doc: Record<string, any>) => void][] = [
      ["/api/v1/black-box.json", "log.root", (d) => (d.log.root = "0".repeat(64))],
      [
        "/api/v1/black-box.json",
        "log.checkpoint's frame line",
        (d) =>
          (d.log.checkpoint = d.log.checkpoint.replace(/^frame (\S+) [0-9a-f]{64}$/m, `frame $1 ${"1".repeat(64)}`)),
      ],
      ["/api/v1/risk.json", "signals.us.value", (d) => (d.indices.us.value += 11.2)],
      ["/api/v1/debt-risk.json", "signals.debt.value", (d) => (d.signal.value += 3)],
    ];
    for (const [path, named, edit] of edits) {
      const copy = `${tempDir("risk-resurfaced-")}/a.git`;
      cpSync(`${present}/archive.git`, copy, { recursive: true });
      const env = { ...process.env, GIT_DIR: copy, GIT_INDEX_FILE: `${copy}.index` };
      const git = (...args: string[]) => execFileSync("git", args, { env, encoding: "utf8" }).trim();
      const frame = JSON.parse(git("show", "main:frame.json"));
      git("read-tree", "main");
      // The surface's stored and served bytes, its fingerprints in frame.json and integrity.json, all recomputed.
      const restore = (p: string, change: (doc: Record<string, any>) => void) => {
        const doc = JSON.parse(git("show", `main:site${p}`));
        change(doc);
        const stored = canonicalJson(doc);
        const served = frame.surfaces[p].stamped ? stamp(stored, frame.at) : stored;
        Object.assign(frame.surfaces[p], {
          storedSha256: nodeHasher.sha256(new TextEncoder().encode(stored)),
          sha256: nodeHasher.sha256(new TextEncoder().encode(served)),
          bytes: Buffer.byteLength(served),
        });
        const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { env, input: stored, encoding: "utf8" });
        git("update-index", "--cacheinfo", `100644,${blob.trim()},site${p}`);
      };
      restore(path, edit);
      restore("/api/v1/integrity.json", (d) => {
        for (const s of d.surfaces) if (s.path === path) s.sha256 = frame.surfaces[path].sha256;
      });
      const { frameHash: _old, ...body } = frame;
      frame.frameHash = frameHashOf(body, nodeHasher);
      const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], {
        env,
        input: canonicalJson(frame),
        encoding: "utf8",
      }).trim();
      git("update-index", "--cacheinfo", `100644,${blob},frame.json`);
      const tree = git("write-tree");
      const raw = execFileSync("git", ["cat-file", "commit", "main"], { env, encoding: "utf8" });
      const headers = raw.slice(0, raw.indexOf("\n\n")).replace(/^tree [0-9a-f]{40}/, `tree ${tree}`);
      const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
        env,
        input: `${headers}\n\n${frameMessage(frame)}`,
        encoding: "utf8",
      }).trim();
      git("update-ref", "refs/heads/main", commit);
      const verify = run(copy, "verify");
      expect(verify.status, `${path}: ${verify.stderr}`).toBe(1);
      expect(verify.stderr).toContain(frame.frameId);
      expect(verify.stderr).toContain(named);
    }
  });

  it("the head's README.md or LICENSE edited or removed, or its commit's author changed: verify fails naming the frame", () => {
    const head = JSON.parse(
      execFileSync("git", ["--git-dir", `${dir}/archive.git`, "show", "main:frame.json"], { encoding: "utf8" }),
    );
    expect(head.about).toMatchObject({ author: expect.stringMatching(/ <risk-cli@/) });
    for (const [what, copy] of [
      ["README.md", tampered((_git, put) => put("README.md", "# Another archive\n"))],
      ["LICENSE", tampered((_git, put) => put("LICENSE", "All rights reserved.\n"))],
      ["README.md", tampered((git) => git("rm", "-q", "--cached", "README.md"))],
      ["LICENSE", tampered((git) => git("rm", "-q", "--cached", "LICENSE"))],
    ] as const) {
      const r = run(copy, "verify");
      expect(r.status, `${what}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(head.frameId);
      expect(r.stderr).toContain(what);
    }
    // Only the author changed: the same tree and message.
    const { copy, env } = archiveCopy("risk-author-");
    const raw = execFileSync("git", ["cat-file", "commit", "main"], { env, encoding: "utf8" });
    const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
      env,
      input: raw.replace(/^author .* <[^>]*>/m, "author Someone Else <someone@example.org>"),
      encoding: "utf8",
    }).trim();
    execFileSync("git", ["update-ref", "refs/heads/main", commit], { env });
    const r = run(copy, "verify");
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain("the commit's author");
  });

  it("the head commit rewritten at the same instant with another UTC offset: verify fails naming the frame", () => {
    const head = JSON.parse(
      execFileSync("git", ["--git-dir", `${dir}/archive.git`, "show", "main:frame.json"], { encoding: "utf8" }),
    );
    const seconds = Math.floor(Date.parse(head.at) / 1000);
    for (const [line, zone] of [
      ["committer", "+0200"],
      ["author", "-0000"],
    ] as const) {
      const { copy, env } = archiveCopy("risk-zone-");
      const raw = execFileSync("git", ["cat-file", "commit", "main"], { env, encoding: "utf8" });
      // The same instant: only the offset Git writes after it differs.
      const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
        env,
        input: raw.replace(new RegExp(`^(${line} .* <[^>]*> ${seconds}) \\+0000$`, "m"), `$1 ${zone}`),
        encoding: "utf8",
      }).trim();
      execFileSync("git", ["update-ref", "refs/heads/main", commit], { env });
      const r = run(copy, "verify");
      expect(r.status, `${zone}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(head.frameId);
      expect(r.stderr).toContain(`UTC offset ${zone}`);
    }
  });

  it("frames without README.md and LICENSE fingerprints are counted as unchecked, and a head that drops them fails", () => {
    const one = tempDir("risk-older-");
    expect(runCli(["assemble", "--now", "2026-11-22T10:00:00Z"], { cwd: one }).status).toBe(0);
    // A frame as written before frames recorded them: verified, and reported as not covered.
    const { copy: older } = reframed(one, (frame) => delete frame.about);
    const r = run(older, "verify", "--json");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).about).toEqual({ checked: 0, unrecorded: 1 });
    expect(r.stderr).toContain("1 of 1 frames were written before frames fingerprinted README.md, LICENSE");
    // The head of an archive whose frames record them cannot drop them.
    const { copy: dropped, frame } = reframed(dir, (frame) => delete frame.about);
    const v = run(dropped, "verify");
    expect(v.status, v.stderr).toBe(1);
    expect(v.stderr).toContain(frame.frameId);
    expect(v.stderr).toContain("though the frame before does");
  });

  it("a Git replace ref on a surface's blob, or an info/grafts file: verify fails, since git show would read other bytes", () => {
    const { copy, env, git } = archiveCopy("risk-replace-");
    const blob = git("rev-parse", "main:site/api/v1/risk.json");
    const other = execFileSync("git", ["hash-object", "-w", "--stdin"], { env, input: "{}", encoding: "utf8" }).trim();
    git("replace", blob, other);
    expect(git("show", "main:site/api/v1/risk.json")).toBe("{}"); // what an auditor's sha256sum would read
    const r = run(copy, "verify");
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`refs/replace/${blob}`);
    git("pack-refs", "--all");
    expect(run(copy, "verify").stderr).toContain(`refs/replace/${blob}`);
    git("replace", "-d", blob);
    expect(run(copy, "verify").status).toBe(0);
    writeFileSync(`${copy}/info/grafts`, `${git("rev-parse", "main")}\n`);
    const g = run(copy, "verify");
    expect(g.status, g.stderr).toBe(1);
    expect(g.stderr).toContain("info/grafts");
  });

  it("a merge commit forged at the head: verify fails naming its frame", () => {
    const { copy, env, git } = archiveCopy("risk-merge-");
    const raw = execFileSync("git", ["cat-file", "commit", "main"], { env, encoding: "utf8" });
    const forged = raw.replace(/^(parent [0-9a-f]{40})$/m, `$1\nparent ${git("rev-parse", "main~3")}`);
    const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
      env,
      input: forged,
      encoding: "utf8",
    }).trim();
    git("update-ref", "refs/heads/main", commit);
    const verify = run(copy, "verify", "--json");
    expect(verify.status).toBe(1);
    expect(verify.stderr + verify.stdout).toContain("000005-");
    expect(verify.stderr + verify.stdout).toContain("more than one parent");
  });

  it("a commit made with plain Git on top, its tree a frame's: prove, replay and assemble refuse it, never counting it as a frame", () => {
    const { copy, env, git } = archiveCopy("risk-on-top-");
    const top = execFileSync("git", ["commit-tree", "main^{tree}", "-p", "main", "-m", "notes"], {
      env: { ...env, GIT_COMMITTER_DATE: "2026-03-03T00:00:00Z", GIT_AUTHOR_DATE: "2026-03-03T00:00:00Z" },
      encoding: "utf8",
    }).trim();
    git("update-ref", "refs/heads/main", top);
    const head = git("rev-parse", "main");
    const first = runCli(["prove", "--frame", "000001-20260228T100000Z", "--archive", copy]);
    expect(first.status, first.stderr).toBe(1);
    expect(first.stderr).toContain(`Commit ${top} is not a frame`);
    expect(first.stderr).toContain("made on the archive's branch with plain Git");
    const replayed = run(copy, "replay", "--date", "2026-03-05", "--json");
    expect(replayed.status, replayed.stdout).toBe(1);
    expect(replayed.stderr).toContain(`Commit ${top} is not a frame`);
    const assembled = runCli([
      "assemble",
      "--now",
      "2026-03-04T00:00:00Z",
      "--archive",
      copy,
      "--site",
      `${tempDir("risk-on-top-site-")}/site`,
    ]);
    expect(assembled.status, assembled.stderr).toBe(1);
    expect(git("rev-parse", "main")).toBe(head);
  });

  it("a commit whose message names the head frame but whose tree is the frame before: replay and prove refuse", () => {
    const { copy, env, git } = archiveCopy("risk-misnamed-");
    const message = execFileSync("git", ["log", "-1", "--format=%B", "main"], { env, encoding: "utf8" });
    const misnamed = execFileSync("git", ["commit-tree", "main~1^{tree}", "-p", "main", "-F", "-"], {
      env,
      input: message,
      encoding: "utf8",
    }).trim();
    git("update-ref", "refs/heads/main", misnamed);
    for (const args of [
      ["replay", "--date", "2026-03-05", "--json"],
      ["prove", "--frame", "000001-20260228T100000Z"],
    ]) {
      const r = run(copy, ...args);
      expect(r.status, `${args[0]}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(
        `Commit ${misnamed} is not the frame its frame.json records: its message names frame 000005-`,
      );
    }
  });

  it("a recorded surface removed from the tree: replay --out exits 1 as for any damage", () => {
    const a = tampered((git) => git("rm", "-q", "--cached", "site/llms.txt"));
    const r = run(a, "replay", "--date", "2027-01-01", "--out", `${tempDir("risk-gone-")}/r`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("/llms.txt");
    expect(run(a, "verify").status).toBe(1);
  });

  it("a log tile rewritten: replay --out refuses and writes nothing", () => {
    const a = tampered((_git, put) => put("tile/0/000.p/4", "short"));
    const out = `${tempDir("risk-tile-")}/r`;
    const r = run(a, "replay", "--date", "2027-01-01", "--out", out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/log tile/);
    expect(existsSync(out)).toBe(false);
    // The tiles removed altogether, or a file added among them.
    const gone = tampered((git) => git("rm", "-q", "-r", "--cached", "tile"));
    expect(run(gone, "replay", "--date", "2027-01-01", "--out", `${tempDir("risk-tile-")}/r`).status).toBe(1);
    const extra = run(
      tampered((_git, put) => put("tile/extra.txt", "x")),
      "verify",
    );
    expect(extra.status).toBe(1);
    expect(extra.stderr).toContain("tile/extra.txt");
  });

  it("a whole day of the index removed: replay and diff refuse rather than give the frame before", () => {
    const a = tampered((git) => git("rm", "-q", "--cached", "index/2026/03/01.json"));
    expect(run(a, "replay", "--date", "2026-03-01T12:00:00Z").status).toBe(1);
    expect(run(a, "diff", "--from", "2026-03-01T12:00:00Z", "--to", "2026-03-02T12:00:00Z").status).toBe(1);
    expect(run(a, "verify").status).toBe(1);
  });

  it("an edited subject, Frame-Seq or Frame-At: verify fails", () => {
    for (const edit of [
      (m: string) => m.replace("Frame-Seq: 5", "Frame-Seq: 6"),
      (m: string) => m.replace("Frame-At: 2026-03-02T10:00:00Z", "Frame-At: 2026-03-02T11:00:00Z"),
      (m: string) => m.replace(/^frame 000005/, "frame 000004"),
      (m: string) => m.replace("Frame-Seq: 5\n", "Frame-Seq: 5\nFrame-Seq: 9\n"),
      (m: string) => `${m}Signed-off-by: someone <s@example.org>\n`,
      (m: string) => m.replace("\n\n", "\n\nA line added to the body.\n\n"),
      (m: string) => m.replace("Frame-Seq: 5", "Frame-Seq: 05"),
      (m: string) => m.replace(/\n$/, ""),
    ]) {
      const verify = run(retold(edit), "verify");
      expect(verify.status).toBe(1);
      expect(verify.stderr).toContain("the message was rewritten");
    }
  });
});

describe("an auditor's clone of the archive branch", () => {
  it("is read on the branch its HEAD names, not on a main beside it", () => {
    const work = tempDir("risk-clone-");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: work, encoding: "utf8" }).trim();
    git("init", "-q", "--bare", "-b", "main", "pub.git");
    // The publisher's repository: its main is something else (here an older frame), the frames are on risk-archive.
    execFileSync("git", [
      "--git-dir",
      `${dir}/archive.git`,
      "push",
      "-q",
      `${work}/pub.git`,
      "main:risk-archive",
      "main~2:refs/heads/main",
    ]);
    git("clone", "-q", "--bare", "--branch", "risk-archive", "pub.git", "clone.git");
    const verify = runCli(["verify", "--archive", `${work}/clone.git`]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout + verify.stderr).toContain("verified 5 frames");
    const assemble = runCli([
      "assemble",
      "--archive",
      `${work}/clone.git`,
      "--site",
      `${work}/site`,
      "--now",
      "2026-03-03T00:00:00Z",
    ]);
    expect(assemble.status).toBe(6);
    expect(assemble.stderr).toContain("HEAD names refs/heads/risk-archive");
  });

  it("names a branch ref overwritten with garbage as damage, not as an empty archive", () => {
    const copy = `${tempDir("risk-ref-")}/a.git`;
    cpSync(`${dir}/archive.git`, copy, { recursive: true });
    writeFileSync(`${copy}/refs/heads/main`, "garbage\n");
    expect(run(copy, "verify").status).not.toBe(7);
    expect(run(copy, "replay", "--date", "2027-01-01").status).not.toBe(7);
    expect([1, 6]).toContain(run(copy, "verify").status);
  });

  it("names a branch pointed at a tree or a blob as such, not as a damaged pack", () => {
    const copy = `${tempDir("risk-ref-")}/a.git`;
    cpSync(`${dir}/archive.git`, copy, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync("git", args, { env: { ...process.env, GIT_DIR: copy }, encoding: "utf8" }).trim();
    writeFileSync(`${copy}/refs/heads/main`, `${git("rev-parse", "main^{tree}")}\n`);
    const verify = run(copy, "verify");
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain("is a tree where a commit belongs");
  });
});

describe("files that are not what Git keeps", () => {
  it.runIf(existsSync("/dev/zero"))("a loose object replaced by a link to /dev/zero is damage, read at once", () => {
    const copy = `${tempDir("risk-zero-")}/a.git`;
    cpSync(`${dir}/archive.git`, copy, { recursive: true });
    const folder = readdirSync(`${copy}/objects`).find((d) => /^[0-9a-f]{2}$/.test(d))!;
    const object = `${copy}/objects/${folder}/${readdirSync(`${copy}/objects/${folder}`)[0]!}`;
    rmSync(object);
    symlinkSync("/dev/zero", object);
    const verify = run(copy, "verify");
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain("symbolic link");
  });

  it("a checkpoint of another log (another origin line) vouches for nothing here", () => {
    const other = `${tempDir("risk-origin-")}/checkpoint.txt`;
    const lines = readFileSync(checkpoint, "utf8").split("\n");
    writeFileSync(other, ["evil.example/frames", ...lines.slice(1)].join("\n"));
    const r = run(`${dir}/archive.git`, "verify", "--checkpoint", other);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("another publication");
    expect(run(`${dir}/archive.git`, "verify", "--checkpoint", checkpoint).status).toBe(0);
  });

  it("a FIFO or a link to /dev/zero where Git keeps HEAD, a branch ref, packed-refs or a pack: damage, at once", () => {
    for (const [what, make] of [
      ["HEAD as a FIFO", (a: string) => (rmSync(`${a}/HEAD`), execFileSync("mkfifo", [`${a}/HEAD`]))],
      [
        "the branch ref as /dev/zero",
        (a: string) => (rmSync(`${a}/refs/heads/main`), symlinkSync("/dev/zero", `${a}/refs/heads/main`)),
      ],
      [
        "a pack as a FIFO",
        (a: string) => {
          execFileSync("git", ["--git-dir", a, "gc", "-q"]);
          const pack = readdirSync(`${a}/objects/pack`).find((n) => n.endsWith(".pack"))!;
          rmSync(`${a}/objects/pack/${pack}`);
          execFileSync("mkfifo", [`${a}/objects/pack/${pack}`]);
        },
      ],
      ["a symbolic branch ref", (a: string) => writeFileSync(`${a}/refs/heads/main`, "ref: refs/heads/other\n")],
      ["packed-refs as /dev/zero", (a: string) => symlinkSync("/dev/zero", `${a}/packed-refs`)],
      ["packed-refs as a FIFO", (a: string) => execFileSync("mkfifo", [`${a}/packed-refs`])],
    ] as const) {
      const copy = `${tempDir("risk-fifo-")}/a.git`;
      cpSync(`${dir}/archive.git`, copy, { recursive: true });
      make(copy);
      for (const args of [["verify"], ["replay", "--date", "2027-01-01"]]) {
        const r = spawnSync(process.execPath, [CLI, ...args, "--archive", copy], { encoding: "utf8", timeout: 20_000 });
        expect([1, 6], `${what}: ${args[0]}: ${r.status} ${r.signal} ${r.stderr}`).toContain(r.status);
      }
    }
  });

  it("a HEAD or packed-refs that Git cannot read is named, not verified or extended", () => {
    for (const [what, file, make] of [
      ["HEAD overwritten", "HEAD", (a: string) => writeFileSync(`${a}/HEAD`, "garbage\n")],
      ["HEAD emptied", "HEAD", (a: string) => writeFileSync(`${a}/HEAD`, "")],
      [
        "packed-refs with a garbage line",
        "packed-refs",
        (a: string) => writeFileSync(`${a}/packed-refs`, "# pack-refs with: peeled\nzzzz refs/heads/old\n"),
      ],
      [
        "packed-refs cut short",
        "packed-refs",
        (a: string) => {
          execFileSync("git", ["--git-dir", a, "pack-refs", "--all"]);
          const text = readFileSync(`${a}/packed-refs`, "utf8");
          writeFileSync(`${a}/packed-refs`, text.slice(0, -10));
        },
      ],
    ] as const) {
      const { copy, git } = archiveCopy("risk-refs-");
      make(copy);
      // Git itself reads nothing of such an archive.
      expect(() => git("log", "-1", "main"), what).toThrow();
      const before = readdirSync(`${copy}/objects`).length;
      for (const args of [["verify"], ["replay", "--date", "2027-01-01"], ["assemble", "--site", `${copy}-site`]]) {
        const r = run(copy, ...args);
        expect([1, 6], `${what}: ${args[0]}: ${r.stderr}`).toContain(r.status);
        expect(r.stderr, `${what}: ${args[0]}`).toContain(`The archive's ${file} file`);
        expect(r.stderr).toContain("Git cannot read the archive");
      }
      expect(readdirSync(`${copy}/objects`).length, what).toBe(before);
      expect(existsSync(`${copy}-site`), what).toBe(false);
    }
    // What Git writes there is read as before.
    const { copy, git } = archiveCopy("risk-refs-");
    git("pack-refs", "--all");
    writeFileSync(`${copy}/HEAD`, "ref: refs/heads/main");
    expect(run(copy, "verify").status).toBe(0);
  });

  it.runIf(existsSync("/dev/zero"))("a checkpoint that is /dev/zero is refused before it is read", () => {
    const r = run(`${dir}/archive.git`, "verify", "--checkpoint", "/dev/zero");
    expect(r.status).toBe(3);
    expect(r.stderr).toContain("not a regular file");
  });
});

describe("an archive begun in a repository made by git init --bare", () => {
  it("points HEAD at the branch of the frames, so that a plain git clone reads them", () => {
    const work = tempDir("risk-bare-");
    execFileSync("git", ["init", "-q", "--bare", "-b", "master", `${work}/b.git`]);
    expect(runCli(["assemble", "--archive", `${work}/b.git`, "--site", `${work}/s`, "--now", TIMES[0]!]).status).toBe(
      0,
    );
    expect(readFileSync(`${work}/b.git/HEAD`, "utf8")).toBe("ref: refs/heads/main\n");
    execFileSync("git", ["clone", "-q", `${work}/b.git`, `${work}/c`]);
    expect(runCli(["verify", "--archive", `${work}/c`]).status).toBe(0);
  });
});
