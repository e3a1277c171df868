/**
 * The PostgreSQL implementation of Store (`pg`, a pool of connections).
 *
 * Several vts nodes and the admin CLI share one database, so this store keeps no read cache: every
 * read asks the database, and what another process committed is seen by the next read. Hot-path
 * writes go through the shared WriteBehindBuffer (src/store/write-behind.ts); one batch is one
 * round trip (src/store/postgres/pg-batch.ts). Reads show committed data only: a read of something
 * still buffered waits for its commit, as in the SQLite store.
 *
 * Durability: direct writes (owners, vehicles, tokens, …) commit with the session's
 * synchronous_commit (`on` by default) before they resolve; so do batches holding a durable write
 * (an acknowledged historical record), a paranoid-token change or a removal; other batches commit
 * with synchronous_commit off (see pg-batch.ts).
 */
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { VtsError } from '../../errors.js';
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
import type {
  ApiToken,
  AutoProvisionRecord,
  CarMessage,
  CommandAuditEntry,
  HistoricalRecord,
  HistoricalSummary,
  NewVehicle,
  Owner,
  OwnerWithSecret,
  PushSubscription,
  Store,
  StoreOptions,
  UtilisationRow,
  Vehicle,
  VehicleType,
} from '../store.js';
import { BufferedStore } from '../buffered-store.js';
import type { WriteBatch } from '../write-batch.js';
import { commitBatch } from './pg-batch.js';
import type { OutageWatch } from '../outage.js';
import { describePgError, pgRetryable, pgSilent, pgUnavailable, type PgTarget } from './pg-errors.js';
import { PgImportStore } from './pg-import.js';
import { PgPushStore } from './pg-push.js';

const RESOLVED: Promise<void> = Promise.resolve();

const OWNER = 'id, name, rights, created, password_hash';
const VEHICLE = `SELECT v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type, v.paranoid_token,
  v.last_update, v.created FROM vehicles v JOIN owners o ON o.id = v.owner_id`;
const TOKEN = 'owner_id, token_hash, application, purpose, permit, created, last_used';
/** A user name as the unique index folds it (ASCII only, as SQLite's NOCASE). */
const NAME_IS = 'lower(name) = lower($1::text COLLATE "C")';

const pgCode = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;
const isUniqueViolation = (err: unknown): boolean => pgCode(err) === '23505';
const isForeignKeyViolation = (err: unknown): boolean => pgCode(err) === '23503';

export class PgStore extends BufferedStore implements Store {
  /** The tail of the direct writes (never rejects), and how many are asked and not done. */
  private writes: Promise<void> = RESOLVED;
  private writing = 0;
  /** The push outbox, and the push_subscriptions statements (src/store/postgres/pg-push.ts). */
  readonly push: PgPushStore;
  /** What `vts import` writes (src/store/postgres/pg-import.ts). */
  readonly imports: PgImportStore;

  /** The pool in use: replaced by a new one when one of its connections goes silent. */
  private pool: Pool;

  /**
   * Uses pools of `newPool` on a database whose schema is migrated (openPgStore in
   * src/store/postgres/pg-open.ts); `watch` is told of every operation's outcome (an outage is
   * reported once).
   */
  constructor(
    private readonly newPool: () => Pool,
    private readonly target: PgTarget,
    private readonly watch: OutageWatch,
    opts: StoreOptions = {},
  ) {
    super(opts, pgRetryable);
    this.pool = newPool();
    const access = {
      open: () => this.open(),
      read: <R extends QueryResultRow>(sql: string, values: unknown[]) => this.read<R>(sql, values),
      change: <R extends QueryResultRow>(sql: string, values: unknown[]) => this.change<R>(sql, values),
      transaction: <T>(fn: (client: PoolClient) => Promise<T>) => this.transaction(fn),
    };
    this.push = new PgPushStore(access);
    this.imports = new PgImportStore(access);
  }

  protected commitBatch(batch: WriteBatch): Promise<void> {
    const pool = this.pool;
    return this.watched(pool, commitBatch(pool, batch));
  }

  /**
   * `done` (an operation on `pool`), its outcome told to the outage watch (an error of the
   * database's unavailability is marked there). A connection of `pool` that did not answer in
   * time (pg closed it) makes its siblings suspect: the ones of the same moment are likely silent
   * too (an address that moved, a partition), and each would cost another timeout. The pool is
   * replaced: its idle connections are closed, its busy ones when they are given back.
   */
  private watched<T>(pool: Pool, done: Promise<T>): Promise<T> {
    return done.then(
      (value) => {
        this.watch.succeeded();
        return value;
      },
      (err: unknown) => {
        if (pgUnavailable(err)) this.watch.failed(err);
        if (pgSilent(err) && pool === this.pool && !this.closed) {
          this.pool = this.newPool();
          pool.end().catch(() => undefined);
        }
        throw err;
      },
    );
  }

  /** Ends the pool once the direct writes are done. */
  protected async release(): Promise<void> {
    await this.writes;
    await this.pool.end();
  }


  private async query<R extends QueryResultRow>(sql: string, values: unknown[]): Promise<QueryResult<R>> {
    try {
      const pool = this.pool;
      return await this.watched(pool, pool.query<R>(sql, values));
    } catch (err) {
      throw describePgError(err, this.target);
    }
  }

  /** The rows of a read, once the direct writes asked before it are done (read-your-writes). */
  private async read<R extends QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    this.open();
    if (this.writing > 0) {
      await this.writes;
      this.open();
    }
    return (await this.query<R>(sql, values)).rows;
  }

  /**
   * Runs a direct write after the ones asked before it, as SQLite applies them: one at a time, in
   * call order (ids such as the command audit's increase in call order, and a read waits for the
   * writes asked before it).
   */
  private write<T>(fn: () => Promise<T>): Promise<T> {
    this.open();
    this.writing++;
    const run = this.writes.then(fn);
    this.writes = run.then(
      () => void this.writing--,
      () => void this.writing--,
    );
    return run;
  }

  /** One statement as a direct write. */
  private change<R extends QueryResultRow>(sql: string, values: unknown[]): Promise<QueryResult<R>> {
    return this.write(() => this.query<R>(sql, values));
  }

  /** How many rows a direct write changed. */
  private async changed(sql: string, values: unknown[]): Promise<number> {
    return (await this.change(sql, values)).rowCount ?? 0;
  }

  /** Runs `fn` in one transaction on one connection, as a direct write. */
  private transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.write(() => {
      const pool = this.pool;
      return this.watched(pool, this.inTransaction(pool, fn));
    });
  }

  private async inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((err: unknown) => Promise.reject(describePgError(err, this.target)));
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw describePgError(err, this.target);
    } finally {
      client.release(broken);
    }
  }

  // --- owners ---

  async addOwner(name: string, passwordHash: string, rights: string): Promise<Owner> {
    try {
      const { rows } = await this.change<OwnerRow>(
        `INSERT INTO owners (name, password_hash, rights, created) VALUES ($1, $2, $3, $4) RETURNING ${OWNER}`,
        [name, passwordHash, rights, nowSeconds()],
      );
      return toOwner(rows[0]!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new VtsError('VTS_ERR_DUPLICATE_USER', name);
      throw err;
    }
  }

  async getOwnerByName(name: string): Promise<OwnerWithSecret | undefined> {
    const r = (await this.read<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE ${NAME_IS}`, [name]))[0];
    return r && { ...toOwner(r), passwordHash: r.password_hash };
  }

  async getOwnerById(id: number): Promise<Owner | undefined> {
    const r = (await this.read<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE id = $1`, [id]))[0];
    return r && toOwner(r);
  }

  async listOwners(): Promise<Owner[]> {
    return (await this.read<OwnerRow>(`SELECT ${OWNER} FROM owners ORDER BY lower(name), id`)).map(toOwner);
  }

  async setOwnerPassword(name: string, passwordHash: string, expected?: string): Promise<boolean> {
    if (expected !== undefined) {
      return (await this.changed(`UPDATE owners SET password_hash = $2 WHERE ${NAME_IS} AND password_hash = $3`, [name, passwordHash, expected])) > 0;
    }
    return (await this.changed(`UPDATE owners SET password_hash = $2 WHERE ${NAME_IS}`, [name, passwordHash])) > 0;
  }

  async setOwnerRights(name: string, rights: string): Promise<boolean> {
    return (await this.changed(`UPDATE owners SET rights = $2 WHERE ${NAME_IS}`, [name, rights])) > 0;
  }

  async removeOwner(name: string): Promise<boolean> {
    const ownerId = await this.transaction(async (c): Promise<number | undefined> => {
      const owner = (await c.query<OwnerRow>(`SELECT ${OWNER} FROM owners WHERE ${NAME_IS} FOR UPDATE`, [name])).rows[0];
      if (!owner) return undefined;
      const n = (await c.query<{ n: number }>('SELECT count(*) AS n FROM vehicles WHERE owner_id = $1', [owner.id])).rows[0]!.n;
      if (n > 0) throw new VtsError('VTS_ERR_USER_HAS_VEHICLES', `${owner.name} owns ${n} vehicle(s)`);
      // tokens and push subscriptions go by ON DELETE CASCADE, auto-provisioning records are kept (SET NULL)
      await c.query('DELETE FROM owners WHERE id = $1', [owner.id]);
      return owner.id;
    }).catch((err: unknown) => {
      // a vehicle added by another process meanwhile
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_USER_HAS_VEHICLES', name);
      throw err;
    });
    if (ownerId === undefined) return false;
    this.buffer.discardTokenTouches(ownerId);
    return true;
  }

  // --- vehicles ---

  async addVehicle(v: NewVehicle): Promise<Vehicle> {
    const id = v.id.toUpperCase();
    const type: VehicleType = v.type ?? 'CAR';
    try {
      const { rows } = await this.change<VehicleRow>(
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

  async getVehicle(id: string): Promise<Vehicle | undefined> {
    this.open();
    const vid = id.toUpperCase();
    await this.after(this.buffer.committedFor(vid));
    const r = (await this.read<VehicleRow>(`${VEHICLE} WHERE v.id = $1`, [vid]))[0];
    return r && toVehicle(r);
  }

  async listVehicles(ownerId?: number): Promise<Vehicle[]> {
    this.open();
    await this.after(this.buffer.committed());
    const rows =
      ownerId === undefined
        ? await this.read<VehicleRow>(`${VEHICLE} ORDER BY v.id`)
        : await this.read<VehicleRow>(`${VEHICLE} WHERE v.owner_id = $1 ORDER BY v.id`, [ownerId]);
    return rows.map(toVehicle);
  }



  // --- latest car messages ---


  async getCarMessages(vehicleId: string, includeInvalid = false): Promise<CarMessage[]> {
    this.open();
    const vid = vehicleId.toUpperCase();
    await this.after(this.buffer.committedFor(vid));
    const rows = await this.read<CarMessageRow>(
      'SELECT code, data, time, paranoid::int AS paranoid, ptoken, valid::int AS valid FROM car_messages WHERE vehicle_id = $1',
      [vid],
    );
    return toCarMessages(rows, includeInvalid);
  }

  // --- historical records ---



  async summarizeHistorical(vehicleId: string, since: number): Promise<HistoricalSummary[]> {
    await this.flushed();
    // REF's totalsize counts bytes (MySQL LENGTH), hence octet_length
    const rows = await this.read<SummaryRow>(
      `SELECT min(type) AS type, count(DISTINCT record_number) AS distinct_records, count(*) AS total_records,
         sum(octet_length(type) + octet_length(data) + octet_length(vehicle_id) + 20) AS total_size,
         min(time) AS first, max(time) AS last
       FROM historical_all WHERE vehicle_id = $1 AND time > $2
       GROUP BY lower(type) ORDER BY lower(type)`,
      [vehicleId.toUpperCase(), bound(since)],
    );
    return rows.map(toSummary);
  }

  async getHistorical(vehicleId: string, type: string, since: number): Promise<HistoricalRecord[]> {
    await this.flushed();
    const vid = vehicleId.toUpperCase();
    const rows = await this.read<HistoricalRow>(
      `SELECT type, record_number, time, data, expires FROM historical_all
       WHERE vehicle_id = $1 AND lower(type) = lower($2::text COLLATE "C") AND time > $3 ORDER BY time, record_number`,
      [vid, type, bound(since)],
    );
    return rows.map((r) => toHistorical(vid, r));
  }

  async purgeExpiredHistorical(now: number, limit: number): Promise<number> {
    await this.flushed();
    if (!(limit > 0)) return 0;
    return this.changed(
      'DELETE FROM historical WHERE ctid = ANY (ARRAY(SELECT ctid FROM historical WHERE expires < $1 LIMIT $2))',
      [now, Math.floor(limit)],
    );
  }

  // --- traffic accounting ---


  async getUtilisation(vehicleId: string, sinceDay: number): Promise<UtilisationRow[]> {
    await this.flushed();
    const rows = await this.read<UtilisationDbRow>(
      `SELECT day, client_type, rx, tx FROM utilisation WHERE vehicle_id = $1 AND day >= $2 ORDER BY day DESC, client_type`,
      [vehicleId.toUpperCase(), bound(sinceDay)],
    );
    return rows.map(toUtilisation);
  }

  async purgeUtilisation(beforeDay: number): Promise<number> {
    await this.flushed();
    return this.changed('DELETE FROM utilisation WHERE day < $1', [beforeDay]);
  }

  // --- API tokens ---

  async addApiToken(t: ApiToken): Promise<void> {
    try {
      await this.changed(`INSERT INTO api_tokens (${TOKEN}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        t.ownerId,
        t.tokenHash,
        t.application,
        t.purpose,
        t.permit,
        t.created,
        t.lastUsed,
      ]);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${t.ownerId}`);
      throw err;
    }
  }

  /** The token as committed: a use still buffered shows in `lastUsed` once committed. */
  async findApiToken(ownerId: number, tokenHash: string): Promise<ApiToken | undefined> {
    const r = (await this.read<ApiTokenRow>(`SELECT ${TOKEN} FROM api_tokens WHERE owner_id = $1 AND token_hash = $2`, [ownerId, tokenHash]))[0];
    return r && toApiToken(r);
  }

  async listApiTokens(ownerId: number): Promise<ApiToken[]> {
    this.open();
    await this.after(this.buffer.committed());
    const rows = await this.read<ApiTokenRow>(`SELECT ${TOKEN} FROM api_tokens WHERE owner_id = $1 ORDER BY created, token_hash`, [ownerId]);
    return rows.map(toApiToken);
  }

  async removeApiToken(ownerId: number, tokenHash: string): Promise<boolean> {
    this.open();
    this.buffer.discardTokenTouches(ownerId, tokenHash);
    return (await this.changed('DELETE FROM api_tokens WHERE owner_id = $1 AND token_hash = $2', [ownerId, tokenHash])) > 0;
  }


  // --- push subscriptions ---

  upsertPushSubscription(p: PushSubscription): Promise<void> {
    return this.push.upsertSubscription(p);
  }

  listPushSubscriptions(ownerId: number, vehicleId: string): Promise<PushSubscription[]> {
    return this.push.subscriptionsOf(ownerId, vehicleId);
  }

  // --- auto-provisioning ---

  async getAutoProvision(key: string): Promise<AutoProvisionRecord | undefined> {
    const r = (await this.read<AutoProvisionRow>('SELECT key, server_token, server_digest, message, owner_id FROM autoprovision WHERE key = $1', [key]))[0];
    return r && toAutoProvision(r);
  }

  async putAutoProvision(rec: AutoProvisionRecord): Promise<void> {
    try {
      await this.changed(
        `INSERT INTO autoprovision (key, server_token, server_digest, message, owner_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET server_token = excluded.server_token,
           server_digest = excluded.server_digest, message = excluded.message, owner_id = excluded.owner_id`,
        [rec.key, rec.serverToken, rec.serverDigest, rec.message, rec.ownerId],
      );
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${rec.ownerId}`);
      throw err;
    }
  }

  async removeAutoProvision(key: string): Promise<boolean> {
    return (await this.changed('DELETE FROM autoprovision WHERE key = $1', [key])) > 0;
  }

  // --- command audit ---

  /** Rows of vehicles removed meanwhile are dropped. */
  async addCommandAudit(e: CommandAuditEntry): Promise<void> {
    await this.changed(
      `INSERT INTO command_audit (vehicle_id, time, caller, via, kind, command, result, duration_ms)
       SELECT v.id, $2, $3, $4, $5, $6, $7, $8 FROM vehicles v WHERE v.id = $1`,
      [e.vehicleId.toUpperCase(), e.time, e.caller, e.via, e.kind, e.command, e.result, Math.round(e.durationMs)],
    );
  }

  async listCommandAudit(vehicleId: string, limit: number): Promise<(CommandAuditEntry & { id: number })[]> {
    const rows = await this.read<CommandAuditRow>(
      `SELECT id, vehicle_id, time, caller, via, kind, command, result, duration_ms FROM command_audit
       WHERE vehicle_id = $1 ORDER BY id DESC LIMIT $2`,
      [vehicleId.toUpperCase(), Math.max(0, Math.floor(limit))],
    );
    return rows.map(toCommandAudit);
  }

  async databaseId(): Promise<string> {
    const [row] = await this.read<{ value: string }>("SELECT value FROM vts_meta WHERE key = 'database_id'", []);
    return row!.value;
  }
}
