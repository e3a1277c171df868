/**
 * The vehicles on PostgreSQL and their latest car messages, as committed. The messages
 * themselves, the paranoid tokens and the removals are written by the write-behind batch
 * (src/store/postgres/pg-batch.ts); the PgStore waits for buffered writes before it reads here.
 */
import { VtsError } from '../../errors.js';
import { nowSeconds, toCarMessages, toVehicle, type CarMessageRow, type VehicleRow } from '../rows.js';
import type { AddVehicleResult, CarMessage, NewVehicle, Vehicle, VehicleChange, VehicleType } from '../store.js';
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

  /**
   * Many vehicles in one transaction, a result per row (Store.addVehicles): the owners are locked
   * against removal while the rows go in, in one statement, an existing id skipped.
   */
  async addVehicles(rows: readonly NewVehicle[]): Promise<AddVehicleResult[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((v) => v.id.toUpperCase());
    return this.pg.transaction(async (client) => {
      const ownerIds = [...new Set(rows.map((v) => v.ownerId))];
      const found = await client.query<{ id: string }>('SELECT id FROM owners WHERE id = ANY($1::bigint[]) FOR KEY SHARE', [ownerIds]);
      const owners = new Set(found.rows.map((r) => Number(r.id)));
      const keep = rows.map((_, k) => k).filter((k) => owners.has(rows[k]!.ownerId));
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO vehicles (id, owner_id, name, car_password, type, created)
         SELECT id, owner_id, name, car_password, type, $6 FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[])
           AS r (id, owner_id, name, car_password, type)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          keep.map((k) => ids[k]!),
          keep.map((k) => rows[k]!.ownerId),
          keep.map((k) => rows[k]!.name),
          keep.map((k) => rows[k]!.carPassword),
          keep.map((k) => rows[k]!.type ?? 'CAR'),
          nowSeconds(),
        ],
      );
      // an id given twice went in once: the first of them
      const added = new Set(inserted.rows.map((r) => r.id));
      return rows.map((v, k): AddVehicleResult => {
        const id = ids[k]!;
        if (!owners.has(v.ownerId)) return { id, added: false, error: 'VTS_ERR_UNKNOWN_USER' };
        if (!added.delete(id)) return { id, added: false, error: 'VTS_ERR_DUPLICATE_VEHICLE' };
        return { id, added: true };
      });
    });
  }

  /** `vid`: upper-cased. */
  async updateVehicle(vid: string, change: VehicleChange): Promise<Vehicle | undefined> {
    const { rows } = await this.pg.change<VehicleRow>(
      `WITH v AS (UPDATE vehicles SET name = coalesce($2, name), car_password = coalesce($3, car_password) WHERE id = $1 RETURNING *)
       SELECT v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type, v.paranoid_token,
         v.last_update, v.created FROM v JOIN owners o ON o.id = v.owner_id`,
      [vid, change.name ?? null, change.carPassword ?? null],
    );
    return rows[0] && toVehicle(rows[0]);
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
