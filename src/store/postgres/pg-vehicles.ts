/**
 * The vehicles on PostgreSQL and their latest car messages, as committed. The messages
 * themselves, the paranoid tokens and the removals are written by the write-behind batch
 * (src/store/postgres/pg-batch.ts); the PgStore waits for buffered writes before it reads here.
 */
import { VtsError } from '../../errors.js';
import { nowSeconds, toCarMessages, toVehicle, type CarMessageRow, type VehicleRow } from '../rows.js';
import type { CarMessage, NewVehicle, Vehicle, VehicleType } from '../store.js';
import type { PgAccess } from './pg-connection.js';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors.js';

const VEHICLE = `SELECT v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type, v.paranoid_token,
  v.last_update, v.created FROM vehicles v JOIN owners o ON o.id = v.owner_id`;

export class PgVehicles {
  constructor(private readonly pg: PgAccess) {}

  /** `v.id` upper-cased. @throws VtsError VTS_ERR_DUPLICATE_VEHICLE, VTS_ERR_UNKNOWN_USER */
  async addVehicle(v: NewVehicle): Promise<Vehicle> {
    const id = v.id.toUpperCase();
    const type: VehicleType = v.type ?? 'CAR';
    try {
      const { rows } = await this.pg.change<VehicleRow>(
        `WITH v AS (INSERT INTO vehicles (id, owner_id, name, car_password, type, created)
                    VALUES ($1, $2, $3, $4, $5, $6) RETURNING *)
         SELECT v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type, v.paranoid_token,
           v.last_update, v.created FROM v JOIN owners o ON o.id = v.owner_id`,
        [id, v.ownerId, v.name, v.carPassword, type, nowSeconds()],
      );
      return toVehicle(rows[0]!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_DUPLICATE_VEHICLE', id);
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${v.ownerId}`);
      throw err;
    }
  }

  /** `vid`: upper-cased. */
  async vehicle(vid: string): Promise<Vehicle | undefined> {
    const r = (await this.pg.read<VehicleRow>(`${VEHICLE} WHERE v.id = $1`, [vid]))[0];
    return r && toVehicle(r);
  }

  async listVehicles(ownerId?: number): Promise<Vehicle[]> {
    const rows =
      ownerId === undefined
        ? await this.pg.read<VehicleRow>(`${VEHICLE} ORDER BY v.id`, [])
        : await this.pg.read<VehicleRow>(`${VEHICLE} WHERE v.owner_id = $1 ORDER BY v.id`, [ownerId]);
    return rows.map(toVehicle);
  }

  /** `vid`: upper-cased. */
  async carMessages(vid: string, includeInvalid: boolean): Promise<CarMessage[]> {
    const rows = await this.pg.read<CarMessageRow>(
      'SELECT code, data, time, paranoid::int AS paranoid, ptoken, valid::int AS valid FROM car_messages WHERE vehicle_id = $1',
      [vid],
    );
    return toCarMessages(rows, includeInvalid);
  }
}
