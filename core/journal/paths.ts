/**
 * The operational journal, /api/v1/history.ndjson: one record per assembly, never rewritten.
 * The archive stores it as UTC-day shards (archive/layout.ts); the served file is their
 * concatenation in path order.
 */
export const JOURNAL_PATH = "/api/v1/history.ndjson";
