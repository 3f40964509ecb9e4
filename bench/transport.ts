/**
 * Publishing one frame to a remote archive: `risk-cli assemble --push` (pull what is new,
 * assemble one demo frame, push it) against the native Git job that moves the same objects
 * (`git fetch` of the new frame from one remote, `git push` of it to another), both against a
 * real smart-HTTP server (git http-backend on 127.0.0.1, bench/git-server.ts), in CPU time of the
 * client processes (bash's `time`, children included; the server's work is on neither side),
 * taking turns, in one run. Also the bytes an incremental pull fetches after many frames, against
 * a whole clone.
 *
 *   node dist/bench/transport.js [--runs N] [--frames N]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openArchive } from "../archive/index.ts";
import { runAssembly } from "../app/assembly.ts";
import { demoPublication } from "../cli/paths.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../cli/runtime/node.ts";
import { startGitServer } from "./git-server.ts";

const BIN = fileURLToPath(new URL("../bin/risk-cli.js", import.meta.url));
const T0 = Date.parse("2026-11-21T00:00:00Z");
const at = (i: number) => new Date(T0 + i * 15 * 60_000).toISOString().replace(".000Z", "Z");
const quiet = { info: () => {}, warn: () => {} };

/** CPU milliseconds (user + system, children included) of one shell command, without blocking this process's server. */
function cpuMs(command: string, env: NodeJS.ProcessEnv): Promise<number> {
  const script = `TIMEFORMAT='%3U %3S'; { time ( ${command} >/dev/null 2>.tmp-bench-err ) ; } 2>&1; s=$?; [ $s = 0 ] || cat .tmp-bench-err; exit $s`;
  return new Promise((ok, fail) => {
    const child = spawn("bash", ["-c", `set -o pipefail; ${script}`], { env, cwd: tmpdir() });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.on("close", (status) => {
      const m = /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(out);
      if (status !== 0 || !m) fail(new Error(`Cannot time \`${command}\`: exit ${status}: ${out.slice(0, 400)}`));
      else ok((Number(m[1]) + Number(m[2])) * 1000);
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export interface TransportResult {
  runs: number;
  frames: number;
  publishCpuMs: number;
  nativeCpuMs: number;
  ratio: number;
  fullPullBytes: number;
  incrementalPullBytes: number;
  pullRatio: number;
}

export async function measureTransport(options: { runs?: number; frames?: number; log?: (m: string) => void } = {}) {
  const runs = options.runs ?? 5;
  const frames = options.frames ?? 500;
  const log = options.log ?? (() => {});
  const work = mkdtempSync(join(tmpdir(), "risk-bench-transport-"));
  const ours = await startGitServer();
  const mirror = await startGitServer({ token: ours.token });
  try {
    const publisher = join(work, "publisher.git");
    const site = { site: join(work, "site"), publication: demoPublication() };
    const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: quiet };
    log(`building ${frames} frames`);
    for (let i = 0; i < frames; i++) await runAssembly({ ...site, archive: publisher, now: at(i) }, ports);
    const remote = (url: string) => ({ url, branch: "risk-archive", token: ours.token });
    await openArchive(publisher).push(remote(ours.url));
    await openArchive(publisher).push(remote(mirror.url));

    // Bytes: a whole pull into an empty folder, then an incremental one after one more frame.
    const reader = join(work, "reader.git");
    ours.uploadPackBytes = 0;
    await openArchive(reader).pull(remote(ours.url));
    const fullPullBytes = ours.uploadPackBytes;
    await runAssembly({ ...site, archive: publisher, now: at(frames) }, ports);
    await openArchive(publisher).push(remote(ours.url));
    await openArchive(publisher).push(remote(mirror.url));
    ours.uploadPackBytes = 0;
    await openArchive(reader).pull(remote(ours.url));
    const incrementalPullBytes = ours.uploadPackBytes;
    log(`pull: ${fullPullBytes} bytes whole, ${incrementalPullBytes} bytes for one new frame`);

    // CPU: risk-cli publishing one frame, then git moving that frame's objects, taking turns.
    const native = join(work, "native.git");
    execFileSync("git", ["init", "-q", "--bare", native]);
    const auth = `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${ours.token}`).toString("base64")}`;
    const env = { ...process.env, SOURCE_DATE_EPOCH: "", RISK_ARCHIVE_TOKEN: ours.token, GITHUB_TOKEN: "" };
    const publishMs: number[] = [];
    const nativeMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const n = frames + 1 + i;
      // The native side starts where the mirror is: it has every frame but the one about to be published.
      execFileSync("git", ["--git-dir", native, "fetch", "-q", publisher, "+refs/heads/main:refs/heads/main"]);
      publishMs.push(
        await cpuMs(
          `node ${BIN} assemble --push --remote ${ours.url} --site ${site.site} --archive ${publisher} --now ${at(n)}`,
          env,
        ),
      );
      nativeMs.push(
        await cpuMs(
          `git -c '${auth}' --git-dir ${native} fetch -q ${ours.url} +refs/heads/risk-archive:refs/heads/main && ` +
            `git -c '${auth}' --git-dir ${native} push -q ${mirror.url} refs/heads/main:refs/heads/risk-archive`,
          env,
        ),
      );
    }
    const publishCpuMs = median(publishMs);
    const nativeCpuMs = median(nativeMs);
    const result: TransportResult = {
      runs,
      frames,
      publishCpuMs: Math.round(publishCpuMs),
      nativeCpuMs: Math.round(nativeCpuMs),
      ratio: Math.round((publishCpuMs / nativeCpuMs) * 100) / 100,
      fullPullBytes,
      incrementalPullBytes,
      pullRatio: Math.round((incrementalPullBytes / fullPullBytes) * 10000) / 10000,
    };
    return result;
  } finally {
    await ours.close();
    await mirror.close();
    rmSync(work, { recursive: true, force: true });
  }
}

export function transportReport(r: TransportResult): string {
  return [
    `Publishing one demo frame to a remote archive (medians of ${r.runs}, CPU time of the client, after ${r.frames} frames):`,
    `  risk-cli assemble --push (pull, assemble, push): ${r.publishCpuMs} ms`,
    `  git fetch + git push of the same objects:         ${r.nativeCpuMs} ms`,
    `  ratio: ${r.ratio}x`,
    `Incremental pull: ${r.incrementalPullBytes} bytes for one new frame against ${r.fullPullBytes} for the whole archive (${(r.pullRatio * 100).toFixed(2)}%).`,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const result = await measureTransport({ runs: arg("--runs"), frames: arg("--frames"), log: (m) => console.error(m) });
  console.log(transportReport(result));
}
