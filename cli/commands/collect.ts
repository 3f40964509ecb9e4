import { resolve } from "node:path";
import { collectUpstream } from "../../core/inputs/collect.ts";
import { loadPublication } from "../../core/inputs/publication.ts";
import { ageSeconds, resolveSignals, withoutOlderReadings, type Signal } from "../../core/signals.ts";
import { openArchive } from "../../archive/index.ts";
import { resolveNow } from "../clock.ts";
import { humanAge } from "../format/age.ts";
import { defaultPublication } from "../paths.ts";
import { runtimeFs, runtimeHttp } from "../runtime/select.ts";
import { oneLine, printable } from "../terminal.ts";

export interface CollectOptions {
  publication?: string;
  archive: string;
  now?: string;
  json: boolean;
}

export interface CollectedInstrument {
  instrument: string;
  source: string;
  sourceStatus: string;
  qualityStatus: string | null;
  value: number | null;
  level: string | null;
  fallbackUsed: boolean;
  sourceUpdatedAt: string | null;
  /** Seconds between the upstream's publication of the value shown and this attempt. */
  ageSeconds: number | null;
  lastSuccessAt: string | null;
  reason: string | null;
}

export interface CollectReport {
  ok: true;
  attemptedAt: string;
  publication: string;
  /** The frame whose values a failing instrument falls back on; null without an archive. */
  fallbackFrame: string | null;
  durationMs: number;
  instruments: CollectedInstrument[];
}

/**
 * Collects every instrument as an assembly would, and says what each would publish: its status,
 * value, age and why it fell back. Reads the archive's head frame for the fallback values; writes
 * nothing.
 */
export async function runCollect(opts: CollectOptions): Promise<CollectReport> {
  const pubDir = resolve(opts.publication ?? defaultPublication("collecting", { json: opts.json }));
  const now = resolveNow(opts.now, process.env, () => new Date());
  // The archive is only read (for the fallback values), but a file given as one is refused
  // (exit 2), never passed over as if no archive were given.
  const archive = openArchive(opts.archive);
  const { fs } = runtimeFs();
  const publication = await loadPublication(fs, pubDir);
  const previous = await archive.head([]);
  const started = performance.now();
  const upstream = withoutOlderReadings(
    publication,
    await collectUpstream(publication, { fs, http: runtimeHttp() }, { attemptedAt: now }),
    previous?.frame ?? null,
  );
  const durationMs = Math.round(performance.now() - started);
  const signals = resolveSignals(publication, upstream, previous?.frame ?? null);
  const report: CollectReport = {
    ok: true,
    attemptedAt: now,
    publication: pubDir,
    fallbackFrame: previous?.frame.frameId ?? null,
    durationMs,
    instruments: signals.map((s) => row(s, now)),
  };
  if (!opts.json) process.stdout.write(`${printable(render(report))}\n`);
  return report;
}

function row(s: Signal, now: string): CollectedInstrument {
  if (!s.present) {
    return {
      instrument: s.instrument,
      source: s.config.source,
      sourceStatus: s.sourceStatus,
      qualityStatus: null,
      value: null,
      level: null,
      fallbackUsed: false,
      sourceUpdatedAt: null,
      ageSeconds: null,
      lastSuccessAt: null,
      reason: `${s.reason} (no earlier value: missing)`,
    };
  }
  return {
    instrument: s.instrument,
    source: s.config.source,
    sourceStatus: s.sourceStatus,
    qualityStatus: s.qualityStatus,
    value: s.value,
    level: s.level,
    fallbackUsed: s.fallbackUsed,
    sourceUpdatedAt: s.sourceUpdatedAt,
    ageSeconds: s.sourceUpdatedAt === null ? null : ageSeconds(s.sourceUpdatedAt, now),
    lastSuccessAt: s.lastSuccessAt,
    reason: s.reason,
  };
}

function render(r: CollectReport): string {
  const head = ["instrument", "status", "quality", "value", "level", "age", "fallback"];
  const rows = r.instruments.map((i) => [
    i.instrument,
    i.sourceStatus,
    i.qualityStatus ?? "-",
    i.value === null ? "missing" : String(i.value),
    i.level ?? "-",
    i.ageSeconds === null ? "-" : humanAge(i.ageSeconds),
    i.fallbackUsed ? `yes, from ${i.lastSuccessAt}` : "no",
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  const out = [
    `collected at ${r.attemptedAt} in ${r.durationMs} ms; fallback frame: ${r.fallbackFrame ?? "none (no archive)"}`,
    line(head),
    ...rows.map(line),
  ];
  const reasons = r.instruments.filter((i) => i.reason);
  // A reason quotes the upstream's document: one line each, whatever it holds.
  if (reasons.length) out.push("", ...reasons.map((i) => `${i.instrument}: ${oneLine(i.reason ?? "")}`));
  return out.join("\n");
}
