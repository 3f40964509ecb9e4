/**
 * The operational journal, /api/v1/history.ndjson: one record per assembly, never rewritten.
 * The archive stores it as UTC-day shards (`journal/YYYY/MM/DD.ndjson`, only the current day's
 * changes); the served file is their concatenation in path order.
 */
export const JOURNAL_PATH = "/api/v1/history.ndjson";
export const JOURNAL_PREFIX = "journal";

export function journalShardPath(at: string): string {
  return `${JOURNAL_PREFIX}/${at.slice(0, 4)}/${at.slice(5, 7)}/${at.slice(8, 10)}.ndjson`;
}
