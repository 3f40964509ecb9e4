/**
 * The operational journal in the archive: day shards under `journal/`, of which a frame
 * changes only its own day's, by appending its record. The served /api/v1/history.ndjson is the
 * shards' concatenation; its SHA-256 is carried in `frame.journal.state`, so neither assembly nor
 * `verify` ever re-reads or re-hashes the journal per frame (verify hashes it whole once, at the head).
 */
import type { BuiltFile } from "../../core/assemble.ts";
import type { Frame } from "../../core/frame.ts";
import type { Hasher } from "../../core/ports.ts";
import { joinBytes } from "../../core/bytes.ts";
import { JOURNAL_PATH } from "../../core/journal/paths.ts";
import { FRAME_FILE, JOURNAL_PREFIX, journalShardPath } from "../layout.ts";
import {
  decodeSha256State,
  encodeSha256State,
  sha256Digest,
  sha256Start,
  sha256Update,
} from "../../core/journal/sha256.ts";
import { JournalRecord } from "../../core/schemas/journal.ts";
import { oidAtPath, readBlob, readTree, type TreeCache } from "../git/objects.ts";
import { flattenTree } from "../git/tree-edit.ts";

export { JOURNAL_PATH };

/** Problems are reported through the caller's `fail(path, problem)`, which names the frame. */
export type Fail = (path: string, problem: string) => never;

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The blob of the frame's day shard: the shard so far (same day) followed by the appended record. */
export async function journalShard(
  gitdir: string,
  base: string | null,
  file: BuiltFile,
  at: string,
  cache?: TreeCache,
): Promise<{ path: string; bytes: Uint8Array }> {
  const path = journalShardPath(at);
  const existing = base ? await oidAtPath(gitdir, base, path, cache) : null;
  if (!existing) return { path, bytes: file.served };
  const old = await readBlob(gitdir, existing.oid);
  const bytes = new Uint8Array(old.byteLength + file.served.byteLength);
  bytes.set(old, 0);
  bytes.set(file.served, old.byteLength);
  return { path, bytes };
}

/** The served journal of the frame whose root tree is `tree`: every shard in path order. */
export async function servedJournal(gitdir: string, tree: string, cache?: TreeCache): Promise<Uint8Array> {
  const dir = await oidAtPath(gitdir, tree, JOURNAL_PREFIX, cache);
  if (!dir) return new Uint8Array(0);
  const shards = [...(await flattenTree(gitdir, dir.oid, "", cache))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return joinBytes(await Promise.all(shards.map(([, oid]) => readBlob(gitdir, oid))));
}

/**
 * Paths of the blobs that differ between two trees (added, changed or removed), descending only
 * into subtrees whose oid differs: O(the changed paths), not O(the tree).
 */
export async function changedPaths(
  gitdir: string,
  before: string | null,
  after: string | null,
  prefix = "",
): Promise<string[]> {
  if (before === after) return [];
  const a = new Map((before ? await readTree(gitdir, before) : []).map((e) => [e.path, e]));
  const b = new Map((after ? await readTree(gitdir, after) : []).map((e) => [e.path, e]));
  const out: string[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const x = a.get(name);
    const y = b.get(name);
    if (x?.oid === y?.oid) continue;
    const path = prefix ? `${prefix}/${name}` : name;
    if (x?.type === "tree" || y?.type === "tree") {
      out.push(
        ...(await changedPaths(gitdir, x?.type === "tree" ? x.oid : null, y?.type === "tree" ? y.oid : null, path)),
      );
      if (x && y && x.type !== y.type) out.push(path);
    } else out.push(path);
  }
  return out;
}

/**
 * One frame's journal step, O(the day's shard): only this frame's day shard changed, it is the
 * previous shard followed by exactly one record of this frame, and the SHA-256 resumed from the
 * previous frame's state over that record gives this frame's recorded state and fingerprint.
 */
export async function verifyJournalStep(
  gitdir: string,
  previous: { frame: Frame; tree: string } | null,
  current: { frame: Frame; tree: string },
  fail: Fail,
): Promise<void> {
  const { frame, tree } = current;
  const rec = frame.surfaces[JOURNAL_PATH];
  const before = previous?.frame.journal && previous.frame.surfaces[JOURNAL_PATH] ? previous : null;
  const dirBefore = previous ? await oidAtPath(gitdir, previous.tree, JOURNAL_PREFIX) : null;
  const dirAfter = await oidAtPath(gitdir, tree, JOURNAL_PREFIX);
  if (!rec) {
    if (frame.journal) fail(FRAME_FILE, "the frame carries a journal state but records no journal surface");
    if (dirBefore?.oid !== dirAfter?.oid)
      fail(JOURNAL_PREFIX, "the journal changed in a frame that records no journal");
    return;
  }
  if (!frame.journal) fail(FRAME_FILE, `the frame records ${JOURNAL_PATH} without its journal state`);
  const shard = journalShardPath(frame.at);
  for (const path of await changedPaths(gitdir, dirBefore?.oid ?? null, dirAfter?.oid ?? null, JOURNAL_PREFIX)) {
    if (path !== shard)
      fail(
        path,
        `an earlier journal shard was changed, added or removed: the journal is append-only, and this frame may only append to ${shard}`,
      );
  }
  const newOid = await oidAtPath(gitdir, tree, shard);
  if (!newOid) fail(shard, "the frame's journal shard is missing");
  const oldOid = previous ? await oidAtPath(gitdir, previous.tree, shard) : null;
  const old = oldOid ? await readBlob(gitdir, oldOid.oid) : new Uint8Array(0);
  const now = await readBlob(gitdir, newOid.oid);
  if (
    now.byteLength <= old.byteLength ||
    !Buffer.from(now.buffer, now.byteOffset, old.byteLength).equals(
      Buffer.from(old.buffer, old.byteOffset, old.byteLength),
    )
  ) {
    fail(
      shard,
      "the day's journal shard is not the previous one followed by new records: an earlier record was rewritten",
    );
  }
  const appended = now.subarray(old.byteLength);
  const text = decoder.decode(appended);
  const lines = text.split("\n");
  if (lines.length !== 2 || lines[1] !== "")
    fail(shard, `the frame appended ${lines.length - 1} journal lines, not exactly one record`);
  let record: JournalRecord;
  try {
    record = JournalRecord.parse(JSON.parse(lines[0]!));
  } catch (e) {
    fail(shard, `the appended journal record does not match its schema (${(e as Error).message.slice(0, 200)})`);
  }
  if (record.frameId !== frame.frameId || record.seq !== frame.seq || record.at !== frame.at)
    fail(shard, `the appended journal record belongs to frame ${record.frameId}`);
  const records = (before?.frame.journal?.records ?? 0) + 1;
  if (frame.journal.records !== records)
    fail(FRAME_FILE, `the frame says the journal holds ${frame.journal.records} records, not ${records}`);
  const state = sha256Update(before ? decodeSha256State(before.frame.journal!.state) : sha256Start(), appended);
  if (
    encodeSha256State(state) !== frame.journal.state ||
    sha256Digest(state) !== rec.sha256 ||
    state.length !== rec.bytes
  ) {
    fail(
      JOURNAL_PATH,
      "the journal's rolling SHA-256 does not give the fingerprint the frame recorded: a record was changed",
    );
  }
}

/** At the head, once: the concatenated shards hash to the head frame's fingerprint. O(journal). */
export async function verifyJournalHead(
  gitdir: string,
  head: { frame: Frame; tree: string },
  hash: Hasher,
  fail: Fail,
): Promise<void> {
  const rec = head.frame.surfaces[JOURNAL_PATH];
  if (!rec) return;
  const bytes = await servedJournal(gitdir, head.tree);
  if (bytes.byteLength !== rec.bytes || hash.sha256(bytes) !== rec.sha256)
    fail(JOURNAL_PATH, "the journal's shards do not concatenate to the fingerprint the head frame recorded");
}
