/**
 * The persistence interface of vts. Nothing outside src/store/ writes SQL; every database gets
 * one implementation of this interface (SQLite now, PostgreSQL next).
 *
 * Conventions:
 * - Times are epoch seconds (integers, UTC).
 * - Vehicle ids are stored and looked up upper-cased; callers pass them upper-cased.
 * - User names are unique case-insensitively and looked up case-insensitively.
 * - Hot-path writes (`putCarMessage`, `addHistorical` without `durable`, `addUtilisation`,
 *   `touchApiToken`) are buffered and committed in batches at most `writeBehindMs` later;
 *   `flush()` commits them now.
 * - "Seen" implies "committed": reads return committed data only. A read of something still
 *   buffered waits for its commit (so reads still see the caller's own writes), and whatever the
 *   server passes on to a client without reading it back (a car message forwarded to an app, an
 *   ack) waits for the commit of what was written before it: `afterCommit`. Waiting brings the
 *   commit forward to the end of the current event-loop turn, so that one commit serves
 *   everything buffered and waited for in that turn. Committed means: survives a crash of the
 *   process. Direct writes and durable historical writes also survive a power loss; other
 *   buffered writes may lose their last moments to one (see the implementation).
 * - A database that does not answer holds the buffered writes (tried again until it answers, up
 *   to a bound that slows the cars: `congested()`); what waits for them waits, and a read that
 *   would wait for them is refused with VTS_ERR_STORE_UNAVAILABLE.
 */
import type { AbrpStore } from './abrp-store.js';
import type { FactorsStore } from './factors-store.js';
import type { AlertsStore } from './alerts-store.js';
import type { AdminStore } from './admin-store.js';
import type { AuditStore } from './audit-store.js';
import type { DrivesStore } from './drives-store.js';
import type { SignupStore } from './signup-store.js';
import type { HistoryStatsStore } from './history-stats-store.js';
import type { ImportStore } from './import-store.js';
import type { PushStore } from './push-store.js';
import type { SharesStore } from './shares-store.js';
import type { OutageEvent } from './outage.js';
import type {
  AddVehicleResult,
  ApiToken,
  AutoProvisionRecord,
  CarMessage,
  CommandAuditEntry,
  HistoricalRecord,
  HistoricalSummary,
  NewVehicle,
  Owner,
  OwnerFlags,
  OwnerWithSecret,
  PushSubscription,
  UtilisationDelta,
  UtilisationRow,
  Vehicle,
  VehicleChange,
} from './types.js';

/** The values of the interface, defined in types.ts, for importers of the Store. */
export type * from './types.js';

/** What runs once a vehicle's buffered writes are committed (skipped when they are lost for good). */
export interface CommitCallback {
  readonly vehicleId: string;
  fn(): void;
}

/** Where a page of historical records continues: after this time and record number. */
export interface HistoricalPosition {
  time: number;
  recordNumber: number;
}

/** A stored record as a page of one vehicle's records of one type gives it. */
export interface HistoricalEntry extends HistoricalPosition {
  data: string;
}

export interface Store {
  // --- owners (users) ---
  /** @throws VtsError VTS_ERR_DUPLICATE_USER */
  addOwner(name: string, passwordHash: string, rights: string): Promise<Owner>;
  getOwnerByName(name: string): Promise<OwnerWithSecret | undefined>;
  getOwnerById(id: number): Promise<Owner | undefined>;
  listOwners(): Promise<Owner[]>;
  /**
   * With `expected`: only while the stored hash is still that one (a login replacing an imported
   * hash must not undo a password change made meanwhile).
   * @returns false when there is no such user (or its hash is not `expected`)
   */
  setOwnerPassword(name: string, passwordHash: string, expected?: string): Promise<boolean>;
  /** @returns false when there is no such user */
  setOwnerRights(name: string, rights: string): Promise<boolean>;
  /**
   * Sets the account's state flags that are given (the admin right, disabled, verified).
   * @returns false when there is no such user
   */
  setOwnerFlags(name: string, flags: OwnerFlags): Promise<boolean>;
  /**
   * Removes the user with its tokens, push subscriptions, notification targets, places and ABRP links.
   * @throws VtsError VTS_ERR_USER_HAS_VEHICLES while vehicles belong to it
   * @returns false when there is no such user
   */
  removeOwner(name: string): Promise<boolean>;

  // --- vehicles ---
  /** @throws VtsError VTS_ERR_DUPLICATE_VEHICLE, VTS_ERR_UNKNOWN_USER */
  addVehicle(v: NewVehicle): Promise<Vehicle>;
  /**
   * Adds many vehicles in one transaction (bulk registration, `vts vehicle add --from-csv`): one
   * result per row, in order. A row whose id exists (or came earlier in `rows`) or whose owner
   * does not is not added and says why; the others are. The rows must be valid (the caller checks
   * them as for `addVehicle`).
   */
  addVehicles(rows: readonly NewVehicle[]): Promise<AddVehicleResult[]>;
  getVehicle(id: string): Promise<Vehicle | undefined>;
  /**
   * Renames the vehicle and/or changes its car password; the next read (the car's next login
   * included) sees the change at once.
   * @returns the vehicle as changed, undefined when there is no such vehicle
   */
  updateVehicle(id: string, change: VehicleChange): Promise<Vehicle | undefined>;
  /**
   * `getVehicle(id)`'s answer when the store can give it at once from memory (its read cache holds
   * the vehicle and no write of it is buffered), else undefined: then ask `getVehicle`, which also
   * answers a vehicle that does not exist. For the hot path that answers without awaiting
   * (src/http/fast-status.ts). A store without a read cache (PostgreSQL) always answers undefined.
   */
  peekVehicle(id: string): Vehicle | undefined;
  /** Ordered by vehicle id. */
  listVehicles(ownerId?: number): Promise<Vehicle[]>;
  /**
   * Removes the vehicle and all its data (messages, history, utilisation, subscriptions,
   * notifications, drives and charges with their tracker's checkpoint, its ABRP link).
   */
  removeVehicle(id: string): Promise<boolean>;
  /**
   * Records a new paranoid token: stored paranoid messages with another token become invalid.
   * The change applies to everything put before the call (buffered writes included) and to
   * nothing put after it, so callers may rely on message order.
   */
  setParanoidToken(vehicleId: string, token: string): Promise<void>;

  // --- latest car messages (hot path) ---
  /**
   * Upserts the latest message of `msg.code` and the vehicle's last update (write-behind). With
   * `historyExpires` > 0, also the message's historical record (type = code, record number 0,
   * its time and data), expiring then: as `addHistorical` would, except that an `addHistorical`
   * record of the very same key buffered in the same batch wins whatever the order.
   */
  putCarMessage(vehicleId: string, msg: Omit<CarMessage, 'valid'>, historyExpires?: number): void;
  /** Stored messages of a vehicle (valid ones only unless `includeInvalid`), in no defined order. */
  getCarMessages(vehicleId: string, includeInvalid?: boolean): Promise<CarMessage[]>;
  /** `getCarMessages(vehicleId)`'s answer (valid messages) at once from memory, as `peekVehicle`; else undefined. */
  peekCarMessages(vehicleId: string): CarMessage[] | undefined;

  // --- historical records ---
  /**
   * Upserts a record (key: vehicle, type, record number, time). Buffered unless `durable`:
   * a durable write resolves only once the record (and everything buffered before it) is
   * committed to stable storage (it survives a power loss too).
   */
  addHistorical(rec: HistoricalRecord, durable?: boolean): Promise<void>;
  /** One row per record type (ordered by type) of records with time > since. */
  summarizeHistorical(vehicleId: string, since: number): Promise<HistoricalSummary[]>;
  /** Records of one type with time > since, ordered by time then record number. */
  getHistorical(vehicleId: string, type: string, since: number): Promise<HistoricalRecord[]>;
  /**
   * A page of the records of one type after a position (time, then record number; null: from the
   * start), at most `limit`, in that order: for reading a long history with flat memory
   * (`vts sessions rebuild`). Stored records only (not the traffic counters' rows).
   */
  pageHistorical(vehicleId: string, type: string, after: HistoricalPosition | null, limit: number): Promise<HistoricalEntry[]>;
  /** How many stored records of these types the vehicle has (counted on the index; for progress bars). */
  countHistorical(vehicleId: string, types: readonly string[]): Promise<number>;
  /** Deletes at most `limit` records that expired before `now`; returns how many. */
  purgeExpiredHistorical(now: number, limit: number): Promise<number>;
  /** The plans of the historical reads and the purge, and the table's space (src/store/history-stats-store.ts). */
  readonly historyStats: HistoryStatsStore;

  // --- traffic accounting ---
  /** Adds the byte counts to the per (vehicle, day, client type) totals (write-behind). */
  addUtilisation(deltas: readonly UtilisationDelta[]): void;
  /** Totals of the vehicle for days ≥ sinceDay, newest day first. */
  getUtilisation(vehicleId: string, sinceDay: number): Promise<UtilisationRow[]>;
  /** Deletes utilisation rows of days before `beforeDay`; returns how many. */
  purgeUtilisation(beforeDay: number): Promise<number>;

  // --- API tokens ---
  addApiToken(t: ApiToken): Promise<void>;
  /** As committed: a use still buffered by `touchApiToken` may not show in `lastUsed` yet. */
  findApiToken(ownerId: number, tokenHash: string): Promise<ApiToken | undefined>;
  listApiTokens(ownerId: number): Promise<ApiToken[]>;
  removeApiToken(ownerId: number, tokenHash: string): Promise<boolean>;
  touchApiToken(ownerId: number, tokenHash: string, time: number): void;

  // --- push subscriptions ---
  /**
   * Upserts by (owner, vehicle, app id). A new key (a resubscribed token) forgets the last
   * delivery result, which was about the old one.
   * @throws VtsError VTS_ERR_UNKNOWN_USER, VTS_ERR_UNKNOWN_VEHICLE
   */
  upsertPushSubscription(s: PushSubscription): Promise<void>;
  /** Ordered by app id. */
  listPushSubscriptions(ownerId: number, vehicleId: string): Promise<PushSubscription[]>;

  // --- push notifications ---
  /**
   * The push outbox (src/store/push-store.ts): notifications, their deliveries and attempts, the
   * per-vehicle rate limit, the users' own targets and the subscriptions as their owner sees them.
   * Direct, durable writes; shared by every process on the database (claims with a lease). Its
   * calls reject with VTS_ERR_STORE_CLOSED once the store is closed.
   */
  readonly push: PushStore;

  // --- vts import ---
  /** What `vts import` writes: owners, vehicles and rows brought over, with their origins (src/store/import-store.ts). */
  readonly imports: ImportStore;

  // --- drives, charges and places ---
  /** Sessions computed from the car's data, their trackers' checkpoints, the owners' places (src/store/drives-store.ts). */
  readonly drives: DrivesStore;

  // --- ABRP links ---
  /** Vehicles linked to their owner's ABRP account, with the state of the sending (src/store/abrp-store.ts). */
  readonly abrp: AbrpStore;
  /** Second factors (TOTP, recovery codes, passkeys, WebAuthn challenges) and API password logins (src/store/factors-store.ts). */
  readonly factors: FactorsStore;
  /** Alert rules, the engines' state and the owners' quiet hours (src/store/alerts-store.ts). */
  readonly alerts: AlertsStore;
  /** The audit log of account actions (src/store/audit-store.ts). */
  readonly audit: AuditStore;
  /** The operator's page: users and vehicles searched and paged, their traffic (src/store/admin-store.ts). */
  readonly admin: AdminStore;
  /** Vehicles shared with other users, view or control (src/store/shares-store.ts). */
  readonly shares: SharesStore;
  /** Signed-up owners, the tokens mailed to them and the invitation codes (src/store/signup-store.ts). */
  readonly signup: SignupStore;

  // --- auto-provisioning ---
  getAutoProvision(key: string): Promise<AutoProvisionRecord | undefined>;
  putAutoProvision(rec: AutoProvisionRecord): Promise<void>;
  removeAutoProvision(key: string): Promise<boolean>;

  // --- command audit ---
  addCommandAudit(e: CommandAuditEntry): Promise<void>;
  /** The vehicle's latest entries, newest first. */
  listCommandAudit(vehicleId: string, limit: number): Promise<(CommandAuditEntry & { id: number })[]>;

  // --- the database itself ---
  /**
   * The database's identity: made at random when the database was created, the same for every
   * process that opens it (the nodes of a cluster check that they share one database).
   */
  databaseId(): Promise<string>;

  // --- lifecycle ---
  /**
   * Calls `fn` after the commit of everything written before this call (buffered writes
   * included), and so after the calls of `afterCommit` before it: synchronously when nothing is
   * waiting to be committed, else once the batch has committed, in the order of the calls. The way
   * to pass on something stored, or derived from what was stored, without reading it back. A
   * commit that fails is tried again, and while the database is away until it answers: `fn`
   * waits. A commit given up (an error that would fail again, or closing) is reported to
   * `onBackgroundError` and `fn` still runs, unless it was given the `vehicleId` whose writes
   * were lost (it passes on that vehicle's data, which is not stored).
   */
  afterCommit(fn: () => void, vehicleId?: string): void;
  /**
   * As `afterCommit(() => entry.fn(), entry.vehicleId)`, without bringing the commit forward:
   * `entry.fn` runs when the buffered writes are committed at their own pace (`writeBehindMs`), so
   * that what hears the data but shows nobody anything at once (the car-data observers) costs no
   * extra commits. The entry itself is kept (no closure and no wrapper per call: the path of every
   * car message). The vehicle id as stored (upper case).
   * Returns the number of the commit it waits for (null: it ran at once): while `nextCommit()` is
   * that number, writes made now are committed with it, and the entry has not run.
   */
  afterLaterCommitOf(entry: CommitCallback): number | null;
  /** The number of the commit that the writes made now will be part of (see afterLaterCommitOf). */
  nextCommit(): number;
  /**
   * Whether the writes held in memory (buffered, or held while the database is away) reach the
   * bound (`maxHeldWrites`): the car connections stop reading until `afterCommit` calls back.
   */
  congested(): boolean;
  /** How many batches of buffered writes have been committed so far (a connection counts its writes since the last). */
  commits(): number;
  /** Commits everything buffered. */
  flush(): Promise<void>;
  /** Flushes and closes; later calls reject with VTS_ERR_STORE_CLOSED. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /**
   * Maximum delay of a buffered write nobody waits for (default 100 ms); a write something waits
   * for (a read, `afterCommit`, a durable write) is committed at the end of the event-loop turn.
   */
  writeBehindMs?: number;
  /** Called with errors of background commits (which have no caller to reject). */
  onBackgroundError?: (err: unknown) => void;
  /** Told of each committed batch of buffered writes: its entries and the seconds its commit took. */
  onCommit?: (entries: number, seconds: number) => void;
  /**
   * PostgreSQL: a statement not answered within this many milliseconds fails, and its connection
   * is replaced (`--database-timeout`); 0 or unset: no timeout.
   */
  databaseTimeoutMs?: number;
  /**
   * PostgreSQL: told once when the database becomes unavailable and once when it answers again
   * (src/store/outage.ts); the errors met meanwhile are only counted.
   */
  onOutage?: (event: OutageEvent) => void;
  /** Told once the database answers again after buffered writes were held: the seconds it was away. */
  onResumed?: (seconds: number) => void;
  /**
   * The bound of car writes held in memory, not yet committed (default 100000; also 64 MiB of
   * their data): past it `congested()` is true.
   */
  maxHeldWrites?: number;
  /**
   * SQLite: WAL checkpoints in a worker thread every this many milliseconds instead of inside a
   * commit on the event loop (src/store/sqlite/sqlite-checkpointer.ts; the server's store); unset:
   * SQLite's own.
   */
  checkpointEveryMs?: number;
}
