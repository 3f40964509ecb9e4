/**
 * One assembly, as a list of steps: lock the archive, read the inputs, read the archive's head,
 * collect the upstream readings, plan, load what the plan needs, build and validate, write the
 * site beside the old one, commit the frame, swap the site in. The CLI, the tests and the
 * benchmarks all call `runAssembly`; nothing else strings these steps together.
 *
 * Collection comes before planning because whether the signal history is rebuilt depends on
 * whether a signal changed level, which only the fresh readings tell.
 */
import * as fs from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { RiskError } from "../core/errors.ts";
import { assemble, type Assembly, type BuiltFile } from "../core/assemble.ts";
import { BLACK_BOX_PATH, publishedCheckpoint } from "../core/log/site-log.ts";
import { editorialFindings, formatFinding, lineOf } from "../core/editorial/lint.ts";
import { collectUpstream, type CollectLimits } from "../core/inputs/collect.ts";
import {
  CONFIG_FILE,
  fingerprintInputs,
  parsePublication,
  readPublicationFiles,
  type InputFiles,
  type Publication,
} from "../core/inputs/publication.ts";
import type { UpstreamState } from "../core/inputs/upstream.ts";
import type { NoteSigner } from "../core/log/checkpoint.ts";
import { copiesRead, planAssembly, type Plan } from "../core/plan.ts";
import type { Hasher, Http, Logger, ReadOnlyFs } from "../core/ports.ts";
import { SURFACES, surfacesFor } from "../core/surfaces/index.ts";
import { withoutOlderReadings } from "../core/signals.ts";
import { HUMAN_TRAFFIC_PATH } from "../core/surfaces/human-traffic.ts";
import type { PreviousState } from "../core/surfaces/types.ts";
import { VERSION } from "../core/version.ts";
import { openArchive, type Archive, type ArchiveAbout, type Lock, type TreeCache } from "../archive/index.ts";
import { archiveLicense, archiveReadme } from "../archive/models/readme.ts";
import { allCaches, type Caches } from "./caches.ts";
import { fileMemo } from "./memo.ts";
import { liteCache, parsedFiles, saveConfigPart } from "./publication-cache.ts";
import { folderSite, type SiteWriter } from "./site-writer.ts";
import { checkArchiveFolder, checkAssemblyPaths } from "./paths.ts";
import { onStopSignal } from "./stop-signals.ts";

export interface AssemblyRequest {
  /** The publication folder. */
  publication: string;
  /** The site folder, or a writer (tests, benchmarks). */
  site: string | SiteWriter;
  /** The archive: a Git directory, or a work tree whose .git is one. */
  archive: string;
  /** The assembly instant, ISO 8601 UTC with a Z, whole seconds. */
  now: string;
  /**
   * The site may publish a frame the archive does not hold: after a pull in which the remote won,
   * the site shows the local frame kept under refs/risk-cli/unpushed/ (app/publish.ts).
   */
  siteAheadOfArchive?: boolean;
  /** Every cache and fast path on (default) or off; see app/caches.ts. */
  caches?: boolean | Caches;
  /** Collection limits over the publication's. */
  limits?: Partial<CollectLimits>;
  /**
   * Where the archive is published, when the configuration names no `archive`: the https remote
   * an assembly pushes to. Published in black-box.json, agents.json, llms.txt and the archive's README.
   */
  publishedArchive?: { url: string; branch: string };
  /** Where `now` came from: the system clock (default), or pinned by --now or SOURCE_DATE_EPOCH. */
  clock?: "system" | "pinned";
  /** Signs the frame log's checkpoints (a key configured by the publisher); unsigned without. */
  signer?: NoteSigner;
  /** Readings to use instead of collecting them (benchmarks that replay synthetic upstreams). */
  upstream?: (publication: Publication) => UpstreamState | Promise<UpstreamState>;
  /**
   * Run once the frame is committed and before the site is swapped in (the push of
   * `assemble --push`): when it throws, the site stays as it was, so that a deploy step never
   * serves a frame the remote archive refused.
   */
  beforeSwap?: (frameId: string) => Promise<void>;
}

/** The effects an assembly uses, for the runtime it runs on. */
export interface AssemblyPorts {
  fs: ReadOnlyFs;
  http: Http;
  hash: Hasher;
  log: Logger;
}

/** The steps of an assembly, in order; their times add up to the whole run. */
export const STEPS = [
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
] as const;
export type StepName = (typeof STEPS)[number];

/** One instrument in a summary: what was published and, when something is wrong, why. */
export interface SignalLine {
  instrument: string;
  value: number | null;
  level: string | null;
  sourceStatus: string;
  /** nominal, official-delayed, stale or degraded. */
  qualityStatus: string | null;
  fallbackUsed: boolean;
  reason: string | null;
}

export interface AssemblySummary {
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
  /** Each instrument as this frame publishes it. */
  signals: SignalLine[];
  /** The instruments whose upstream failed or is stale (a last good value kept, or none), with why. */
  fallbacks: SignalLine[];
  /** Milliseconds per step; `total` is the whole run. */
  phasesMs: Record<StepName | "total", number>;
  site: string;
  archive: string;
}

/**
 * Assembles the publication and commits one frame. Any error before the commit leaves the
 * previous site and archive exactly as they were.
 */
export async function runAssembly(request: AssemblyRequest, ports: AssemblyPorts): Promise<AssemblySummary> {
  const caches = typeof request.caches === "object" ? request.caches : allCaches(request.caches !== false);
  const archive = openArchive(request.archive);
  const { gitdir } = archive;
  const pubDir = resolve(request.publication);
  const { hash, log } = ports;
  const steps = stepTimer();
  const started = performance.now();

  // Folders that overlap, and an archive folder that holds something else, are refused before
  // anything is touched (app/paths.ts).
  checkArchiveFolder(request.archive);
  if (typeof request.site === "string")
    checkAssemblyPaths({ site: request.site, archive: request.archive, publication: pubDir });
  // A run that fails before its first commit leaves no empty archive folder behind.
  const archiveExisted = fs.existsSync(gitdir);
  let lock: Lock;
  try {
    lock = archive.lock(new Date(), log.warn);
  } catch (e) {
    if (!archiveExisted) removeIfEmpty(gitdir);
    throw writeFailure(e, null, gitdir);
  }
  steps.end("lock");
  let staged = false;
  let swapped = false;
  // The frame, once the archive's branch holds it.
  let committed: string | null = null;
  let opened: SiteWriter | null = null;
  const stopListening = onStopSignal(() => {
    if (staged) opened?.abandon();
    lock.release();
    if (!archiveExisted) removeIfEmpty(gitdir);
    if (swapped)
      return `the frame ${committed} was published before it; the caches it had not saved are computed again next time.`;
    if (committed !== null)
      return `the frame ${committed} is in the archive, but the site folder was left as it was; the next assembly brings it up to date. The lock is released.`;
    return "nothing was committed or published; the site folder and the archive are as they were, and the lock is released.";
  }, log.warn);
  try {
    const site = (opened =
      typeof request.site === "string" ? folderSite(resolve(request.site), { archive, hash, caches }) : request.site);
    // Read: the input files and their fingerprint; the parsed publication only as far as needed.
    const lite = caches.publication ? liteCache(gitdir) : null;
    const files = await readPublicationFiles(ports.fs, pubDir, {
      knownContent: lite ? (text) => lite.content(text, hash) : undefined,
    });
    const address = request.publishedArchive;
    const inputs = fingerprintInputs(
      files,
      hash,
      `risk-cli ${VERSION}${address ? ` archive ${address.url} ${address.branch}` : ""}${
        request.signer ? ` key ${request.signer.verifierKey}` : ""
      }`,
    );
    const reader = publicationReader(files, inputs, gitdir, hash, caches, lite, address);
    const base = reader.config();
    steps.end("read");

    // Head: the head frame and the copies of surfaces that builders read.
    const trees: TreeCache = new Map();
    const surfaces = surfacesFor(base, SURFACES);
    const copies = copiesRead(surfaces).map((path) => ({
      path,
      schema: surfaces.find((s) => s.path === path)!.schema,
    }));
    const previous = await archive.head(copies, {
      cache: trees,
      trustedVersion: caches.trustedHead ? VERSION : undefined,
      trustChainList: caches.trustedHead,
    });
    if (typeof request.site === "string" && !request.siteAheadOfArchive)
      await checkSiteInArchive(site, archive, previous);
    steps.end("head");

    const upstream = withoutOlderReadings(
      base,
      request.upstream
        ? await request.upstream(base)
        : await collectUpstream(
            base,
            { fs: ports.fs, http: ports.http },
            { attemptedAt: request.now, limits: request.limits },
          ),
      previous?.frame ?? null,
    );
    for (const [key, r] of Object.entries(upstream.instruments))
      if (r && !r.ok) log.warn(`upstream ${key}: ${r.status}: ${r.error}`);
    // The access logs the config names, counted into the pending days (never a visitor's key).
    const traffic = await pendingTraffic(base, pubDir, gitdir, request.now, log);
    steps.end("collect");

    const memo = fileMemo(gitdir, hash, { read: caches.memo });
    // The archive's README.md and LICENSE and the commit's author, which the frame fingerprints.
    const identity = { name: base.config.name, email: `risk-cli@${new URL(base.config.baseUrl).hostname}` };
    const about: ArchiveAbout = {
      name: base.config.name,
      baseUrl: base.config.baseUrl,
      license: base.config.license,
      licenseUrl: base.config.licenseUrl,
      attribution: base.config.attribution,
      remote: base.config.archive ?? null,
      verifierKey: request.signer?.verifierKey ?? null,
    };
    const utf8 = (text: string) => new TextEncoder().encode(text);
    const start = {
      publication: base,
      upstream,
      previous,
      now: request.now,
      toolVersion: VERSION,
      inputs,
      reuse: caches.reuse,
      memo,
      clock: request.clock ?? "system",
      ...(request.signer ? { signer: request.signer } : {}),
      ...(traffic ? { traffic: { days: traffic.state.days, seenThrough: traffic.state.seenThrough ?? null } } : {}),
      about: {
        readme: hash.sha256(utf8(archiveReadme(about))),
        license: hash.sha256(utf8(archiveLicense(about))),
        author: `${identity.name} <${identity.email}>`,
      },
    };
    const plan = planAssembly(
      { ...start, previousServed: (path) => site.served(path), previousVerified: site.verified },
      surfaces,
      hash,
    );
    steps.end("plan");

    const publication = plan.needs.corpus ? reader.whole() : base;
    if (previous)
      await archive.load(previous, plan.needs, { now: request.now, cache: trees, digests: caches.frameDigests });
    steps.end("load");

    const assembly = assemble({ ...start, publication }, hash, {
      plan,
      timer: () => performance.now(),
      sharedRecords: caches.sharedRecords,
    });
    steps.add("build", assembly.phases.build);
    steps.add("validate", assembly.phases.validate);
    steps.add("serialise", assembly.phases.serialise);
    steps.end("serialise");

    staged = true;
    await site.stage(assembly.files, previous);
    steps.end("write");

    const { commit, blobsWritten, tiles } = await archive.commit(assembly, previous, identity, trees, about, {
      trustWrittenHead: caches.trustedHead,
    });
    committed = assembly.frame.frameId;
    const checkpoint = checkpointOf(assembly.files);
    if (checkpoint !== null) await site.stageLog({ checkpoint, tiles, read: (oid) => archive.blob(oid) });
    if (request.beforeSwap) await request.beforeSwap(assembly.frame.frameId);
    steps.end("commit");

    site.swap(assembly.files);
    staged = false;
    swapped = true;
    // The frame is published: what is saved from here on is kept beside it for the next runs, and
    // a failure to save it (a full disk) is a warning naming the folder, never this run's failure.
    const keep = (what: string, save: () => void) => {
      try {
        save();
      } catch (e) {
        const at = (e as { path?: unknown }).path;
        log.warn(
          `The frame ${assembly.frame.frameId} is published, but ${what} failed: ${ioReason(e)}${typeof at === "string" ? ` at ${at}` : ""}. Free space there, or give this account write access, before the next run.`,
        );
      }
    };
    // The days this frame published leave the pending counts; later lines for them are late.
    if (traffic) keep("saving the human-traffic counts", () => traffic.published(assembly.files));
    keep("removing the previous site or saving the site's stat data (a cache)", () => site.settle?.(assembly.files));
    const warnings = reader.warnings(assembly, plan);
    for (const w of warnings) log.warn(w);
    keep("saving the parsed publication (a cache)", () => reader.save(warnings));
    keep("saving the memo of per-document results (a cache)", () => memo.save());
    steps.end("swap");

    const summary = summaryOf(assembly, {
      commit,
      blobsWritten,
      warnings,
      site: site.location,
      archive: gitdir,
      phasesMs: steps.done(performance.now() - started),
    });
    for (const [phase, ms] of Object.entries(summary.phasesMs))
      log.info(`${phase.padEnd(10)}${String(ms).padStart(9)} ms`);
    report(summary, previous, log);
    return summary;
  } catch (e) {
    if (staged) opened?.abandon();
    if (swapped) throw e;
    throw writeFailure(e, opened?.location ?? String(request.site), gitdir, committed);
  } finally {
    stopListening();
    lock.release();
    if (!archiveExisted) removeIfEmpty(gitdir);
  }
}

/** Removes a folder that holds nothing; a folder with anything in it stays as it is. */
function removeIfEmpty(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch {
    // Not empty (the first frame was committed), or already gone.
  }
}

/**
 * The site cannot silently move backwards: when the live site publishes a frame (its
 * integrity.json names it, at its `generated` time) that the archive does not hold at that time
 * (the branch was rolled back, or rewritten with other frames), the assembly is refused, naming
 * both, before anything is written.
 */
async function checkSiteInArchive(site: SiteWriter, archive: Archive, previous: PreviousState | null): Promise<void> {
  const bytes = site.served("/api/v1/integrity.json");
  if (!bytes) return;
  let published: { generated?: unknown; frame?: { frameId?: unknown } };
  try {
    published = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return; // Not risk-cli's integrity.json: the site writer's own checks apply.
  }
  const frameId = published.frame?.frameId;
  const at = typeof published.generated === "string" ? Date.parse(published.generated) : Number.NaN;
  if (typeof frameId !== "string" || Number.isNaN(at)) return;
  if (!previous)
    throw new RiskError(
      "E_ARCHIVE",
      `The site ${site.location} publishes frame ${frameId}, but the archive ${archive.gitdir} holds no frame: it is another archive than the one that site was published from (an older default folder, a fresh clone without the archive branch). Nothing was changed; give --archive the archive that holds that frame, or remove the site folder to begin a new archive.`,
      { site: site.location, siteFrame: frameId, head: null },
    );
  if (frameId === previous.frame.frameId) return;
  let held: string | null = null;
  try {
    if (at <= Date.parse(previous.frame.at)) held = (await archive.frameAt(at)).frame.frameId;
  } catch {
    held = null;
  }
  // A frame of this archive that a pull replaced (the remote won a race): the site moves on to
  // the remote's frames, as the frame kept under refs/risk-cli/unpushed/ says it may.
  if (held !== frameId && !(await archive.holdsUnpushed(frameId)))
    throw new RiskError(
      "E_ARCHIVE",
      `The site ${site.location} publishes frame ${frameId}, which the archive does not hold (its head is frame ${previous.frame.frameId}${held ? `, and at that time it holds ${held}` : ""}): the archive was rolled back or rewritten, or belongs to another publication. Nothing was changed; check --archive, or remove the site folder to publish from this archive.`,
      { site: site.location, siteFrame: frameId, head: previous.frame.frameId },
    );
}

/** The frame log's checkpoint that black-box.json publishes, or null when it has none. */
function checkpointOf(files: readonly BuiltFile[]): string | null {
  const box = files.find((f) => f.path === BLACK_BOX_PATH);
  return box ? publishedCheckpoint(box.served) : null;
}

/**
 * A full disk, a file too large, a read-only or forbidden folder met while writing the site, the
 * archive or a cache: an I/O error (exit 6) naming the folder to free or open, the one the failed
 * call wrote to (both when it is not known), and what was kept: nothing when the frame was not
 * committed (the previous site and the branch are as they were), else the frame in the archive
 * and the previous site still served.
 */
function writeFailure(e: unknown, site: string | null, gitdir: string, committed: string | null = null): unknown {
  const code = (e as { code?: unknown }).code;
  if (
    typeof code !== "string" ||
    !["ENOSPC", "EFBIG", "EROFS", "EACCES", "EPERM", "EDQUOT", "EMFILE", "ENFILE"].includes(code)
  )
    return e;
  const path = (e as { path?: unknown }).path;
  const inside = (dir: string) =>
    typeof path === "string" && (path === dir || path.startsWith(`${dir}/`) || path.startsWith(`${dir}.`));
  // Without a site, the lock was being taken: nothing but the archive folder was written to.
  const what =
    site === null
      ? `the archive ${gitdir} (taking its lock)`
      : inside(gitdir)
        ? `the archive ${gitdir}`
        : inside(site)
          ? `the site folder ${site}`
          : `the site ${site} or the archive ${gitdir}`;
  const kept =
    committed === null
      ? "Nothing was published: the previous site and archive are as they were."
      : `The frame ${committed} is committed to the archive, but the site was not swapped: it still serves the previous frame, whole. The next assembly publishes on top of ${committed}.`;
  // `errno`, as for every other file-system failure: `code` stays the exit code's name (E_IO).
  return new RiskError("E_IO", `Cannot write ${what}: ${ioReason(e)}. ${kept}`, {
    errno: code,
    ...(committed ? { committed } : {}),
  });
}

/** What an I/O error means, in words, with its code: "the disk is full (ENOSPC)". */
function ioReason(e: unknown): string {
  const code = String((e as { code?: unknown }).code ?? "");
  const why: Record<string, string> = {
    ENOSPC: "the disk is full",
    EDQUOT: "the disk quota is exceeded",
    EFBIG: "a file is over the file system's size limit",
    EROFS: "the file system is read-only",
    EACCES: "permission denied",
    EPERM: "permission denied",
    EMFILE: "too many open files",
    ENFILE: "too many open files",
  };
  return why[code] ? `${why[code]} (${code})` : code ? `${(e as Error).message ?? code}` : String(e);
}

/**
 * The publication as the plan needs it: its configuration part (configuration, protocol,
 * methodologies) to plan and collect, the whole of it to build corpus surfaces. The whole is
 * parsed at most once, and then only the files whose text changed since an earlier parse
 * (app/publication-cache.ts).
 */
function publicationReader(
  files: InputFiles,
  inputs: string,
  gitdir: string,
  hash: Hasher,
  caches: Caches,
  kept: ReturnType<typeof liteCache> | null,
  address?: { url: string; branch: string },
) {
  let whole: Publication | null = null;
  let lite: Publication | null = null;
  const memo = parsedFiles(gitdir, hash, { read: caches.publication });
  // The configuration's own archive address wins over the remote the assembly pushes to.
  const addressed = (p: Publication): Publication =>
    p.config.archive || !address ? p : { ...p, config: { ...p.config, archive: address } };
  const parseWhole = (): Publication => (whole ??= addressed(parsePublication(files, { parsed: memo })));
  return {
    config(): Publication {
      lite ??= addressed(kept?.configPart(inputs, files.root) ?? parseWhole());
      return lite;
    },
    whole: parseWhole,
    /** Same inputs, same findings: a steady-state assembly repeats the ones found when they were parsed. */
    warnings(assembly: Assembly, plan: Plan): string[] {
      const cached = !whole && plan.inputsUnchanged ? kept?.warnings(inputs) : null;
      if (cached) return cached;
      const p = parseWhole();
      return (
        editorialFindings(p, assembly.frame.indexedAt ?? assembly.frame.at, (path) => `${p.config.baseUrl}${path}`, {
          errorsOnly: true,
        })
          // Errors, and a glob that matches nothing (a corpus emptied by a typo must not pass unseen).
          .filter((f) => f.severity === "error" || f.code === "empty-glob")
          .map(({ needle, after, ...f }) =>
            formatFinding({ ...f, line: f.line ?? lineOf(files.files.get(f.file), needle, after) }),
          )
      );
    },
    /** Keeps what was parsed for the next assembly (written even with the cache off, so it stays current). */
    save(warnings: readonly string[]): void {
      if (!whole) return;
      memo.save();
      saveConfigPart(gitdir, inputs, whole, warnings, hash.sha256Parts([files.files.get(CONFIG_FILE) ?? ""]));
    },
  };
}

function summaryOf(
  assembly: Assembly,
  more: Pick<AssemblySummary, "commit" | "blobsWritten" | "warnings" | "site" | "archive" | "phasesMs">,
): AssemblySummary {
  const { frame, files } = assembly;
  const signals: SignalLine[] = Object.entries(frame.signals).map(([instrument, sig]) => ({
    instrument,
    value: sig?.value ?? null,
    level: sig?.level ?? null,
    sourceStatus: sig?.sourceStatus ?? "unknown",
    qualityStatus: sig?.qualityStatus ?? null,
    fallbackUsed: sig?.fallbackUsed ?? false,
    reason: sig?.reason ?? null,
  }));
  return {
    ok: true,
    frameId: frame.frameId,
    frameHash: frame.frameHash,
    commit: more.commit,
    at: frame.at,
    surfaces: files.length,
    bytes: files.reduce((n, f) => n + (f.appendTo ?? 0) + f.served.byteLength, 0),
    blobsWritten: more.blobsWritten,
    reused: files.filter((f) => f.stored === null && f.appendTo === undefined).map((f) => f.path),
    warnings: more.warnings,
    changed: frame.changes.changed,
    added: frame.changes.added,
    removed: frame.changes.removed,
    signals,
    fallbacks: signals.filter(
      (sig) =>
        sig.fallbackUsed ||
        sig.sourceStatus !== "ok" ||
        sig.qualityStatus === "stale" ||
        sig.qualityStatus === "degraded",
    ),
    phasesMs: more.phasesMs,
    site: more.site,
    archive: more.archive,
  };
}

function report(summary: AssemblySummary, previous: PreviousState | null, log: Logger): void {
  const changes = [
    ...summary.added.map((p) => `+${p}`),
    ...summary.changed.map((p) => `~${p}`),
    ...summary.removed.map((p) => `-${p}`),
  ];
  log.info(`frame ${summary.frameId} sha256:${summary.frameHash} commit ${summary.commit.slice(0, 12)}`);
  log.info(
    `${summary.surfaces} surfaces, ${summary.bytes} bytes in ${summary.site}; ${summary.blobsWritten} new blobs in ${summary.archive}`,
  );
  log.info(
    previous
      ? `changed since frame ${previous.frame.frameId}: ${changes.length ? changes.join(" ") : "nothing"}`
      : "first frame of the archive",
  );
}

/**
 * Times the steps in order: `end(step)` gives a step the time since the previous end, less what
 * `add` already gave to steps measured inside it. The steps then add up to the run.
 */
function stepTimer() {
  const ms = Object.fromEntries(STEPS.map((s) => [s, 0])) as Record<StepName, number>;
  let last = performance.now();
  let inner = 0;
  return {
    end(step: StepName) {
      const now = performance.now();
      ms[step] += now - last - inner;
      last = now;
      inner = 0;
    },
    add(step: StepName, value: number) {
      ms[step] += value;
      inner += value;
    },
    done(total: number): Record<StepName | "total", number> {
      const out = Object.fromEntries(STEPS.map((s) => [s, round(ms[s])])) as Record<StepName | "total", number>;
      out.total = round(total);
      return out;
    },
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The pending traffic counts with the config's access logs ingested: null when the publication
 * names no logs and none were ingested before. `published` records what a committed frame published.
 */
async function pendingTraffic(
  p: Publication,
  root: string,
  gitdir: string,
  now: string,
  log: { warn(m: string): void },
) {
  const t = await import("./traffic.ts");
  if (!p.config.traffic && !fs.existsSync(join(gitdir, t.TRAFFIC_STATE_FILE))) return null;
  const state = t.readTrafficState(gitdir);
  if (p.config.traffic) {
    const files = await t.logFiles(root, p.config.traffic.logs);
    const report = await t.ingestLogs(files, state, {
      now,
      ownHost: p.config.traffic.host ?? new URL(p.config.baseUrl).hostname,
      pages: t.knownPages(p),
    });
    // Named inside the publication when they are there, else by their file name alone.
    const shown = (f: string) => (relative(root, f).startsWith("..") ? basename(f) : relative(root, f));
    for (const s of report.skipped) log.warn(`access logs: left out ${shown(s.file)}: ${s.reason}`);
    if (report.malformed) log.warn(`access logs: ${report.malformed} malformed line(s) skipped`);
    if (report.common) log.warn(`access logs: ${t.commonLogWarning(report.common)}`);
    for (const f of report.truncated)
      log.warn(`access logs: a gzip file cut short, its complete lines counted (${shown(f)})`);
  }
  return {
    state,
    published(files: readonly { path: string; served: Uint8Array }[]) {
      const file = files.find((f) => f.path === HUMAN_TRAFFIC_PATH);
      if (!file) return;
      const days = (JSON.parse(new TextDecoder().decode(file.served)) as { days: { date: string }[] }).days;
      t.markPublished(state, days[0]?.date ?? null);
      t.writeTrafficState(gitdir, state);
    },
  };
}
