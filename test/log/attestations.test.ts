import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startGitServer } from "../../bench/git-server.ts";
import { archiveWithFrames, at, git } from "../helpers/archive.ts";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";
import { mockSigstore, WORKFLOW_IDENTITY } from "../helpers/sigstore.ts";
import { tempDir } from "../helpers/tmp.ts";

const minutes = (iso: string, n: number) => new Date(Date.parse(iso) + n * 60_000);

function saved(bytes: Uint8Array | string, name = "bundle.json"): string {
  const file = join(tempDir("risk-att-"), name);
  writeFileSync(file, bytes);
  return file;
}

describe("Sigstore attestations of frames (time witnessed from outside)", () => {
  it("pins Sigstore's public-good trusted root: Rekor's logs, Fulcio's chains, a CT log", async () => {
    const { PUBLIC_GOOD_TRUSTED_ROOT } = await import("../../archive/trust/public-good.ts");
    const { TrustedRoot } = await import("@sigstore/protobuf-specs");
    const { toTrustMaterial } = await import("@sigstore/verify");
    const root = TrustedRoot.fromJSON(PUBLIC_GOOD_TRUSTED_ROOT);
    expect(root.tlogs.map((t) => t.baseUrl)).toContain("https://rekor.sigstore.dev");
    // Rekor's log ID is the SHA-256 of its public key; this is the value every public-good
    // transparency-log entry names, so a root with another key would be someone else's log.
    const rekor = root.tlogs.find((t) => t.baseUrl === "https://rekor.sigstore.dev")!;
    const { createHash } = await import("node:crypto");
    expect(Buffer.from(rekor.logId!.keyId).toString("hex")).toBe(
      "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d",
    );
    expect(createHash("sha256").update(rekor.publicKey!.rawBytes!).digest("hex")).toBe(
      "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d",
    );
    expect(root.certificateAuthorities.map((c) => c.uri)).toContain("https://fulcio.sigstore.dev");
    const material = toTrustMaterial(root);
    expect(material.certificateAuthorities.length).toBeGreaterThan(0);
    expect(material.ctlogs.length).toBeGreaterThan(0);
  });

  it("keeps a bundle whose subject is the frame, and verify --attestations reports attested, unattested and failing frames", async () => {
    const { archive, summaries } = await archiveWithFrames(4);
    const [f1, f2, f3] = summaries.map((s) => ({
      id: s.frameId,
      hash: s.frameHash,
      at: at(15 * summaries.indexOf(s)),
    }));
    const sigstore = await mockSigstore();
    const root = saved(JSON.stringify(sigstore.trustedRoot()), "root.json");
    const subject = (f: { id: string; hash: string }) => [{ name: `frame-${f.id}`, sha256: f.hash }];

    // A bundle for another frame is refused, naming both, and nothing is kept.
    const wrong = saved(await sigstore.attest(subject(f1!), minutes(f2!.at, 2)));
    const refused = runCli(["archive", "attest", "--archive", archive, "--frame", f2!.id, "--bundle", wrong]);
    expect(refused.status, refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`not frame ${f2!.id}`);
    const notABundle = runCli(["archive", "attest", "--archive", archive, "--frame", f2!.id, "--bundle", saved("{}")]);
    expect(notABundle.status).toBe(3);
    expect(notABundle.stderr).toMatch(/is not a Sigstore bundle/);

    // Frame 1 logged two minutes after its time; frame 2 three hours after; frame 3 signed by
    // another workflow; frame 4 not attested.
    const keep = async (f: { id: string; hash: string; at: string }, late: number, identity?: string) => {
      const r = runCli([
        "archive",
        "attest",
        "--archive",
        archive,
        "--frame",
        f.id,
        "--bundle",
        saved(await sigstore.attest(subject(f), minutes(f.at, late), identity)),
        "--json",
      ]);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect((await keep(f1!, 2)).path).toBe(`attestations/2026/11/21/${f1!.id}.sigstore.json`);
    await keep(f2!, 180);
    await keep(f3!, 5, "https://github.com/someone-else/fork/.github/workflows/publish.yml@refs/heads/main");
    // The frames themselves did not change: the attestations live on a ref of their own.
    expect(git(archive, "rev-parse", "refs/heads/main")).toBe(summaries[3]!.commit);
    expect(git(archive, "ls-tree", "-r", "--name-only", "refs/risk-cli/attestations").split("\n")).toHaveLength(3);

    const verify = (...extra: string[]) =>
      runCli(["verify", "--attestations", "--archive", archive, "--trusted-root", root, "--json", ...extra]);
    let r = verify("--identity", "https://github.com/owner/site/");
    expect(r.status, r.stderr).toBe(1);
    let report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: false, code: "E_VERIFY", frame: f2!.id });
    expect(report.failing.map((f: { frameId: string }) => f.frameId)).toEqual([f2!.id, f3!.id]);
    expect(report.failing[0].reason).toMatch(/10800 s after the frame's time, over the 3600 s window/);
    expect(report.failing[1].reason).toMatch(/signed by https:\/\/github\.com\/someone-else/);
    // A wider window, no identity required: three attested, one unattested.
    r = verify("--window", "240");
    expect(r.status, r.stderr).toBe(0);
    report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, frames: 4, attested: 3, unattested: 1, failing: [] });
    expect(report.witnessed[0]).toEqual({ frameId: f1!.id, at: f1!.at, loggedAt: minutes(f1!.at, 2).toISOString() });
    // Against the pinned public-good root, the test authority is not trusted: every bundle fails.
    r = runCli(["verify", "--attestations", "--archive", archive, "--window", "240", "--json"]);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).failing).toHaveLength(3);
    expect(JSON.parse(r.stdout).failing[0].reason).toMatch(/does not verify against the trusted root/);
    expect(WORKFLOW_IDENTITY).toContain("owner/site");
  });

  it("refuses /dev/zero, a FIFO or a file over 1 MB as a bundle or trusted root at once, before reading it", async () => {
    const { archive, summaries } = await archiveWithFrames(1);
    const fifo = join(tempDir("risk-att-"), "fifo");
    spawnSync("mkfifo", [fifo]);
    const huge = saved(`{"x":"${"A".repeat(2 * 1024 * 1024)}"}`);
    // Killed after 10 s: before, /dev/zero and the FIFO were read without end.
    const bounded = (args: string[]) =>
      spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 10_000, env: { ...process.env } });
    for (const [file, said] of [
      ["/dev/zero", /is not a regular file/],
      [fifo, /is not a regular file/],
      [huge, /is over 1 MB/],
    ] as const) {
      const started = Date.now();
      const attest = bounded([
        "archive",
        "attest",
        "--archive",
        archive,
        "--frame",
        summaries[0]!.frameId,
        "--bundle",
        file,
      ]);
      expect(attest.status, `${file}: ${attest.stderr}`).toBe(3);
      expect(attest.stderr, file).toMatch(said);
      const verify = bounded(["verify", "--attestations", "--archive", archive, "--trusted-root", file]);
      expect(verify.status, `${file}: ${verify.stderr}`).toBe(3);
      expect(verify.stderr, file).toMatch(said);
      expect(Date.now() - started, file).toBeLessThan(15_000);
    }
  }, 60_000);

  it("fails a bundle whose statement was altered after signing, and one logged before its frame existed", async () => {
    const { archive, summaries } = await archiveWithFrames(2);
    const sigstore = await mockSigstore();
    const root = saved(JSON.stringify(sigstore.trustedRoot()), "root.json");
    const [a, b] = summaries;
    // The statement of frame 1's bundle rewritten to name frame 2: the subject matches, the signature does not.
    const bundle = JSON.parse(
      new TextDecoder().decode(await sigstore.attest([{ name: "f", sha256: a!.frameHash }], minutes(at(0), 1))),
    );
    const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, "base64").toString());
    statement.subject[0].digest.sha256 = b!.frameHash;
    bundle.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString("base64");
    expect(
      runCli([
        "archive",
        "attest",
        "--archive",
        archive,
        "--frame",
        b!.frameId,
        "--bundle",
        saved(JSON.stringify(bundle)),
      ]).status,
    ).toBe(0);
    // Frame 1 attested by an entry logged ten minutes before the frame's own time: backdated.
    const early = await sigstore.attest([{ name: "f", sha256: a!.frameHash }], minutes(at(0), -10));
    expect(
      runCli(["archive", "attest", "--archive", archive, "--frame", a!.frameId, "--bundle", saved(early)]).status,
    ).toBe(0);
    const r = runCli(["verify", "--attestations", "--archive", archive, "--trusted-root", root, "--json"]);
    expect(r.status).toBe(1);
    const failing = JSON.parse(r.stdout).failing as { frameId: string; reason: string }[];
    expect(failing.find((f) => f.frameId === a!.frameId)?.reason).toMatch(/before the frame's time/);
    expect(failing.find((f) => f.frameId === b!.frameId)?.reason).toMatch(/does not verify/);
  });

  it("refuses a bundle whose in-toto statement is not an object, or names a subject with no text name, with exit 3", async () => {
    const { archive, summaries } = await archiveWithFrames(1);
    const sigstore = await mockSigstore();
    const bundle = JSON.parse(
      new TextDecoder().decode(
        await sigstore.attest([{ name: "f", sha256: summaries[0]!.frameHash }], minutes(at(0), 1)),
      ),
    );
    const before = git(archive, "for-each-ref");
    for (const [statement, status, said] of [
      [null, 3, "the in-toto statement is not a JSON object"],
      [[1], 3, "the in-toto statement is not a JSON object"],
      // A name that is no text is no name: the subject is kept with an empty one, and its digest must still be the frame's.
      [{ subject: [{ name: { toString: 1 }, digest: { sha256: "00" } }] }, 3, ""],
    ] as const) {
      const forged = {
        ...bundle,
        dsseEnvelope: { ...bundle.dsseEnvelope, payload: Buffer.from(JSON.stringify(statement)).toString("base64") },
      };
      const r = runCli([
        "archive",
        "attest",
        "--archive",
        archive,
        "--frame",
        summaries[0]!.frameId,
        "--bundle",
        saved(JSON.stringify(forged)),
      ]);
      expect(r.status, r.stderr).toBe(status);
      expect(r.stderr).toContain(said);
    }
    expect(git(archive, "for-each-ref")).toBe(before);
  });

  it("is kept by the action's attestation step (action/attest.sh, the committed bundle)", async () => {
    const { archive, summaries } = await archiveWithFrames(1);
    const sigstore = await mockSigstore();
    const f = summaries[0]!;
    const bundle = saved(await sigstore.attest([{ name: "f", sha256: f.frameHash }], minutes(at(0), 1)));
    const r = spawnSync("bash", [join(ROOT, "action/attest.sh")], {
      env: { ...process.env, INPUT_ARCHIVE: archive, INPUT_PUSH: "false", FRAME_ID: f.frameId, BUNDLE: bundle },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(git(archive, "ls-tree", "-r", "--name-only", "refs/risk-cli/attestations")).toBe(
      `attestations/2026/11/21/${f.frameId}.sigstore.json`,
    );
  });

  it("travels with the archive: archive push sends the attestations branch, a fresh pull brings it back", async () => {
    const server = await startGitServer();
    try {
      const { archive, summaries } = await archiveWithFrames(1);
      const sigstore = await mockSigstore();
      const f = summaries[0]!;
      const bundle = saved(await sigstore.attest([{ name: "f", sha256: f.frameHash }], minutes(at(0), 3)));
      expect(runCli(["archive", "attest", "--archive", archive, "--frame", f.frameId, "--bundle", bundle]).status).toBe(
        0,
      );
      const env = {
        RISK_ARCHIVE_REMOTE: server.url,
        RISK_ARCHIVE_BRANCH: "risk-archive",
        RISK_ARCHIVE_TOKEN: server.token ?? "",
        GITHUB_TOKEN: "",
      };
      const pushed = await runAsync(["archive", "push", "--archive", archive, "--json"], env);
      expect(pushed.status, pushed.stderr).toBe(0);
      expect(JSON.parse(pushed.stdout).attestations).toBe("pushed");
      expect(git(server.gitdir, "rev-parse", "refs/heads/risk-archive-attestations")).toBe(
        git(archive, "rev-parse", "refs/risk-cli/attestations"),
      );
      const clone = `${tempDir("risk-att-clone-")}/archive.git`;
      const pulled = await runAsync(["archive", "pull", "--archive", clone, "--json"], env);
      expect(pulled.status, pulled.stderr).toBe(0);
      expect(JSON.parse(pulled.stdout).attestations).toBe("fast-forward");
      const root = saved(JSON.stringify(sigstore.trustedRoot()), "root.json");
      const r = runCli(["verify", "--attestations", "--archive", clone, "--trusted-root", root, "--json"]);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ attested: 1, unattested: 0 });
    } finally {
      await server.close();
    }
  });
});

/** The CLI as a child process, awaited: the test's Git server lives in this process. */
function runAsync(args: string[], env: Record<string, string>) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, SOURCE_DATE_EPOCH: "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => ok({ status, stdout, stderr }));
  });
}
