import { JournalRecord } from "../schemas/journal.ts";
import { frameSignalOf } from "../signals.ts";
import { JOURNAL_PATH } from "../journal/paths.ts";
import { levelChangesBetween } from "../signal-history/model.ts";
import type { Frame } from "../frame.ts";
import { defineSurface } from "./types.ts";

export const journal = defineSurface({ format: "ndjson", schema: JournalRecord })({
  path: JOURNAL_PATH,
  mediaType: "application/x-ndjson",
  appendOnly: true,
  schemaName: "JournalRecord",
  summary: "Raw operational journal: one record per assembly, append-only, without individual CI attestation",
  build({ now, signals, previous, frame, produced, registry, inputs, toolVersion }) {
    const current: Frame["signals"] = {};
    for (const s of signals) current[s.instrument] = frameSignalOf(s);
    const before = previous?.frame.surfaces ?? {};
    // The journal itself gains this record, and the surfaces built after it (integrity.json) name
    // this frame and fingerprint the journal: all change at every frame, as the frame records them.
    const self = registry.findIndex((s) => s.path === JOURNAL_PATH);
    const changed = [
      ...produced.filter((p) => before[p.path]?.storedSha256 !== (p.storedSha256 ?? p.sha256)).map((p) => p.path),
      ...registry.slice(self).map((s) => s.path),
    ].sort();
    const levelChanges = previous
      ? levelChangesBetween(previous.frame.signals, current, {
          frameId: frame.frameId,
          previousFrameId: previous.frame.frameId,
          at: now,
        }).map((c) => c.id)
      : [];
    return [
      {
        recordType: "assembly",
        frameId: frame.frameId,
        seq: frame.seq,
        at: now,
        previousFrameId: previous?.frame.frameId ?? null,
        previousFrameHash: frame.previousFrameHash,
        tool: toolVersion ?? "unknown",
        inputs: inputs ?? "0".repeat(64),
        signals: Object.fromEntries(
          Object.entries(current).map(([k, s]) => [
            k,
            {
              value: s!.value,
              level: s!.level,
              tone: s!.tone,
              sourceStatus: s!.sourceStatus,
              qualityStatus: s!.qualityStatus ?? null,
              fallbackUsed: s!.fallbackUsed,
              observedAt: s!.observedAt ?? null,
              lastSuccessAt: s!.lastSuccessAt,
            },
          ]),
        ),
        changed,
        levelChanges,
      },
    ];
  },
});
