/**
 * What the PostgreSQL store keeps of a vehicle over time, read and purged here: its historical
 * records, its traffic accounting (utilisation) and its command audit. The historical records and
 * the utilisation are written by the write-behind batch (src/store/postgres/pg-batch.ts); the
 * PgStore flushes it before it reads them here.
 */
import {
  bound,
  toCommandAudit,
  toHistorical,
  toSummary,
  toUtilisation,
  type CommandAuditRow,
  type HistoricalRow,
  type SummaryRow,
  type UtilisationDbRow,
} from '../rows.js';
import { isUtilisationType } from '../../core/records/lists.js';
import type { CommandAuditEntry, HistoricalEntry, HistoricalPosition, HistoricalRecord, HistoricalSummary, UtilisationRow } from '../store.js';
import { changedRows, type PgAccess } from './pg-connection.js';

/** The historical reads and the purge, as run here (and explained by src/store/postgres/pg-history-stats.ts). */
export const HISTORICAL_SQL = {
  summarize: `SELECT min(type) AS type, count(DISTINCT record_number) AS distinct_records, count(*) AS total_records,
         sum(octet_length(type) + octet_length(data) + octet_length(vehicle_id) + 20) AS total_size,
         min(time) AS first, max(time) AS last
       FROM historical_all WHERE vehicle_id = $1 AND time > $2
       GROUP BY lower(type) ORDER BY lower(type)`,
  // A stored type reads the table alone, in the key's order. Through the view, PostgreSQL does not
  // take the type into the key's scan (the view's UNION ALL keeps it above): it read every record
  // of the vehicle, both D and L, then filtered and sorted them (10,000 rows for 5,000: 80 against
  // 48 ms from the OS cache on 10,000,000 rows).
  get: `SELECT type, record_number, time, data, expires FROM historical
       WHERE vehicle_id = $1 AND lower(type) = lower($2::text COLLATE "C") AND time > $3 ORDER BY time, record_number`,
  /** The traffic counters' type: stored records of it and the utilisation table's, through the view. */
  getUtilisation: `SELECT type, record_number, time, data, expires FROM historical_all
       WHERE vehicle_id = $1 AND lower(type) = lower($2::text COLLATE "C") AND time > $3 ORDER BY time, record_number`,
  page: `SELECT time, record_number, data FROM historical
       WHERE vehicle_id = $1 AND lower(type) = lower($2::text COLLATE "C") AND (time, record_number) > ($3, $4)
       ORDER BY time, record_number LIMIT $5`,
  // ORDER BY expires: the planner then reads historical_expires even before the table has statistics
  // (without, a fresh table's guess made it scan the heap, past the dead rows of the batches before)
  purge: 'DELETE FROM historical WHERE ctid = ANY (ARRAY(SELECT ctid FROM historical WHERE expires < $1 ORDER BY expires LIMIT $2))',
} as const;

export class PgRecords {
  constructor(private readonly pg: PgAccess) {}

  // --- historical records ---

  async summarizeHistorical(vehicleId: string, since: number): Promise<HistoricalSummary[]> {
    // REF's totalsize counts bytes (MySQL LENGTH), hence octet_length
    const rows = await this.pg.read<SummaryRow>(
      HISTORICAL_SQL.summarize,
      [vehicleId.toUpperCase(), bound(since)],
    );
    return rows.map(toSummary);
  }

  async getHistorical(vehicleId: string, type: string, since: number): Promise<HistoricalRecord[]> {
    const vid = vehicleId.toUpperCase();
    const rows = await this.pg.read<HistoricalRow>(
      isUtilisationType(type) ? HISTORICAL_SQL.getUtilisation : HISTORICAL_SQL.get,
      [vid, type, bound(since)],
    );
    return rows.map((r) => toHistorical(vid, r));
  }

  async pageHistorical(vehicleId: string, type: string, after: HistoricalPosition | null, limit: number): Promise<HistoricalEntry[]> {
    const time = after ? bound(after.time) : -Number.MAX_SAFE_INTEGER;
    const rec = after ? after.recordNumber : -Number.MAX_SAFE_INTEGER;
    const rows = await this.pg.read<{ time: number; record_number: number; data: string }>(
      HISTORICAL_SQL.page,
      [vehicleId.toUpperCase(), type, time, rec, Math.max(1, Math.floor(limit))],
    );
    return rows.map((r) => ({ time: r.time, recordNumber: r.record_number, data: r.data }));
  }

  async countHistorical(vehicleId: string, types: readonly string[]): Promise<number> {
    const rows = await this.pg.read<{ n: string }>(
      `SELECT count(*) AS n FROM historical WHERE vehicle_id = $1 AND lower(type) = ANY($2::text[])`,
      [vehicleId.toUpperCase(), [...new Set(types.map((t) => t.toLowerCase()))]],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async purgeExpiredHistorical(now: number, limit: number): Promise<number> {
    if (!(limit > 0)) return 0;
    return changedRows(
      this.pg,
      HISTORICAL_SQL.purge,
      [now, Math.floor(limit)],
    );
  }

  // --- traffic accounting ---

  async getUtilisation(vehicleId: string, sinceDay: number): Promise<UtilisationRow[]> {
    const rows = await this.pg.read<UtilisationDbRow>(
      `SELECT day, client_type, rx, tx FROM utilisation WHERE vehicle_id = $1 AND day >= $2 ORDER BY day DESC, client_type`,
      [vehicleId.toUpperCase(), bound(sinceDay)],
    );
    return rows.map(toUtilisation);
  }

  purgeUtilisation(beforeDay: number): Promise<number> {
    return changedRows(this.pg, 'DELETE FROM utilisation WHERE day < $1', [beforeDay]);
  }

  // --- command audit ---

  /** Rows of vehicles removed meanwhile are dropped. */
  async addCommandAudit(e: CommandAuditEntry): Promise<void> {
    await changedRows(
      this.pg,
      `INSERT INTO command_audit (vehicle_id, time, caller, via, kind, command, result, duration_ms)
       SELECT v.id, $2, $3, $4, $5, $6, $7, $8 FROM vehicles v WHERE v.id = $1`,
      [e.vehicleId.toUpperCase(), e.time, e.caller, e.via, e.kind, e.command, e.result, Math.round(e.durationMs)],
    );
  }

  async listCommandAudit(vehicleId: string, limit: number): Promise<(CommandAuditEntry & { id: number })[]> {
    const rows = await this.pg.read<CommandAuditRow>(
      `SELECT id, vehicle_id, time, caller, via, kind, command, result, duration_ms FROM command_audit
       WHERE vehicle_id = $1 ORDER BY id DESC LIMIT $2`,
      [vehicleId.toUpperCase(), Math.max(0, Math.floor(limit))],
    );
    return rows.map(toCommandAudit);
  }

}
