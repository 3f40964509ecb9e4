import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.ts";

/**
 * The layers, read from the sources' imports: cli/ over app/ over archive/ over core/, and no
 * import cycle anywhere. Type-only imports count: they tangle the design as much as the others.
 */
const FOLDERS = ["cli", "app", "archive", "core", "bench"] as const;

/** What each layer may import besides itself: project folders and outside modules. */
const RULES: Record<string, { folders: readonly string[]; outside: (spec: string) => boolean }> = {
  // Pure: no file, network, clock or process; only the libraries that compute.
  core: { folders: [], outside: (s) => ["zod", "yaml", "minisearch", "picomatch", "smol-toml", "fflate"].includes(s) },
  archive: { folders: ["core"], outside: () => true },
  app: { folders: ["core", "archive"], outside: () => true },
  cli: { folders: ["core", "archive", "app"], outside: () => true },
  bench: { folders: ["core", "archive", "app", "cli"], outside: () => true },
};

export interface Graph {
  /** File -> the project files it imports (paths relative to the root). */
  edges: Map<string, string[]>;
  /** File -> the outside modules it imports (npm packages, node: modules). */
  outside: Map<string, string[]>;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The import graph of the given files (path -> source text). */
export function importGraph(files: Map<string, string>): Graph {
  const edges = new Map<string, string[]>();
  const outside = new Map<string, string[]>();
  for (const [file, text] of files) {
    const local: string[] = [];
    const other: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith(".")) local.push(normalize(join(dirname(file), spec)));
      else other.push(spec);
    }
    edges.set(file, local);
    outside.set(file, other);
  }
  return { edges, outside };
}

/** Every elementary cycle found by a depth-first search, each as a path a -> b -> a, once. */
export function cycles(graph: Graph): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.edges.get(file) ?? []) {
      if (!graph.edges.has(next)) continue;
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        found.set(rotated.join(" -> "), [...rotated, rotated[0]!]);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.edges.keys()].sort()) if (!state.has(file)) visit(file);
  return [...found.values()];
}

/** The imports that break the layering or reach a private module of another folder. */
export function violations(graph: Graph): string[] {
  const out: string[] = [];
  const layerOf = (file: string) => file.split("/")[0]!;
  for (const [file, imports] of graph.edges) {
    const rule = RULES[layerOf(file)];
    if (!rule) continue;
    for (const target of imports) {
      const layer = layerOf(target);
      if (layer !== layerOf(file) && !rule.folders.includes(layer))
        out.push(`${file} imports ${target}: ${layerOf(file)}/ may not import ${layer}/`);
      const name = target.split("/").at(-1)!;
      if (name.startsWith("_") && dirname(target) !== dirname(file))
        out.push(`${file} imports ${target}: a module whose name starts with _ is private to its folder`);
    }
    for (const spec of graph.outside.get(file) ?? []) {
      if (!rule.outside(spec)) out.push(`${file} imports ${spec}: ${layerOf(file)}/ may not import it`);
    }
  }
  return out.sort();
}

function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const folder of FOLDERS) {
    const dir = join(ROOT, folder);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const path = join(entry.parentPath, entry.name);
      files.set(relative(ROOT, path), readFileSync(path, "utf8"));
    }
  }
  return files;
}

describe("the architecture", () => {
  const graph = importGraph(sources());

  it("reads the imports of every source file", () => {
    expect(graph.edges.size).toBeGreaterThan(100);
    expect(graph.edges.get("app/assembly.ts")).toContain("core/plan.ts");
  });

  it("has no import cycle", () => {
    expect(cycles(graph).map((c) => c.join(" -> "))).toEqual([]);
  });

  it("keeps each layer to the layers below it, and private modules to their folder", () => {
    expect(violations(graph)).toEqual([]);
  });
});

/**
 * Exported functions, classes, constants, types and interfaces defined in more than one module:
 * one name, two meanings (a schema and the type inferred from it share their module).
 */
export function namesDefinedTwice(files: Map<string, string>): string[] {
  const where = new Map<string, string[]>();
  for (const [file, text] of files)
    for (const m of text.matchAll(
      /^export (?:async )?(?:function\*?|const|let|class|type|interface|enum) ([A-Za-z_$][\w$]*)/gm,
    )) {
      const known = where.get(m[1]!) ?? [];
      if (!known.includes(file)) where.set(m[1]!, [...known, file]);
    }
  return [...where]
    .filter(([, files]) => files.length > 1)
    .map(([name, files]) => `${name}: ${files.join(", ")}`)
    .sort();
}

describe("the names", () => {
  it("give each exported function, class, constant and type one meaning: defined in one module", () => {
    const code = new Map([...sources()].filter(([file]) => !file.startsWith("bench/")));
    expect(namesDefinedTwice(code)).toEqual([]);
  });

  it("find a name two modules define", () => {
    const files = new Map([
      ["core/inputs/pages.ts", "export const pageOf = (pattern: string, slug: string) => pattern;"],
      ["core/traffic/classify.ts", "export const pageOf = (path: string) => path;\nexport function other() {}"],
      ["core/levels.ts", 'export type Tone = "calm" | "crisis";'],
      [
        "core/schemas/primitives.ts",
        'export const Tone = z.enum(["calm", "crisis"]);\nexport type Tone = z.infer<typeof Tone>;',
      ],
      ["core/claims/extract.ts", "export interface Reference { href: string }"],
      ["core/claims/references.ts", "export type Reference = z.infer<typeof EvidenceReference>;"],
    ]);
    expect(namesDefinedTwice(files)).toEqual([
      "Reference: core/claims/extract.ts, core/claims/references.ts",
      "Tone: core/levels.ts, core/schemas/primitives.ts",
      "pageOf: core/inputs/pages.ts, core/traffic/classify.ts",
    ]);
  });
});

describe("the architecture checks", () => {
  const graphOf = (files: Record<string, string>) => importGraph(new Map(Object.entries(files)));

  it("find a cycle through type-only imports and dynamic imports", () => {
    const g = graphOf({
      "core/a.ts": 'import type { B } from "./b.ts";',
      "core/b.ts": 'export const f = () => import("./c.ts");',
      "core/c.ts": 'export { A } from "./a.ts";',
      "core/d.ts": 'import { A } from "./a.ts";',
    });
    expect(cycles(g)).toEqual([["core/a.ts", "core/b.ts", "core/c.ts", "core/a.ts"]]);
  });

  it("refuse core importing the archive, the archive importing the CLI, and core using node:fs", () => {
    const g = graphOf({
      "core/x.ts": 'import { readFile } from "node:fs";\nimport { commitFrame } from "../archive/api/commit.ts";',
      "archive/api/commit.ts": 'import { VERSION } from "../../cli/main.ts";',
      "cli/main.ts": 'import { runAssembly } from "../app/assembly.ts";',
      "app/assembly.ts": "",
    });
    expect(violations(g)).toEqual([
      "archive/api/commit.ts imports cli/main.ts: archive/ may not import cli/",
      "core/x.ts imports archive/api/commit.ts: core/ may not import archive/",
      "core/x.ts imports node:fs: core/ may not import it",
    ]);
  });

  it("refuse a private module imported from another folder, and allow it from its own", () => {
    const g = graphOf({
      "core/surfaces/_helpers.ts": "",
      "core/surfaces/a.ts": 'import { x } from "./_helpers.ts";',
      "core/editorial/b.ts": 'import { x } from "../surfaces/_helpers.ts";',
    });
    expect(violations(g)).toEqual([
      "core/editorial/b.ts imports core/surfaces/_helpers.ts: a module whose name starts with _ is private to its folder",
    ]);
  });
});

/**
 * Words a newcomer can follow: no tracker number (an issue or task named by its number) nor
 * numbered rule in the sources, their comments, the documentation or the published golden
 * files; the text says what the rule is instead.
 */
export const NUMBERED_REFERENCE = /\b(?:issue|task|rule)s?\s+#?\d+\b/i;

function wordsFiles(): string[] {
  const files: string[] = ["README.md", "action.yml"];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path !== "test/fixtures") walk(path);
      } else if (/\.(?:ts|mjs|md|json|ndjson|txt|ya?ml|xml|html|csv|svg)$/.test(entry.name)) files.push(path);
    }
  };
  for (const dir of ["cli", "app", "archive", "core", "bench", "scripts", "test", "docs", "demo", ".github"]) {
    if (existsSync(join(ROOT, dir))) walk(dir);
  }
  return files;
}

describe("the words of the code and of what is published", () => {
  it("name no issue, task or rule by its number", () => {
    const files = wordsFiles();
    expect(files.length).toBeGreaterThan(200);
    expect(files.some((f) => f.startsWith("test/golden/"))).toBe(true);
    const found = files.flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) =>
          NUMBERED_REFERENCE.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });

  it("catch such a number", () => {
    // Spelled in two pieces so that this file passes its own check.
    const n = (word: string, number: string) => `${word} ${number}`;
    expect(NUMBERED_REFERENCE.test(`// checked here (${n("issue", "11")})`)).toBe(true);
    expect(NUMBERED_REFERENCE.test(`as ${n("rule", "9")} says`)).toBe(true);
    expect(NUMBERED_REFERENCE.test(`${n("Task", "#4")} end to end`)).toBe(true);
    expect(NUMBERED_REFERENCE.test("the rules of the contract; 9 surfaces")).toBe(false);
  });
});
