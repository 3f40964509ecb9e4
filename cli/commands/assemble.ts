import * as fs from "node:fs";
import { dirname, resolve } from "node:path";
import { assemble, inputsUnchanged, type BuiltFile } from "../../core/assemble.ts";
import { isRiskError, RiskError } from "../../core/errors.ts";
import { fingerprintInputs, parsePublication, readPublicationFiles } from "../../core/inputs/publication.ts";
import { collectUpstream, type CollectLimits } from "../../core/inputs/collect.ts";
import { commitFrame } from "../../archive/api/commit.ts";
import { gitdirOf, type TreeCache } from "../../archive/git/objects.ts";
import { previousState } from "../../archive/api/state.ts";
import { moveAppendOnly, type Moved } from "../site-append.ts";
import { loadHistory } from "../../archive/api/history.ts";
import { acquireLock } from "../../archive/lock.ts";
import { cachedPublication, cachedWarnings, savePublication } from "../cache.ts";
import { loadSiteStat, saveSiteStat } from "../site-stat.ts";
import { editorialFindings, lineOf } from "../../core/editorial/lint.ts";
import { formatFinding } from "./lint.ts";
import { resolveNow } from "../clock.ts";
import { demoPublication } from "../paths.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { runtimeFs, runtimeHttp } from "../runtime/select.ts";
import { VERSION } from "../version.ts";

export interface AssembleOptions {
  publication?: string;
  site: string;
  archive: string;
  now?: string;
  json: boolean;
  /** Collection limits over the publication's (in-process callers: tests, bench). */
  limits?: Partial<CollectLimits>;
}

export interface AssembleSummary {
  ok: true;
  frameId: string;
  frameHash: string;
  commit: string;
  at: string;
  surfaces: number;
  bytes: number;
  blobsWritten: number;
  /** Surfaces whose inputs did not change, reused from the previous frame instead of rebuilt. */
  reused: string[];
  /** Editorial problems that do not stop an assembly (reviews without their claim, translations). */
  warnings: string[];
  changed: string[];
  added: string[];
  removed: string[];
  phasesMs: Record<"load" | "build" | "validate" | "serialise" | "write" | "commit", number>;
  site: string;
  archive: string;
}

/**
 * Assembles the publication: load and validate every input, build and check every surface, write
 * the site into a temporary folder, commit the frame, then swap the folder in. Any error before
 * the commit leaves the previous site and archive exactly as they were.
 */
export async function runAssemble(opts: AssembleOptions): Promise<AssembleSummary> {
  const log = stderrLogger(opts.json);
  const pubDir = resolve(opts.publication ?? demoPublication());
  const siteDir = resolve(opts.site);
  const archiveDir = gitdirOf(resolve(opts.archive));
  const now = resolveNow(opts.now, process.env, () => new Date());
  const timer = () => performance.now();
  const lock = acquireLock(archiveDir, new Date(), log.warn);
  const tmpSite = `${siteDir}.tmp-${process.pid}`;
  // Append-only files moved from the old site, put back if the run fails.
  let moved: Moved[] = [];
  try {
    let t = timer();
    const { fs: readFs } = runtimeFs();
    const files = await readPublicationFiles(readFs, pubDir);
    const inputs = fingerprintInputs(files, nodeHasher, `risk-cli ${VERSION}`);
    const trees: TreeCache = new Map();
    // Daily points and level changes are loaded only if a history surface must
    // be rebuilt (E_HISTORY below).
    const previous = await previousState(archiveDir, trees, { now, inputs, toolVersion: VERSION, history: false });
    // Inputs unchanged since the last frame: the reusable surfaces will be reused, so only the
    // lite part of the cached publication is needed (E_PARTIAL below if that turns out wrong).
    const lite = inputsUnchanged(previous, inputs, VERSION) ? cachedPublication(archiveDir, inputs, pubDir, "lite") : null;
    let parsed = false;
    const whole = () => cachedPublication(archiveDir, inputs, pubDir) ?? ((parsed = true), parsePublication(files));
    let publication = lite ?? whole();
    const upstream = await collectUpstream(publication, { fs: readFs, http: runtimeHttp() }, { attemptedAt: now, limits: opts.limits });
    for (const [key, r] of Object.entries(upstream.instruments)) if (r && !r.ok) log.warn(`upstream ${key}: ${r.status}: ${r.error}`);
    const load = timer() - t;
    const previousServed = (path: string) => {
      try {
        return fs.readFileSync(`${siteDir}${path}`);
      } catch {
        return null;
      }
    };
    const previousVerified = loadSiteStat(archiveDir, siteDir);
    const run = () =>
      assemble({ publication, upstream, previous, now, toolVersion: VERSION, inputs, previousServed, previousVerified, partial: lite !== null && publication === lite }, nodeHasher, { timer });
    let assembly;
    for (;;) {
      try {
        assembly = run();
        break;
      } catch (e) {
        if (isRiskError(e) && e.code === "E_PARTIAL" && publication === lite) publication = whole();
        else if (isRiskError(e) && e.code === "E_HISTORY" && previous && previous.history === undefined) previous.history = await loadHistory(archiveDir, previous.tree, trees);
        else throw e;
      }
    }
    t = timer();
    writeSiteFolder(tmpSite, assembly.files.filter((f) => f.appendTo === undefined), siteDir);
    moved = await moveAppendOnly(assembly.files, { siteDir, tmpSite, archiveDir, previous, hash: nodeHasher });
    const writeMs = timer() - t;
    t = timer();
    const host = new URL(publication.config.baseUrl).hostname;
    const { commit, blobsWritten } = await commitFrame(archiveDir, assembly, previous, { name: publication.config.name, email: `risk-cli@${host}` }, trees);
    const commitMs = timer() - t;
    t = timer();
    swapIn(tmpSite, siteDir);
    saveSiteStat(archiveDir, siteDir, assembly.files);
    const swapMs = timer() - t;
    // Same inputs, same findings: a steady-state assembly repeats the ones found when they were parsed.
    const warnings =
      (publication === lite ? cachedWarnings(archiveDir, inputs) : null) ??
      editorialFindings(publication, assembly.frame.indexedAt ?? now, (path) => `${publication.config.baseUrl}${path}`)
        .filter((f) => f.severity === "error")
        .map(({ needle, ...f }) => formatFinding({ ...f, line: f.line ?? lineOf(files.files.get(f.file), needle) }));
    for (const w of warnings) log.warn(w);
    if (parsed) savePublication(archiveDir, inputs, publication, warnings);
    const { frame } = assembly;
    const phasesMs = {
      load: round(load),
      build: round(assembly.phases.build),
      validate: round(assembly.phases.validate),
      serialise: round(assembly.phases.serialise),
      write: round(writeMs + swapMs),
      commit: round(commitMs),
    };
    for (const [phase, ms] of Object.entries(phasesMs)) log.info(`${phase.padEnd(10)}${String(ms).padStart(9)} ms`);
    const summary: AssembleSummary = {
      ok: true,
      frameId: frame.frameId,
      frameHash: frame.frameHash,
      commit,
      at: frame.at,
      surfaces: assembly.files.length,
      bytes: assembly.files.reduce((n, f) => n + (f.appendTo ?? 0) + f.served.byteLength, 0),
      blobsWritten,
      reused: assembly.files.filter((f) => f.stored === null && f.appendTo === undefined).map((f) => f.path),
      warnings,
      changed: frame.changes.changed,
      added: frame.changes.added,
      removed: frame.changes.removed,
      phasesMs,
      site: siteDir,
      archive: archiveDir,
    };
    const changes = [...summary.added.map((p) => `+${p}`), ...summary.changed.map((p) => `~${p}`), ...summary.removed.map((p) => `-${p}`)];
    log.info(`frame ${frame.frameId} sha256:${frame.frameHash} commit ${commit.slice(0, 12)}`);
    log.info(`${summary.surfaces} surfaces, ${summary.bytes} bytes in ${siteDir}; ${blobsWritten} new blobs in ${archiveDir}`);
    log.info(previous ? `changed since frame ${previous.frame.frameId}: ${changes.length ? changes.join(" ") : "nothing"}` : "first frame of the archive");
    return summary;
  } catch (e) {
    for (const m of moved) m.restore();
    fs.rmSync(tmpSite, { recursive: true, force: true });
    throw e;
  } finally {
    lock.release();
  }
}

/**
 * Writes the new site folder. A reused file served as stored (no `generated` to move) is the
 * previous site's file, unchanged: it is hard-linked rather than written again, which also keeps
 * the stat data that let the next assembly trust it without hashing (cli/site-stat.ts).
 */
function writeSiteFolder(dir: string, files: BuiltFile[], previousSite: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const f of files) {
    const file = `${dir}${f.path}`;
    fs.mkdirSync(dirname(file), { recursive: true });
    if (f.stored === null && !f.stamped) {
      try {
        fs.linkSync(`${previousSite}${f.path}`, file);
        continue;
      } catch {
        // Another file system, or no previous file: write the bytes.
      }
    }
    fs.writeFileSync(file, f.served);
  }
}

/** Replaces `target` by `fresh` with two renames; the old folder is removed only afterwards. */
function swapIn(fresh: string, target: string): void {
  const old = `${target}.old-${process.pid}`;
  fs.mkdirSync(dirname(target), { recursive: true });
  const hadOld = fs.existsSync(target);
  if (hadOld) {
    if (!fs.statSync(target).isDirectory()) throw new RiskError("E_IO", `${target} exists and is not a folder; choose another --site`);
    fs.renameSync(target, old);
  }
  try {
    fs.renameSync(fresh, target);
  } catch (e) {
    if (hadOld) fs.renameSync(old, target);
    throw e;
  }
  if (hadOld) fs.rmSync(old, { recursive: true, force: true });
}

const round = (ms: number) => Math.round(ms * 10) / 10;
