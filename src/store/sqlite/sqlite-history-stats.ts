/**
 * The historical records' plans and space on SQLite (HistoryStatsStore, src/store/history-stats-store.ts):
 * EXPLAIN QUERY PLAN of the statements of sqlite-records.ts, and the pages of the table and of its
 * indexes from the dbstat virtual table. The primary key of `historical` (a rowid table) is the
 * index SQLite names `sqlite_autoindex_historical_1`.
 */
import type Database from 'better-sqlite3';
import { indexesIn, type HistoryPlan, type HistoryStatsStore, type HistoryStorage } from '../history-stats-store.js';
import type { HistoricalRecord } from '../types.js';
import { HISTORICAL_SQL } from './sqlite-records.js';

/** Values to plan the statements with (the plan does not depend on them). */
const ARGS: Record<HistoryPlan['query'], unknown[]> = {
  summary: ['X', 0],
  records: ['X', 'D', 0],
  page: ['X', 'D', 0, 0, 1000],
  purge: [0, 2500],
};
const QUERIES = { summary: HISTORICAL_SQL.summarize, records: HISTORICAL_SQL.get, page: HISTORICAL_SQL.page, purge: HISTORICAL_SQL.purge };

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class SqliteHistoryStatsStore implements HistoryStatsStore {
  private readonly insert: (records: readonly HistoricalRecord[]) => void;

  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    const put = db.prepare<[string, number, number, string, number, string]>(
      `INSERT INTO historical (vehicle_id, type, record_number, time, data, expires)
       SELECT v.id, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, type, time, record_number) DO UPDATE SET data = excluded.data, expires = excluded.expires`,
    );
    // in key order: the inserts then walk the key index once, page after page, instead of
    // jumping between the vehicles' ranges (with SQLite's small page cache, a read per row)
    this.insert = db.transaction((records: readonly HistoricalRecord[]) => {
      const sorted = records.map((r) => ({ ...r, vehicleId: r.vehicleId.toUpperCase(), folded: r.type.toLowerCase() }));
      sorted.sort((a, b) => cmp(a.vehicleId, b.vehicleId) || cmp(a.folded, b.folded) || a.time - b.time || a.recordNumber - b.recordNumber);
      for (const r of sorted) put.run(r.type, r.recordNumber, r.time, r.data, r.expires, r.vehicleId);
    });
  }

  async insertMany(records: readonly HistoricalRecord[]): Promise<void> {
    this.open();
    this.insert(records);
  }

  private indexNames(): string[] {
    return this.db
      .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'historical' ORDER BY name")
      .pluck()
      .all();
  }

  async plans(): Promise<HistoryPlan[]> {
    this.open();
    const names = this.indexNames();
    return (Object.keys(QUERIES) as HistoryPlan['query'][]).map((query) => {
      const rows = this.db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${QUERIES[query]}`).all(...ARGS[query]);
      const plan = rows.map((r) => r.detail);
      return { query, plan, indexes: indexesIn(plan, names) };
    });
  }

  async storage(): Promise<HistoryStorage> {
    this.open();
    const names = this.indexNames();
    const sizes = new Map(
      this.db
        .prepare<[], { name: string; bytes: number }>("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name = 'historical' OR name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'historical') GROUP BY name")
        .all()
        .map((r) => [r.name, r.bytes]),
    );
    const rows = this.db.prepare<[], number>('SELECT count(*) FROM historical').pluck().get() ?? 0;
    return { rows, tableBytes: sizes.get('historical') ?? 0, indexes: names.map((name) => ({ name, bytes: sizes.get(name) ?? 0 })) };
  }
}
