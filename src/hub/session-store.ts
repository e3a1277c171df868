/**
 * Where API sessions live (src/hub/api-sessions.ts has the rules): in this process for a single
 * node (`LocalSessionStore`), in Redis for a cluster (src/cluster/redis-sessions.ts), so that a
 * cookie made on one node works on every node and a logout ends it everywhere.
 */

/** A session as every node sees it. */
export interface SessionRecord {
  /** The cookie value (upper-case UUID, as REF's Data::UUID). */
  readonly id: string;
  readonly ownerId: number;
  readonly ownerName: string;
  readonly permit: string;
  /** The token the session was opened with (its hash), if it was. */
  readonly tokenHash?: string;
  /** Sessions of the web sign-in: the token state-changing requests carry (docs/web-api.md). */
  readonly csrf?: string;
}

export interface SessionStore {
  /** Stores a new session, used now. */
  put(rec: SessionRecord, now: number): Promise<void>;
  /**
   * The session, its idle clock restarted; undefined when there is none, or when it has been
   * idle longer than `timeoutMs` (it is then left for `expired` to end).
   */
  use(id: string, now: number, timeoutMs: number): Promise<SessionRecord | undefined>;
  /** Removes the session; true when this call removed it (the caller then ends it everywhere). */
  remove(id: string): Promise<boolean>;
  /** The ids of the sessions opened with a token. */
  byToken(tokenHash: string): Promise<string[]>;
  /** The sessions of an owner. */
  byOwner(ownerId: number): Promise<SessionRecord[]>;
  /** The ids of the sessions idle for longer than `timeoutMs`. */
  expired(now: number, timeoutMs: number): Promise<string[]>;
  /** Whether each session still exists (unexpired or not). */
  exist(ids: readonly string[]): Promise<boolean[]>;
  /** Tells every node that the session ended (each drops its registrations of it). */
  announceEnd(id: string): void;
  /** Hears of sessions that ended on another node. */
  onEnded(listener: (id: string) => void): void;
  /**
   * Registers, for the whole cluster, that this node counts the session as an app of the vehicle.
   * Resolves to false when another live node counts it already (then this node must not).
   */
  claimApp(id: string, vehicleId: string): Promise<boolean>;
  /** The node no longer counts the session as an app of the vehicle. */
  releaseApp(id: string, vehicleId: string): void;
}

interface Entry {
  rec: SessionRecord;
  lastUsed: number;
}

/** Sessions in this process: a single node. */
export class LocalSessionStore implements SessionStore {
  private readonly sessions = new Map<string, Entry>();

  async put(rec: SessionRecord, now: number): Promise<void> {
    this.sessions.set(rec.id, { rec, lastUsed: now });
  }

  async use(id: string, now: number, timeoutMs: number): Promise<SessionRecord | undefined> {
    const e = this.sessions.get(id);
    if (!e || now - e.lastUsed > timeoutMs) return undefined;
    e.lastUsed = now;
    return e.rec;
  }

  async remove(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  async byToken(tokenHash: string): Promise<string[]> {
    return [...this.sessions.values()].filter((e) => e.rec.tokenHash === tokenHash).map((e) => e.rec.id);
  }

  async byOwner(ownerId: number): Promise<SessionRecord[]> {
    return [...this.sessions.values()].filter((e) => e.rec.ownerId === ownerId).map((e) => e.rec);
  }

  async expired(now: number, timeoutMs: number): Promise<string[]> {
    return [...this.sessions.values()].filter((e) => now - e.lastUsed > timeoutMs).map((e) => e.rec.id);
  }

  async exist(ids: readonly string[]): Promise<boolean[]> {
    return ids.map((id) => this.sessions.has(id));
  }

  announceEnd(): void {}
  onEnded(): void {}

  async claimApp(): Promise<boolean> {
    return true;
  }

  releaseApp(): void {}

  get size(): number {
    return this.sessions.size;
  }
}
