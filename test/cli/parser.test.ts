/**
 * The command line is parsed by the command table alone when it holds none of Optique's runner
 * words, and by the runner otherwise. Both must give the same value, so every command line below
 * goes through both; a usage error must reach the runner, which prints it and exits 2.
 */
import { describe, expect, it } from "vitest";
import { parseArgs, runParser } from "../../cli/parser.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/tmp.ts";

const COMMAND_LINES: string[][] = [
  ["assemble"],
  ["assemble", "--json"],
  [
    "assemble",
    "--publication",
    "pub/risk.config.yaml",
    "--site",
    "out",
    "--archive",
    "a.git",
    "--now",
    "2026-11-21T06:00:00Z",
  ],
  ["assemble", "--no-cache", "--push", "--remote", "origin", "--branch", "risk-archive", "--allow-future"],
  ["assemble", "--site=out", "--archive=a.git"],
  ["collect", "--json"],
  ["init", "site"],
  ["init", "--detect", "site", "--json"],
  ["replay", "--date", "2026-11-21", "--json"],
  ["replay", "--date", "2026-11-21T06:00:00Z", "--archive", "a.git", "--out", "day"],
  ["diff", "--from", "2026-11-20", "--to", "2026-11-21", "--json"],
  ["verify"],
  ["verify", "--archive", "clone", "--json"],
  ["verify", "--checkpoint", "saved.txt", "--key", "k"],
  [
    "verify",
    "--attestations",
    "--window",
    "30",
    "--identity",
    "https://github.com/o/r/",
    "--trusted-root",
    "root.json",
  ],
  ["archive", "pull", "--remote", "origin"],
  ["archive", "push", "--branch", "risk-archive", "--json"],
  ["archive", "attest", "--frame", "000042-20261121T154500Z", "--bundle", "a.jsonl", "--json"],
  ["log", "keygen", "--name", "risques.example.org/risk-cli/frames"],
  ["prove", "--frame", "000042-20261121T154500Z", "--size", "100", "--json"],
  ["serve", "--site", "out", "--port", "8080", "--host", "127.0.0.1"],
  ["serve", "--mcp", "--mcp-origin", "https://example.org"],
  ["mcp", "--site", "out", "--archive", "a.git"],
  ["traffic", "ingest", "access.log", "access.log.1.gz", "--json"],
  ["lint", "--publication", "pub"],
  ["search", "taux", "--lang", "fr", "--limit", "3"],
];

describe("the command line", () => {
  it.each(COMMAND_LINES.map((words) => [words.join(" ") || "(no words)", words]))(
    "parses `%s` as Optique's runner does",
    async (_name, words) => {
      const runner = await runParser(words as string[], {
        onExit: (code) => {
          throw new Error(`the runner exited ${code}`);
        },
      }).catch((e: Error) => e.message);
      // A line that the runner refuses is not in this list by mistake: each must parse.
      expect(typeof runner).toBe("object");
      expect(await parseArgs(words as string[])).toEqual(runner);
    },
  );

  it("hands help, version, completion and usage errors to the runner", () => {
    const help = runCli(["assemble", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--archive");
    const completion = runCli(["completion", "bash"]);
    expect(completion.status).toBe(0);
    expect(completion.stdout).toContain("risk-cli");
    const unknown = runCli(["assemble", "--sitee", "x"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("--site");
    const unknownHelp = runCli(["help", "asemble"]);
    expect(unknownHelp.status).toBe(2);
    expect(unknownHelp.stderr).toContain("did you mean assemble");
    expect(runCli(["help", "archive", "pull"]).status).toBe(0);
    expect(runCli(["help", "help"]).status).toBe(0);
    const none = runCli([]);
    expect(none.status).toBe(2);
    const version = runCli(["assemble", "--version"]);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("prints a usage error as JSON on standard output when --json is given, as every other failure", () => {
    for (const args of [
      ["assemble", "--bogus", "--json"],
      ["prove", "--json"],
      ["replay", "--json", "--date"],
    ]) {
      const r = runCli(args);
      expect(r.status, args.join(" ")).toBe(2);
      const out = JSON.parse(r.stdout) as { ok: boolean; code: string; message: string };
      expect(out).toMatchObject({ ok: false, code: "E_USAGE" });
      expect(out.message.length).toBeGreaterThan(10);
      expect(r.stderr).toContain(out.message);
    }
    // Without --json, standard output stays empty.
    expect(runCli(["assemble", "--bogus"]).stdout).toBe("");
  });

  it("explains a known option after --, and an integer too large without speaking of bigint", () => {
    const after = runCli(["assemble", "--", "--json"]);
    expect(after.status).toBe(2);
    expect(after.stderr).toContain("after --, words are not read as options");
    expect(after.stderr).not.toContain("Did you mean");
    const size = runCli(["prove", "--frame", "000001-20261121T100000Z", "--size", "9007199254740993"]);
    expect(size.status).toBe(2);
    expect(size.stderr).toContain("too large");
    const stray = runCli(["verify", "--identity", "https://github.com/o/r/"]);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain("--identity belongs to verify --attestations");
    const huge = runCli(["verify", "--window", "99999999999999999999"]);
    expect(huge.status).toBe(2);
    expect(huge.stderr).toContain("between");
    expect(huge.stderr).not.toContain("bigint");
  });

  it("refuses an empty --host (every interface) and an empty --identity (every signer)", () => {
    const host = runCli(["serve", "--host="]);
    expect(host.status).toBe(2);
    expect(host.stderr).toContain("--host is empty");
    const identity = runCli(["verify", "--attestations", "--identity", ""]);
    expect(identity.status).toBe(2);
    expect(identity.stderr).toContain("--identity is empty");
  });

  it("prints init's next command as a shell reads it", () => {
    const dir = tempDir("risk-init-words-");
    const spaced = runCli(["init", "my pub"], { cwd: dir });
    expect(spaced.status).toBe(0);
    expect(spaced.stderr).toContain("risk-cli assemble --publication 'my pub'");
    const dashed = runCli(["init", "--", "-x"], { cwd: dir });
    expect(dashed.status).toBe(0);
    expect(dashed.stderr).toContain("risk-cli assemble --publication ./-x");
  });
});
