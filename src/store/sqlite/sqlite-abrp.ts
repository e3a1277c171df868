/**
 * ABRP links on SQLite (AbrpStore, src/store/abrp-store.ts): every statement of the abrp_links
 * table. Direct writes on the store's connection (synchronous=FULL); nothing cached, so a link
 * changed by another process (a node of a cluster) is read as it is.
 */
import type Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import type { AbrpFailure, AbrpLink, AbrpStore } from '../abrp-store.js';
import { ABRP_COLUMNS, toAbrpLink, type AbrpLinkRow } from '../abrp-rows.js';
import { isForeignKeyViolation } from './sqlite-errors.js';

function prepareStatements(db: Database.Database) {
  return {
    put: db.prepare<[string, number, string, number], AbrpLinkRow>(
      `INSERT INTO abrp_links (vehicle_id, owner_id, token, state, created) VALUES (?, ?, ?, 'pending', ?)
       ON CONFLICT (vehicle_id) DO UPDATE SET owner_id = excluded.owner_id, token = excluded.token, state = 'pending',
         created = excluded.created, last_sent = NULL, last_tlm = '', last_error = '', last_error_time = NULL, failures = 0, retry_at = NULL
       RETURNING ${ABRP_COLUMNS}`,
    ),
    get: db.prepare<[string], AbrpLinkRow>(`SELECT ${ABRP_COLUMNS} FROM abrp_links WHERE vehicle_id = ?`),
    linked: db.prepare<[], string>('SELECT vehicle_id FROM abrp_links ORDER BY vehicle_id').pluck(),
    remove: db.prepare<[string]>('DELETE FROM abrp_links WHERE vehicle_id = ?'),
    sent: db.prepare<[number, string, string, string]>(
      `UPDATE abrp_links SET state = 'ok', last_sent = ?, last_tlm = ?, failures = 0, retry_at = NULL WHERE vehicle_id = ? AND token = ?`,
    ),
    failed: db.prepare<[string, string, number, number, number | null, string, string]>(
      `UPDATE abrp_links SET state = ?, last_error = ?, last_error_time = ?, failures = ?, retry_at = ? WHERE vehicle_id = ? AND token = ?`,
    ),
  };
}

export class SqliteAbrpStore implements AbrpStore {
  private readonly s: ReturnType<typeof prepareStatements>;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    db: Database.Database,
    private readonly open: () => void,
  ) {
    this.s = prepareStatements(db);
  }

  async putLink(vehicleId: string, ownerId: number, sealedToken: string, time: number): Promise<AbrpLink> {
    this.open();
    try {
      return toAbrpLink(this.s.put.get(vehicleId.toUpperCase(), ownerId, sealedToken, time)!);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vehicleId);
      throw err;
    }
  }

  async getLink(vehicleId: string): Promise<AbrpLink | undefined> {
    this.open();
    const r = this.s.get.get(vehicleId.toUpperCase());
    return r && toAbrpLink(r);
  }

  async listLinked(): Promise<string[]> {
    this.open();
    return this.s.linked.all();
  }

  async removeLink(vehicleId: string): Promise<boolean> {
    this.open();
    return this.s.remove.run(vehicleId.toUpperCase()).changes > 0;
  }

  async recordSent(vehicleId: string, sealedToken: string, time: number, tlm: string): Promise<boolean> {
    this.open();
    return this.s.sent.run(time, tlm, vehicleId.toUpperCase(), sealedToken).changes > 0;
  }

  async recordFailure(vehicleId: string, sealedToken: string, f: AbrpFailure): Promise<boolean> {
    this.open();
    return this.s.failed.run(f.state, f.error, f.time, f.failures, f.retryAt, vehicleId.toUpperCase(), sealedToken).changes > 0;
  }
}
