/**
 * HTTP API sessions (docs/protocol/http-api-v2.md §3.4, §4.5). A session is created by
 * `GET /api/cookie` (or the web sign-in), lives while it is used (sliding expiry: REF's fixed
 * expiry stalls clients), and counts as an app of every vehicle it connected to with
 * `GET /api/vehicle/<id>`. Sessions of the web sign-in (with a CSRF token) have their own, longer
 * idle time (`--web-session-timeout`): a dashboard left open over lunch stays signed in, while API
 * sessions keep REF's 180 s. When it ends (logout, expiry, or the token it was opened with is
 * revoked) each of those cars is sent its new app count.
 *
 * The records live in a SessionStore (this process, or Redis for a cluster, so that a cookie made
 * on one node works on every node). A session counts as an app on the node where it connected to
 * the vehicle, once in the whole cluster; when it ends anywhere, every node drops what it counted.
 *
 * Requests without a cookie that connect to a vehicle get an anonymous registration per user and
 * source address, which expires the same way (REF's shared `http:-` registration never expired).
 * These live on the node the client reached (docs/compatibility.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { timeoutOf, type SessionRecord, type SessionStore, type SessionTimeouts } from './session-store.js';

export type ApiSession = SessionRecord;

/** Idle seconds after which a web (dashboard) session ends unless configured (`--web-session-timeout`): 7 days. */
export const DEFAULT_WEB_SESSION_TIMEOUT = 7 * 86_400;

export interface SessionOwner {
  id: number;
  name: string;
}

/** What the sessions need of the hub: API sessions counted as apps of vehicles. */
export interface ApiAppRegistry {
  /** Registers the key as an app; returns the vehicle's app count before the call. */
  registerApiApp(vehicleId: string, ownerId: number, key: string): number;
  unregisterApiApp(vehicleId: string, key: string): void;
  /** Epoch milliseconds. */
  now(): number;
}

interface Anonymous {
  rec: SessionRecord;
  lastUsed: number;
}

const appKey = (key: string): string => 'http:' + key;

export class ApiSessions {
  /** Sessions this node counts as apps: key (the store's, or an anonymous id) → (vehicle → owner). */
  private readonly registered = new Map<string, Map<string, number>>();
  /** Cookie-less registrations of this node, by `-:<owner>:<address>`. */
  private readonly anonymousSessions = new Map<string, Anonymous>();

  constructor(
    private readonly hub: ApiAppRegistry,
    private readonly store: SessionStore,
    /** Idle times after which sessions end (ms), by kind; cookie-less registrations as API sessions. */
    readonly timeouts: SessionTimeouts,
  ) {
    store.onEnded((key) => this.dropLocal(key));
  }

  async create(owner: SessionOwner, permit: string, tokenHash?: string, web = false): Promise<ApiSession> {
    const rec: SessionRecord = {
      id: randomUUID().toUpperCase(),
      ownerId: owner.id,
      ownerName: owner.name,
      permit,
      ...(tokenHash !== undefined ? { tokenHash } : {}),
      ...(web ? { csrf: randomBytes(32).toString('base64url') } : {}),
    };
    await this.store.put(rec, this.hub.now());
    return rec;
  }

  /**
   * The live session of a cookie, its idle clock restarted; undefined when there is none. The key
   * of a cookie-less registration (`-:<owner id>:<address>`) is no cookie: it can be guessed.
   */
  async use(id: string): Promise<ApiSession | undefined> {
    if (id.startsWith('-:')) return undefined;
    return this.store.use(id, this.hub.now(), this.timeouts);
  }

  /**
   * `use`, when the session store can answer at once from memory; undefined when it cannot tell
   * so (then ask `use`). For the answer that awaits nothing (src/http/fast-status.ts).
   */
  useAtOnce(id: string): ApiSession | undefined {
    if (id.startsWith('-:')) return undefined;
    return this.store.useAtOnce(id, this.hub.now(), this.timeouts);
  }

  /** The idle time after which the session ends (ms). */
  timeoutOf(s: Pick<ApiSession, 'csrf'>): number {
    return timeoutOf(s, this.timeouts);
  }

  /** The shortest idle time of any session (ms): how often the sweep must run. */
  get shortestTimeoutMs(): number {
    return Math.min(this.timeouts.apiMs, this.timeouts.webMs);
  }

  private useAnonymous(id: string): ApiSession | undefined {
    const a = this.anonymousSessions.get(id);
    if (!a) return undefined;
    const now = this.hub.now();
    if (now - a.lastUsed > this.timeouts.apiMs) {
      this.endLocal(id);
      return undefined;
    }
    a.lastUsed = now;
    return a.rec;
  }

  /** The anonymous registration of a user at an address (created when `create` is true). */
  anonymous(owner: SessionOwner, permit: string, address: string, create: boolean): ApiSession | undefined {
    const id = `-:${owner.id}:${address}`;
    const s = this.useAnonymous(id);
    if (s || !create) return s;
    const rec: SessionRecord = { id, ownerId: owner.id, ownerName: owner.name, permit };
    this.anonymousSessions.set(id, { rec, lastUsed: this.hub.now() });
    return rec;
  }

  /** The key of a session (an anonymous registration is its own). */
  private keyOf(id: string): string {
    return id.startsWith('-:') ? id : this.store.keyOf(id);
  }

  /**
   * Registers the session as an app of the vehicle (owned by `ownerId`: the session's user, or
   * the owner who shared it with that user); returns true when it is the first app.
   */
  async connect(s: ApiSession, vehicleId: string, ownerId = s.ownerId): Promise<boolean> {
    const key = this.keyOf(s.id);
    let vehicles = this.registered.get(key);
    if (vehicles?.has(vehicleId)) return false;
    // counted once in the whole cluster: where it first connected
    if (!s.id.startsWith('-:') && !(await this.store.claimApp(key, vehicleId))) return false;
    vehicles = this.registered.get(key);
    if (!vehicles) this.registered.set(key, (vehicles = new Map()));
    if (vehicles.has(vehicleId)) return false;
    vehicles.set(vehicleId, s.ownerId);
    return this.hub.registerApiApp(vehicleId, ownerId, appKey(key)) === 0;
  }

  disconnect(s: ApiSession, vehicleId: string): void {
    const key = this.keyOf(s.id);
    const vehicles = this.registered.get(key);
    if (!vehicles?.delete(vehicleId)) return;
    if (vehicles.size === 0) this.registered.delete(key);
    this.hub.unregisterApiApp(vehicleId, appKey(key));
    if (!s.id.startsWith('-:')) this.store.releaseApp(key, vehicleId);
  }

  /** The user's access to the vehicle was revoked: its sessions on this node stop counting as apps of it. */
  revoked(vehicleId: string, userId: number): void {
    for (const [key, vehicles] of [...this.registered]) {
      if (vehicles.get(vehicleId) !== userId) continue;
      vehicles.delete(vehicleId);
      if (vehicles.size === 0) this.registered.delete(key);
      this.hub.unregisterApiApp(vehicleId, appKey(key));
      if (!key.startsWith('-:')) this.store.releaseApp(key, vehicleId);
    }
  }

  /** Ends a session (by its cookie) everywhere: every vehicle it was connected to gets its new app count. */
  async end(id: string): Promise<void> {
    if (id.startsWith('-:')) return this.endLocal(id);
    return this.endKey(this.store.keyOf(id));
  }

  private async endKey(key: string): Promise<void> {
    const removed = await this.store.remove(key);
    this.dropLocal(key);
    if (removed) this.store.announceEnd(key);
  }

  private endLocal(id: string): void {
    this.anonymousSessions.delete(id);
    this.dropLocal(id);
  }

  /** Drops what this node counts of a session that ended. */
  private dropLocal(key: string): void {
    const vehicles = this.registered.get(key);
    if (!vehicles) return;
    this.registered.delete(key);
    for (const vehicleId of vehicles.keys()) this.hub.unregisterApiApp(vehicleId, appKey(key));
  }

  /** Ends every web session of a user but `keep` (a cookie; after a password change). */
  async endWebSessions(ownerId: number, keep?: string): Promise<void> {
    const kept = keep === undefined ? undefined : this.store.keyOf(keep);
    for (const s of await this.store.byOwner(ownerId)) if (s.csrf && s.key !== kept) await this.endKey(s.key);
  }

  /**
   * Ends every session of a user, web and API, on every node (after a password reset), and the
   * cookie-less registrations this node holds for it.
   */
  async endOwnerSessions(ownerId: number): Promise<void> {
    for (const s of await this.store.byOwner(ownerId)) await this.endKey(s.key);
    const prefix = `-:${ownerId}:`;
    for (const id of [...this.anonymousSessions.keys()]) if (id.startsWith(prefix)) this.endLocal(id);
  }

  /** Ends the sessions opened with a token that was just revoked. */
  async endByToken(tokenHash: string): Promise<void> {
    for (const key of await this.store.byToken(tokenHash)) await this.endKey(key);
  }

  /**
   * Ends the sessions idle for longer than their timeout (call every few seconds), and drops what
   * this node counts of sessions that ended elsewhere without it hearing of it.
   */
  async sweep(): Promise<void> {
    const now = this.hub.now();
    for (const [id, a] of [...this.anonymousSessions]) if (now - a.lastUsed > this.timeouts.apiMs) this.endLocal(id);
    for (const key of await this.store.expired(now, this.timeouts)) await this.endKey(key);
    const keys = [...this.registered.keys()].filter((key) => !key.startsWith('-:'));
    if (keys.length === 0) return;
    const exist = await this.store.exist(keys);
    keys.forEach((key, k) => {
      if (!exist[k]) this.dropLocal(key);
    });
  }

  /** Sessions this node counts as apps (for tests and metrics). */
  get registeredCount(): number {
    return this.registered.size;
  }
}
