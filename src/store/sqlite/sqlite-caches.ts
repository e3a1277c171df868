/**
 * The SQLite store's read caches (src/store/read-cache.ts): the rows every login and every status
 * poll reads. Several processes share the file (the server and the admin CLI), so the caches are
 * emptied when another process has committed since the last look (`PRAGMA data_version`).
 */
import type Database from 'better-sqlite3';
import { ReadCache } from '../read-cache.js';
import type { ApiTokenRow, CarMessageRow, OwnerRow, VehicleRow } from '../rows.js';

/** The key of an API token in `tokens`. */
export const tokenKey = (ownerId: number, tokenHash: string): string => `${ownerId}\0${tokenHash}`;

export class SqliteCaches {
  readonly vehicles = new ReadCache<VehicleRow>();
  readonly messages = new ReadCache<readonly CarMessageRow[]>();
  /** Owners by name (ASCII case folded, as SQLite's NOCASE): every password or token login reads one. */
  readonly owners = new ReadCache<OwnerRow>();
  /** API tokens by owner and hash (tokenKey); null remembers that there is no such token. */
  readonly tokens = new ReadCache<ApiTokenRow | null>();
  /** Changes when another connection (another process) commits. */
  private readonly version: Database.Statement<[], number>;
  private dataVersion = -1;
  private syncedAt = -Infinity;

  constructor(db: Database.Database) {
    this.version = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /**
   * Empties the caches when another process has committed since the last look. Looked at most
   * once a millisecond: one request reads several cached rows, and a change made by another
   * process is seen within a millisecond.
   */
  sync(): void {
    const now = performance.now();
    if (now - this.syncedAt < 1) return;
    this.syncedAt = now;
    const version = this.version.get()!;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.clear();
  }

  clear(): void {
    this.vehicles.clear();
    this.messages.clear();
    this.owners.clear();
    this.tokens.clear();
  }

  /** Drops what the caches hold of a vehicle this process just wrote. */
  forget(vehicleId: string): void {
    this.vehicles.delete(vehicleId);
    this.messages.delete(vehicleId);
  }
}
