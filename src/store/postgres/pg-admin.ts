/**
 * The operator's reads on PostgreSQL (AdminStore, src/store/admin-store.ts): users and vehicles,
 * searched (any case) and paged, and the vehicles' traffic.
 */
import { containing, type AdminStore, type AdminUser, type AdminVehicle, type Page, type PageQuery, type TrafficSum } from '../admin-store.js';
import { toOwner, type OwnerRow } from '../rows.js';
import type { PgAccess } from './pg-connection.js';

const OWNER = 'o.id, o.name, o.rights, o.created, o.password_hash, o.email, o.verified, o.disabled, o.admin, o.api_passwords, o.totp_enabled';
const USER_WHERE = "($1::text = '' OR o.name ILIKE $2 OR o.email ILIKE $2)";
const VEHICLE_WHERE = "($1::text = '' OR v.id ILIKE $2 OR v.name ILIKE $2 OR o.name ILIKE $2)";

interface VehicleListRow {
  id: string;
  name: string;
  owner_name: string;
  type: string;
  last_update: number | null;
  created: number;
}

export class PgAdminStore implements AdminStore {
  constructor(private readonly db: PgAccess) {}

  async users(q: PageQuery): Promise<Page<AdminUser>> {
    const search = q.search ?? '';
    const like = containing(search);
    const rows = await this.db.read<OwnerRow & { vehicles: number }>(
      `SELECT ${OWNER}, (SELECT count(*) FROM vehicles v WHERE v.owner_id = o.id) AS vehicles
       FROM owners o WHERE ${USER_WHERE} ORDER BY lower(o.name), o.id LIMIT $3 OFFSET $4`,
      [search, like, q.limit, q.offset],
    );
    const [count] = await this.db.read<{ n: number }>(`SELECT count(*) AS n FROM owners o WHERE ${USER_WHERE}`, [search, like]);
    return { total: Number(count?.n ?? 0), rows: rows.map((r) => ({ ...toOwner(r), vehicles: Number(r.vehicles) })) };
  }

  async vehicles(q: PageQuery): Promise<Page<AdminVehicle>> {
    const search = q.search ?? '';
    const like = containing(search);
    const rows = await this.db.read<VehicleListRow>(
      `SELECT v.id, v.name, o.name AS owner_name, v.type, v.last_update, v.created
       FROM vehicles v JOIN owners o ON o.id = v.owner_id WHERE ${VEHICLE_WHERE} ORDER BY v.id LIMIT $3 OFFSET $4`,
      [search, like, q.limit, q.offset],
    );
    const [count] = await this.db.read<{ n: number }>(`SELECT count(*) AS n FROM vehicles v JOIN owners o ON o.id = v.owner_id WHERE ${VEHICLE_WHERE}`, [search, like]);
    return {
      total: Number(count?.n ?? 0),
      rows: rows.map((r) => ({ id: r.id, name: r.name, ownerName: r.owner_name, type: r.type, lastUpdate: r.last_update, created: r.created })),
    };
  }

  async traffic(vehicleIds: readonly string[], today: number, since: number): Promise<Map<string, TrafficSum>> {
    const out = new Map<string, TrafficSum>();
    if (vehicleIds.length === 0) return out;
    const rows = await this.db.read<{ vehicle_id: string; today: number; month: number }>(
      `SELECT vehicle_id, sum(CASE WHEN day >= $1 THEN rx + tx ELSE 0 END) AS today, sum(rx + tx) AS month
       FROM utilisation WHERE day >= $2 AND vehicle_id = ANY($3::text[]) GROUP BY vehicle_id`,
      [today, since, [...vehicleIds]],
    );
    for (const r of rows) out.set(r.vehicle_id, { today: Number(r.today), month: Number(r.month) });
    return out;
  }
}
