import * as fs from "node:fs";
import { resolve } from "node:path";
import { checkReplayOutput } from "../../app/paths.ts";
import { replaceableSite } from "../../app/site-writer.ts";
import { RiskError } from "../../core/errors.ts";
import { makeFolder } from "../../archive/make-folder.ts";
import { openArchive } from "../../archive/index.ts";
import { parseInstant } from "../../archive/models/instant.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { frameFreshness, renderFrame } from "../format/frame.ts";
import { printable } from "../terminal.ts";

export interface ReplayOptions {
  archive: string;
  date: string;
  out?: string;
  /** Replace the content of --out when it is a folder risk-cli wrote (a site or an earlier replay). */
  replace?: boolean;
  /** Write the upstream documents of the frame into this new or empty folder. */
  upstream?: string;
  json: boolean;
}

/**
 * Where a replay may be written, checked before anything is: a new or empty folder, or, with
 * --replace, a folder risk-cli wrote. A file, a symbolic link or a folder holding other files is
 * refused (exit 2): a replay never merges into, or writes through, what it did not make.
 */
function checkOut(out: string, replace: boolean, option = "--out"): "new" | "empty" | "replace" {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(out);
  } catch (e) {
    // A link on the way that loops: no folder can be made there, and the error would otherwise
    // name the temporary folder written first.
    if ((e as NodeJS.ErrnoException).code === "ELOOP")
      throw new RiskError(
        "E_USAGE",
        `${option} ${out} cannot be made: a symbolic link on its path loops (it leads back to itself through links); give another folder`,
      );
    return "new";
  }
  if (st.isSymbolicLink()) throw new RiskError("E_USAGE", `${option} ${out} is a symbolic link; give a folder`);
  if (!st.isDirectory()) throw new RiskError("E_USAGE", `${option} ${out} exists and is not a folder; give a folder`);
  if (fs.readdirSync(out).length === 0) return "empty";
  if (!replace)
    throw new RiskError(
      "E_USAGE",
      `${option} ${out} is not empty: give a new or empty folder${option === "--out" ? ", or --replace to replace a folder risk-cli wrote" : ""}`,
    );
  if (!replaceableSite(out))
    throw new RiskError(
      "E_USAGE",
      `--out ${out} holds files risk-cli did not write (no .risk-cli-site marker); --replace replaces only a site or replay risk-cli wrote`,
    );
  return "replace";
}

/** A damaged archive (a missing or changed object) met while replaying: exit 1, naming the frame. */
async function asReplayFailure<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof RiskError && e.code === "E_ARCHIVE" && (e.data as { damaged?: boolean }).damaged)
      throw new RiskError("E_REPLAY_MISMATCH", `Cannot replay ${what}: ${e.message}`, e.data);
    throw e;
  }
}

/** Finds the frame published at a date and prints it; with --out, writes that publication and checks every file. */
export async function runReplay(opts: ReplayOptions) {
  const log = stderrLogger(opts.json);
  if (opts.out) checkReplayOutput("--out", opts.out, opts.archive);
  if (opts.upstream) checkReplayOutput("--upstream", opts.upstream, opts.archive);
  const archive = openArchive(opts.archive);
  const found = await asReplayFailure("the frame at that date", () => archive.frameAt(parseInstant(opts.date)));
  const { frame } = found;
  log.info(
    `frame ${frame.frameId} at ${frame.at} (commit ${found.commit.slice(0, 12)}) is the last at or before ${opts.date}`,
  );
  let written: { files: number; bytes: number } | null = null;
  if (opts.out) {
    const out = resolve(opts.out);
    const state = checkOut(out, opts.replace === true);
    // Written into a folder of its own first (nothing in it can be a planted link), then moved in.
    const tmp = `${out}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    makeFolder(tmp);
    try {
      written = await asReplayFailure(`frame ${found.frame.frameId}`, () =>
        archive.materialise(found, tmp, nodeHasher),
      );
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
    if (state === "new") fs.renameSync(tmp, out);
    else {
      const old = `${out}.old-${process.pid}`;
      fs.renameSync(out, old);
      fs.renameSync(tmp, out);
      fs.rmSync(old, { recursive: true, force: true });
    }
    log.info(
      `${written.files} files, ${written.bytes} bytes written to ${resolve(opts.out)}; every file matches the frame's fingerprints`,
    );
  }
  let upstream: { instrument: string; bytes?: number; reason?: string }[] | null = null;
  if (opts.upstream) {
    const dir = resolve(opts.upstream);
    checkOut(dir, false, "--upstream");
    const docs = await asReplayFailure(`frame ${found.frame.frameId}`, () =>
      archive.upstreamDocuments(found, nodeHasher),
    );
    makeFolder(dir);
    const reasons: Record<string, string> = {};
    for (const d of docs) {
      if (d.bytes) fs.writeFileSync(`${dir}/${d.instrument}.json`, d.bytes, { flag: "wx" });
      else reasons[d.instrument] = d.reason ?? "";
    }
    fs.writeFileSync(`${dir}/reasons.json`, `${JSON.stringify(reasons, null, 2)}\n`, { flag: "wx" });
    upstream = docs.map((d) => ({
      instrument: d.instrument,
      ...(d.bytes ? { bytes: d.bytes.byteLength } : { reason: d.reason }),
    }));
    log.info(`${docs.filter((d) => d.bytes).length} upstream documents written to ${dir}`);
  }
  // The frame itself: scores, sources and statuses, models, freshness, hashes, changes.
  if (!opts.json) process.stdout.write(`${printable(renderFrame(frame, found.commit))}\n`);
  return {
    ok: true as const,
    date: opts.date,
    commit: found.commit,
    frame,
    freshness: frameFreshness(frame),
    out: opts.out ? resolve(opts.out) : null,
    written,
    upstream,
  };
}
