import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../core/version.ts";
import { EXIT } from "../../cli/exit.ts";
import { demoSurfaces } from "../helpers/publication.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

/** The surfaces an assembly of the demo builds (per-series CSVs expanded). */
const SURFACES = await demoSurfaces();

describe("the command line", () => {
  for (const verb of ["assemble", "init", "replay", "diff", "verify", "lint", "search"]) {
    it(`shows what ${verb} does, with an example, on --help`, () => {
      const r = runCli([verb, "--help"]);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`risk-cli ${verb}`);
      expect(r.stdout).toMatch(/Examples?:\n\s+risk-cli /);
    });
  }

  it("assemble --help's SOURCE_DATE_EPOCH example publishes every demo instrument, none refused or a fallback", () => {
    const help = runCli(["assemble", "--help"]).stdout;
    const epoch = /SOURCE_DATE_EPOCH=(\d+) risk-cli assemble --json/.exec(help)?.[1];
    expect(epoch, help).toBeDefined();
    const dir = tempDir("risk-epoch-");
    const r = runCli(["assemble", "--json"], { cwd: dir, env: { SOURCE_DATE_EPOCH: epoch! } });
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      signals: { sourceStatus: string; value: number | null }[];
      fallbacks: [];
    };
    expect(summary.signals.length).toBeGreaterThan(0);
    for (const s of summary.signals) expect(s).toMatchObject({ sourceStatus: "ok", value: expect.any(Number) });
    expect(summary.fallbacks).toEqual([]);
  });

  it("describes every option and argument on --help, and names the values a choice takes", () => {
    const verbs = ["assemble", "archive pull", "archive push", "archive attest", "collect", "lint", "search"]
      .concat(["serve", "mcp", "traffic ingest", "init", "replay", "verify", "prove", "log keygen", "diff"])
      .map((v) => v.split(" "));
    for (const verb of verbs) {
      const r = runCli([...verb, "--help"]);
      expect(r.status, verb.join(" ")).toBe(0);
      // An option or argument without a description leaves its line ending in the padding.
      expect(
        r.stdout.split("\n").filter((line) => / {2}$/.test(line)),
        verb.join(" "),
      ).toEqual([]);
      expect(r.stdout, verb.join(" ")).not.toContain(" TYPE");
    }
    expect(runCli(["search", "--help"]).stdout).toMatch(/^ {2}--lang fr\|en +\S/m);
    expect(runCli(["traffic", "ingest", "--help"]).stdout).toMatch(/^ {2}FILE +An access log/m);
  });

  it("lists the commands and the exit codes on --help", () => {
    const r = runCli(["--help"]);
    expect(r.status).toBe(0);
    for (const verb of ["assemble", "init", "replay", "diff", "verify", "lint", "search"])
      expect(r.stdout).toContain(verb);
    expect(r.stdout).toContain("Exit codes: 0 ok");
  });

  it("refuses an unknown flag with the usage exit code", () => {
    const r = runCli(["assemble", "--publicaton", "x"]);
    expect(r.status).toBe(EXIT.E_USAGE);
    expect(r.stderr).toMatch(/--publicaton/);
  });

  it("says a value out of range in one line, without the usage of every command: prove --size 0", () => {
    const r = runCli(["prove", "--frame", "000001-20261121T100000Z", "--size", "0"]);
    expect(r.status).toBe(EXIT.E_USAGE);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/--size.*greater than or equal to 1.*"0"/)]);
    // A bare risk-cli still lists the commands.
    expect(runCli([]).stderr).toContain("risk-cli prove --frame");
  });

  it("refuses an unknown command", () => {
    expect(runCli(["publish"]).status).toBe(EXIT.E_USAGE);
  });

  it("suggests the nearest option of the command being run, and the nearest command", () => {
    const cases: [string[], string][] = [
      [["assemble", "--sit", "x"], "--site"],
      [["assemble", "--publicaton", "x"], "--publication"],
      [["verify", "--archiv=x"], "--archive"],
      [["replay", "--dte", "2026-11-20"], "--date"],
      [["archive", "pull", "--remot", "x"], "--remote"],
      [["archive", "pul"], "pull"],
      [["asemble"], "assemble"],
    ];
    for (const [args, nearest] of cases) {
      const r = runCli(args);
      expect(r.status, args.join(" ")).toBe(EXIT.E_USAGE);
      expect(r.stderr, args.join(" ")).toContain(`Did you mean \`${nearest}\`?`);
    }
    // Nothing near: no suggestion, and never an option of another command.
    expect(runCli(["serve", "--xyzzy"]).stderr).not.toContain("Did you mean");
    expect(runCli(["serve", "--dat", "x"]).stderr).not.toContain("Did you mean `--date`");
  });

  it("prints its version, the one package.json gives", () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8"));
    expect(VERSION).toBe(pkg.version);
    expect(runCli(["--version"]).stdout.trim()).toBe(VERSION);
  });

  it("runs the README's first commands: assemble in an empty folder, then replay and verify", () => {
    const cwd = tempDir("risk-readme-");
    const first = runCli(["assemble", "--json"], { cwd, env: { SOURCE_DATE_EPOCH: "1795251300" } });
    // Nothing on stderr but the warning that the built-in demo is assembled.
    expect(first.stderr).toBe("warning: no --publication given: assembling the built-in demo publication\n");
    expect(first.status).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ ok: true, surfaces: SURFACES.length, frameId: "000001-20261121T085500Z" });
    expect(Object.keys(summary.phasesMs)).toEqual([
      "lock",
      "read",
      "head",
      "collect",
      "plan",
      "load",
      "build",
      "validate",
      "serialise",
      "write",
      "commit",
      "swap",
      "total",
    ]);
    expect(existsSync(`${cwd}/site/api/v1/catalog.json`)).toBe(true);
    expect(existsSync(`${cwd}/archive.git/HEAD`)).toBe(true);

    const second = runCli(["assemble"], { cwd, env: { SOURCE_DATE_EPOCH: "1795252200" } });
    expect(second.status).toBe(0);
    expect(second.stderr).toMatch(/^load\s+[\d.]+ ms$/m);
    expect(second.stderr).toContain(
      "changed since frame 000001-20261121T085500Z: ~/api/v1/black-box.json ~/api/v1/debt-risk.json ~/api/v1/history.ndjson ~/api/v1/integrity.json ~/api/v1/risk.json ~/api/v1/signals/current.json",
    );

    const replay = runCli(["replay", "--date", "2026-11-21T09:00:00Z", "--out", "then"], { cwd });
    expect(replay.status).toBe(0);
    expect(replay.stderr).toContain("every file matches the frame's fingerprints");
    expect(runCli(["verify"], { cwd }).status).toBe(0);
    expect(runCli(["replay", "--date", "2026-11-20"], { cwd }).status).toBe(EXIT.E_NO_FRAME);
    // An --out or --upstream under a link that loops is refused as given, before anything is written.
    symlinkSync("loop", join(cwd, "loop"));
    for (const option of ["--out", "--upstream"]) {
      const looping = runCli(["replay", "--date", "2026-11-21T09:00:00Z", option, "loop/then"], { cwd });
      expect(looping.status, looping.stderr).toBe(EXIT.E_USAGE);
      expect(looping.stderr).toContain(
        `${option} ${join(cwd, "loop/then")} cannot be made: a symbolic link on its path loops`,
      );
      expect(looping.stderr).not.toContain(".tmp-");
    }
    expect(runCli(["assemble"], { cwd, env: { SOURCE_DATE_EPOCH: "1795252200" } }).status).toBe(EXIT.E_CLOCK);
  });

  it("exits with the input code and names the file when the publication is broken", () => {
    const cwd = tempDir("risk-bad-");
    const r = runCli(["assemble", "--publication", "missing", "--json"], { cwd });
    expect(r.status).toBe(EXIT.E_INPUT);
    // Named inside the publication: messages never give where files sit on this machine.
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, code: "E_INPUT", file: "risk.config.yaml" });
    // The folder itself is missing: said so, not that a file should be created in it.
    expect(JSON.parse(r.stdout).message).toMatch(/publication folder itself does not exist.*risk-cli init/);
    mkdirSync(join(cwd, "empty"));
    const empty = runCli(["lint", "--publication", "empty", "--json"], { cwd });
    expect(empty.status).toBe(EXIT.E_INPUT);
    expect(JSON.parse(empty.stdout).message).toMatch(/the file is missing; create it/);
  });

  it("says a risk.config.yaml, a registry or a --publication folder is a symbolic link that loops or leads to nothing, not that it is missing", () => {
    const cwd = tempDir("risk-config-link-");
    expect(runCli(["init", "pub"], { cwd }).status).toBe(0);
    const pub = join(cwd, "pub");
    const lint = (publication: string) => {
      const r = runCli(["lint", "--publication", publication, "--json"], { cwd });
      expect(r.status, r.stderr).toBe(EXIT.E_INPUT);
      const report = JSON.parse(r.stdout) as { file: string; message: string };
      expect(report.message).not.toContain(cwd);
      return report;
    };
    renameSync(join(pub, "risk.config.yaml"), join(pub, "config.yaml"));
    symlinkSync("risk.config.yaml", join(pub, "risk.config.yaml"));
    expect(lint("pub")).toMatchObject({
      file: "risk.config.yaml",
      message: expect.stringMatching(
        /it is a symbolic link that loops \(it leads back to itself through links\); replace it with the file itself/,
      ),
    });
    rmSync(join(pub, "risk.config.yaml"));
    symlinkSync("nowhere.yaml", join(pub, "risk.config.yaml"));
    expect(lint("pub").message).toMatch(/it is a symbolic link to nothing \(its target does not exist\); replace it/);
    rmSync(join(pub, "risk.config.yaml"));
    renameSync(join(pub, "config.yaml"), join(pub, "risk.config.yaml"));
    renameSync(join(pub, "content/topics.yaml"), join(pub, "content/topics.moved.yaml"));
    symlinkSync("topics.yaml", join(pub, "content/topics.yaml"));
    expect(lint("pub")).toMatchObject({
      file: "content/topics.yaml",
      message: expect.stringMatching(/it is a symbolic link that loops/),
    });
    symlinkSync("self", join(cwd, "self"));
    symlinkSync("other", join(cwd, "one"));
    symlinkSync("one", join(cwd, "other"));
    symlinkSync("nowhere", join(cwd, "dangling"));
    for (const [folder, what] of [
      ["self", "that loops"],
      ["one", "that loops"],
      ["dangling", "to nothing"],
    ] as const)
      expect(lint(folder).message, folder).toMatch(
        new RegExp(`the publication folder is a symbolic link ${what}.*give --publication the folder itself`),
      );
  });

  it("says a checkpoint, a bundle, a trusted root or an access log given as a symbolic link that loops is one, with exit 3", () => {
    const cwd = tempDir("risk-file-loop-");
    expect(
      runCli(["assemble", "--archive", "archive", "--site", "site", "--now", "2026-11-22T10:00:00Z"], { cwd }).status,
    ).toBe(0);
    symlinkSync("loop", join(cwd, "loop"));
    for (const [args, what] of [
      [["verify", "--checkpoint", "loop"], "checkpoint"],
      [["archive", "attest", "--frame", "x", "--bundle", "loop"], "bundle"],
      [["verify", "--attestations", "--trusted-root", "loop"], "trusted root"],
      [["traffic", "ingest", "loop"], "access log"],
    ] as const) {
      const r = runCli([...args, "--archive", "archive"], { cwd });
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(EXIT.E_INPUT);
      expect(r.stderr, args.join(" ")).toMatch(
        new RegExp(
          `The ${what} \\S*loop is a symbolic link that loops \\(it leads back to itself through links\\): give the ${what} file itself`,
        ),
      );
      expect(r.stderr).not.toContain("ELOOP");
    }
  });

  it("refuses an empty folder name with init, as init --detect does, and writes nothing", () => {
    for (const name of ["", "  "]) {
      const cwd = tempDir("risk-init-empty-");
      for (const args of [
        ["init", name],
        ["init", "--detect", name],
      ]) {
        const r = runCli(args, { cwd });
        expect(r.status, `${JSON.stringify(args)}: ${r.stderr}`).toBe(EXIT.E_USAGE);
        expect(r.stderr).toMatch(/needs the folder.*give its path \(.*\. for this/);
      }
      expect(readdirSync(cwd)).toEqual([]);
    }
  });

  it("refuses a symbolic link to nothing as the folder to create, writes through one to an empty folder, and refuses a file", () => {
    const cwd = tempDir("risk-link-target-");
    symlinkSync(`${cwd}/nowhere`, `${cwd}/dangling`);
    for (const args of [
      ["init", "dangling"],
      ["assemble", "--site", "site", "--archive", "dangling"],
    ]) {
      const r = runCli(args, { cwd });
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(EXIT.E_USAGE);
      // init names the folder it cannot create; assemble refuses --archive as given.
      expect(r.stderr).toContain(
        `${args[0] === "init" ? `${cwd}/` : "--archive "}dangling: it is a symbolic link to nothing (its target does not exist)`,
      );
    }
    mkdirSync(`${cwd}/empty`);
    symlinkSync(`${cwd}/empty`, `${cwd}/to-empty`);
    expect(runCli(["init", "to-empty"], { cwd }).status).toBe(0);
    expect(readdirSync(`${cwd}/empty`)).toContain("risk.config.yaml");
    writeFileSync(`${cwd}/a-file`, "x");
    const file = runCli(["init", "a-file"], { cwd });
    expect(file.status).toBe(EXIT.E_USAGE);
    expect(file.stderr).toContain("is a file, not a folder");
  });

  it("never prints `##[`, which GitHub's runner reads anywhere in a line as a workflow command", () => {
    const cwd = tempDir("risk-old-commands-");
    const pub = `${cwd}/..pub`;
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const article = `${pub}/content/articles/fr/carry-trade-yen-boj.md`;
    cpSync(article, `${pub}/content/articles/fr/##[error file=README.md;line=1]Forged.md`);
    const us = JSON.parse(readFileSync(`${pub}/upstream/us.json`, "utf8"));
    writeFileSync(`${pub}/upstream/us.json`, JSON.stringify({ ...us, "##[stop-commands]x": 1 }));
    const env = { GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: cwd };
    const lint = runCli(["lint", "--publication", pub], { cwd, env });
    const assemble = runCli(["assemble", "--publication", pub, "--site", `${cwd}/site`, "--archive", `${cwd}/a.git`], {
      cwd,
      env,
    });
    for (const r of [lint, assemble]) {
      const out = `${r.stdout}${r.stderr}`;
      expect(out).toContain("#\\u0023[");
      expect(out).not.toContain("##[");
    }
    // A publication folder whose name starts with two dots is inside the workspace: annotations name the file.
    expect(lint.stderr).toMatch(/::(error|warning) file=\.\.pub\/content\//);
  });

  it("refuses an empty path given to any file or folder option, before anything is read or written", () => {
    const cwd = tempDir("risk-empty-path-");
    for (const args of [
      ["replay", "--date", "2026-11-22", "--out", ""],
      ["replay", "--date", "2026-11-22", "--upstream", "  "],
      ["assemble", "--site", ""],
      ["assemble", "--archive", ""],
      ["verify", "--archive", ""],
      ["verify", "--checkpoint", ""],
      ["lint", "--publication", ""],
      ["search", "dette", "--site", ""],
      ["traffic", "ingest", ""],
    ]) {
      const r = runCli(args, { cwd });
      expect(r.status, `${JSON.stringify(args)}: ${r.stderr}`).toBe(EXIT.E_USAGE);
      expect(r.stderr).toContain("An empty path names no file or folder: give its path (. for the current folder).");
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("with --json, leaves on stderr no note of the publication in this folder, only warnings", () => {
    const cwd = `${tempDir("risk-json-note-")}/pub`;
    expect(runCli(["init", cwd]).status).toBe(0);
    const env = { SOURCE_DATE_EPOCH: "1795251300" };
    const json = runCli(["assemble", "--json", "--site", "../site", "--archive", "../a.git"], { cwd, env });
    expect(json.status, json.stderr).toBe(0);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true });
    const lint = runCli(["lint", "--json"], { cwd });
    expect(lint.stderr).not.toContain("no --publication given");
    // Without --json the note stays, for a person at a terminal.
    const plain = runCli(["lint"], { cwd });
    expect(plain.stderr).toContain("risk-cli: no --publication given: checking the publication in this folder");
  });

  it("copies the demo with init, and refuses to overwrite a folder that is not empty", () => {
    const cwd = tempDir("risk-init-");
    expect(runCli(["init", "pub"], { cwd }).status).toBe(0);
    expect(existsSync(`${cwd}/pub/risk.config.yaml`)).toBe(true);
    expect(runCli(["init", "pub"], { cwd }).status).toBe(EXIT.E_USAGE);
    expect(runCli(["assemble", "--publication", "pub", "--now", "2026-11-21T10:00:00Z"], { cwd }).status).toBe(0);
  });

  it("exits with the verification code on a tampered archive", () => {
    const cwd = tempDir("risk-tamper-");
    expect(runCli(["assemble", "--now", "2026-11-21T10:00:00Z"], { cwd }).status).toBe(0);
    const frame = `${cwd}/archive.git/refs/heads/main`;
    expect(existsSync(frame)).toBe(true);
    // A folder that is not a Git repository is an archive error.
    const r = runCli(["verify", "--archive", `${cwd}/site`], { cwd });
    expect(r.status).toBe(EXIT.E_ARCHIVE);
  });
});
