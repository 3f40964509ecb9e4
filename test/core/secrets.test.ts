import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAssemble } from "../../cli/commands/assemble.ts";
import { at, git } from "../helpers/archive.ts";
import { ROOT, runCli } from "../helpers/cli.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

describe("published reasons never carry a secret, a local path or a file's content", () => {
  it("names the source by scheme, host and path, or by its place in the publication", async () => {
    const dir = tempDir("risk-secret-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    // A file outside the publication holding a secret, not JSON.
    const outside = join(tempDir("risk-outside-"), "credentials.txt");
    writeFileSync(outside, "AWS_SECRET=hunter2-very-secret\n");
    const config = join(pub, "risk.config.yaml");
    writeFileSync(
      config,
      readFileSync(config, "utf8")
        .replace("source: upstream/us.json", "source: http://127.0.0.1:9/v1/us?api_key=SECRET-KEY-123#frag")
        .replace("source: upstream/eu.json", `source: ${outside}`)
        .replace("source: upstream/yen.json", "source: upstream/missing.json"),
    );
    const summary = await runAssemble({
      site: `${dir}/site`,
      archive: `${dir}/archive.git`,
      publication: pub,
      now: at(0),
      json: true,
    });
    const published = [
      readFileSync(`${dir}/site/api/v1/signals/current.json`, "utf8"),
      readFileSync(`${dir}/site/api/v1/risk.json`, "utf8"),
      git(`${dir}/archive.git`, "show", "HEAD:frame.json"),
      // What the command prints (its summary names the local site folder, on purpose; not the reasons).
      JSON.stringify(summary.signals),
    ].join("\n");
    for (const secret of ["p4ssw0rd", "alice", "SECRET-KEY-123", "api_key", "frag", "hunter2", outside, dir])
      expect(published, secret).not.toContain(secret);
    // Nowhere in the site either.
    for (const [path] of Object.entries(treeDigest(`${dir}/site`))) {
      const text = readFileSync(`${dir}/site/${path}`, "utf8");
      for (const secret of ["p4ssw0rd", "SECRET-KEY-123", "hunter2", outside])
        expect(text, `${path}: ${secret}`).not.toContain(secret);
    }
    const current = JSON.parse(readFileSync(`${dir}/site/api/v1/signals/current.json`, "utf8"));
    const reasons = JSON.stringify(current);
    expect(reasons).toContain("http://127.0.0.1:9/v1/us: the network failed");
    expect(reasons).toContain("a file outside the publication (credentials.txt)");
    expect(reasons).toContain("upstream/missing.json: the file cannot be read (ENOENT)");
  });
});

describe("an upstream URL that carries a user name and password", () => {
  it("is refused in the configuration (exit 3, naming the field), and the password is never printed", () => {
    const dir = tempDir("risk-secret-");
    const pub = join(dir, "pub");
    cpSync(join(ROOT, "demo"), pub, { recursive: true });
    const config = join(pub, "risk.config.yaml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(
        "source: upstream/us.json",
        "source: https://alice:p4ssw0rd@example.org/us.json",
      ),
    );
    for (const args of [
      ["lint", "--publication", pub],
      ["assemble", "--publication", pub, "--site", `${dir}/site`, "--archive", `${dir}/a.git`],
    ]) {
      const r = runCli(args);
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /risk\.config\.yaml:\d+ \(field instruments\.us\.source\).*without a user name or password/,
      );
      expect(r.stderr + r.stdout).not.toContain("p4ssw0rd");
    }
  });
});
