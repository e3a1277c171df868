/**
 * ABRP links on PostgreSQL (AbrpStore, src/store/abrp-store.ts): every statement of the
 * abrp_links table, as the PgStore's direct writes and reads. Shared by the nodes of a cluster:
 * each result is written only where the row still holds the token it was sent with.
 */
import { VtsError } from '../../errors.js';
import type { AbrpFailure, AbrpLink, AbrpStore } from '../abrp-store.js';
import { ABRP_COLUMNS, toAbrpLink, type AbrpLinkRow } from '../abrp-rows.js';
import { changedRows, type PgAccess } from './pg-connection.js';
import { isForeignKeyViolation } from './pg-errors.js';

export class PgAbrpStore implements AbrpStore {
  constructor(private readonly db: PgAccess) {}

  async putLink(vehicleId: string, ownerId: number, sealedToken: string, time: number): Promise<AbrpLink> {
    try {
      const { rows } = await this.db.change<AbrpLinkRow>(
        `INSERT INTO abrp_links (vehicle_id, owner_id, token, state, created) VALUES ($1, $2, $3, 'pending', $4)
         ON CONFLICT (vehicle_id) DO UPDATE SET owner_id = excluded.owner_id, token = excluded.token, state = 'pending',
           created = excluded.created, last_sent = NULL, last_tlm = '', last_error = '', last_error_time = NULL, failures = 0, retry_at = NULL
         RETURNING ${ABRP_COLUMNS}`,
        [vehicleId.toUpperCase(), ownerId, sealedToken, time],
      );
      return toAbrpLink(rows[0]!);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vehicleId);
      throw err;
    }
  }

  async getLink(vehicleId: string): Promise<AbrpLink | undefined> {
    const [r] = await this.db.read<AbrpLinkRow>(`SELECT ${ABRP_COLUMNS} FROM abrp_links WHERE vehicle_id = $1`, [vehicleId.toUpperCase()]);
    return r && toAbrpLink(r);
  }

  async listLinked(): Promise<string[]> {
    return (await this.db.read<{ vehicle_id: string }>('SELECT vehicle_id FROM abrp_links ORDER BY vehicle_id', [])).map((r) => r.vehicle_id);
  }

  async removeLink(vehicleId: string): Promise<boolean> {
    return (await changedRows(this.db, 'DELETE FROM abrp_links WHERE vehicle_id = $1', [vehicleId.toUpperCase()])) > 0;
  }

  async recordSent(vehicleId: string, sealedToken: string, time: number, tlm: string): Promise<boolean> {
    const n = await changedRows(
      this.db,
      `UPDATE abrp_links SET state = 'ok', last_sent = $1, last_tlm = $2, failures = 0, retry_at = NULL WHERE vehicle_id = $3 AND token = $4`,
      [time, tlm, vehicleId.toUpperCase(), sealedToken],
    );
    return n > 0;
  }

  async recordFailure(vehicleId: string, sealedToken: string, f: AbrpFailure): Promise<boolean> {
    const n = await changedRows(
      this.db,
      'UPDATE abrp_links SET state = $1, last_error = $2, last_error_time = $3, failures = $4, retry_at = $5 WHERE vehicle_id = $6 AND token = $7',
      [f.state, f.error, f.time, f.failures, f.retryAt, vehicleId.toUpperCase(), sealedToken],
    );
    return n > 0;
  }
}
