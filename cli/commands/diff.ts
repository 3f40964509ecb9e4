import { openArchive } from "../../archive/index.ts";
import { parseInstant } from "../../archive/models/instant.ts";
import { renderDiff } from "../format/frame.ts";
import { printable } from "../terminal.ts";

export interface DiffOptions {
  archive: string;
  from: string;
  to: string;
  json: boolean;
}

/** The surfaces that changed and the signal moves between the frames published at two dates. */
export async function runDiff(opts: DiffOptions) {
  const diff = await openArchive(opts.archive).diff(parseInstant(opts.from), parseInstant(opts.to));
  if (!opts.json) process.stdout.write(`${printable(renderDiff(diff))}\n`);
  return { ok: true as const, fromDate: opts.from, toDate: opts.to, ...diff };
}
