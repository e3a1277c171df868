/**
 * Where API sessions live (src/hub/sessions/api-sessions.ts has the rules): in this process for a single
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

/**
 * Idle times after which sessions end (ms): those of the API (`GET /api/cookie`, REF's short
 * `--session-timeout`) and those of the web sign-in (`--web-session-timeout`), told apart by the
 * CSRF token only web sessions have.
 */
export interface SessionTimeouts {
  readonly apiMs: number;
  readonly webMs: number;
}

/** The idle time after which this session ends. */
export const timeoutOf = (rec: Pick<SessionRecord, 'csrf'>, timeouts: SessionTimeouts): number => (rec.csrf !== undefined ? timeouts.webMs : timeouts.apiMs);

/** A session found by its owner: its key (see `SessionStore.keyOf`), not its cookie. */
export type StoredSession = Omit<SessionRecord, 'id'> & { readonly key: string };

/**
 * Sessions are stored, listed, ended and announced by their key (`keyOf`): the cookie itself in
 * this process, its SHA-256 in Redis (a cookie is a credential: Redis never holds it). Only `put`
 * and `use` see the cookie.
 */
export interface SessionStore {
  /** The key of the session with this cookie. */
  keyOf(id: string): string;
  /** Stores a new session, used now. */
  put(rec: SessionRecord, now: number): Promise<void>;
  /**
   * The session of the cookie, its idle clock restarted; undefined when there is none, or when it
   * has been idle longer than its timeout (it is then left for `expired` to end).
   */
  use(id: string, now: number, timeouts: SessionTimeouts): Promise<SessionRecord | undefined>;
  /**
   * `use`, when the store can answer at once from this process's memory (the session known live,
   * its idle clock restarted as by `use`); undefined when it cannot tell so: then ask `use`.
   */
  useAtOnce(id: string, now: number, timeouts: SessionTimeouts): SessionRecord | undefined;
  /** Removes the session; true when this call removed it (the caller then ends it everywhere). */
  remove(key: string): Promise<boolean>;
  /** The keys of the sessions opened with a token. */
  byToken(tokenHash: string): Promise<string[]>;
  /** The sessions of an owner. */
  byOwner(ownerId: number): Promise<StoredSession[]>;
  /** The keys of the sessions idle for longer than their timeout. */
  expired(now: number, timeouts: SessionTimeouts): Promise<string[]>;
  /** Whether each session still exists (unexpired or not). */
  exist(keys: readonly string[]): Promise<boolean[]>;
  /** Tells every node that the session ended (each drops its registrations of it). */
  announceEnd(key: string): void;
  /** Hears of sessions that ended on another node (by key). */
  onEnded(listener: (key: string) => void): void;
  /**
   * Registers, for the whole cluster, that this node counts the session as an app of the vehicle.
   * Resolves to false when another live node counts it already (then this node must not).
   */
  claimApp(key: string, vehicleId: string): Promise<boolean>;
  /** The node no longer counts the session as an app of the vehicle. */
  releaseApp(key: string, vehicleId: string): void;
}

interface Entry {
  rec: SessionRecord;
  lastUsed: number;
}

/** Sessions in this process: a single node. */
export class LocalSessionStore implements SessionStore {
  private readonly sessions = new Map<string, Entry>();

  keyOf(id: string): string {
    return id;
  }

  async put(rec: SessionRecord, now: number): Promise<void> {
    this.sessions.set(rec.id, { rec, lastUsed: now });
  }

  async use(id: string, now: number, timeouts: SessionTimeouts): Promise<SessionRecord | undefined> {
    return this.useAtOnce(id, now, timeouts);
  }

  /** Every session is in memory here: the answer is always that of `use`. */
  useAtOnce(id: string, now: number, timeouts: SessionTimeouts): SessionRecord | undefined {
    const e = this.sessions.get(id);
    if (!e || now - e.lastUsed > timeoutOf(e.rec, timeouts)) return undefined;
    e.lastUsed = now;
    return e.rec;
  }

  async remove(id: string): Promise<boolean> {
    return this.sessions.delete(id);
  }

  async byToken(tokenHash: string): Promise<string[]> {
    return [...this.sessions.values()].filter((e) => e.rec.tokenHash === tokenHash).map((e) => e.rec.id);
  }

  async byOwner(ownerId: number): Promise<StoredSession[]> {
    return [...this.sessions.values()].filter((e) => e.rec.ownerId === ownerId).map(({ rec: { id, ...rest } }) => ({ ...rest, key: id }));
  }

  async expired(now: number, timeouts: SessionTimeouts): Promise<string[]> {
    return [...this.sessions.values()].filter((e) => now - e.lastUsed > timeoutOf(e.rec, timeouts)).map((e) => e.rec.id);
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
