/**
 * The operator's reads on SQLite (AdminStore, src/store/admin-store.ts): users and vehicles,
 * searched and paged, and the vehicles' traffic. Nothing cached: the page shows what is committed.
 */
import type Database from 'better-sqlite3';
import { containing, type AdminStore, type AdminUser, type AdminVehicle, type Page, type PageQuery, type TrafficSum } from '../admin-store.js';
import { toOwner, type OwnerRow } from '../rows.js';

const OWNER = 'o.id, o.name, o.rights, o.created, o.password_hash, o.email, o.verified, o.disabled, o.admin, o.api_passwords, o.totp_enabled';

interface VehicleListRow {
  id: string;
  name: string;
  owner_name: string;
  type: string;
  last_update: number | null;
  created: number;
}

function prepareStatements(db: Database.Database) {
  const userWhere = "(? = '' OR o.name LIKE ? ESCAPE '\\' OR o.email LIKE ? ESCAPE '\\')";
  const vehicleWhere = "(? = '' OR v.id LIKE ? ESCAPE '\\' OR v.name LIKE ? ESCAPE '\\' OR o.name LIKE ? ESCAPE '\\')";
  return {
    users: db.prepare<[string, string, string, number, number], OwnerRow & { vehicles: number }>(
      `SELECT ${OWNER}, (SELECT count(*) FROM vehicles v WHERE v.owner_id = o.id) AS vehicles
       FROM owners o WHERE ${userWhere} ORDER BY o.name, o.id LIMIT ? OFFSET ?`,
    ),
    countUsers: db.prepare<[string, string, string], number>(`SELECT count(*) FROM owners o WHERE ${userWhere}`).pluck(),
    vehicles: db.prepare<[string, string, string, string, number, number], VehicleListRow>(
      `SELECT v.id, v.name, o.name AS owner_name, v.type, v.last_update, v.created
       FROM vehicles v JOIN owners o ON o.id = v.owner_id WHERE ${vehicleWhere} ORDER BY v.id LIMIT ? OFFSET ?`,
    ),
    countVehicles: db.prepare<[string, string, string, string], number>(`SELECT count(*) FROM vehicles v JOIN owners o ON o.id = v.owner_id WHERE ${vehicleWhere}`).pluck(),
  };
}

export class SqliteAdminStore implements AdminStore {
  private readonly s: ReturnType<typeof prepareStatements>;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    this.s = prepareStatements(db);
  }

  async users(q: PageQuery): Promise<Page<AdminUser>> {
    this.open();
    const search = q.search ?? '';
    const like = containing(search);
    const rows = this.s.users.all(search, like, like, q.limit, q.offset);
    return { total: this.s.countUsers.get(search, like, like)!, rows: rows.map((r) => ({ ...toOwner(r), vehicles: r.vehicles })) };
  }

  async vehicles(q: PageQuery): Promise<Page<AdminVehicle>> {
    this.open();
    const search = q.search ?? '';
    const like = containing(search);
    const rows = this.s.vehicles.all(search, like, like, like, q.limit, q.offset);
    return {
      total: this.s.countVehicles.get(search, like, like, like)!,
      rows: rows.map((r) => ({ id: r.id, name: r.name, ownerName: r.owner_name, type: r.type, lastUpdate: r.last_update, created: r.created })),
    };
  }

  async traffic(vehicleIds: readonly string[], today: number, since: number): Promise<Map<string, TrafficSum>> {
    this.open();
    const out = new Map<string, TrafficSum>();
    if (vehicleIds.length === 0) return out;
    const rows = this.db
      .prepare<(string | number)[], { vehicle_id: string; today: number; month: number }>(
        `SELECT vehicle_id, sum(CASE WHEN day >= ? THEN rx + tx ELSE 0 END) AS today, sum(rx + tx) AS month
         FROM utilisation WHERE day >= ? AND vehicle_id IN (${vehicleIds.map(() => '?').join(', ')}) GROUP BY vehicle_id`,
      )
      .all(today, since, ...vehicleIds);
    for (const r of rows) out.set(r.vehicle_id, { today: r.today, month: r.month });
    return out;
  }
}
