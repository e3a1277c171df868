/**
 * Shares on PostgreSQL (SharesStore, src/store/shares-store.ts): every statement of the shares
 * table, as the PgStore's direct writes and reads. Shared by the nodes of a cluster, never cached:
 * a revoked share is refused by the next request on any node.
 */
import { VtsError } from '../../errors.js';
import { toVehicle, type VehicleRow } from '../rows.js';
import {
  SHARE_COLUMNS,
  SHARED_VEHICLE_COLUMNS,
  toShare,
  type Share,
  type ShareAccess,
  type SharedVehicle,
  type ShareRow,
  type SharesStore,
} from '../shares-store.js';
import { changedRows, type PgAccess } from './pg-connection.js';
import { isForeignKeyViolation } from './pg-errors.js';

export class PgSharesStore implements SharesStore {
  constructor(private readonly db: PgAccess) {}

  async putShare(vehicleId: string, userId: number, access: ShareAccess, time: number): Promise<Share> {
    const vid = vehicleId.toUpperCase();
    try {
      const { rows } = await this.db.change<ShareRow>(
        `WITH s AS (INSERT INTO shares (vehicle_id, user_id, access, created) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (vehicle_id, user_id) DO UPDATE SET access = excluded.access RETURNING *)
         SELECT ${SHARE_COLUMNS} FROM s JOIN owners o ON o.id = s.user_id`,
        [vid, userId, access, time],
      );
      return toShare(rows[0]!);
    } catch (err) {
      if (isForeignKeyViolation(err)) {
        const [v] = await this.db.read<{ id: string }>('SELECT id FROM vehicles WHERE id = $1', [vid]);
        throw v ? new VtsError('VTS_ERR_UNKNOWN_USER', `user id ${userId}`) : new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
      }
      throw err;
    }
  }

  async getShare(vehicleId: string, userId: number): Promise<ShareAccess | undefined> {
    const [r] = await this.db.read<{ access: string }>('SELECT access FROM shares WHERE vehicle_id = $1 AND user_id = $2', [vehicleId.toUpperCase(), userId]);
    return r?.access as ShareAccess | undefined;
  }

  async listShares(vehicleId: string): Promise<Share[]> {
    const rows = await this.db.read<ShareRow>(
      `SELECT ${SHARE_COLUMNS} FROM shares s JOIN owners o ON o.id = s.user_id WHERE s.vehicle_id = $1 ORDER BY lower(o.name), s.user_id`,
      [vehicleId.toUpperCase()],
    );
    return rows.map(toShare);
  }

  async listSharedWith(userId: number): Promise<SharedVehicle[]> {
    const rows = await this.db.read<VehicleRow & { access: string }>(
      `SELECT ${SHARED_VEHICLE_COLUMNS} FROM shares s JOIN vehicles v ON v.id = s.vehicle_id JOIN owners o ON o.id = v.owner_id
       WHERE s.user_id = $1 ORDER BY v.id`,
      [userId],
    );
    return rows.map((r) => ({ vehicle: toVehicle(r), access: r.access as ShareAccess }));
  }

  async removeShare(vehicleId: string, userId: number): Promise<boolean> {
    return (await changedRows(this.db, 'DELETE FROM shares WHERE vehicle_id = $1 AND user_id = $2', [vehicleId.toUpperCase(), userId])) > 0;
  }
}
