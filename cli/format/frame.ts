/** Text renderings of a frame and of a diff between two frames, for replay and diff. */
import type { Frame } from "../../core/frame.ts";
import type { FrameDiff } from "../../archive/api/diff.ts";
import { ageSeconds } from "../../core/durations.ts";
import { humanAge } from "./age.ts";

/** Per instrument: the upstream publication shown and its age at the frame's instant. */
export function frameFreshness(frame: Frame) {
  return Object.entries(frame.signals).map(([instrument, s]) => ({
    instrument,
    sourceUpdatedAt: s?.sourceUpdatedAt ?? null,
    ageSeconds: s?.sourceUpdatedAt ? ageSeconds(s.sourceUpdatedAt, frame.at) : null,
    qualityStatus: s?.qualityStatus ?? null,
    fallbackUsed: s?.fallbackUsed ?? false,
  }));
}

export function renderFrame(frame: Frame, commit: string): string {
  const rows = Object.entries(frame.signals).map(([key, s]) => [
    key,
    s?.value === null || s?.value === undefined ? "missing" : String(s.value),
    s?.level ?? "-",
    s?.tone ?? "-",
    s?.sourceStatus ?? "-",
    s?.qualityStatus ?? "-",
    s?.fallbackUsed ? "yes" : "no",
    s?.sourceUpdatedAt ?? "-",
    s?.sourceUpdatedAt ? humanAge(ageSeconds(s.sourceUpdatedAt, frame.at)) : "-",
  ]);
  const out = [
    `frame ${frame.frameId} at ${frame.at} (commit ${commit})`,
    `frame hash   sha256:${frame.frameHash}`,
    `previous     ${frame.previousFrameId ? `${frame.previousFrameId} sha256:${frame.previousFrameHash}` : "none (first frame)"}`,
    `inputs       sha256:${frame.inputs}, indexed at ${frame.indexedAt ?? frame.at}, ${frame.tool.name} ${frame.tool.version}`,
    "",
    ...table(
      ["instrument", "value", "level", "tone", "status", "quality", "fallback", "upstream published", "age"],
      rows,
    ),
    "",
    `models       ${
      Object.entries(frame.models)
        .map(([slug, v]) => `${slug} ${v}`)
        .join(", ") || "none"
    }`,
    `changes      ${changeList(frame.changes) || "none"}`,
    "",
    ...table(
      ["surface", "sha256", "bytes"],
      Object.entries(frame.surfaces)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, s]) => [path, s.sha256, String(s.bytes)]),
    ),
  ];
  return out.join("\n");
}

export function renderDiff(d: FrameDiff): string {
  const s = d.surfaces;
  const out = [
    `from ${d.from.frameId} at ${d.from.at} (commit ${d.from.commit.slice(0, 12)})`,
    `to   ${d.to.frameId} at ${d.to.at} (commit ${d.to.commit.slice(0, 12)})`,
    "",
    `surfaces: ${s.changed.length} changed, ${s.added.length} added, ${s.removed.length} removed, ${s.unchanged} unchanged`,
    ...s.added.map((p) => `  + ${p}`),
    ...s.changed.map((p) => `  ~ ${p}`),
    ...s.removed.map((p) => `  - ${p}`),
    "",
    ...table(
      ["instrument", "from", "to", "change", "level"],
      d.signals.map((m) => [
        m.instrument,
        m.from.value === null ? "missing" : String(m.from.value),
        m.to.value === null ? "missing" : String(m.to.value),
        m.change === null ? "-" : `${m.change > 0 ? "+" : ""}${m.change}`,
        m.levelChanged ? `${m.from.level ?? "-"} -> ${m.to.level ?? "-"}` : (m.to.level ?? "-"),
      ]),
    ),
  ];
  if (d.models.length)
    out.push("", `models: ${d.models.map((m) => `${m.slug} ${m.from ?? "-"} -> ${m.to ?? "-"}`).join(", ")}`);
  if (d.objects) {
    out.push(
      "",
      `objects: ${d.objects.length} changed`,
      ...d.objects.map(
        (o) =>
          `  ${o.status === "added" ? "+" : o.status === "removed" ? "-" : "~"} ${o.id}${o.semantic ? "" : " (formatting only)"}`,
      ),
    );
  } else out.push("", "objects: not compared (a frame without per-object hashes)");
  return out.join("\n");
}

function changeList(c: Frame["changes"]): string {
  return [...c.added.map((p) => `+${p}`), ...c.changed.map((p) => `~${p}`), ...c.removed.map((p) => `-${p}`)].join(" ");
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)];
}
