import { resolve } from "node:path";
import { openArchive } from "../../archive/index.ts";
import { parseInstant } from "../../archive/models/instant.ts";
import { nodeHasher, stderrLogger } from "../runtime/node.ts";
import { frameFreshness, renderFrame } from "../format/frame.ts";

export interface ReplayOptions {
  archive: string;
  date: string;
  out?: string;
  json: boolean;
}

/** Finds the frame published at a date and prints it; with --out, writes that publication and checks every file. */
export async function runReplay(opts: ReplayOptions) {
  const log = stderrLogger(opts.json);
  const archive = openArchive(opts.archive);
  const found = await archive.frameAt(parseInstant(opts.date));
  const { frame } = found;
  log.info(
    `frame ${frame.frameId} at ${frame.at} (commit ${found.commit.slice(0, 12)}) is the last at or before ${opts.date}`,
  );
  let written: { files: number; bytes: number } | null = null;
  if (opts.out) {
    written = await archive.materialise(found, resolve(opts.out), nodeHasher);
    log.info(
      `${written.files} files, ${written.bytes} bytes written to ${resolve(opts.out)}; every file matches the frame's fingerprints`,
    );
  }
  // The frame itself: scores, sources and statuses, models, freshness, hashes, changes.
  if (!opts.json) process.stdout.write(`${renderFrame(frame, found.commit)}\n`);
  return {
    ok: true as const,
    date: opts.date,
    commit: found.commit,
    frame,
    freshness: frameFreshness(frame),
    out: opts.out ? resolve(opts.out) : null,
    written,
  };
}
