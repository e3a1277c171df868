/**
 * The vehicles on SQLite and their latest car messages, as committed: the rows every MP login and
 * every status poll reads are cached (src/store/sqlite/sqlite-caches.ts). The messages themselves,
 * the paranoid tokens and the removals are written by the write-behind batch
 * (src/store/sqlite/sqlite-batch.ts). The SqliteStore checks that it is open and waits for
 * buffered writes before it calls in here.
 */
import type Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import { nowSeconds, toCarMessages, toVehicle, type CarMessageRow, type VehicleRow } from '../rows.js';
import type { AddVehicleResult, CarMessage, NewVehicle, Vehicle, VehicleChange, VehicleType } from '../store.js';
import type { SqliteCaches } from './sqlite-caches.js';
import { isForeignKeyViolation, isUniqueViolation } from './sqlite-errors.js';

const VEHICLE_COLUMNS = `v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type,
  v.paranoid_token, v.last_update, v.created`;

function prepareStatements(db: Database.Database) {
  return {
    ownerExists: db.prepare<[number], { id: number }>('SELECT id FROM owners WHERE id = ?'),
    addVehicle: db.prepare<[string, number, string, string, string, number]>(
      `INSERT INTO vehicles (id, owner_id, name, car_password, type, created) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    addVehicleIfNew: db.prepare<[string, number, string, string, string, number]>(
      `INSERT INTO vehicles (id, owner_id, name, car_password, type, created) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
    vehicle: db.prepare<[string], VehicleRow>(
      `SELECT ${VEHICLE_COLUMNS} FROM vehicles v JOIN owners o ON o.id = v.owner_id WHERE v.id = ?`,
    ),
    listVehicles: db.prepare<[], VehicleRow>(
      `SELECT ${VEHICLE_COLUMNS} FROM vehicles v JOIN owners o ON o.id = v.owner_id ORDER BY v.id`,
    ),
    listOwnerVehicles: db.prepare<[number], VehicleRow>(
      `SELECT ${VEHICLE_COLUMNS} FROM vehicles v JOIN owners o ON o.id = v.owner_id
       WHERE v.owner_id = ? ORDER BY v.id`,
    ),
    rename: db.prepare<[string, string]>('UPDATE vehicles SET name = ? WHERE id = ?'),
    setCarPassword: db.prepare<[string, string]>('UPDATE vehicles SET car_password = ? WHERE id = ?'),
    carMessages: db.prepare<[string], CarMessageRow>(
      'SELECT code, data, time, paranoid, ptoken, valid FROM car_messages WHERE vehicle_id = ?',
    ),
  };
}

export class SqliteVehicles {
  private readonly stmt: ReturnType<typeof prepareStatements>;

  constructor(
    private readonly db: Database.Database,
    private readonly caches: SqliteCaches,
  ) {
    this.stmt = prepareStatements(db);
  }

  /** `v.id` upper-cased. @throws VtsError VTS_ERR_DUPLICATE_VEHICLE, VTS_ERR_UNKNOWN_USER */
  addVehicle(v: NewVehicle): Vehicle {
    const id = v.id.toUpperCase();
    const type: VehicleType = v.type ?? 'CAR';
    const s = this.stmt;
    return this.db
      .transaction((): Vehicle => {
        if (!s.ownerExists.get(v.ownerId)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${v.ownerId}`);
        try {
          s.addVehicle.run(id, v.ownerId, v.name, v.carPassword, type, nowSeconds());
        } catch (err) {
          if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_DUPLICATE_VEHICLE', id);
          if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${v.ownerId}`);
          throw err;
        }
        return toVehicle(s.vehicle.get(id)!);
      })
      .immediate();
  }

  /** Many vehicles in one transaction, a result per row (Store.addVehicles). */
  addVehicles(rows: readonly NewVehicle[]): AddVehicleResult[] {
    const s = this.stmt;
    return this.db
      .transaction((): AddVehicleResult[] => {
        const owners = new Map<number, boolean>();
        const created = nowSeconds();
        return rows.map((v): AddVehicleResult => {
          const id = v.id.toUpperCase();
          let known = owners.get(v.ownerId);
          if (known === undefined) owners.set(v.ownerId, (known = s.ownerExists.get(v.ownerId) !== undefined));
          if (!known) return { id, added: false, error: 'VTS_ERR_UNKNOWN_USER' };
          const r = s.addVehicleIfNew.run(id, v.ownerId, v.name, v.carPassword, v.type ?? 'CAR', created);
          return r.changes === 1 ? { id, added: true } : { id, added: false, error: 'VTS_ERR_DUPLICATE_VEHICLE' };
        });
      })
      .immediate();
  }

  /** `vid`: upper-cased; forgets the cached row. */
  updateVehicle(vid: string, change: VehicleChange): Vehicle | undefined {
    const s = this.stmt;
    const found = this.db
      .transaction((): boolean => {
        if (!s.vehicle.get(vid)) return false;
        if (change.name !== undefined) s.rename.run(change.name, vid);
        if (change.carPassword !== undefined) s.setCarPassword.run(change.carPassword, vid);
        return true;
      })
      .immediate();
    this.caches.forget(vid);
    return found ? toVehicle(s.vehicle.get(vid)!) : undefined;
  }

  /** `vid`: upper-cased. */
  vehicle(vid: string): Vehicle | undefined {
    this.caches.sync();
    const cache = this.caches.vehicles;
    let r = cache.get(vid);
    if (!r) {
      const stamp = cache.stamp();
      r = this.stmt.vehicle.get(vid);
      if (r) cache.set(vid, r, stamp);
    }
    return r && toVehicle(r);
  }

  /** The vehicle when the read cache holds it (`vid`: upper-cased), else undefined (not read). */
  cachedVehicle(vid: string): Vehicle | undefined {
    this.caches.sync();
    const r = this.caches.vehicles.get(vid);
    return r && toVehicle(r);
  }

  listVehicles(ownerId?: number): Vehicle[] {
    const rows = ownerId === undefined ? this.stmt.listVehicles.all() : this.stmt.listOwnerVehicles.all(ownerId);
    return rows.map(toVehicle);
  }

  /** `vid`: upper-cased. */
  carMessages(vid: string, includeInvalid: boolean): CarMessage[] {
    this.caches.sync();
    const cache = this.caches.messages;
    let rows = cache.get(vid);
    if (!rows) {
      const stamp = cache.stamp();
      rows = cache.set(vid, this.stmt.carMessages.all(vid), stamp);
    }
    return toCarMessages(rows, includeInvalid);
  }

  /** The valid messages when the read cache holds them (`vid`: upper-cased), else undefined (not read). */
  cachedCarMessages(vid: string): CarMessage[] | undefined {
    this.caches.sync();
    const rows = this.caches.messages.get(vid);
    return rows && toCarMessages(rows, false);
  }
}
