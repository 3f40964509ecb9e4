import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.ts";

/** Every Markdown link target of a file: [text](target). */
const links = (text: string) => [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

describe("the README and the docs", () => {
  for (const file of [
    "README.md",
    "docs/architecture.md",
    "docs/audit.md",
    "docs/github-actions.md",
    "docs/inputs.md",
  ]) {
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
    for (const file of [
      "README.md",
      "docs/architecture.md",
      "docs/audit.md",
      "docs/github-actions.md",
      "docs/inputs.md",
    ]) {
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
