/**
 * `risk-cli verify --checkpoint` on a year of frames (35,040) against a checkpoint saved a month
 * before (2,880 frames earlier), against the obvious alternative: recomputing the log from every
 * frame's hash, read from the 35,040 commits with `git log` (what an auditor without the tiles
 * would do), in the same run.
 *
 * Assembling a real year takes most of an hour, so the archive is made the way the log sees it:
 * 35,039 frame commits (fast-import, each with the Frame-* trailers of a real frame), then one
 * real assembled frame on top whose frame.json records the log of those 35,039 (size, root,
 * right edge) and whose tree holds their tiles. `verify --checkpoint` reads exactly what it
 * would read in a real archive: the head frame, its tiles, nothing else.
 *
 *   node dist/bench/checkpoint.js [--runs N]
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runAssembly } from "../app/assembly.ts";
import { canonicalJson } from "../core/canonical/jcs.ts";
import { checkpointOf, extendLog, EMPTY_LOG, frameLeaf, rawSha } from "../core/log/frames.ts";
import { rootOf, toHex } from "../core/log/merkle.ts";
import { allTiles } from "../archive/api/tiles.ts";
import { readCommit, readBlob, oidAtPath, writeBlob, writeCommit } from "../archive/git/objects.ts";
import { editTree } from "../archive/git/tree-edit.ts";
import { demoPublication } from "../cli/paths.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";
import { frameMessage } from "../archive/models/message.ts";

const BIN = fileURLToPath(new URL("../bin/risk-cli.js", import.meta.url));
const YEAR = 35_040;
const MONTH = 2_880;
const T0 = Date.parse("2025-11-21T00:00:00Z");
const at = (i: number) => new Date(T0 + i * 15 * 60_000).toISOString().replace(".000Z", "Z");
const sha256hex = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");
const quiet = { info: () => {}, warn: () => {} };

export interface CheckpointResult {
  frames: number;
  checkpointSize: number;
  verifyMs: number;
  gitLogMs: number;
  ratio: number;
  proofHashes: number;
  proofBytes: number;
}

export async function measureCheckpoint(options: { runs?: number; log?: (m: string) => void } = {}) {
  const runs = options.runs ?? 3;
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), "risk-bench-cp-"));
  try {
    const gitdir = `${dir}/archive.git`;
    execFileSync("git", ["init", "-q", "--bare", "--initial-branch=main", gitdir]);
    // 35,039 frames before the head, as commits with the trailers of real frames.
    const hashes = Array.from({ length: YEAR - 1 }, () => randomBytes(32).toString("hex"));
    let stream = "";
    hashes.forEach((frameHash, i) => {
      const seq = i + 1;
      const msg = frameMessage({
        frameId: `${String(seq).padStart(6, "0")}-${at(i).replace(/[-:]/g, "")}`,
        frameHash,
        seq,
        at: at(i),
      });
      stream += `commit refs/heads/main\nmark :${seq}\ncommitter risk-cli <risk-cli@bench> ${Math.floor(Date.parse(at(i)) / 1000)} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}${seq > 1 ? `from :${seq - 1}\n` : ""}\n`;
    });
    execFileSync("git", ["--git-dir", gitdir, "fast-import", "--quiet"], { input: stream, maxBuffer: 1 << 30 });
    const parent = execFileSync("git", ["--git-dir", gitdir, "rev-parse", "refs/heads/main"]).toString().trim();
    // One real frame, assembled elsewhere, then re-parented onto them with the log they make.
    const real = `${dir}/real.git`;
    await runAssembly(
      { publication: demoPublication(), site: join(dir, "site"), archive: real, now: at(YEAR - 1) },
      { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: quiet },
    );
    const head = execFileSync("git", ["--git-dir", real, "rev-parse", "refs/heads/main"]).toString().trim();
    execFileSync("git", ["--git-dir", real, "push", "-q", gitdir, `${head}:refs/heads/real`]);
    const info = await readCommit(gitdir, head);
    const frameEntry = (await oidAtPath(gitdir, info.tree, "frame.json"))!;
    const frame = JSON.parse(new TextDecoder().decode(await readBlob(gitdir, frameEntry.oid)));
    let logHead = EMPTY_LOG(nodeHasher);
    for (const h of hashes) logHead = extendLog(nodeHasher, logHead, h);
    frame.log = logHead;
    frame.seq = YEAR;
    const { frameHash: _old, ...body } = frame;
    frame.frameHash = sha256hex(canonicalJson(body, "frame.json"));
    const sha = rawSha(nodeHasher);
    const edits = new Map<string, string | null>(
      await allTiles(
        gitdir,
        hashes.map((h) => frameLeaf(sha, h)),
        sha,
      ),
    );
    edits.set("frame.json", await writeBlob(gitdir, new TextEncoder().encode(canonicalJson(frame, "frame.json"))));
    const tree = await editTree(gitdir, info.tree, edits);
    const commit = await writeCommit(gitdir, {
      tree: tree!,
      parents: [parent],
      message: frameMessage({ frameId: frame.frameId, frameHash: frame.frameHash, seq: YEAR, at: frame.at }),
      time: Math.floor(Date.parse(frame.at) / 1000),
      name: "risk-cli",
      email: "risk-cli@bench",
    });
    execFileSync("git", ["--git-dir", gitdir, "update-ref", "refs/heads/main", commit]);
    // The checkpoint a stranger saved a month before.
    const m = YEAR - MONTH;
    const leaves = hashes.slice(0, m).map((h) => frameLeaf(sha, h));
    const cpLog = { size: m, root: toHex(rootOf(sha, leaves)), edge: [] };
    const file = `${dir}/checkpoint.txt`;
    writeFileSync(
      file,
      checkpointOf(nodeHasher, "bench/risk-cli/frames", cpLog, {
        frameId: `${String(m).padStart(6, "0")}-x`,
        frameHash: hashes[m - 1]!,
      }),
    );
    const verifyMs: number[] = [];
    const gitLogMs: number[] = [];
    let proof: string[] = [];
    for (let r = 0; r < runs; r++) {
      let t = performance.now();
      const out = execFileSync(process.execPath, [BIN, "verify", "--archive", gitdir, "--checkpoint", file, "--json"], {
        env: { ...process.env, SOURCE_DATE_EPOCH: "" },
      });
      verifyMs.push(performance.now() - t);
      proof = JSON.parse(out.toString()).proof;
      // The alternative: every frame's hash from the history, then the tree over them.
      t = performance.now();
      const trailers = execFileSync(
        "git",
        ["--git-dir", gitdir, "log", "--format=%(trailers:key=Frame-Hash,valueonly)", "refs/heads/main"],
        {
          maxBuffer: 1 << 30,
        },
      )
        .toString()
        .split("\n")
        .filter((l) => l.startsWith("sha256:"))
        .map((l) => l.slice(7))
        .reverse();
      rootOf(
        sha,
        trailers.slice(0, m).map((h) => frameLeaf(sha, h)),
      );
      rootOf(
        sha,
        trailers.map((h) => frameLeaf(sha, h)),
      );
      gitLogMs.push(performance.now() - t);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const result: CheckpointResult = {
      frames: YEAR,
      checkpointSize: m,
      verifyMs: Math.round(median(verifyMs)),
      gitLogMs: Math.round(median(gitLogMs)),
      ratio: Math.round((median(verifyMs) / median(gitLogMs)) * 100) / 100,
      proofHashes: proof.length,
      proofBytes: proof.length * 32,
    };
    log(
      `verify --checkpoint, ${YEAR} frames against a checkpoint of ${m}: ${result.verifyMs} ms (the whole CLI process); ` +
        `git log of every frame hash + the two roots: ${result.gitLogMs} ms; ratio ${result.ratio}; proof ${result.proofHashes} hashes (${result.proofBytes} bytes)`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 3;
  const r = await measureCheckpoint({ runs, log: (m) => console.log(m) });
  console.log(JSON.stringify(r));
}
