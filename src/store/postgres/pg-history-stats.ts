/**
 * The historical records' plans and space on PostgreSQL (HistoryStatsStore,
 * src/store/history-stats-store.ts): EXPLAIN of the statements of pg-records.ts (the planner's
 * choice for the table as it is, so a small table may be read without an index), and
 * pg_relation_size of the table (with its TOAST) and of each of its indexes.
 */
import { indexesIn, type HistoryPlan, type HistoryStatsStore, type HistoryStorage } from '../history-stats-store.js';
import type { HistoricalRecord } from '../types.js';
import type { PgAccess } from './pg-connection.js';
import { HISTORICAL_SQL } from './pg-records.js';

const ARGS: Record<HistoryPlan['query'], unknown[]> = {
  summary: ['X', 0],
  records: ['X', 'D', 0],
  page: ['X', 'D', 0, 0, 1000],
  purge: [0, 2500],
};
const QUERIES = { summary: HISTORICAL_SQL.summarize, records: HISTORICAL_SQL.get, page: HISTORICAL_SQL.page, purge: HISTORICAL_SQL.purge };

export class PgHistoryStatsStore implements HistoryStatsStore {
  constructor(private readonly pg: PgAccess) {}

  async insertMany(records: readonly HistoricalRecord[]): Promise<void> {
    await this.pg.change(
      `INSERT INTO historical (vehicle_id, type, record_number, time, data, expires)
       SELECT r.v, r.ty, r.n, r.t, r.d, r.e
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[]) AS r (v, ty, n, t, d, e)
        WHERE EXISTS (SELECT 1 FROM vehicles WHERE id = r.v)
       ON CONFLICT (vehicle_id, lower(type), time, record_number) DO UPDATE SET data = excluded.data, expires = excluded.expires`,
      [
        records.map((r) => r.vehicleId.toUpperCase()),
        records.map((r) => r.type),
        records.map((r) => r.recordNumber),
        records.map((r) => r.time),
        records.map((r) => r.data),
        records.map((r) => r.expires),
      ],
    );
  }

  private async indexNames(): Promise<string[]> {
    const rows = await this.pg.read<{ name: string }>(
      "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'historical' ORDER BY indexname",
      [],
    );
    return rows.map((r) => r.name);
  }

  async plans(): Promise<HistoryPlan[]> {
    const names = await this.indexNames();
    const out: HistoryPlan[] = [];
    for (const query of Object.keys(QUERIES) as HistoryPlan['query'][]) {
      // the purge is a DELETE: EXPLAIN without ANALYZE plans it and deletes nothing
      const rows = await this.pg.read<{ 'QUERY PLAN': string }>(`EXPLAIN ${QUERIES[query]}`, ARGS[query]);
      const plan = rows.map((r) => r['QUERY PLAN']);
      out.push({ query, plan, indexes: indexesIn(plan, names) });
    }
    return out;
  }

  async storage(): Promise<HistoryStorage> {
    const names = await this.indexNames();
    const [table] = await this.pg.read<{ rows: string; table_bytes: string }>(
      "SELECT (SELECT count(*) FROM historical) AS rows, pg_table_size('historical') AS table_bytes",
      [],
    );
    const indexes: { name: string; bytes: number }[] = [];
    for (const name of names) {
      const [r] = await this.pg.read<{ bytes: string }>('SELECT pg_relation_size(to_regclass($1)) AS bytes', [name]);
      indexes.push({ name, bytes: Number(r?.bytes ?? 0) });
    }
    return { rows: Number(table?.rows ?? 0), tableBytes: Number(table?.table_bytes ?? 0), indexes };
  }
}
