/**
 * What the SQLite store keeps of a vehicle over time, read and purged here: its historical
 * records, its traffic accounting (utilisation) and its command audit. The historical records and
 * the utilisation are written by the write-behind batch (src/store/sqlite/sqlite-batch.ts); the
 * SqliteStore flushes it before it reads them here.
 */
import type Database from 'better-sqlite3';
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
import type { CommandAuditEntry, HistoricalEntry, HistoricalPosition, HistoricalRecord, HistoricalSummary, UtilisationRow } from '../store.js';

/** The historical reads and the purge, as prepared here (and explained by src/store/sqlite/sqlite-history-stats.ts). */
export const HISTORICAL_SQL = {
  // REF's totalsize counts bytes (MySQL LENGTH), hence octet_length.
  summarize: `SELECT type, count(DISTINCT record_number) AS distinct_records, count(*) AS total_records,
         sum(octet_length(type) + octet_length(data) + octet_length(vehicle_id) + 20) AS total_size,
         min(time) AS first, max(time) AS last
       FROM historical_all WHERE vehicle_id = ? AND time > ?
       GROUP BY type ORDER BY type`,
  get: `SELECT type, record_number, time, data, expires FROM historical_all
       WHERE vehicle_id = ? AND type = ? AND time > ? ORDER BY time, record_number`,
  page: `SELECT time, record_number, data FROM historical
         WHERE vehicle_id = ? AND type = ? AND (time, record_number) > (?, ?)
         ORDER BY time, record_number LIMIT ?`,
  purge: `DELETE FROM historical WHERE rowid IN
         (SELECT rowid FROM historical WHERE expires < ? LIMIT ?)`,
} as const;

function prepareStatements(db: Database.Database) {
  return {
    // historical
    summarizeHistorical: db.prepare<[string, number], SummaryRow>(HISTORICAL_SQL.summarize),
    getHistorical: db.prepare<[string, string, number], HistoricalRow>(HISTORICAL_SQL.get),
    // The row value keeps the search a range of the primary-key index (an OR of the two
    // conditions made SQLite read the vehicle's records of the type from the start at every page).
    // Only the columns a reader of pages needs, as arrays: the type and expiry strings and the
    // row objects made half the cost of a rebuild.
    pageHistorical: db.prepare<[string, string, number, number, number], [number, number, string]>(HISTORICAL_SQL.page).raw(),
    countHistorical: db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM historical WHERE vehicle_id = ? AND type = ?'),
    purgeHistorical: db.prepare<[number, number]>(HISTORICAL_SQL.purge),

    // utilisation
    getUtilisation: db.prepare<[string, number], UtilisationDbRow>(
      `SELECT day, client_type, rx, tx FROM utilisation WHERE vehicle_id = ? AND day >= ?
       ORDER BY day DESC, client_type`,
    ),
    purgeUtilisation: db.prepare<[number]>('DELETE FROM utilisation WHERE day < ?'),

    // command audit (rows of vehicles removed meanwhile are dropped)
    addCommandAudit: db.prepare<[number, string, string, string, string, string, number, string]>(
      `INSERT INTO command_audit (vehicle_id, time, caller, via, kind, command, result, duration_ms)
       SELECT v.id, ?, ?, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?`,
    ),
    listCommandAudit: db.prepare<[string, number], CommandAuditRow>(
      `SELECT id, vehicle_id, time, caller, via, kind, command, result, duration_ms FROM command_audit
       WHERE vehicle_id = ? ORDER BY id DESC LIMIT ?`,
    ),
  };
}

export class SqliteRecords {
  private readonly stmt: ReturnType<typeof prepareStatements>;

  constructor(db: Database.Database) {
    this.stmt = prepareStatements(db);
  }

  // --- historical records ---

  summarizeHistorical(vehicleId: string, since: number): HistoricalSummary[] {
    return this.stmt.summarizeHistorical.all(vehicleId.toUpperCase(), bound(since)).map(toSummary);
  }

  getHistorical(vehicleId: string, type: string, since: number): HistoricalRecord[] {
    const vid = vehicleId.toUpperCase();
    return this.stmt.getHistorical.all(vid, type, bound(since)).map((r) => toHistorical(vid, r));
  }

  pageHistorical(vehicleId: string, type: string, after: HistoricalPosition | null, limit: number): HistoricalEntry[] {
    const time = after ? bound(after.time) : -Number.MAX_SAFE_INTEGER;
    const rec = after ? after.recordNumber : -Number.MAX_SAFE_INTEGER;
    const rows = this.stmt.pageHistorical.all(vehicleId.toUpperCase(), type, time, rec, Math.max(1, Math.floor(limit)));
    return rows.map(([t, recordNumber, data]) => ({ time: t, recordNumber, data }));
  }

  countHistorical(vehicleId: string, types: readonly string[]): number {
    const vid = vehicleId.toUpperCase();
    let n = 0;
    for (const type of new Set(types.map((t) => t.toLowerCase()))) n += this.stmt.countHistorical.get(vid, type)?.n ?? 0;
    return n;
  }

  purgeExpiredHistorical(now: number, limit: number): number {
    if (!(limit > 0)) return 0;
    return this.stmt.purgeHistorical.run(now, Math.floor(limit)).changes;
  }

  // --- traffic accounting ---

  getUtilisation(vehicleId: string, sinceDay: number): UtilisationRow[] {
    return this.stmt.getUtilisation.all(vehicleId.toUpperCase(), bound(sinceDay)).map(toUtilisation);
  }

  purgeUtilisation(beforeDay: number): number {
    return this.stmt.purgeUtilisation.run(beforeDay).changes;
  }

  // --- command audit ---

  addCommandAudit(e: CommandAuditEntry): void {
    this.stmt.addCommandAudit.run(e.time, e.caller, e.via, e.kind, e.command, e.result, Math.round(e.durationMs), e.vehicleId.toUpperCase());
  }

  listCommandAudit(vehicleId: string, limit: number): (CommandAuditEntry & { id: number })[] {
    return this.stmt.listCommandAudit.all(vehicleId.toUpperCase(), Math.max(0, Math.floor(limit))).map(toCommandAudit);
  }
}
