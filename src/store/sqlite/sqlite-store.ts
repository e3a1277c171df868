/**
 * The SQLite implementation of Store (better-sqlite3, WAL): the connection, its lifecycle, and
 * the order of every call with the buffered writes; the statements live by concern beside it
 * (owners and tokens in sqlite-accounts.ts, vehicles and car messages in sqlite-vehicles.ts,
 * history, utilisation and command audit in sqlite-records.ts, the write-behind batch in
 * sqlite-batch.ts, push in sqlite-push.ts, drives, charges and places in sqlite-drives.ts,
 * `vts import` in sqlite-import.ts).
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
import { BackgroundCheckpointer } from './sqlite-checkpointer.js';
import type {
  ApiToken,
  CarMessage,
  CommandAuditEntry,
  HistoricalEntry,
  HistoricalPosition,
  HistoricalRecord,
  HistoricalSummary,
  AddVehicleResult,
  NewVehicle,
  Owner,
  OwnerFlags,
  OwnerWithSecret,
  PushSubscription,
  AutoProvisionRecord,
  Store,
  StoreOptions,
  UtilisationRow,
  Vehicle,
  VehicleChange,
} from '../store.js';
import { BufferedStore } from '../buffered-store.js';
import type { WriteBatch } from '../write-batch.js';
import { migrate } from './migrations.js';
import { SqliteAccounts } from './sqlite-accounts.js';
import { batchCommitter } from './sqlite-batch.js';
import { SqliteCaches, tokenKey } from './sqlite-caches.js';
import { retryable } from './sqlite-errors.js';
import { SqliteAbrpStore } from './sqlite-abrp.js';
import { SqliteFactorsStore } from './sqlite-factors.js';
import { SqliteSharesStore } from './sqlite-shares.js';
import { SqliteAlertsStore } from './sqlite-alerts.js';
import { SqliteAuditStore } from './sqlite-audit.js';
import { SqliteAdminStore } from './sqlite-admin.js';
import { SqliteSignupStore } from './sqlite-signup.js';
import { SqliteDrivesStore } from './sqlite-drives.js';
import { SqliteImportStore } from './sqlite-import.js';
import { SqlitePushStore } from './sqlite-push.js';
import { SqliteRecords } from './sqlite-records.js';
import { SqliteHistoryStatsStore } from './sqlite-history-stats.js';
import { SqliteVehicles } from './sqlite-vehicles.js';
import { relaxedCommit } from './sqlite-relaxed.js';

const BUSY_TIMEOUT_MS = 5000;

export class SqliteStore extends BufferedStore implements Store {
  private readonly db: Database.Database;
  /** The push outbox, and the push_subscriptions statements (src/store/sqlite/sqlite-push.ts). */
  readonly push: SqlitePushStore;
  /** What `vts import` writes (src/store/sqlite/sqlite-import.ts). */
  readonly imports: SqliteImportStore;
  /** Drives, charges and places (src/store/sqlite/sqlite-drives.ts). */
  readonly drives: SqliteDrivesStore;
  /** ABRP links (src/store/sqlite/sqlite-abrp.ts). */
  readonly abrp: SqliteAbrpStore;
  /** Second factors (src/store/sqlite/sqlite-factors.ts). */
  readonly factors: SqliteFactorsStore;
  /** Shares (src/store/sqlite/sqlite-shares.ts). */
  readonly shares: SqliteSharesStore;
  /** Alert rules and state (src/store/sqlite/sqlite-alerts.ts). */
  readonly alerts: SqliteAlertsStore;
  /** The audit log (src/store/sqlite/sqlite-audit.ts). */
  readonly audit: SqliteAuditStore;
  /** The operator's reads (src/store/sqlite/sqlite-admin.ts). */
  readonly admin: SqliteAdminStore;
  /** Sign-up and recovery (src/store/sqlite/sqlite-signup.ts). */
  readonly signup: SqliteSignupStore;
  /** The historical records' plans and space (src/store/sqlite/sqlite-history-stats.ts). */
  readonly historyStats: SqliteHistoryStatsStore;
  private readonly commitTransaction: (batch: WriteBatch) => void;
  private readonly caches: SqliteCaches;
  private readonly accounts: SqliteAccounts;
  private readonly vehicles: SqliteVehicles;
  private readonly records: SqliteRecords;
  private readonly databaseIdOf: Database.Statement<[], string>;
  private readonly checkpointer: BackgroundCheckpointer | undefined;

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
    this.caches = new SqliteCaches(db);
    this.accounts = new SqliteAccounts(db, this.caches);
    this.vehicles = new SqliteVehicles(db, this.caches);
    this.records = new SqliteRecords(db);
    this.databaseIdOf = db.prepare<[], string>("SELECT value FROM vts_meta WHERE key = 'database_id'").pluck();
    this.push = new SqlitePushStore(db, () => this.open());
    this.drives = new SqliteDrivesStore(db, () => this.open());
    this.abrp = new SqliteAbrpStore(db, () => this.open());
    this.factors = new SqliteFactorsStore(db, this.caches, () => this.open());
    this.shares = new SqliteSharesStore(db, () => this.open());
    this.alerts = new SqliteAlertsStore(db, () => this.open());
    this.audit = new SqliteAuditStore(db, () => this.open());
    this.admin = new SqliteAdminStore(db, () => this.open());
    this.signup = new SqliteSignupStore(db, this.caches, () => this.open());
    this.historyStats = new SqliteHistoryStatsStore(db, () => this.open());
    this.imports = new SqliteImportStore(
      db,
      () => this.open(),
      () => this.caches.clear(),
    );
    this.commitTransaction = batchCommitter(db);
    if (opts.checkpointEveryMs !== undefined && file !== ':memory:') {
      const report = opts.onBackgroundError ?? (() => undefined);
      try {
        this.checkpointer = BackgroundCheckpointer.start(db, file, opts.checkpointEveryMs, (message) => report(new Error(message)));
      } catch (err) {
        // no worker (the platform refused a thread): SQLite checkpoints inside commits, as by default
        report(new Error(`the checkpoint worker did not start: ${err instanceof Error ? err.message : String(err)}`));
      }
    }
  }

  protected commitBatch(batch: WriteBatch): void {
    if (batch.durable) this.commitTransaction(batch);
    else relaxedCommit(this.db, () => this.commitTransaction(batch));
    const caches = this.caches;
    for (const vid of batch.carMessages.keys()) caches.forget(vid);
    for (const vid of batch.lastUpdates.keys()) caches.forget(vid);
    for (const vid of batch.paranoidTokens.keys()) caches.forget(vid);
    for (const vid of batch.removals.keys()) caches.forget(vid);
    for (const t of batch.tokenTouches.values()) caches.tokens.delete(tokenKey(t.ownerId, t.tokenHash));
  }

  protected async release(): Promise<void> {
    await this.checkpointer?.stop();
    this.db.close();
  }

  /** Commits everything buffered before a read of the tables the buffer writes to. */
  private async flushedAll(): Promise<void> {
    this.open();
    await this.buffer.flush();
    this.open();
  }

  // --- owners ---

  async addOwner(name: string, passwordHash: string, rights: string): Promise<Owner> {
    this.open();
    return this.accounts.addOwner(name, passwordHash, rights);
  }

  async getOwnerByName(name: string): Promise<OwnerWithSecret | undefined> {
    this.open();
    return this.accounts.ownerByName(name);
  }

  async getOwnerById(id: number): Promise<Owner | undefined> {
    this.open();
    return this.accounts.ownerById(id);
  }

  async listOwners(): Promise<Owner[]> {
    this.open();
    return this.accounts.listOwners();
  }

  async setOwnerPassword(name: string, passwordHash: string, expected?: string): Promise<boolean> {
    this.open();
    return this.accounts.setOwnerPassword(name, passwordHash, expected);
  }

  async setOwnerRights(name: string, rights: string): Promise<boolean> {
    this.open();
    return this.accounts.setOwnerRights(name, rights);
  }

  async setOwnerFlags(name: string, flags: OwnerFlags): Promise<boolean> {
    this.open();
    return this.accounts.setOwnerFlags(name, flags);
  }

  async removeOwner(name: string): Promise<boolean> {
    this.open();
    const ownerId = this.accounts.removeOwner(name);
    if (ownerId === undefined) return false;
    this.buffer.discardTokenTouches(ownerId);
    return true;
  }

  // --- vehicles ---

  async addVehicle(v: NewVehicle): Promise<Vehicle> {
    this.open();
    return this.vehicles.addVehicle(v);
  }

  async addVehicles(rows: readonly NewVehicle[]): Promise<AddVehicleResult[]> {
    this.open();
    return this.vehicles.addVehicles(rows);
  }

  async getVehicle(id: string): Promise<Vehicle | undefined> {
    this.open();
    const vid = id.toUpperCase();
    // not awaited when nothing is buffered: the read then answers in this turn
    const buffered = this.buffer.committedFor(vid);
    if (buffered) {
      await buffered;
      this.open();
    }
    return this.vehicles.vehicle(vid);
  }

  async updateVehicle(id: string, change: VehicleChange): Promise<Vehicle | undefined> {
    this.open();
    return this.vehicles.updateVehicle(id.toUpperCase(), change);
  }

  peekVehicle(id: string): Vehicle | undefined {
    const vid = id.toUpperCase();
    return this.peekable(vid) ? this.vehicles.cachedVehicle(vid) : undefined;
  }

  async listVehicles(ownerId?: number): Promise<Vehicle[]> {
    this.open();
    const buffered = this.buffer.committed();
    if (buffered) {
      await buffered;
      this.open();
    }
    return this.vehicles.listVehicles(ownerId);
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
    return this.vehicles.carMessages(vid, includeInvalid);
  }

  peekCarMessages(vehicleId: string): CarMessage[] | undefined {
    const vid = vehicleId.toUpperCase();
    return this.peekable(vid) ? this.vehicles.cachedCarMessages(vid) : undefined;
  }

  // --- historical records ---

  async summarizeHistorical(vehicleId: string, since: number): Promise<HistoricalSummary[]> {
    await this.flushedAll();
    return this.records.summarizeHistorical(vehicleId, since);
  }

  async getHistorical(vehicleId: string, type: string, since: number): Promise<HistoricalRecord[]> {
    await this.flushedAll();
    return this.records.getHistorical(vehicleId, type, since);
  }

  async pageHistorical(vehicleId: string, type: string, after: HistoricalPosition | null, limit: number): Promise<HistoricalEntry[]> {
    await this.flushedAll();
    return this.records.pageHistorical(vehicleId, type, after, limit);
  }

  async countHistorical(vehicleId: string, types: readonly string[]): Promise<number> {
    await this.flushedAll();
    return this.records.countHistorical(vehicleId, types);
  }

  async purgeExpiredHistorical(now: number, limit: number): Promise<number> {
    await this.flushedAll();
    // committed as the write-behind batches are (synchronous=NORMAL: no fsync on the event loop
    // for each batch of the purge); a power loss can only bring back records that expired
    return relaxedCommit(this.db, () => this.records.purgeExpiredHistorical(now, limit));
  }

  // --- traffic accounting ---

  async getUtilisation(vehicleId: string, sinceDay: number): Promise<UtilisationRow[]> {
    await this.flushedAll();
    return this.records.getUtilisation(vehicleId, sinceDay);
  }

  async purgeUtilisation(beforeDay: number): Promise<number> {
    await this.flushedAll();
    return this.records.purgeUtilisation(beforeDay);
  }

  // --- API tokens ---

  async addApiToken(t: ApiToken): Promise<void> {
    this.open();
    this.accounts.addApiToken(t);
  }

  /**
   * The token as committed: a use still buffered shows in `lastUsed` once committed (this read,
   * on the path of every token login, does not wait for it; `listApiTokens` does).
   */
  async findApiToken(ownerId: number, tokenHash: string): Promise<ApiToken | undefined> {
    this.open();
    return this.accounts.findApiToken(ownerId, tokenHash);
  }

  async listApiTokens(ownerId: number): Promise<ApiToken[]> {
    this.open();
    const buffered = this.buffer.committed();
    if (buffered) {
      await buffered;
      this.open();
    }
    return this.accounts.listApiTokens(ownerId);
  }

  async removeApiToken(ownerId: number, tokenHash: string): Promise<boolean> {
    this.open();
    this.buffer.discardTokenTouches(ownerId, tokenHash);
    return this.accounts.removeApiToken(ownerId, tokenHash);
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
    return this.accounts.getAutoProvision(key);
  }

  async putAutoProvision(rec: AutoProvisionRecord): Promise<void> {
    this.open();
    this.accounts.putAutoProvision(rec);
  }

  async removeAutoProvision(key: string): Promise<boolean> {
    this.open();
    return this.accounts.removeAutoProvision(key);
  }

  // --- command audit ---

  async addCommandAudit(e: CommandAuditEntry): Promise<void> {
    this.open();
    this.records.addCommandAudit(e);
  }

  async listCommandAudit(vehicleId: string, limit: number): Promise<(CommandAuditEntry & { id: number })[]> {
    this.open();
    return this.records.listCommandAudit(vehicleId, limit);
  }

  async databaseId(): Promise<string> {
    this.open();
    return this.databaseIdOf.get()!;
  }
}
