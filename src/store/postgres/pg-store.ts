/**
 * The PostgreSQL implementation of Store (`pg`, a pool of connections): its lifecycle and the
 * order of every call with the buffered writes; the way to the database is pg-connection.ts, the
 * statements live by concern beside it (owners and tokens in pg-accounts.ts, vehicles and car
 * messages in pg-vehicles.ts, history, utilisation and command audit in pg-records.ts, the
 * write-behind batch in pg-batch.ts, push in pg-push.ts, drives, charges and places in pg-drives.ts,
 * `vts import` in pg-import.ts).
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
import type { Pool } from 'pg';
import type {
  ApiToken,
  AutoProvisionRecord,
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
  Store,
  StoreOptions,
  UtilisationRow,
  Vehicle,
  VehicleChange,
} from '../store.js';
import { BufferedStore } from '../buffered-store.js';
import type { WriteBatch } from '../write-batch.js';
import type { OutageWatch } from '../outage.js';
import { PgAccounts } from './pg-accounts.js';
import { PgConnection } from './pg-connection.js';
import { pgRetryable, type PgTarget } from './pg-errors.js';
import { PgAbrpStore } from './pg-abrp.js';
import { PgAuditStore } from './pg-audit.js';
import { PgAdminStore } from './pg-admin.js';
import { PgFactorsStore } from './pg-factors.js';
import { PgSharesStore } from './pg-shares.js';
import { PgAlertsStore } from './pg-alerts.js';
import { PgSignupStore } from './pg-signup.js';
import { PgDrivesStore } from './pg-drives.js';
import { PgImportStore } from './pg-import.js';
import { PgPushStore } from './pg-push.js';
import { PgRecords } from './pg-records.js';
import { PgHistoryStatsStore } from './pg-history-stats.js';
import { PgVehicles } from './pg-vehicles.js';

export class PgStore extends BufferedStore implements Store {
  /** The pool, the direct writes and the transactions (src/store/postgres/pg-connection.ts). */
  private readonly db: PgConnection;
  /** The push outbox, and the push_subscriptions statements (src/store/postgres/pg-push.ts). */
  readonly push: PgPushStore;
  /** What `vts import` writes (src/store/postgres/pg-import.ts). */
  readonly imports: PgImportStore;
  /** Drives, charges and places (src/store/postgres/pg-drives.ts). */
  readonly drives: PgDrivesStore;
  /** ABRP links (src/store/postgres/pg-abrp.ts). */
  readonly abrp: PgAbrpStore;
  /** Second factors (src/store/postgres/pg-factors.ts). */
  readonly factors: PgFactorsStore;
  /** Shares (src/store/postgres/pg-shares.ts). */
  readonly shares: PgSharesStore;
  /** Alert rules and state (src/store/postgres/pg-alerts.ts). */
  readonly alerts: PgAlertsStore;
  /** The audit log (src/store/postgres/pg-audit.ts). */
  readonly audit: PgAuditStore;
  /** The operator's reads (src/store/postgres/pg-admin.ts). */
  readonly admin: PgAdminStore;
  /** Sign-up and recovery (src/store/postgres/pg-signup.ts). */
  readonly signup: PgSignupStore;
  /** The historical records' plans and space (src/store/postgres/pg-history-stats.ts). */
  readonly historyStats: PgHistoryStatsStore;
  private readonly accounts: PgAccounts;
  private readonly vehicles: PgVehicles;
  private readonly records: PgRecords;

  /**
   * Uses pools of `newPool` on a database whose schema is migrated (openPgStore in
   * src/store/postgres/pg-open.ts); `watch` is told of every operation's outcome (an outage is
   * reported once).
   */
  constructor(newPool: () => Pool, target: PgTarget, watch: OutageWatch, opts: StoreOptions = {}) {
    super(opts, pgRetryable);
    this.db = new PgConnection(
      newPool,
      target,
      watch,
      () => this.open(),
      () => this.closed,
    );
    this.push = new PgPushStore(this.db);
    this.drives = new PgDrivesStore(this.db);
    this.abrp = new PgAbrpStore(this.db);
    this.factors = new PgFactorsStore(this.db);
    this.shares = new PgSharesStore(this.db);
    this.alerts = new PgAlertsStore(this.db);
    this.audit = new PgAuditStore(this.db);
    this.admin = new PgAdminStore(this.db);
    this.signup = new PgSignupStore(this.db);
    this.historyStats = new PgHistoryStatsStore(this.db);
    this.imports = new PgImportStore(this.db);
    this.accounts = new PgAccounts(this.db);
    this.vehicles = new PgVehicles(this.db);
    this.records = new PgRecords(this.db);
  }

  protected commitBatch(batch: WriteBatch): Promise<void> {
    return this.db.commit(batch);
  }

  /** Ends the pool once the direct writes are done. */
  protected async release(): Promise<void> {
    await this.db.end();
  }

  // --- owners ---

  addOwner(name: string, passwordHash: string, rights: string): Promise<Owner> {
    return this.accounts.addOwner(name, passwordHash, rights);
  }

  getOwnerByName(name: string): Promise<OwnerWithSecret | undefined> {
    return this.accounts.getOwnerByName(name);
  }

  getOwnerById(id: number): Promise<Owner | undefined> {
    return this.accounts.getOwnerById(id);
  }

  listOwners(): Promise<Owner[]> {
    return this.accounts.listOwners();
  }

  setOwnerPassword(name: string, passwordHash: string, expected?: string): Promise<boolean> {
    return this.accounts.setOwnerPassword(name, passwordHash, expected);
  }

  setOwnerRights(name: string, rights: string): Promise<boolean> {
    return this.accounts.setOwnerRights(name, rights);
  }

  setOwnerFlags(name: string, flags: OwnerFlags): Promise<boolean> {
    return this.accounts.setOwnerFlags(name, flags);
  }

  async removeOwner(name: string): Promise<boolean> {
    const ownerId = await this.accounts.removeOwner(name);
    if (ownerId === undefined) return false;
    this.buffer.discardTokenTouches(ownerId);
    return true;
  }

  // --- vehicles ---

  addVehicle(v: NewVehicle): Promise<Vehicle> {
    return this.vehicles.addVehicle(v);
  }

  addVehicles(rows: readonly NewVehicle[]): Promise<AddVehicleResult[]> {
    return this.vehicles.addVehicles(rows);
  }

  async getVehicle(id: string): Promise<Vehicle | undefined> {
    this.open();
    const vid = id.toUpperCase();
    await this.after(this.buffer.committedFor(vid));
    return this.vehicles.vehicle(vid);
  }

  updateVehicle(id: string, change: VehicleChange): Promise<Vehicle | undefined> {
    return this.vehicles.updateVehicle(id.toUpperCase(), change);
  }

  /** Never at once: the PostgreSQL store keeps no read cache (other nodes write the same rows). */
  peekVehicle(): Vehicle | undefined {
    return undefined;
  }

  async listVehicles(ownerId?: number): Promise<Vehicle[]> {
    this.open();
    await this.after(this.buffer.committed());
    return this.vehicles.listVehicles(ownerId);
  }

  // --- latest car messages ---

  async getCarMessages(vehicleId: string, includeInvalid = false): Promise<CarMessage[]> {
    this.open();
    const vid = vehicleId.toUpperCase();
    await this.after(this.buffer.committedFor(vid));
    return this.vehicles.carMessages(vid, includeInvalid);
  }

  /** Never at once, as `peekVehicle`. */
  peekCarMessages(): CarMessage[] | undefined {
    return undefined;
  }

  // --- historical records ---

  async summarizeHistorical(vehicleId: string, since: number): Promise<HistoricalSummary[]> {
    await this.flushed();
    return this.records.summarizeHistorical(vehicleId, since);
  }

  async getHistorical(vehicleId: string, type: string, since: number): Promise<HistoricalRecord[]> {
    await this.flushed();
    return this.records.getHistorical(vehicleId, type, since);
  }

  async pageHistorical(vehicleId: string, type: string, after: HistoricalPosition | null, limit: number): Promise<HistoricalEntry[]> {
    await this.flushed();
    return this.records.pageHistorical(vehicleId, type, after, limit);
  }

  async countHistorical(vehicleId: string, types: readonly string[]): Promise<number> {
    await this.flushed();
    return this.records.countHistorical(vehicleId, types);
  }

  async purgeExpiredHistorical(now: number, limit: number): Promise<number> {
    await this.flushed();
    return this.records.purgeExpiredHistorical(now, limit);
  }

  // --- traffic accounting ---

  async getUtilisation(vehicleId: string, sinceDay: number): Promise<UtilisationRow[]> {
    await this.flushed();
    return this.records.getUtilisation(vehicleId, sinceDay);
  }

  async purgeUtilisation(beforeDay: number): Promise<number> {
    await this.flushed();
    return this.records.purgeUtilisation(beforeDay);
  }

  // --- API tokens ---

  addApiToken(t: ApiToken): Promise<void> {
    return this.accounts.addApiToken(t);
  }

  /** The token as committed: a use still buffered shows in `lastUsed` once committed. */
  findApiToken(ownerId: number, tokenHash: string): Promise<ApiToken | undefined> {
    return this.accounts.findApiToken(ownerId, tokenHash);
  }

  async listApiTokens(ownerId: number): Promise<ApiToken[]> {
    this.open();
    await this.after(this.buffer.committed());
    return this.accounts.listApiTokens(ownerId);
  }

  async removeApiToken(ownerId: number, tokenHash: string): Promise<boolean> {
    this.open();
    this.buffer.discardTokenTouches(ownerId, tokenHash);
    return this.accounts.removeApiToken(ownerId, tokenHash);
  }

  // --- push subscriptions ---

  upsertPushSubscription(p: PushSubscription): Promise<void> {
    return this.push.upsertSubscription(p);
  }

  listPushSubscriptions(ownerId: number, vehicleId: string): Promise<PushSubscription[]> {
    return this.push.subscriptionsOf(ownerId, vehicleId);
  }

  // --- auto-provisioning ---

  getAutoProvision(key: string): Promise<AutoProvisionRecord | undefined> {
    return this.accounts.getAutoProvision(key);
  }

  putAutoProvision(rec: AutoProvisionRecord): Promise<void> {
    return this.accounts.putAutoProvision(rec);
  }

  removeAutoProvision(key: string): Promise<boolean> {
    return this.accounts.removeAutoProvision(key);
  }

  // --- command audit ---

  addCommandAudit(e: CommandAuditEntry): Promise<void> {
    return this.records.addCommandAudit(e);
  }

  listCommandAudit(vehicleId: string, limit: number): Promise<(CommandAuditEntry & { id: number })[]> {
    return this.records.listCommandAudit(vehicleId, limit);
  }

  async databaseId(): Promise<string> {
    const [row] = await this.db.read<{ value: string }>("SELECT value FROM vts_meta WHERE key = 'database_id'", []);
    return row!.value;
  }
}
