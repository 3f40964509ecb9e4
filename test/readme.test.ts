import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.ts";
import { archiveWithFrames } from "./helpers/archive.ts";
import { SURFACES } from "../core/surfaces/index.ts";

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
    // The count is given once, at the top; the other sections refer to it.
    says(readme, `publication: ${first.surfaces} static documents with the demo's five instruments`);
    // A steady frame: its blobs as assemble --json counts them, and every object its commit added.
    says(readme, `(${steady.blobsWritten} blobs, the \`blobsWritten\` of \`assemble --json\``);
    const added = execFileSync("git", ["-C", archive, "rev-list", "--objects", "HEAD", "^HEAD~1"], {
      encoding: "utf8",
    });
    says(readme, `third frames: ${added.trim().split("\n").length} new objects`);
  });
});

/** Fails naming the words the README lacks, without printing the whole README. */
function says(readme: string, words: string): void {
  expect(readme.includes(words), `README.md should say "${words}": update its figure`).toBe(true);
}

/** The rows of the README's table of surfaces, under "## Outputs": paths (as the registry writes them) and operationId. */
function outputRows(): { paths: string[]; operationId: string }[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("| path | schema (OpenAPI component) | operationId |", readme.indexOf("## Outputs"));
  const table = readme.slice(start, readme.indexOf("\n\n", start)).split("\n").slice(2);
  return table.map((row) => {
    const [pathCell = "", , operationId = ""] = row.split(" | ").map((c) => c.replace(/^\| |\s*\|$/g, ""));
    const paths = [...pathCell.matchAll(/`([^`]+)`/g)].map(([, p]) =>
      p!.replaceAll("<seriesId>", "{seriesId}").replace(/\/$/, "/index.html"),
    );
    return { paths, operationId: operationId.trim() };
  });
}

/** What the README's table of surfaces gets wrong about a registry: paths it lacks or has in excess, operationIds. */
function tableProblems(registry: readonly { path: string; operationId?: string }[]): string[] {
  const rows = outputRows();
  const listed = rows.flatMap((r) => r.paths);
  const problems = [
    ...registry.filter((s) => !listed.includes(s.path)).map((s) => `${s.path} has no row`),
    ...listed.filter((p) => !registry.some((s) => s.path === p)).map((p) => `${p} is no surface`),
  ];
  for (const s of registry) {
    const row = rows.find((r) => r.paths.includes(s.path));
    if (row?.paths.length === 1 && row.operationId !== (s.operationId ?? ""))
      problems.push(
        `${s.path}: operationId ${row.operationId || "(none)"} in the table, ${s.operationId ?? "(none)"} in the registry`,
      );
  }
  return problems;
}

describe("the README's table of surfaces", () => {
  it("lists every surface of the registry, and only those, with its operationId", () => {
    expect(tableProblems(SURFACES), "README.md's table under ## Outputs against core/surfaces/index.ts").toEqual([]);
  });

  it("fails on a surface the table leaves out, and reads folder URLs and per-series paths", () => {
    const added = [...SURFACES, { path: "/api/v1/instruments.json", operationId: "instrumentsSurface" }];
    expect(tableProblems(added)).toEqual(["/api/v1/instruments.json has no row"]);
    const listed = outputRows().flatMap((r) => r.paths);
    expect(listed).toContain("/series/{seriesId}/index.html");
    expect(listed).toContain("/donnees/agents/index.html");
  });
});

describe("the steps for adding a surface", () => {
  it("name every place besides the builder and the registry that a test holds to the registry", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const section = doc.slice(
      doc.indexOf("### Adding a surface"),
      doc.indexOf("\n## ", doc.indexOf("### Adding a surface")),
    );
    for (const step of [
      "`npm run golden:update`",
      "README's table of surfaces",
      "count at the top of the",
      "`operationId`",
      "`npm run action:bundle`",
    ])
      expect(section.includes(step), `docs/architecture.md's "Adding a surface" does not name ${step}`).toBe(true);
    for (const file of ["README.md", "docs/architecture.md", "core/surfaces/types.ts"]) {
      const text = readFileSync(join(ROOT, file), "utf8").replace(/\s+\*?\s*/g, " ");
      expect(text, `${file} still says a surface is one golden file`).not.toMatch(
        /one registry line and one golden file|one golden file \(/,
      );
    }
  });
});

describe("the README's test command", () => {
  it("names every system package .ci/run installs for the tests", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const intro = readme.slice(readme.indexOf("Run the tests"), readme.indexOf("```sh\nnpm test"));
    const run = readFileSync(join(ROOT, ".ci/run"), "utf8");
    // The packages it adds to the list of those missing, which it then installs.
    const packages = [...run.matchAll(/missing\+=\(([a-z0-9][a-z0-9.+-]*)\)/g)].map((m) => m[1]!);
    expect(run).toContain('apt-get install -y --no-install-recommends "${missing[@]}"');
    expect(packages.length).toBeGreaterThanOrEqual(4);
    for (const name of packages)
      expect(intro, `README.md's "Run the tests" does not name ${name}`).toContain(`\`${name}\``);
  });
});
