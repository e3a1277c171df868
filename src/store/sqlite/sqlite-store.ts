/**
 * The SQLite implementation of Store (better-sqlite3, WAL).
 *
 * Several processes share the file (the server and the admin CLI); the read caches are emptied
 * when another process commits (see ReadCache). Hot-path writes go through a WriteBehindBuffer and
 * are committed in one IMMEDIATE transaction per batch. Reads show committed data only: a read of
 * something still buffered waits for its commit (read-your-writes, and "seen" implies
 * "committed").
 *
 * Durability: the connection runs with synchronous=FULL, so every direct write (owners, vehicles,
 * tokens, …) and every batch holding a durable write (an acknowledged historical record) is on
 * stable storage when it returns. The other write-behind batches are committed with
 * synchronous=NORMAL: in WAL mode a commit is then in the operating system's hands at once (a
 * crash of the process loses nothing committed) and reaches the disk at the next checkpoint or
 * FULL commit, so a power loss or an operating-system crash can lose the last of them.
 */
import Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import type {
  ApiToken,
  CarMessage,
  CommandAuditEntry,
  HistoricalRecord,
  HistoricalSummary,
  NewVehicle,
  Owner,
  OwnerWithSecret,
  PushSubscription,
  AutoProvisionRecord,
  Store,
  StoreOptions,
  UtilisationRow,
  Vehicle,
  VehicleType,
} from '../store.js';
import {
  bound,
  nowSeconds,
  toApiToken,
  toAutoProvision,
  toCarMessages,
  toCommandAudit,
  toHistorical,
  toOwner,
  toSummary,
  toUtilisation,
  toVehicle,
  type ApiTokenRow,
  type AutoProvisionRow,
  type CarMessageRow,
  type CommandAuditRow,
  type HistoricalRow,
  type OwnerRow,
  type SummaryRow,
  type UtilisationDbRow,
  type VehicleRow,
} from '../rows.js';
import { BufferedStore } from '../buffered-store.js';
import type { WriteBatch } from '../write-batch.js';
import { ReadCache } from '../read-cache.js';
import { migrate } from './migrations.js';
import { SqliteImportStore } from './sqlite-import.js';
import { SqlitePushStore } from './sqlite-push.js';

const BUSY_TIMEOUT_MS = 5000;

const VEHICLE_COLUMNS = `v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type,
  v.paranoid_token, v.last_update, v.created`;

/** Another process holding the lock, a full disk, a passing I/O error: worth another try; a constraint or a schema error would fail the same way again. */
const retryable = (err: unknown): boolean => /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(String((err as { code?: unknown } | null)?.code ?? ''));

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isUniqueViolation(err: unknown): boolean {
  const c = sqliteCode(err);
  return c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function isForeignKeyViolation(err: unknown): boolean {
  return sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Every statement of the store, prepared once per connection. */
function prepareStatements(db: Database.Database) {
  return {
    // owners
    addOwner: db.prepare<[string, string, string, number], OwnerRow>(
      `INSERT INTO owners (name, password_hash, rights, created) VALUES (?, ?, ?, ?)
       RETURNING id, name, rights, created, password_hash`,
    ),
    ownerByName: db.prepare<[string], OwnerRow>(
      'SELECT id, name, rights, created, password_hash FROM owners WHERE name = ?',
    ),
    ownerById: db.prepare<[number], OwnerRow>('SELECT id, name, rights, created, password_hash FROM owners WHERE id = ?'),
    listOwners: db.prepare<[], OwnerRow>('SELECT id, name, rights, created, password_hash FROM owners ORDER BY name, id'),
    setOwnerPassword: db.prepare<[string, string]>('UPDATE owners SET password_hash = ? WHERE name = ?'),
    replaceOwnerPassword: db.prepare<[string, string, string]>('UPDATE owners SET password_hash = ? WHERE name = ? AND password_hash = ?'),
    setOwnerRights: db.prepare<[string, string]>('UPDATE owners SET rights = ? WHERE name = ?'),
    countOwnerVehicles: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM vehicles WHERE owner_id = ?'),
    deleteOwnerTokens: db.prepare<[number]>('DELETE FROM api_tokens WHERE owner_id = ?'),
    deleteOwnerPush: db.prepare<[number]>('DELETE FROM push_subscriptions WHERE owner_id = ?'),
    detachOwnerAutoProvision: db.prepare<[number]>('UPDATE autoprovision SET owner_id = NULL WHERE owner_id = ?'),
    deleteOwner: db.prepare<[number]>('DELETE FROM owners WHERE id = ?'),

    // vehicles
    addVehicle: db.prepare<[string, number, string, string, string, number]>(
      `INSERT INTO vehicles (id, owner_id, name, car_password, type, created) VALUES (?, ?, ?, ?, ?, ?)`,
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
    deleteVehicle: db.prepare<[string]>('DELETE FROM vehicles WHERE id = ?'),
    setParanoidToken: db.prepare<[string, string]>('UPDATE vehicles SET paranoid_token = ? WHERE id = ?'),
    invalidateParanoid: db.prepare<[string, string]>(
      'UPDATE car_messages SET valid = 0 WHERE vehicle_id = ? AND paranoid = 1 AND ptoken <> ? AND valid = 1',
    ),
    setLastUpdate: db.prepare<[number, string]>('UPDATE vehicles SET last_update = ? WHERE id = ?'),

    // car messages (rows of vehicles removed meanwhile, possibly by another process, are dropped)
    putCarMessage: db.prepare<[string, string, number, number, string, number, string]>(
      `INSERT INTO car_messages (vehicle_id, code, data, time, paranoid, ptoken, valid)
       SELECT v.id, ?, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, code) DO UPDATE SET data = excluded.data, time = excluded.time,
         paranoid = excluded.paranoid, ptoken = excluded.ptoken, valid = excluded.valid`,
    ),
    carMessages: db.prepare<[string], CarMessageRow>(
      'SELECT code, data, time, paranoid, ptoken, valid FROM car_messages WHERE vehicle_id = ?',
    ),
    /** Changes when another connection (another process) commits: see ReadCache. */
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),

    // historical
    putHistorical: db.prepare<[string, number, number, string, number, string]>(
      `INSERT INTO historical (vehicle_id, type, record_number, time, data, expires)
       SELECT v.id, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, type, time, record_number) DO UPDATE SET data = excluded.data,
         expires = excluded.expires`,
    ),
    // REF's totalsize counts bytes (MySQL LENGTH), hence octet_length.
    summarizeHistorical: db.prepare<[string, number], SummaryRow>(
      `SELECT type, count(DISTINCT record_number) AS distinct_records, count(*) AS total_records,
         sum(octet_length(type) + octet_length(data) + octet_length(vehicle_id) + 20) AS total_size,
         min(time) AS first, max(time) AS last
       FROM historical_all WHERE vehicle_id = ? AND time > ?
       GROUP BY type ORDER BY type`,
    ),
    getHistorical: db.prepare<[string, string, number], HistoricalRow>(
      `SELECT type, record_number, time, data, expires FROM historical_all
       WHERE vehicle_id = ? AND type = ? AND time > ? ORDER BY time, record_number`,
    ),
    purgeHistorical: db.prepare<[number, number]>(
      `DELETE FROM historical WHERE rowid IN
         (SELECT rowid FROM historical WHERE expires < ? LIMIT ?)`,
    ),

    // utilisation
    addUtilisation: db.prepare<[number, string, number, number, string]>(
      `INSERT INTO utilisation (vehicle_id, day, client_type, rx, tx)
       SELECT v.id, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?
       ON CONFLICT (vehicle_id, day, client_type) DO UPDATE SET rx = rx + excluded.rx, tx = tx + excluded.tx`,
    ),
    getUtilisation: db.prepare<[string, number], UtilisationDbRow>(
      `SELECT day, client_type, rx, tx FROM utilisation WHERE vehicle_id = ? AND day >= ?
       ORDER BY day DESC, client_type`,
    ),
    purgeUtilisation: db.prepare<[number]>('DELETE FROM utilisation WHERE day < ?'),

    // API tokens
    addApiToken: db.prepare<[number, string, string, string, string, number, number | null]>(
      `INSERT INTO api_tokens (owner_id, token_hash, application, purpose, permit, created, last_used)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    findApiToken: db.prepare<[number, string], ApiTokenRow>(
      `SELECT owner_id, token_hash, application, purpose, permit, created, last_used FROM api_tokens
       WHERE owner_id = ? AND token_hash = ?`,
    ),
    listApiTokens: db.prepare<[number], ApiTokenRow>(
      `SELECT owner_id, token_hash, application, purpose, permit, created, last_used FROM api_tokens
       WHERE owner_id = ? ORDER BY created, token_hash`,
    ),
    removeApiToken: db.prepare<[number, string]>('DELETE FROM api_tokens WHERE owner_id = ? AND token_hash = ?'),
    touchApiToken: db.prepare<[number, number, string]>(
      'UPDATE api_tokens SET last_used = max(coalesce(last_used, 0), ?) WHERE owner_id = ? AND token_hash = ?',
    ),

    // auto-provisioning
    getAutoProvision: db.prepare<[string], AutoProvisionRow>(
      'SELECT key, server_token, server_digest, message, owner_id FROM autoprovision WHERE key = ?',
    ),
    putAutoProvision: db.prepare<[string, string, string, string, number | null]>(
      `INSERT INTO autoprovision (key, server_token, server_digest, message, owner_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET server_token = excluded.server_token,
         server_digest = excluded.server_digest, message = excluded.message, owner_id = excluded.owner_id`,
    ),
    removeAutoProvision: db.prepare<[string]>('DELETE FROM autoprovision WHERE key = ?'),

    // command audit (rows of vehicles removed meanwhile are dropped)
    addCommandAudit: db.prepare<[number, string, string, string, string, string, number, string]>(
      `INSERT INTO command_audit (vehicle_id, time, caller, via, kind, command, result, duration_ms)
       SELECT v.id, ?, ?, ?, ?, ?, ?, ? FROM vehicles v WHERE v.id = ?`,
    ),
    databaseId: db.prepare<[], string>("SELECT value FROM vts_meta WHERE key = 'database_id'").pluck(),
    listCommandAudit: db.prepare<[string, number], CommandAuditRow>(
      `SELECT id, vehicle_id, time, caller, via, kind, command, result, duration_ms FROM command_audit
       WHERE vehicle_id = ? ORDER BY id DESC LIMIT ?`,
    ),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

/** SQLite's NOCASE: only ASCII letters fold. */
const foldCase = (name: string): string => name.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const tokenKey = (ownerId: number, tokenHash: string): string => `${ownerId}\0${tokenHash}`;

export class SqliteStore extends BufferedStore implements Store {
  private readonly db: Database.Database;
  private readonly stmt: Statements;
  /** The push outbox, and the push_subscriptions statements (src/store/sqlite/sqlite-push.ts). */
  readonly push: SqlitePushStore;
  /** What `vts import` writes (src/store/sqlite/sqlite-import.ts). */
  readonly imports: SqliteImportStore;
  private readonly commitTransaction: (batch: WriteBatch) => void;
  private readonly vehicleRows = new ReadCache<VehicleRow>();
  private readonly messageRows = new ReadCache<readonly CarMessageRow[]>();
  /** Owners by name (ASCII case folded, as SQLite's NOCASE): every password or token login reads one. */
  private readonly ownerRows = new ReadCache<OwnerRow>();
  /** API tokens by owner and hash; null remembers that there is no such token. */
  private readonly tokenRows = new ReadCache<ApiTokenRow | null>();
  private dataVersion = -1;
  private syncedAt = -Infinity;

  /** Opens (creating if needed) and migrates the database at `file`. */
  constructor(file: string, opts: StoreOptions = {}) {
    super(opts, retryable);
    const db = new Database(file);
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      migrate(db);
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    this.stmt = prepareStatements(db);
    this.push = new SqlitePushStore(db, () => this.open());
    this.imports = new SqliteImportStore(
      db,
      () => this.open(),
      () => this.clearCaches(),
    );
    const s = this.stmt;

    this.commitTransaction = db.transaction((batch: WriteBatch) => {
      // removals and token changes first: they apply to what was put before them (the batches
      // committed before this one, and the messages of this one they marked in memory)
      for (const [vehicleId, removal] of batch.removals) removal.removed = s.deleteVehicle.run(vehicleId).changes > 0;
      for (const [vehicleId, tokens] of batch.paranoidTokens) {
        for (const token of tokens) s.invalidateParanoid.run(vehicleId, token);
        s.setParanoidToken.run(tokens[tokens.length - 1]!, vehicleId);
      }
      for (const codes of batch.carMessages.values()) {
        for (const m of codes.values()) {
          s.putCarMessage.run(m.code, m.data, m.time, m.paranoid ? 1 : 0, m.ptoken, m.valid ? 1 : 0, m.vehicleId);
          // the message as its historical record: before the batch's other records, so an `H`
          // record of the very same key (type = code, record 0, same second) wins
          if (m.historyExpires > 0) s.putHistorical.run(m.code, 0, m.time, m.data, m.historyExpires, m.vehicleId);
        }
      }
      for (const [vehicleId, time] of batch.lastUpdates) s.setLastUpdate.run(time, vehicleId);
      for (const r of batch.historical.values()) {
        s.putHistorical.run(r.type, r.recordNumber, r.time, r.data, r.expires, r.vehicleId);
      }
      for (const d of batch.utilisation.values()) {
        s.addUtilisation.run(d.day, d.clientType, d.rx, d.tx, d.vehicleId);
      }
      for (const t of batch.tokenTouches.values()) s.touchApiToken.run(t.time, t.ownerId, t.tokenHash);
    }).immediate;

  }

  protected commitBatch(batch: WriteBatch): void {
    if (batch.durable) {
      this.commitTransaction(batch);
    } else {
      // exec, not a prepared statement: SQLite applies this pragma when it compiles it
      this.db.exec('PRAGMA synchronous = NORMAL');
      try {
        this.commitTransaction(batch);
      } finally {
        this.db.exec('PRAGMA synchronous = FULL');
      }
    }
    for (const vid of batch.carMessages.keys()) this.forget(vid);
    for (const vid of batch.lastUpdates.keys()) this.forget(vid);
    for (const vid of batch.paranoidTokens.keys()) this.forget(vid);
    for (const vid of batch.removals.keys()) this.forget(vid);
    for (const t of batch.tokenTouches.values()) this.tokenRows.delete(tokenKey(t.ownerId, t.tokenHash));
  }

  protected release(): void {
    this.db.close();
  }


  /**
   * Empties the read caches when another process has committed since the last look. Looked at
   * most once a millisecond: one request reads several cached rows, and a change made by another
   * process is seen within a millisecond.
   */
  private syncCaches(): void {
    const now = performance.now();
    if (now - this.syncedAt < 1) return;
    this.syncedAt = now;
    const version = this.stmt.dataVersion.get()!;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.clearCaches();
  }

  private clearCaches(): void {
    this.vehicleRows.clear();
    this.messageRows.clear();
    this.ownerRows.clear();
    this.tokenRows.clear();
  }

  /** Drops what the read caches hold of a vehicle this process just wrote. */
  private forget(vehicleId: string): void {
    this.vehicleRows.delete(vehicleId);
    this.messageRows.delete(vehicleId);
  }

  // --- owners ---

  async addOwner(name: string, passwordHash: string, rights: string): Promise<Owner> {
    this.open();
    try {
      return toOwner(this.stmt.addOwner.get(name, passwordHash, rights, nowSeconds())!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_DUPLICATE_USER', name);
      throw err;
    }
  }

  async getOwnerByName(name: string): Promise<OwnerWithSecret | undefined> {
    this.open();
    this.syncCaches();
    const key = foldCase(name);
    let r = this.ownerRows.get(key);
    if (!r) {
      const stamp = this.ownerRows.stamp();
      r = this.stmt.ownerByName.get(name);
      if (r) this.ownerRows.set(key, r, stamp);
    }
    return r && { ...toOwner(r), passwordHash: r.password_hash };
  }

  async getOwnerById(id: number): Promise<Owner | undefined> {
    this.open();
    const r = this.stmt.ownerById.get(id);
    return r && toOwner(r);
  }

  async listOwners(): Promise<Owner[]> {
    this.open();
    return this.stmt.listOwners.all().map(toOwner);
  }

  async setOwnerPassword(name: string, passwordHash: string, expected?: string): Promise<boolean> {
    this.open();
    this.ownerRows.clear();
    if (expected !== undefined) return this.stmt.replaceOwnerPassword.run(passwordHash, name, expected).changes > 0;
    return this.stmt.setOwnerPassword.run(passwordHash, name).changes > 0;
  }

  async setOwnerRights(name: string, rights: string): Promise<boolean> {
    this.open();
    this.ownerRows.clear();
    return this.stmt.setOwnerRights.run(rights, name).changes > 0;
  }

  async removeOwner(name: string): Promise<boolean> {
    this.open();
    const s = this.stmt;
    const ownerId = this.db
      .transaction((): number | undefined => {
        const owner = s.ownerByName.get(name);
        if (!owner) return undefined;
        const n = s.countOwnerVehicles.get(owner.id)!.n;
        if (n > 0) throw new VtsError('VTS_ERR_USER_HAS_VEHICLES', `${owner.name} owns ${n} vehicle(s)`);
        s.deleteOwnerTokens.run(owner.id);
        s.deleteOwnerPush.run(owner.id);
        s.detachOwnerAutoProvision.run(owner.id);
        s.deleteOwner.run(owner.id);
        return owner.id;
      })
      .immediate();
    if (ownerId === undefined) return false;
    this.ownerRows.clear();
    this.tokenRows.clear();
    this.buffer.discardTokenTouches(ownerId);
    return true;
  }

  // --- vehicles ---

  async addVehicle(v: NewVehicle): Promise<Vehicle> {
    this.open();
    const id = v.id.toUpperCase();
    const type: VehicleType = v.type ?? 'CAR';
    const s = this.stmt;
    return this.db
      .transaction((): Vehicle => {
        if (!s.ownerById.get(v.ownerId)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${v.ownerId}`);
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

  async getVehicle(id: string): Promise<Vehicle | undefined> {
    this.open();
    const vid = id.toUpperCase();
    const buffered = this.buffer.committedFor(vid);
    if (buffered) {
      await buffered;
      this.open();
    }
    this.syncCaches();
    let r = this.vehicleRows.get(vid);
    if (!r) {
      const stamp = this.vehicleRows.stamp();
      r = this.stmt.vehicle.get(vid);
      if (r) this.vehicleRows.set(vid, r, stamp);
    }
    return r && toVehicle(r);
  }

  async listVehicles(ownerId?: number): Promise<Vehicle[]> {
    this.open();
    const buffered = this.buffer.committed();
    if (buffered) {
      await buffered;
      this.open();
    }
    const rows = ownerId === undefined ? this.stmt.listVehicles.all() : this.stmt.listOwnerVehicles.all(ownerId);
    return rows.map(toVehicle);
  }



  // --- latest car messages ---


  async getCarMessages(vehicleId: string, includeInvalid = false): Promise<CarMessage[]> {
    this.open();
    const vid = vehicleId.toUpperCase();
    const buffered = this.buffer.committedFor(vid);
    if (buffered) {
      await buffered;
      this.open();
    }
    this.syncCaches();
    let rows = this.messageRows.get(vid);
    if (!rows) {
      const stamp = this.messageRows.stamp();
      rows = this.messageRows.set(vid, this.stmt.carMessages.all(vid), stamp);
    }
    return toCarMessages(rows, includeInvalid);
  }

  // --- historical records ---


  async summarizeHistorical(vehicleId: string, since: number): Promise<HistoricalSummary[]> {
    this.open();
    await this.buffer.flush();
    this.open();
    return this.stmt.summarizeHistorical.all(vehicleId.toUpperCase(), bound(since)).map(toSummary);
  }

  async getHistorical(vehicleId: string, type: string, since: number): Promise<HistoricalRecord[]> {
    this.open();
    await this.buffer.flush();
    this.open();
    const vid = vehicleId.toUpperCase();
    return this.stmt.getHistorical.all(vid, type, bound(since)).map((r) => toHistorical(vid, r));
  }

  async purgeExpiredHistorical(now: number, limit: number): Promise<number> {
    this.open();
    await this.buffer.flush();
    this.open();
    if (!(limit > 0)) return 0;
    return this.stmt.purgeHistorical.run(now, Math.floor(limit)).changes;
  }

  // --- traffic accounting ---


  async getUtilisation(vehicleId: string, sinceDay: number): Promise<UtilisationRow[]> {
    this.open();
    await this.buffer.flush();
    this.open();
    return this.stmt.getUtilisation.all(vehicleId.toUpperCase(), bound(sinceDay)).map(toUtilisation);
  }

  async purgeUtilisation(beforeDay: number): Promise<number> {
    this.open();
    await this.buffer.flush();
    this.open();
    return this.stmt.purgeUtilisation.run(beforeDay).changes;
  }

  // --- API tokens ---

  async addApiToken(t: ApiToken): Promise<void> {
    this.open();
    this.tokenRows.delete(tokenKey(t.ownerId, t.tokenHash));
    try {
      this.stmt.addApiToken.run(t.ownerId, t.tokenHash, t.application, t.purpose, t.permit, t.created, t.lastUsed);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${t.ownerId}`);
      throw err;
    }
  }

  /**
   * The token as committed: a use still buffered shows in `lastUsed` once committed (this read,
   * on the path of every token login, does not wait for it; `listApiTokens` does).
   */
  async findApiToken(ownerId: number, tokenHash: string): Promise<ApiToken | undefined> {
    this.open();
    this.syncCaches();
    const key = tokenKey(ownerId, tokenHash);
    let r = this.tokenRows.get(key);
    if (r === undefined) {
      const stamp = this.tokenRows.stamp();
      r = this.tokenRows.set(key, this.stmt.findApiToken.get(ownerId, tokenHash) ?? null, stamp);
    }
    return r ? toApiToken(r) : undefined;
  }

  async listApiTokens(ownerId: number): Promise<ApiToken[]> {
    this.open();
    const buffered = this.buffer.committed();
    if (buffered) {
      await buffered;
      this.open();
    }
    return this.stmt.listApiTokens.all(ownerId).map(toApiToken);
  }

  async removeApiToken(ownerId: number, tokenHash: string): Promise<boolean> {
    this.open();
    this.buffer.discardTokenTouches(ownerId, tokenHash);
    this.tokenRows.delete(tokenKey(ownerId, tokenHash));
    return this.stmt.removeApiToken.run(ownerId, tokenHash).changes > 0;
  }


  // --- push subscriptions ---

  async upsertPushSubscription(p: PushSubscription): Promise<void> {
    this.open();
    this.push.upsertSubscription(p);
  }

  async listPushSubscriptions(ownerId: number, vehicleId: string): Promise<PushSubscription[]> {
    this.open();
    return this.push.subscriptionsOf(ownerId, vehicleId);
  }

  // --- auto-provisioning ---

  async getAutoProvision(key: string): Promise<AutoProvisionRecord | undefined> {
    this.open();
    const r = this.stmt.getAutoProvision.get(key);
    return r && toAutoProvision(r);
  }

  async putAutoProvision(rec: AutoProvisionRecord): Promise<void> {
    this.open();
    try {
      this.stmt.putAutoProvision.run(rec.key, rec.serverToken, rec.serverDigest, rec.message, rec.ownerId);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${rec.ownerId}`);
      throw err;
    }
  }

  async removeAutoProvision(key: string): Promise<boolean> {
    this.open();
    return this.stmt.removeAutoProvision.run(key).changes > 0;
  }

  // --- command audit ---

  async addCommandAudit(e: CommandAuditEntry): Promise<void> {
    this.open();
    this.stmt.addCommandAudit.run(e.time, e.caller, e.via, e.kind, e.command, e.result, Math.round(e.durationMs), e.vehicleId.toUpperCase());
  }

  async listCommandAudit(vehicleId: string, limit: number): Promise<(CommandAuditEntry & { id: number })[]> {
    this.open();
    return this.stmt.listCommandAudit.all(vehicleId.toUpperCase(), Math.max(0, Math.floor(limit))).map(toCommandAudit);
  }

  async databaseId(): Promise<string> {
    this.open();
    return this.stmt.databaseId.get()!;
  }
}
