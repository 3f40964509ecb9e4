import { execFileSync, spawn } from "node:child_process";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { openArchive } from "../../archive/index.ts";
import { assembleAndPush } from "../../app/publish.ts";
import { demoPublication } from "../../cli/paths.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../../cli/runtime/node.ts";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { at, git } from "../helpers/archive.ts";
import { runCli as runCliSync, CLI } from "../helpers/cli.ts";
import { startGitServer, type GitServer } from "../../bench/git-server.ts";
import { tempDir } from "../helpers/tmp.ts";
import { withoutSecret } from "../../archive/api/secret-text.ts";
import { fetchWithGit } from "../../archive/api/git-fetch.ts";

const env = (server: GitServer, token = server.token) => ({
  RISK_ARCHIVE_REMOTE: server.url,
  RISK_ARCHIVE_BRANCH: "risk-archive",
  RISK_ARCHIVE_TOKEN: token,
  GITHUB_TOKEN: "",
});

/** Git's fetch of the remote's archive branch into `gitdir`, as a pull too large for memory runs it. */
const gitFetch = (gitdir: string, url: string, token: string) =>
  fetchWithGit({
    gitdir,
    url,
    branch: "risk-archive",
    into: "refs/remotes/r/risk-archive",
    token,
    idleMs: 5_000,
    leftMs: 20_000,
    maxBytes: 1024 ** 2,
    where: url,
    program: "git",
  });

function remoteHead(server: GitServer): string | null {
  try {
    return git(server.gitdir, "rev-parse", "--verify", "-q", "refs/heads/risk-archive");
  } catch {
    return null;
  }
}

/** Clones the remote branch with git itself and verifies it with risk-cli: what a stranger does. */
function verifyFreshClone(server: GitServer) {
  const dir = tempDir("risk-clone-");
  execFileSync("git", ["clone", "--quiet", "--bare", "--branch", "risk-archive", server.gitdir, `${dir}/a.git`]);
  return runCliSync(["verify", "--archive", `${dir}/a.git`, "--json"]);
}

/**
 * The CLI as a child process, awaited: the test server lives in this process, so a synchronous
 * spawn would stop it from answering.
 */
function runCli(args: string[], options: { env?: Record<string, string> } = {}) {
  return runCliAsync(args, options.env ?? {});
}

function runCliAsync(args: string[], extraEnv: Record<string, string>) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, SOURCE_DATE_EPOCH: "", ...extraEnv },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (status) => ok({ status, stdout, stderr }));
  });
}

describe("archive transport over Git's smart HTTP protocol (git http-backend)", () => {
  let server: GitServer;
  beforeEach(async () => {
    server = await startGitServer();
  });
  afterEach(async () => server.close());

  /** A remote holding `frames` demo frames (15 minutes apart), pushed by another publisher. */
  async function seed(frames: number) {
    const dir = tempDir();
    for (let i = 0; i < frames; i++)
      await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(15 * i), json: true });
    const push = await runCli(["archive", "push", "--archive", `${dir}/archive.git`], { env: env(server) });
    expect(push.status, push.stderr).toBe(0);
    return remoteHead(server) as string;
  }

  /** Two publishers that pulled the remote's one frame; the first assembles at 15 minutes and pushes. */
  async function aPushesFirst() {
    await seed(1);
    const a = tempDir();
    const b = tempDir();
    for (const d of [a, b])
      expect((await runCli(["archive", "pull", "--archive", `${d}/archive.git`], { env: env(server) })).status).toBe(0);
    await runAssemble({ site: `${a}/site`, archive: `${a}/archive.git`, now: at(15), json: true });
    expect((await runCli(["archive", "push", "--archive", `${a}/archive.git`], { env: env(server) })).status).toBe(0);
    return { a, b, winner: remoteHead(server) };
  }

  it("never overwrites a frame an assembly committed while a pull fetched: the pull exits 5 and the frame stays", async () => {
    const { b, winner } = await aPushesFirst();
    const gitdir = `${b}/archive.git`;
    const before = git(gitdir, "rev-parse", "refs/heads/main");
    // While b's pull waits for the remote's answer, b assembles and commits a frame of its own.
    server.beforeNextFetchAnswer = async () => {
      await runAssemble({ site: `${b}/site`, archive: gitdir, now: at(20), json: true });
    };
    const pull = await runCli(["archive", "pull", "--archive", gitdir], { env: env(server) });
    const mine = git(gitdir, "rev-parse", "refs/heads/main");
    expect(mine).not.toBe(before);
    expect(mine).not.toBe(winner);
    expect(pull.status, pull.stderr).toBe(5);
    expect(pull.stderr).toContain("Another writer committed a frame");
    // The next pull finds both moved: the remote wins, and b's frame is kept, not lost.
    const again = await runCli(["archive", "pull", "--archive", gitdir, "--json"], { env: env(server) });
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: "replaced" });
    expect(git(gitdir, "rev-parse", "refs/heads/main")).toBe(winner);
    expect(existsSync(`${gitdir}/refs/risk-cli/unpushed/${mine}`)).toBe(true);
  });

  it("pushes to an empty remote, and a stranger's clone of the branch verifies", async () => {
    const dir = tempDir();
    for (let i = 0; i < 2; i++)
      await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(15 * i), json: true });
    expect(remoteHead(server)).toBeNull();
    const push = await runCli(["archive", "push", "--archive", `${dir}/archive.git`, "--json"], { env: env(server) });
    expect(push.status, push.stderr).toBe(0);
    expect(JSON.parse(push.stdout)).toMatchObject({ ok: true, outcome: "pushed", branch: "risk-archive" });
    expect(remoteHead(server)).toBe(git(`${dir}/archive.git`, "rev-parse", "refs/heads/main"));
    const verified = verifyFreshClone(server);
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).frames).toBe(2);
    // Pushing again with nothing new changes nothing.
    const again = await runCli(["archive", "push", "--archive", `${dir}/archive.git`, "--json"], { env: env(server) });
    expect(again.status, again.stderr).toBe(0);
  });

  it("pushes and pulls an archive that borrows its objects through objects/info/alternates (git clone --shared)", async () => {
    const dir = tempDir();
    for (let i = 0; i < 3; i++)
      await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(15 * i), json: true });
    git(`${dir}/archive.git`, "gc", "-q");
    // Every object of the borrower is in the lender: isomorphic-git alone finds none to send.
    execFileSync("git", ["clone", "-q", "--bare", "--shared", `${dir}/archive.git`, `${dir}/borrower.git`]);
    const push = await runCli(["archive", "push", "--archive", `${dir}/borrower.git`, "--json"], { env: env(server) });
    expect(push.status, push.stderr).toBe(0);
    expect(remoteHead(server)).toBe(git(`${dir}/archive.git`, "rev-parse", "refs/heads/main"));
    expect(verifyFreshClone(server).status).toBe(0);
    // A borrower one frame behind offers the frames it borrows as held: only the new one travels.
    const whole = await runCli(["archive", "pull", "--archive", `${dir}/empty.git`, "--json"], { env: env(server) });
    execFileSync("git", ["clone", "-q", "--bare", "--shared", `${dir}/archive.git`, `${dir}/behind.git`]);
    git(`${dir}/behind.git`, "update-ref", "refs/heads/main", "refs/heads/main~1");
    const pull = await runCli(["archive", "pull", "--archive", `${dir}/behind.git`, "--json"], { env: env(server) });
    expect(pull.status, pull.stderr).toBe(0);
    expect(JSON.parse(pull.stdout).outcome).toBe("fast-forward");
    expect(JSON.parse(pull.stdout).bytesReceived).toBeLessThan(JSON.parse(whole.stdout).bytesReceived / 2);
    expect(runCliSync(["verify", "--archive", `${dir}/behind.git`]).status).toBe(0);
  });

  it("pulls into an empty folder, then assemble --push adds a frame on top", async () => {
    const before = await seed(2);
    const dir = tempDir();
    const pull = await runCli(["archive", "pull", "--archive", `${dir}/archive.git`, "--json"], { env: env(server) });
    expect(pull.status, pull.stderr).toBe(0);
    expect(JSON.parse(pull.stdout)).toMatchObject({ outcome: "fast-forward", head: before });
    const assembled = await runCli(
      ["assemble", "--push", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", at(30), "--json"],
      { env: env(server) },
    );
    expect(assembled.status, assembled.stderr).toBe(0);
    const summary = JSON.parse(assembled.stdout);
    expect(summary.pushed).toMatchObject({ branch: "risk-archive", attempts: 1, pull: "up-to-date" });
    expect(remoteHead(server)).toBe(summary.commit);
    expect(git(server.gitdir, "rev-parse", `${summary.commit}^`)).toBe(before);
    const verified = verifyFreshClone(server);
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).frames).toBe(3);
  });

  it("refuses a wrong token with exit 9, naming the remote and never the token; nothing local changes", async () => {
    const dir = tempDir();
    await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(500), json: true });
    const localHead = git(`${dir}/archive.git`, "rev-parse", "refs/heads/main");
    const headBefore = remoteHead(server);
    for (const args of [
      ["archive", "push", "--archive", `${dir}/archive.git`],
      ["archive", "pull", "--archive", `${dir}/archive.git`],
      ["assemble", "--push", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", at(515)],
    ]) {
      const r = await runCli(args, { env: env(server, "wrong-token-secret-99") });
      expect(r.status, r.stderr).toBe(9);
      expect(r.stderr).toContain(server.url);
      // The token was set and sent: the message says it was refused, not to set one.
      expect(r.stderr).toMatch(/refused the token/);
      expect(r.stderr).not.toMatch(/set RISK_ARCHIVE_TOKEN|asks for credentials/);
      expect(r.stderr + r.stdout).not.toContain("wrong-token-secret-99");
    }
    const none = await runCli(["archive", "pull", "--archive", `${dir}/archive.git`], {
      env: { ...env(server, ""), GITHUB_TOKEN: "" },
    });
    expect(none.status).toBe(9);
    expect(none.stderr).toContain("RISK_ARCHIVE_TOKEN");
    expect(git(`${dir}/archive.git`, "rev-parse", "refs/heads/main")).toBe(localHead);
    expect(remoteHead(server)).toBe(headBefore);
  });

  it("never sends a token over plain http to another machine: exit 2 saying to use https, nothing sent", async () => {
    // A remote on another machine's address; this machine's own non-loopback address when it has
    // one, listened on so that anything sent would be seen.
    const address = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
    const seen: string[] = [];
    const listener = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "(no authorization)"}`);
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' }).end();
    });
    const port = address
      ? await new Promise<number>((ok) =>
          listener.listen(0, address, () => ok((listener.address() as AddressInfo).port)),
        )
      : 9;
    try {
      const remote = `http://${address ?? "192.0.2.1"}:${port}/repo.git`;
      const dir = tempDir();
      await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(600), json: true });
      for (const args of [
        ["archive", "pull", "--archive", `${dir}/pulled.git`, "--remote", remote],
        ["archive", "push", "--archive", `${dir}/archive.git`, "--remote", remote],
        [
          "assemble",
          "--push",
          "--site",
          `${dir}/site`,
          "--archive",
          `${dir}/archive.git`,
          "--remote",
          remote,
          "--now",
          at(615),
        ],
      ]) {
        const r = await runCli(args, { env: { RISK_ARCHIVE_TOKEN: "rat_SECRET456", GITHUB_TOKEN: "" } });
        expect(r.status, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/clear text/);
        expect(r.stderr).toContain("https://");
        expect(r.stderr + r.stdout).not.toContain("rat_SECRET456");
      }
      expect(seen).toEqual([]);
      expect(existsSync(`${dir}/pulled.git`)).toBe(false);
    } finally {
      listener.close();
    }
  });

  it("never sends a token given in the URL and refuses non-http remotes (exit 2)", () => {
    const dir = tempDir();
    const withCreds = runCliSync([
      "archive",
      "pull",
      "--archive",
      `${dir}/a.git`,
      "--remote",
      "https://u:p4ss@example.org/x.git",
    ]);
    expect(withCreds.status).toBe(2);
    expect(withCreds.stderr).not.toContain("p4ss");
    const ssh = runCliSync(["archive", "pull", "--archive", `${dir}/a.git`, "--remote", "file:///etc"]);
    expect(ssh.status).toBe(2);
  });

  it("never sends the token on through a redirect to plain http or to another origin: exit 2, the token never reaches it", async () => {
    // The place a redirect leads: a plain http server on another port, which records what it is sent.
    const seen: string[] = [];
    const target = createServer((req, res) => {
      seen.push(req.headers.authorization ?? "(no authorization)");
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' }).end();
    });
    const targetPort = await new Promise<number>((ok) =>
      target.listen(0, "127.0.0.1", () => ok((target.address() as AddressInfo).port)),
    );
    // The remote: an https server (a certificate of the test's own, trusted by the child through
    // NODE_EXTRA_CA_CERTS) and a plain http one on this machine, each redirecting every request.
    const certs = tempDir();
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"],
        ...["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", `${certs}/key.pem`, "-out", `${certs}/cert.pem`],
      ],
      { stdio: "ignore" },
    );
    const redirect = (req: IncomingMessage, res: ServerResponse) =>
      res.writeHead(302, { Location: `http://127.0.0.1:${targetPort}${req.url}` }).end();
    const secure = createHttpsServer(
      { key: readFileSync(`${certs}/key.pem`), cert: readFileSync(`${certs}/cert.pem`) },
      redirect,
    );
    const plain = createServer(redirect);
    const listen = (s: typeof plain | typeof secure) =>
      new Promise<number>((ok) => s.listen(0, "127.0.0.1", () => ok((s.address() as AddressInfo).port)));
    const securePort = await listen(secure);
    const plainPort = await listen(plain);
    try {
      const dir = tempDir();
      await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(600), json: true });
      const token = "rat_REDIRECTED_SECRET789";
      for (const remote of [`https://127.0.0.1:${securePort}/repo.git`, `http://127.0.0.1:${plainPort}/repo.git`])
        for (const args of [
          ["archive", "pull", "--archive", `${dir}/pulled.git`],
          ["archive", "push", "--archive", `${dir}/archive.git`],
          ["assemble", "--push", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", at(615)],
        ]) {
          const r = await runCli([...args, "--remote", remote], {
            env: { RISK_ARCHIVE_TOKEN: token, GITHUB_TOKEN: "", NODE_EXTRA_CA_CERTS: `${certs}/cert.pem` },
          });
          const what = `${remote}: ${args.join(" ")}`;
          expect(r.status, `${what}: ${r.stderr}`).toBe(2);
          expect(r.stderr, what).toContain(`redirected to http://127.0.0.1:${targetPort}/repo.git`);
          expect(r.stderr, what).toMatch(remote.startsWith("https") ? /over plain http/ : /another origin/);
          expect(r.stderr + r.stdout, what).not.toContain(token);
        }
      expect(seen.length).toBeGreaterThan(0);
      expect(
        seen.every((a) => a === "(no authorization)"),
        seen.join(", "),
      ).toBe(true);
    } finally {
      for (const s of [target, secure, plain]) s.close();
    }
  }, 60_000);

  it("ends a pull in bounded time when the remote stalls, trickles or answers without end, closing the connection", async () => {
    const closed: string[] = [];
    const remote = createServer((req, res) => {
      const mode = req.url?.split("/")[1] ?? "";
      req.socket.on("close", () => closed.push(mode));
      if (mode === "stall") return;
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
      if (mode === "trickle") {
        const t = setInterval(() => res.write("0"), 100);
        res.on("close", () => clearInterval(t));
      } else {
        const chunk = Buffer.alloc(64 * 1024, 0x30);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on("drain", pump);
        pump();
      }
    });
    const port = await new Promise<number>((ok) =>
      remote.listen(0, "127.0.0.1", () => ok((remote.address() as AddressInfo).port)),
    );
    try {
      const archive = openArchive(`${tempDir()}/archive.git`);
      const limits = { idleMs: 500, totalMs: 1500, maxResponseBytes: 4 * 1024 * 1024 };
      // The endless answer twice: refused in memory when no git program may run, and then fetched
      // by git, which is ended in time too (with its http helper).
      for (const [mode, said, git] of [
        ["stall", /sent nothing for|ECONNRESET|timed out/, null],
        ["trickle", /did not finish within 2 s/, null],
        ["endless", /an answer of more than 4 MB/, null],
        ["endless", /while Git fetched it|could not be fetched with Git/, "git"],
      ] as const) {
        const started = Date.now();
        const pulled = archive.pull({
          url: `http://127.0.0.1:${port}/${mode}/r.git`,
          branch: "risk-archive",
          limits,
          git,
        });
        await expect(pulled, mode).rejects.toMatchObject({ code: "E_REMOTE", message: expect.stringMatching(said) });
        expect(Date.now() - started, mode).toBeLessThan(6_000);
        // Nothing keeps reading from the remote (or keeps a process alive) once the pull failed.
        await new Promise((ok) => setTimeout(ok, 200));
        expect(closed, mode).toContain(mode);
      }
    } finally {
      remote.closeAllConnections();
      remote.close();
    }
  }, 30_000);

  it("waits for a remote slower than Node's 5-second socket default, within its own idle limit", async () => {
    const remote = createServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("no such repository");
      }, 6_500);
    });
    const port = await new Promise<number>((ok) =>
      remote.listen(0, "127.0.0.1", () => ok((remote.address() as AddressInfo).port)),
    );
    try {
      const archive = openArchive(`${tempDir()}/archive.git`);
      const started = Date.now();
      // The answer, slow as it is, is read: a missing branch, not a timeout.
      const pulled = await archive.pull({ url: `http://127.0.0.1:${port}/slow/r.git`, branch: "risk-archive" }).then(
        (r) => r.outcome,
        (e: Error) => e.message,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);
      expect(String(pulled)).not.toMatch(/timed out|sent nothing/);
    } finally {
      remote.closeAllConnections();
      remote.close();
    }
  }, 30_000);

  it("fetches with git itself an answer too large to hold in memory, the token sent in a header and never shown", async () => {
    const head = await seed(2);
    const limits = { maxResponseBytes: 2048 };
    const fresh = `${tempDir()}/archive.git`;
    const pulled = await openArchive(fresh).pull({
      url: server.url,
      branch: "risk-archive",
      token: server.token,
      limits,
    });
    expect(pulled).toMatchObject({ outcome: "fast-forward", head, remoteHead: head });
    expect(pulled.bytesReceived).toBeGreaterThan(limits.maxResponseBytes);
    expect(git(fresh, "rev-parse", "refs/heads/main")).toBe(head);
    const verified = runCliSync(["verify", "--archive", fresh, "--json"]);
    expect(verified.status, verified.stderr).toBe(0);
    // An archive one frame behind takes the new frame the same way, on top of what it has.
    git(fresh, "update-ref", "refs/heads/main", "refs/heads/main~1");
    const again = await openArchive(fresh).pull({
      url: server.url,
      branch: "risk-archive",
      token: server.token,
      limits,
    });
    expect(again).toMatchObject({ outcome: "fast-forward", head });

    // What git may write is bounded too: over it, the pull is refused and leaves nothing behind.
    const bounded = `${tempDir()}/archive.git`;
    await expect(
      openArchive(bounded).pull({
        url: server.url,
        branch: "risk-archive",
        token: server.token,
        limits: { ...limits, maxGitFetchBytes: 4096 },
      }),
    ).rejects.toMatchObject({
      code: "E_REMOTE",
      message: expect.stringMatching(/sent more than 0 MB while Git fetched it/),
    });
    expect(readdirSync(`${bounded}/objects/pack`)).toEqual([]);
    expect(existsSync(`${bounded}/refs/remotes/risk-archive-remote/risk-archive`)).toBe(false);

    // A wrong token given to git: refused (exit 9), said as such, the token nowhere in the message.
    const other = `${tempDir()}/archive.git`;
    execFileSync("git", ["init", "--quiet", "--bare", other]);
    const wrong = "wrong-token-7d2e9a41c3";
    const refused = gitFetch(other, server.url, wrong);
    await expect(refused).rejects.toMatchObject({ code: "E_REMOTE" });
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toMatch(/refused the token while Git fetched it/);
    expect(message).not.toContain(wrong.slice(0, 8));
    expect(message).not.toContain(Buffer.from(`x-access-token:${wrong}`).toString("base64").slice(0, 12));
  }, 60_000);

  it("refuses an answer too large to hold in memory when no git program can run, leaving the archive as it was", async () => {
    await seed(2);
    const dir = tempDir();
    const archive = `${dir}/archive.git`;
    for (const git of [null, `${dir}/no-such-git`]) {
      const pulled = openArchive(archive).pull({
        url: server.url,
        branch: "risk-archive",
        token: server.token,
        limits: { maxResponseBytes: 2048 },
        git,
      });
      await expect(pulled).rejects.toMatchObject({
        code: "E_REMOTE",
        message: expect.stringMatching(/more than 0 MB .*no git program could be run/),
      });
      expect(readdirSync(`${archive}/objects/pack`).filter((n) => !n.startsWith("."))).toEqual([]);
      expect(existsSync(`${archive}/refs/heads/main`)).toBe(false);
    }
  }, 60_000);

  it("never lets git follow a redirect: the token goes to the remote's own address only", async () => {
    await seed(1);
    const hops: string[] = [];
    const hop = createServer((req, res) => {
      hops.push(req.url!);
      res.writeHead(302, { location: `${server.url}${req.url!.replace(/^\/r\.git/, "")}` });
      res.end();
    });
    const port = await new Promise<number>((ok) =>
      hop.listen(0, "127.0.0.1", () => ok((hop.address() as AddressInfo).port)),
    );
    const gitdir = `${tempDir()}/archive.git`;
    execFileSync("git", ["init", "--quiet", "--bare", gitdir]);
    const refusedBefore = server.refused;
    try {
      const fetched = gitFetch(gitdir, `http://127.0.0.1:${port}/r.git`, server.token);
      await expect(fetched).rejects.toMatchObject({ code: "E_REMOTE" });
      expect(hops).toHaveLength(1);
      // Followed, the redirect would have reached the real remote (which refuses a request whose
      // token was dropped on the way, or serves one that kept it).
      expect(server.refused).toBe(refusedBefore);
      expect(existsSync(`${gitdir}/refs/remotes/r/risk-archive`)).toBe(false);
      expect(server.uploadPackBytes).toBe(0);
    } finally {
      hop.close();
    }
  }, 30_000);

  it("leaves the archive as it was when the remote sends a damaged pack: exit 9, no stray pack, no ref to a missing commit", async () => {
    await seed(2);
    const dir = tempDir();
    const archive = `${dir}/archive.git`;
    expect((await runCli(["archive", "pull", "--archive", archive], { env: env(server) })).status).toBe(0);
    // One frame behind, so that the next pull asks for a pack.
    git(archive, "update-ref", "refs/heads/main", "refs/heads/main~1");
    git(archive, "update-ref", "refs/remotes/risk-archive-remote/risk-archive", "refs/heads/main");
    const packs = readdirSync(`${archive}/objects/pack`).sort();
    // The real remote's refs, then a pack of garbage for the fetch.
    const damaged = createServer((req, res) => {
      if (req.method === "POST") {
        req.resume();
        const pack = Buffer.concat([Buffer.from("PACK\0\0\0\x02\0\0\0\x05", "latin1"), Buffer.alloc(2000, 0x41)]);
        res.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
        res.end(
          Buffer.concat([
            Buffer.from("0008NAK\n"),
            Buffer.from((pack.length + 5).toString(16).padStart(4, "0")),
            Buffer.from([1]),
            pack,
            Buffer.from("0000"),
          ]),
        );
        return;
      }
      const upstream = new URL(server.url);
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    const port = await new Promise<number>((ok) =>
      damaged.listen(0, "127.0.0.1", () => ok((damaged.address() as AddressInfo).port)),
    );
    try {
      const r = await runCli(
        ["archive", "pull", "--archive", archive, "--remote", `http://127.0.0.1:${port}/remote.git`],
        {
          env: env(server),
        },
      );
      expect(r.status, r.stderr).toBe(9);
      expect(r.stderr).toContain("sent a pack that could not be read");
      expect(r.stderr).not.toContain("report this error");
      expect(readdirSync(`${archive}/objects/pack`).sort()).toEqual(packs);
      expect(git(archive, "rev-parse", "refs/remotes/risk-archive-remote/risk-archive")).toBe(
        git(archive, "rev-parse", "refs/heads/main"),
      );
      execFileSync("git", ["--git-dir", archive, "for-each-ref"], { stdio: "pipe" });
      expect((await runCli(["archive", "pull", "--archive", archive], { env: env(server) })).status).toBe(0);
      expect(git(archive, "rev-parse", "refs/heads/main")).toBe(remoteHead(server));
    } finally {
      damaged.close();
    }
  }, 60_000);

  it("survives the connection dropping in the middle of a push: the remote is unchanged and the next push lands", async () => {
    await seed(2);
    const dir = tempDir();
    const pull = await runCli(["archive", "pull", "--archive", `${dir}/archive.git`], { env: env(server) });
    expect(pull.status, pull.stderr).toBe(0);
    await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(45), json: true });
    const before = remoteHead(server);
    server.dropNextPushAfter = 200;
    const cut = await runCli(["archive", "push", "--archive", `${dir}/archive.git`], { env: env(server) });
    expect(cut.status, cut.stderr).toBe(9);
    expect(remoteHead(server)).toBe(before);
    execFileSync("git", ["--git-dir", server.gitdir, "fsck", "--no-progress"]);
    const retry = await runCli(["archive", "push", "--archive", `${dir}/archive.git`], { env: env(server) });
    expect(retry.status, retry.stderr).toBe(0);
    expect(remoteHead(server)).toBe(git(`${dir}/archive.git`, "rev-parse", "refs/heads/main"));
  });

  it("lets two publishers assemble against the same remote at once: both frames land in time order, nothing forced", async () => {
    await seed(1);
    const framesBefore = Number(git(server.gitdir, "rev-list", "--count", "refs/heads/risk-archive"));
    // Two different publications (the second edits an article), so that their frames differ.
    const a = tempDir();
    const b = tempDir();
    expect(runCliSync(["init", `${b}/pub`]).status).toBe(0);
    const article = `${b}/pub/content/articles/en/${readdirSync(`${b}/pub/content/articles/en`)[0]}`;
    writeFileSync(article, `${readFileSync(article, "utf8")}\nA paragraph only the second publisher has.\n`);
    // No --now: each assembly (and a retry) takes the clock's time, as a scheduled job does.
    const [ra, rb] = await Promise.all([
      runCliAsync(
        ["assemble", "--push", "--site", `${a}/site`, "--archive", `${a}/archive.git`, "--json"],
        env(server),
      ),
      runCliAsync(
        [
          "assemble",
          "--push",
          "--publication",
          `${b}/pub`,
          "--site",
          `${b}/site`,
          "--archive",
          `${b}/archive.git`,
          "--json",
        ],
        env(server),
      ),
    ]);
    expect(ra.status, ra.stderr).toBe(0);
    expect(rb.status, rb.stderr).toBe(0);
    const sa = JSON.parse(ra.stdout);
    const sb = JSON.parse(rb.stdout);
    const chain = git(server.gitdir, "rev-list", "--first-parent", "refs/heads/risk-archive").split("\n");
    expect(chain.length).toBe(framesBefore + 2);
    expect(new Set(chain.slice(0, 2))).toEqual(new Set([sa.commit, sb.commit]));
    // In time order: the newer frame is on top.
    const [top, below] = chain[0] === sa.commit ? [sa, sb] : [sb, sa];
    expect(top.at > below.at).toBe(true);
    const verified = verifyFreshClone(server);
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).frames).toBe(framesBefore + 2);
  });

  it("when the remote moved, a push is refused (exit 10) and assemble --push keeps the stray frame and lands on top", async () => {
    const { a, b, winner } = await aPushesFirst();
    await runAssemble({ site: `${b}/site`, archive: `${b}/archive.git`, now: at(16), json: true });
    const stray = git(`${b}/archive.git`, "rev-parse", "refs/heads/main");
    const refused = await runCli(["archive", "push", "--archive", `${b}/archive.git`], { env: env(server) });
    expect(refused.status, refused.stderr).toBe(10);
    expect(refused.stderr).toMatch(/has frames this archive does not/);
    expect(remoteHead(server)).toBe(winner);
    const landed = await runCli(
      ["assemble", "--push", "--site", `${b}/site`, "--archive", `${b}/archive.git`, "--now", at(30), "--json"],
      { env: env(server) },
    );
    expect(landed.status, landed.stderr).toBe(0);
    expect(JSON.parse(landed.stdout).pushed).toMatchObject({ attempts: 1, pull: "replaced" });
    expect(git(server.gitdir, "rev-parse", "refs/heads/risk-archive^")).toBe(winner);
    // The frame that never reached the remote is not lost.
    expect(git(`${b}/archive.git`, "rev-parse", `refs/risk-cli/unpushed/${stray}`)).toBe(stray);
  });

  it("after its own pull replaced unpushed frames, the next assemble publishes on top of the remote, with or without --push", async () => {
    const { a, b } = await aPushesFirst();
    // b's frame never reaches the remote; a separate pull replaces it, and b's site still shows it.
    await runAssemble({ site: `${b}/site`, archive: `${b}/archive.git`, now: at(16), json: true });
    const pull = await runCli(["archive", "pull", "--archive", `${b}/archive.git`, "--json"], { env: env(server) });
    expect(JSON.parse(pull.stdout)).toMatchObject({ outcome: "replaced" });
    const plain = await runCli(
      ["assemble", "--site", `${b}/site`, "--archive", `${b}/archive.git`, "--now", at(30), "--json"],
      { env: env(server) },
    );
    expect(plain.status, plain.stderr).toBe(0);
    const pushed = await runCli(
      ["assemble", "--push", "--site", `${b}/site`, "--archive", `${b}/archive.git`, "--now", at(45), "--json"],
      { env: env(server) },
    );
    expect(pushed.status, pushed.stderr).toBe(0);
    // A site on a frame no pull ever replaced is still refused: that is a rollback.
    await runAssemble({ site: `${a}/site`, archive: `${a}/archive.git`, now: at(60), json: true });
    git(`${a}/archive.git`, "update-ref", "refs/heads/main", "refs/heads/main^");
    const rolledBack = await runCli([
      "assemble",
      "--site",
      `${a}/site`,
      "--archive",
      `${a}/archive.git`,
      "--now",
      at(75),
    ]);
    expect(rolledBack.status, rolledBack.stderr).toBe(6);
  });

  it("a publisher that lost the race at a pinned instant exits 10, and its next run publishes", async () => {
    // Both are pinned to the same instant; a's frame lands first, and b pulls it before assembling.
    const { b } = await aPushesFirst();
    const lost = await runCli(
      ["assemble", "--push", "--site", `${b}/site`, "--archive", `${b}/archive.git`, "--now", at(15)],
      { env: env(server) },
    );
    expect(lost.status, lost.stderr).toBe(10);
    expect(lost.stderr).toMatch(/is at or after/);
    const next = await runCli(
      ["assemble", "--push", "--site", `${b}/site`, "--archive", `${b}/archive.git`, "--now", at(30), "--json"],
      { env: env(server) },
    );
    expect(next.status, next.stderr).toBe(0);
  }, 60_000);

  it("a publisher whose push lost the race to a frame at its pinned instant exits 10 with its site as it was before the run", async () => {
    await seed(1);
    const mine = tempDir();
    const rival = tempDir();
    for (const d of [mine, rival])
      expect((await runCli(["archive", "pull", "--archive", `${d}/archive.git`], { env: env(server) })).status).toBe(0);
    const before = await runCli(
      ["assemble", "--push", "--site", `${mine}/site`, "--archive", `${mine}/archive.git`, "--now", at(50), "--json"],
      { env: env(server) },
    );
    expect(before.status, before.stderr).toBe(0);
    const served = () => readFileSync(`${mine}/site/api/v1/integrity.json`, "utf8");
    const published = served();
    expect((await runCli(["archive", "pull", "--archive", `${rival}/archive.git`], { env: env(server) })).status).toBe(
      0,
    );
    const remote = { url: server.url, branch: "risk-archive", token: server.token };
    const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: { info: () => {}, warn: () => {} } };
    let rivalFrames = 0;
    const attempt = assembleAndPush(
      {
        publication: demoPublication(),
        site: `${mine}/site`,
        archive: `${mine}/archive.git`,
        now: at(100),
        // While my assembly runs, the rival pushes a frame at the same pinned instant.
        upstream: async (p) => {
          if (rivalFrames++ === 0) {
            await runAssemble({ site: `${rival}/site`, archive: `${rival}/archive.git`, now: at(100), json: true });
            await openArchive(`${rival}/archive.git`).push(remote);
          }
          return collectUpstream(p, { fs: nodeFs, http: nodeHttp }, { attemptedAt: at(100) });
        },
      },
      ports,
      remote,
      { clock: () => at(100) },
    );
    await expect(attempt).rejects.toMatchObject({ code: "E_REMOTE_MOVED" });
    // The site still serves the frame it served before the run, which the remote holds.
    expect(served()).toBe(published);
    expect(JSON.parse(published).frame.frameId).toBe(JSON.parse(before.stdout).frameId);
    const next = await runCli(
      ["assemble", "--push", "--site", `${mine}/site`, "--archive", `${mine}/archive.git`, "--now", at(130), "--json"],
      { env: env(server) },
    );
    expect(next.status, next.stderr).toBe(0);
  }, 60_000);

  it("refuses a remote that rewrote a frame it had published: pull and assemble --push exit 1, nothing local changes", async () => {
    await seed(2);
    const mine = tempDir();
    expect((await runCli(["archive", "pull", "--archive", `${mine}/archive.git`], { env: env(server) })).status).toBe(
      0,
    );
    const local = git(`${mine}/archive.git`, "rev-parse", "refs/heads/main");
    // The remote's head frame forged: same parent, another tree (a file changed), forced into place.
    const head = remoteHead(server)!;
    const raw = git(server.gitdir, "cat-file", "commit", head);
    const tree = git(server.gitdir, "rev-parse", `${head}^{tree}`);
    const forgedTree = execFileSync("git", ["mktree"], {
      cwd: server.gitdir,
      input: `${git(server.gitdir, "ls-tree", tree)}\n100644 blob ${execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: server.gitdir, input: "forged", encoding: "utf8" }).trim()}\tforged.txt\n`,
      encoding: "utf8",
    }).trim();
    const forged = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
      cwd: server.gitdir,
      input: `${raw.replace(/^tree [0-9a-f]{40}/, `tree ${forgedTree}`)}\n`,
      encoding: "utf8",
    }).trim();
    git(server.gitdir, "update-ref", "refs/heads/risk-archive", forged);
    const pull = await runCli(["archive", "pull", "--archive", `${mine}/archive.git`], { env: env(server) });
    expect(pull.status, pull.stderr).toBe(1);
    expect(pull.stderr).toContain("its history was rewritten");
    expect(git(`${mine}/archive.git`, "rev-parse", "refs/heads/main")).toBe(local);
    const push = await runCli(
      ["assemble", "--push", "--site", `${mine}/site`, "--archive", `${mine}/archive.git`, "--now", at(60)],
      { env: env(server) },
    );
    expect(push.status, push.stderr).toBe(1);
    expect(remoteHead(server)).toBe(forged);
  });

  it("refuses a remote branch that holds no frame (another repository's commit): exit 1, nothing local changes", async () => {
    const mine = tempDir();
    for (let i = 0; i < 2; i++)
      await runAssemble({ site: `${mine}/site`, archive: `${mine}/archive.git`, now: at(15 * i), json: true });
    const local = git(`${mine}/archive.git`, "rev-parse", "refs/heads/main");
    // An ordinary commit, as another repository's branch would hold, put where the archive belongs.
    const tree = execFileSync("git", ["mktree"], { cwd: server.gitdir, input: "", encoding: "utf8" }).trim();
    const stranger = execFileSync("git", ["commit-tree", tree, "-m", "notes"], {
      cwd: server.gitdir,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "x",
        GIT_AUTHOR_EMAIL: "x@x",
        GIT_COMMITTER_NAME: "x",
        GIT_COMMITTER_EMAIL: "x@x",
      },
    }).trim();
    git(server.gitdir, "update-ref", "refs/heads/risk-archive", stranger);
    const pull = await runCli(["archive", "pull", "--archive", `${mine}/archive.git`, "--json"], { env: env(server) });
    expect(pull.status, pull.stderr).toBe(1);
    expect(pull.stderr).toContain(`holds ${stranger.slice(0, 12)}, which is not a frame`);
    expect(git(`${mine}/archive.git`, "rev-parse", "refs/heads/main")).toBe(local);
    const verify = await runCli(["verify", "--archive", `${mine}/archive.git`], {});
    expect(verify.status, verify.stderr).toBe(0);
  });

  it("gives up after 3 attempts when the remote keeps moving (exit 10), keeping the local frame", async () => {
    await seed(1);
    const rival = tempDir();
    const mine = tempDir();
    expect((await runCli(["archive", "pull", "--archive", `${rival}/archive.git`], { env: env(server) })).status).toBe(
      0,
    );
    const remote = { url: server.url, branch: "risk-archive", token: server.token };
    let rivalFrames = 0;
    const log = { info: () => {}, warn: () => {} };
    const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log };
    const attempt = assembleAndPush(
      {
        publication: demoPublication(),
        site: `${mine}/site`,
        archive: `${mine}/archive.git`,
        now: at(100),
        // While each of my assemblies runs, the rival publishes a frame: every push of mine finds the remote moved.
        upstream: async (p) => {
          rivalFrames++;
          await runAssemble({
            site: `${rival}/site`,
            archive: `${rival}/archive.git`,
            now: at(100 + rivalFrames),
            json: true,
          });
          await openArchive(`${rival}/archive.git`).push(remote);
          return collectUpstream(p, { fs: nodeFs, http: nodeHttp }, { attemptedAt: at(100) });
        },
      },
      ports,
      remote,
      {
        clock: (() => {
          let n = 200;
          return () => at(n++);
        })(),
      },
    );
    await expect(attempt).rejects.toMatchObject({ code: "E_REMOTE_MOVED", data: { attempts: 3 } });
    expect(rivalFrames).toBe(3);
    // No frame the remote refused is served.
    expect(existsSync(`${mine}/site/api/v1/integrity.json`)).toBe(false);
    expect(remoteHead(server)).toBe(git(`${rival}/archive.git`, "rev-parse", "refs/heads/main"));
    // My last frame stays in my archive for the next run.
    expect(git(`${mine}/archive.git`, "rev-parse", "refs/heads/main")).not.toBe(remoteHead(server));
    expect(existsSync(`${mine}/archive.git/refs/risk-cli/unpushed`)).toBe(true);
  });
});

describe("incremental pull", () => {
  it("after many frames fetches only the objects that are new", async () => {
    const server = await startGitServer();
    try {
      const pub = tempDir();
      const frames = 40;
      for (let i = 0; i < frames; i++)
        await runAssemble({ site: `${pub}/site`, archive: `${pub}/archive.git`, now: at(15 * i), json: true });
      expect((await runCli(["archive", "push", "--archive", `${pub}/archive.git`], { env: env(server) })).status).toBe(
        0,
      );
      const reader = tempDir();
      server.uploadPackBytes = 0;
      const remote = { url: server.url, branch: "risk-archive", token: server.token };
      const full = await openArchive(`${reader}/archive.git`).pull(remote);
      const fullBytes = server.uploadPackBytes;
      expect(full.outcome).toBe("fast-forward");
      await runAssemble({ site: `${pub}/site`, archive: `${pub}/archive.git`, now: at(15 * frames), json: true });
      expect((await runCli(["archive", "push", "--archive", `${pub}/archive.git`], { env: env(server) })).status).toBe(
        0,
      );
      server.uploadPackBytes = 0;
      const next = await openArchive(`${reader}/archive.git`).pull(remote);
      const nextBytes = server.uploadPackBytes;
      expect(next.outcome).toBe("fast-forward");
      // One frame's new objects, not the archive: a small fraction of the first pull.
      expect(nextBytes).toBeGreaterThan(0);
      expect(nextBytes * 10).toBeLessThan(fullBytes);
      const r = runCliSync(["verify", "--archive", `${reader}/archive.git`, "--json"]);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).frames).toBe(frames + 1);
      expect(existsSync(`${reader}/archive.git/objects/pack`)).toBe(true);
      expect(readFileSync(`${reader}/archive.git/refs/heads/main`, "latin1").trim()).toBe(next.head);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe("a remote that echoes the request back", () => {
  it("withoutSecret removes the token cut anywhere, and its base64 behind any prefix", () => {
    const token = "rat_0123456789abcdefXYZ";
    for (const prefix of ["", "a", "ab", "abc", "x-access-token:", "user:"]) {
      const encoded = Buffer.from(`${prefix}${token}`).toString("base64");
      const text = withoutSecret(`said ${encoded} and ${token.slice(0, 10)}, ${token.slice(5)}`, token);
      expect(text, prefix).not.toMatch(/0123456|6789ab|abcdef/);
      expect(text.replace(/\*\*\*/g, ""), prefix).not.toContain(encoded.slice(-16, -4));
    }
    expect(withoutSecret("nothing here", token)).toBe("nothing here");
  });

  it("never shows the token, its base64 form or a long prefix of either, and quotes only a short excerpt of its answer", async () => {
    const token = "ghs_SECRETTOKEN12345abcdefghijklmnop";
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    // Asks for credentials, then answers with what it was sent: as an HTML page, or as a
    // pkt-line ERR in a Git advertisement.
    const echo = createServer((req, res) => {
      const authorization = req.headers.authorization;
      if (!authorization) return void res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' }).end();
      const decoded = Buffer.from(authorization.replace(/^Basic /, ""), "base64").toString();
      const said = `${decoded} ${authorization} ${"<b>padding</b>".repeat(200)}`;
      if (req.url?.startsWith("/html/"))
        return void res.writeHead(200, { "content-type": "text/html" }).end(`<html>${said}</html>`);
      const line = `ERR ${said}\n`;
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
      res.end(`${(line.length + 4).toString(16).padStart(4, "0")}${line}`);
    });
    const port = await new Promise<number>((ok) =>
      echo.listen(0, "127.0.0.1", () => ok((echo.address() as AddressInfo).port)),
    );
    try {
      const dir = tempDir();
      await runAssemble({ site: `${dir}/site`, archive: `${dir}/archive.git`, now: at(0), json: true });
      const traces = [
        token,
        basic,
        token.slice(0, 12),
        basic.slice(0, 30),
        Buffer.from(token).toString("base64").slice(0, 12),
      ];
      for (const kind of ["html", "err"])
        for (const args of [
          ["archive", "pull", "--archive", `${dir}/pulled-${kind}.git`],
          ["archive", "pull", "--archive", `${dir}/pulled-${kind}-json.git`, "--json"],
          ["archive", "push", "--archive", `${dir}/archive.git`],
        ]) {
          const r = await runCli([...args, "--remote", `http://127.0.0.1:${port}/${kind}/r.git`], {
            env: { RISK_ARCHIVE_TOKEN: token, GITHUB_TOKEN: "", GITHUB_ACTIONS: "true" },
          });
          const what = `${kind}: ${args.join(" ")}`;
          expect(r.status, `${what}: ${r.stderr}`).toBe(9);
          for (const trace of traces) expect(r.stderr + r.stdout, what).not.toContain(trace);
          expect(r.stderr, what).toMatch(/^::error /m);
          // A short excerpt of the answer, never the page.
          expect(r.stderr, what).not.toContain("padding");
          for (const line of r.stderr.split("\n")) expect(line.length, what).toBeLessThan(400);
        }
    } finally {
      echo.close();
    }
  }, 60_000);
});
