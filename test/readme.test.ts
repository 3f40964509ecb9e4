import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.ts";
import { archiveWithFrames } from "./helpers/archive.ts";

/** Every Markdown link target of a file: [text](target). */
const links = (text: string) => [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

/** The README and the guides in docs/. */
const DOCS = ["README.md", "docs/architecture.md", "docs/audit.md", "docs/github-actions.md", "docs/inputs.md"];

describe("the README and the docs", () => {
  for (const file of DOCS) {
    // The README links only inside the repository; the docs may cite the web, but their own links resolve.
    it(`${file}: every relative link resolves inside the repository${file === "README.md" ? ", and it has no other" : ""}`, () => {
      const dir = join(ROOT, file, "..");
      for (const target of links(readFileSync(join(ROOT, file), "utf8"))) {
        if (target.startsWith("#")) continue;
        if (/^[a-z]+:/i.test(target)) {
          expect(file, `${file}: ${target} leaves the repository`).not.toBe("README.md");
          continue;
        }
        const path = normalize(join(dir, target.split("#")[0]!));
        expect(path.startsWith(ROOT), `${file}: ${target} leaves the repository`).toBe(true);
        expect(existsSync(path), `${file}: ${target} does not exist`).toBe(true);
      }
    });
  }

  it("names in backticks only files of the repository that exist", () => {
    for (const file of DOCS) {
      const text = readFileSync(join(ROOT, file), "utf8");
      const named = text.matchAll(/`((?:core|app|cli|archive|bench|scripts|action|test|docs|demo|types)\/[^`\s*]+)`/g);
      for (const [, path] of named)
        expect(existsSync(join(ROOT, path!.split("#")[0]!)), `${file} names ${path}, which does not exist`).toBe(true);
    }
  });

  it("ships docs/ in the npm package, where error messages point", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    const files = (JSON.parse(out)[0].files as { path: string }[]).map((f) => f.path);
    expect(files).toContain("docs/inputs.md");
    expect(files).toContain("docs/audit.md");
    expect(files).toContain("dist/bin/risk-cli.js");
  });
});

describe("the README's table of what outside testing tried", () => {
  it("names, on every row, a test that exists", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Tried from outside"),
      readme.indexOf("Not survived, or only in part"),
    );
    const rows = [...section.matchAll(/^\| .* \| `(test\/[^`]+)`: (.+) \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(30);
    for (const [, file, name] of rows) {
      const text = readFileSync(join(ROOT, file!), "utf8");
      expect(text.includes(name!.trim()), `${file} has no test "${name}"`).toBe(true);
    }
  });
});

describe("the README's counts", () => {
  it("are what the demo assembles: its documents, and the blobs and objects of a steady frame", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8").replace(/\s+/g, " ");
    const { archive, summaries } = await archiveWithFrames(2);
    const [first, steady] = summaries as [(typeof summaries)[0], (typeof summaries)[0]];
    expect(readme).toContain(`publication: ${first.surfaces} static documents with the demo's five instruments`);
    expect(readme).toContain(`it now publishes ${first.surfaces} at both scales`);
    // A steady frame: its blobs as assemble --json counts them, and every object its commit added.
    expect(readme).toContain(`(${steady.blobsWritten} blobs, the \`blobsWritten\` of \`assemble --json\``);
    const added = execFileSync("git", ["-C", archive, "rev-list", "--objects", "HEAD", "^HEAD~1"], {
      encoding: "utf8",
    });
    expect(readme).toContain(`third frames: ${added.trim().split("\n").length} new objects`);
  });
});
