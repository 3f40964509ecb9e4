import { spawnSync } from "node:child_process";
import { cpSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAssembly, type AssemblySummary } from "../../app/assembly.ts";
import { allCaches } from "../../app/caches.ts";
import { GIT_FOLDER_ENTRIES } from "../../app/paths.ts";
import { TRAFFIC_STATE_FILE } from "../../app/traffic.ts";
import { memorySite } from "../../app/site-writer.ts";
import { nodeFs, nodeHasher, nodeHttp } from "../../cli/runtime/node.ts";
import { archiveWithFrames } from "../helpers/archive.ts";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";
import { demoCopy, editFile } from "../helpers/publication.ts";
import { tempDir, treeDigest } from "../helpers/tmp.ts";

const quiet = { info: () => {}, warn: () => {} };
const ports = { fs: nodeFs, http: nodeHttp, hash: nodeHasher, log: quiet };
/** A config addition that leaves the demo's English articles out of the corpus. */
const ENGLISH_ARTICLES_ELSEWHERE = `content:
  articles:
    fr: ["content/articles/fr/*.md"]
    en: ["content/articles/elsewhere/*.md"]
`;
const T0 = Date.parse("2026-11-21T22:30:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString().replace(".000Z", "Z");

/**
 * The same publication, edited at the same moments, assembled twice side by side: once with
 * every cache and fast path on, once with all of them off. Every frame and every served byte
 * must be the same. The sequence covers a first frame, steady frames (reuse), an edited article
 * (the changefeed and the corpus surfaces), a UTC day closing (the signal history) and a
 * damaged site file (a reuse refused).
 */
describe("caches and fast paths", () => {
  it("give byte-identical sites and frames to an assembly with every cache off", async () => {
    const publication = demoCopy();
    const dir = tempDir("risk-caches-");
    const sides = [
      {
        caches: allCaches(true),
        site: `${dir}/on/site`,
        archive: `${dir}/on/archive.git`,
        summaries: [] as AssemblySummary[],
      },
      {
        caches: allCaches(false),
        site: `${dir}/off/site`,
        archive: `${dir}/off/archive.git`,
        summaries: [] as AssemblySummary[],
      },
    ];
    const article = `${publication}/content/articles/fr/${readdirFirst(publication)}`;
    const steps: Array<() => void> = [
      () => {},
      () => {},
      () => editFile(article, (t) => t.replace(/\n$/, "\n\nUne phrase ajoutée pour la révision.\n")),
      () => {},
      () => {}, // crosses midnight UTC: a daily point closes
      () => {},
      // The config moves the corpus: where the files are is read from the new text, not the cache.
      () => editFile(`${publication}/risk.config.yaml`, (t) => `${t}\n${ENGLISH_ARTICLES_ELSEWHERE}`),
      () => {},
    ];
    for (const [i, step] of steps.entries()) {
      step();
      for (const side of sides) {
        side.summaries.push(
          await runAssembly(
            { publication, site: side.site, archive: side.archive, now: at(i * 20), caches: side.caches },
            ports,
          ),
        );
      }
      const [on, off] = sides.map((s) => s.summaries.at(-1)!);
      expect(on!.frameHash, `frame ${i + 1}`).toBe(off!.frameHash);
      expect(on!.commit, `frame ${i + 1}`).toBe(off!.commit);
      expect(treeDigest(sides[0]!.site), `site after frame ${i + 1}`).toEqual(treeDigest(sides[1]!.site));
    }
    // The printed step times add up to the run: no step is left out of the timing.
    for (const summary of sides.flatMap((side) => side.summaries)) {
      const { total, ...steps } = summary.phasesMs;
      const sum = Object.values(steps).reduce((n, ms) => n + ms, 0);
      expect(Math.abs(sum - total)).toBeLessThan(1 + total * 0.02);
    }
    // The fast paths were taken on one side only: reuse is what they are for.
    expect(sides[0]!.summaries[1]!.reused.length).toBeGreaterThan(10);
    expect(sides[1]!.summaries.every((s) => s.reused.length === 0)).toBe(true);
    // A daily point closed in the sequence, so the signal history was rebuilt on both sides.
    expect(sides[0]!.summaries[5]!.changed).toContain("/api/v1/signals/history.json");
    // After the config edit, the English articles are no longer in the corpus, on both sides.
    const englishArticles = (site: string) =>
      (
        JSON.parse(readFileSync(`${site}/api/v1/catalog.json`, "utf8")) as { articles: { language: string }[] }
      ).articles.filter((a) => a.language === "en").length;
    expect(sides[0]!.summaries[6]!.changed).toContain("/api/v1/catalog.json");
    expect(englishArticles(sides[0]!.site)).toBe(0);
    expect(englishArticles(sides[1]!.site)).toBe(0);
  });

  it("refuse a damaged site file: the surface is built again, not reused", async () => {
    const dir = tempDir("risk-caches-");
    const site = memorySite();
    const publication = demoCopy();
    await runAssembly({ publication, site, archive: `${dir}/archive.git`, now: at(0) }, ports);
    const path = "/api/v1/catalog.json";
    const bytes = site.files.get(path)!;
    site.files.set(
      path,
      new TextEncoder().encode(new TextDecoder().decode(bytes).replace("Observatoire", "Observatoirf")),
    );
    const second = await runAssembly({ publication, site, archive: `${dir}/archive.git`, now: at(15) }, ports);
    expect(second.reused).not.toContain(path);
    expect(second.reused.length).toBeGreaterThan(10);
    expect(new TextDecoder().decode(site.files.get(path)!)).not.toContain("Observatoirf");
  });

  it("keep a document's body in the parsed-files memo as where it starts in the text, and read it back from there", async () => {
    const dir = tempDir("risk-caches-");
    const publication = demoCopy();
    const archive = `${dir}/archive.git`;
    const first = memorySite();
    await runAssembly({ publication, site: first, archive, now: at(0) }, ports);
    const name = readdirFirst(publication);
    const memo = JSON.parse(readFileSync(`${archive}/risk-cli-parsed-files.json`, "utf8")) as {
      entries: { files: Record<string, { value: { body: unknown } }> };
    };
    const kept = memo.entries.files[`content/articles/fr/${name}`]!.value.body;
    const text = readFileSync(`${publication}/content/articles/fr/${name}`, "utf8");
    expect(typeof kept).toBe("number");
    expect(text.slice(kept as number)).toContain("\n");
    // Found again: the same catalog as an assembly that parses every file.
    const again = memorySite();
    const cold = memorySite();
    await runAssembly({ publication, site: again, archive, now: at(15) }, ports);
    for (const minutes of [0, 15])
      await runAssembly(
        { publication, site: cold, archive: `${dir}/cold.git`, now: at(minutes), caches: allCaches(false) },
        ports,
      );
    expect(again.files.get("/api/v1/catalog.json")).toEqual(cold.files.get("/api/v1/catalog.json"));
    expect(again.files.get("/llms-full.txt")).toEqual(cold.files.get("/llms-full.txt"));
  });

  it("are turned off by --no-cache on the command line, with the same frame", () => {
    const dir = tempDir("risk-caches-cli-");
    const env = { SOURCE_DATE_EPOCH: "1795000000" };
    const on = runCli(["assemble", "--site", `${dir}/a/site`, "--archive", `${dir}/a/archive.git`, "--json"], { env });
    const off = runCli(
      ["assemble", "--no-cache", "--site", `${dir}/b/site`, "--archive", `${dir}/b/archive.git`, "--json"],
      { env },
    );
    expect(on.status).toBe(0);
    expect(off.status).toBe(0);
    expect(JSON.parse(off.stdout).frameHash).toBe(JSON.parse(on.stdout).frameHash);
  });
});

describe("cache files in the archive's Git directory", () => {
  it("replaced by a FIFO or a link to /dev/zero are passed over at once, with the frame an assembly without caches gives", () => {
    const dir = tempDir("risk-caches-fifo-");
    const publication = demoCopy();
    const run = (where: string, now: string, more: string[] = []) => {
      const r = spawnSync(
        process.execPath,
        [
          CLI,
          "assemble",
          "--publication",
          publication,
          "--site",
          `${where}/site`,
          "--archive",
          `${where}/archive.git`,
          "--now",
          now,
          "--json",
          ...more,
        ],
        { env: { ...process.env, SOURCE_DATE_EPOCH: "" }, encoding: "utf8", timeout: 30_000, killSignal: "SIGKILL" },
      );
      return { status: r.status, signal: r.signal, stderr: r.stderr, stdout: r.stdout };
    };
    expect(run(`${dir}/a`, at(0)).status).toBe(0);
    // An edited article: the memo and the parsed files are read, not only the lite cache.
    const article = `${publication}/content/articles/fr/${readdirFirst(publication)}`;
    editFile(article, (t) => `${t}\nUne phrase ajoutée.\n`);
    cpSync(`${dir}/a`, `${dir}/reference`, { recursive: true });
    const reference = run(`${dir}/reference`, at(15), ["--no-cache"]);
    expect(reference.status).toBe(0);
    const kept = (gitdir: string) => [
      ...readdirSync(gitdir)
        .filter((n) => n.startsWith("risk-cli-") && n !== "risk-cli-frames")
        .map((n) => `${gitdir}/${n}`),
      ...readdirSync(`${gitdir}/risk-cli-frames`).map((n) => `${gitdir}/risk-cli-frames/${n}`),
    ];
    for (const damage of ["fifo", "zero"] as const) {
      const where = `${dir}/${damage}`;
      cpSync(`${dir}/a`, where, { recursive: true });
      const files = kept(`${where}/archive.git`);
      expect(files.length).toBeGreaterThanOrEqual(10);
      for (const file of files) {
        rmSync(file);
        if (damage === "fifo") expect(spawnSync("mkfifo", [file]).status).toBe(0);
        else symlinkSync("/dev/zero", file);
      }
      const r = run(where, at(15));
      expect(r.signal, `${damage}: ${r.stderr}`).toBeNull();
      expect(r.status, `${damage}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).frameHash, damage).toBe(JSON.parse(reference.stdout).frameHash);
      expect(treeDigest(`${where}/site`), damage).toEqual(treeDigest(`${dir}/reference/site`));
      // Written again as files, for the next run.
      for (const name of ["risk-cli-memo.json", "risk-cli-parsed-files.json", "risk-cli-site-stat.json"])
        expect(lstatSync(`${where}/archive.git/${name}`).isFile(), `${damage}: ${name}`).toBe(true);
    }
  });
});

/** The first French article of a publication. */
function readdirFirst(publication: string): string {
  return readdirSync(`${publication}/content/articles/fr`)
    .filter((n) => n.endsWith(".md"))
    .sort()[0]!;
}

describe("the list of caches", () => {
  it("names every file an assembly keeps in the Git directory, in app/caches.ts and in docs/architecture.md", async () => {
    const { archive } = await archiveWithFrames(2);
    // Git's own entries, and the pending traffic counts: data the next frame publishes, not a cache.
    const notCaches = new Set([...GIT_FOLDER_ENTRIES, TRAFFIC_STATE_FILE]);
    const kept = readdirSync(archive)
      .filter((name) => !notCaches.has(name))
      .map((name) => name.replace(/\.added\.ndjson$/, ".json"));
    expect(kept).toContain("risk-cli-chain.txt");
    const caches = readFileSync(join(ROOT, "app/caches.ts"), "utf8");
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const table = doc.slice(
      doc.indexOf("## Caches and fast paths"),
      doc.indexOf("\n## ", doc.indexOf("## Caches and fast paths") + 3),
    );
    for (const name of new Set(kept)) {
      expect(caches.includes(`\`${name}`), `app/caches.ts does not name ${name}`).toBe(true);
      expect(table.includes(`\`${name}`), `docs/architecture.md's list of caches does not name ${name}`).toBe(true);
    }
  });
});
