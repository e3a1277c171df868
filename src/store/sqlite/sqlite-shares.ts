/**
 * Shares on SQLite (SharesStore, src/store/shares-store.ts): every statement of the shares table.
 * Direct writes on the store's connection (synchronous=FULL); nothing cached, so a share revoked
 * by another process is refused at once.
 */
import type Database from 'better-sqlite3';
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

function prepareStatements(db: Database.Database) {
  return {
    vehicleExists: db.prepare<[string], string>('SELECT id FROM vehicles WHERE id = ?').pluck(),
    userExists: db.prepare<[number], number>('SELECT id FROM owners WHERE id = ?').pluck(),
    put: db.prepare<[string, number, string, number]>(
      `INSERT INTO shares (vehicle_id, user_id, access, created) VALUES (?, ?, ?, ?)
       ON CONFLICT (vehicle_id, user_id) DO UPDATE SET access = excluded.access`,
    ),
    one: db.prepare<[string, number], ShareRow>(
      `SELECT ${SHARE_COLUMNS} FROM shares s JOIN owners o ON o.id = s.user_id WHERE s.vehicle_id = ? AND s.user_id = ?`,
    ),
    access: db.prepare<[string, number], string>('SELECT access FROM shares WHERE vehicle_id = ? AND user_id = ?').pluck(),
    list: db.prepare<[string], ShareRow>(
      `SELECT ${SHARE_COLUMNS} FROM shares s JOIN owners o ON o.id = s.user_id WHERE s.vehicle_id = ? ORDER BY o.name, s.user_id`,
    ),
    sharedWith: db.prepare<[number], VehicleRow & { access: string }>(
      `SELECT ${SHARED_VEHICLE_COLUMNS} FROM shares s JOIN vehicles v ON v.id = s.vehicle_id JOIN owners o ON o.id = v.owner_id
       WHERE s.user_id = ? ORDER BY v.id`,
    ),
    remove: db.prepare<[string, number]>('DELETE FROM shares WHERE vehicle_id = ? AND user_id = ?'),
  };
}

export class SqliteSharesStore implements SharesStore {
  private readonly s: ReturnType<typeof prepareStatements>;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    this.s = prepareStatements(db);
  }

  async putShare(vehicleId: string, userId: number, access: ShareAccess, time: number): Promise<Share> {
    this.open();
    const vid = vehicleId.toUpperCase();
    const s = this.s;
    return this.db
      .transaction((): Share => {
        if (!s.vehicleExists.get(vid)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
        if (!s.userExists.get(userId)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `user id ${userId}`);
        s.put.run(vid, userId, access, time);
        return toShare(s.one.get(vid, userId)!);
      })
      .immediate();
  }

  async getShare(vehicleId: string, userId: number): Promise<ShareAccess | undefined> {
    this.open();
    return this.s.access.get(vehicleId.toUpperCase(), userId) as ShareAccess | undefined;
  }

  async listShares(vehicleId: string): Promise<Share[]> {
    this.open();
    return this.s.list.all(vehicleId.toUpperCase()).map(toShare);
  }

  async listSharedWith(userId: number): Promise<SharedVehicle[]> {
    this.open();
    return this.s.sharedWith.all(userId).map((r) => ({ vehicle: toVehicle(r), access: r.access as ShareAccess }));
  }

  async removeShare(vehicleId: string, userId: number): Promise<boolean> {
    this.open();
    return this.s.remove.run(vehicleId.toUpperCase(), userId).changes > 0;
  }
}
