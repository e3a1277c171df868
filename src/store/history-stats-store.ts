/**
 * What the database makes of the historical records at scale (issue 32, `npm run bench -- --only
 * history`, docs/capacity.md "History"), part of the Store on both databases (`store.historyStats`):
 * the plan of each historical read and of the expiry purge, with the indexes they use, and the
 * space the table and each of its indexes take, for the benchmark, the plan tests and an operator
 * sizing a database; and a bulk write for filling a database fast (the benchmark and tests only).
 */
import type { HistoricalRecord } from './types.js';

/** One statement as the database plans it. */
export interface HistoryPlan {
  /** Which statement: `summary` (GET /api/historical/<id>), `records` (…/<type>), `page` (the paged read), `purge`. */
  query: 'summary' | 'records' | 'page' | 'purge';
  /** The plan as the database tells it (SQLite: EXPLAIN QUERY PLAN details; PostgreSQL: EXPLAIN lines). */
  plan: string[];
  /** The indexes of the `historical` table the plan uses, by name. */
  indexes: string[];
}

export interface HistoryStorage {
  /** Stored historical records. */
  rows: number;
  /** The table itself (SQLite: its b-tree pages; PostgreSQL: the heap and its TOAST). */
  tableBytes: number;
  /** Each index of the table with its size, by name. */
  indexes: { name: string; bytes: number }[];
}

export interface HistoryStatsStore {
  plans(): Promise<HistoryPlan[]>;
  storage(): Promise<HistoryStorage>;
  /**
   * Benchmark and tests only: upserts the records (of existing vehicles; each key at most once) in one transaction, a
   * direct write past the write-behind buffer, with no read of the stored rows (what `vts import`'s
   * putRows does first). Millions of rows in seconds to fill a database for
   * `npm run bench -- --only history`; the server's writes go through `addHistorical`.
   */
  insertMany(records: readonly HistoricalRecord[]): Promise<void>;
}

/** The index names of `historical` that a plan's lines mention. */
export function indexesIn(plan: readonly string[], names: readonly string[]): string[] {
  return names.filter((name) => plan.some((line) => new RegExp(`\\b${name}\\b`).test(line)));
}
