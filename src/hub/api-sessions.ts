/**
 * HTTP API sessions (http-api-v2.md §3.4, product spec §3). A session is created by
 * `GET /api/cookie`, lives while it is used (sliding expiry: REF's fixed expiry stalls clients),
 * and counts as an app of every vehicle it connected to with `GET /api/vehicle/<id>`. When it
 * ends (logout, expiry, or the token it was opened with is revoked) each of those cars is sent its
 * new app count.
 *
 * Requests without a cookie that connect to a vehicle get an anonymous registration per user and
 * source address, which expires the same way (REF's shared `http:-` registration never expired).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Hub } from './hub.js';

export interface ApiSession {
  /** The cookie value (upper-case UUID, as REF's Data::UUID). Anonymous ones start with `-:`. */
  readonly id: string;
  readonly ownerId: number;
  readonly ownerName: string;
  readonly permit: string;
  /** The token the session was opened with (its hash), if it was. */
  readonly tokenHash?: string;
  lastUsed: number;
  /** Vehicles this session is registered with as an app. */
  readonly vehicles: Set<string>;
  /**
   * Sessions opened by the web sign-in (`POST /api/session`): the token every state-changing
   * request must carry in `X-CSRF-Token` (docs/web-api.md).
   */
  readonly csrf?: string;
}

export interface SessionOwner {
  id: number;
  name: string;
}

export class ApiSessions {
  private readonly sessions = new Map<string, ApiSession>();

  constructor(
    private readonly hub: Hub,
    /** Idle time after which a session ends (ms). */
    readonly timeoutMs: number,
  ) {}

  create(owner: SessionOwner, permit: string, tokenHash?: string, web = false): ApiSession {
    const s: ApiSession = {
      id: randomUUID().toUpperCase(),
      ownerId: owner.id,
      ownerName: owner.name,
      permit,
      tokenHash,
      lastUsed: this.hub.now(),
      vehicles: new Set(),
      ...(web ? { csrf: randomBytes(32).toString('base64url') } : {}),
    };
    this.sessions.set(s.id, s);
    return s;
  }

  /** The live session with that id, its idle clock restarted; undefined when there is none. */
  use(id: string): ApiSession | undefined {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const now = this.hub.now();
    if (now - s.lastUsed > this.timeoutMs) {
      this.end(id);
      return undefined;
    }
    s.lastUsed = now;
    return s;
  }

  /** The anonymous registration of a user at an address (created when `create` is true). */
  anonymous(owner: SessionOwner, permit: string, address: string, create: boolean): ApiSession | undefined {
    const id = `-:${owner.id}:${address}`;
    const s = this.use(id);
    if (s || !create) return s;
    const fresh: ApiSession = { id, ownerId: owner.id, ownerName: owner.name, permit, lastUsed: this.hub.now(), vehicles: new Set() };
    this.sessions.set(id, fresh);
    return fresh;
  }

  /** Registers the session as an app of the vehicle; returns true when it is the first app. */
  connect(s: ApiSession, vehicleId: string): boolean {
    s.vehicles.add(vehicleId);
    return this.hub.registerApiApp(vehicleId, s.ownerId, 'http:' + s.id) === 0;
  }

  disconnect(s: ApiSession, vehicleId: string): void {
    if (s.vehicles.delete(vehicleId)) this.hub.unregisterApiApp(vehicleId, 'http:' + s.id);
  }

  /** Ends a session: every vehicle it was connected to gets its new app count. */
  end(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    for (const vehicleId of s.vehicles) this.hub.unregisterApiApp(vehicleId, 'http:' + s.id);
  }

  /** Ends every web session of a user but `keep` (after a password change). */
  endWebSessions(ownerId: number, keep?: string): void {
    for (const s of [...this.sessions.values()]) if (s.ownerId === ownerId && s.csrf && s.id !== keep) this.end(s.id);
  }

  /** Ends the sessions opened with a token that was just revoked. */
  endByToken(tokenHash: string): void {
    for (const s of [...this.sessions.values()]) if (s.tokenHash === tokenHash) this.end(s.id);
  }

  /** Ends the sessions idle for longer than the timeout (call every few seconds). */
  sweep(): void {
    const now = this.hub.now();
    for (const s of [...this.sessions.values()]) if (now - s.lastUsed > this.timeoutMs) this.end(s.id);
  }

  get size(): number {
    return this.sessions.size;
  }
}
