/**
 * API sessions in the cluster's Redis (src/hub/sessions/session-store.ts), so that a cookie made on one node
 * works on every node. A session's key is the SHA-256 (hex) of its cookie, as for API tokens: Redis
 * holds no cookie (not in key names, set members, records or the `session-end` broadcasts), so
 * reading Redis opens no session. `sess:<key>` holds the session (without its cookie), the sorted
 * sets `sess:seen` (API sessions) and `sess:seen:web` (web sessions, which have a timeout of their
 * own) when each was last used (sliding expiry), `sess:tok:<token hash>` and
 * `sess:own:<owner>` find them by token and owner, and `sess:apps:<key>` which node counts the
 * session as an app of which vehicle.
 *
 * A node answers a session it used in the last few seconds from memory (`RECHECK_MS`, at most a
 * quarter of the session's timeout), and only then asks Redis again, which also records the use:
 * one round trip per session and node every few seconds, not one per request. A session that ends
 * anywhere is dropped from every node's memory at once (the `session-end` broadcast); while Redis
 * is out of reach, nothing is answered from memory.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { timeoutOf, type SessionRecord, type SessionStore, type SessionTimeouts, type StoredSession } from '../hub/sessions/session-store.js';
import type { RedisCluster } from './redis-cluster.js';
import { CLAIM, RELEASE, USE_SESSION as USE } from './scripts.js';

const ENDED = 'session-end';
/** How long a session a node checked in Redis is answered from its memory. */
const RECHECK_MS = 5000;
/** Sessions remembered per node (the oldest checked go first). */
const MAX_RECENT = 20_000;

/** A session as stored (without its cookie), or undefined. */
function parseRecord(text: string | null): Omit<SessionRecord, 'id'> | undefined {
  if (text === null) return undefined;
  try {
    const r = JSON.parse(text) as Partial<SessionRecord>;
    if (typeof r.ownerId !== 'number' || typeof r.ownerName !== 'string' || typeof r.permit !== 'string') return undefined;
    return {
      ownerId: r.ownerId,
      ownerName: r.ownerName,
      permit: r.permit,
      ...(typeof r.tokenHash === 'string' ? { tokenHash: r.tokenHash } : {}),
      ...(typeof r.csrf === 'string' ? { csrf: r.csrf } : {}),
    };
  } catch {
    return undefined;
  }
}

export class RedisSessionStore implements SessionStore {
  /** Sessions this node checked in Redis lately, by key, oldest check first. */
  private readonly recent = new Map<string, { rec: SessionRecord; checked: number }>();

  constructor(private readonly cluster: RedisCluster) {}

  private k(name: string): string {
    return this.cluster.key(name);
  }

  /** The last-use set of API sessions, or of web sessions. */
  private seen(web: boolean): string {
    return this.k(web ? 'sess:seen:web' : 'sess:seen');
  }

  keyOf(id: string): string {
    return createHash('sha256').update(id, 'utf8').digest('hex');
  }

  put(rec: SessionRecord, now: number): Promise<void> {
    const key = this.keyOf(rec.id);
    const { id: _cookie, ...stored } = rec;
    return this.cluster.shared(async (redis) => {
      const m = redis.multi().set(this.k(`sess:${key}`), JSON.stringify(stored)).zadd(this.seen(rec.csrf !== undefined), now, key);
      m.sadd(this.k(`sess:own:${rec.ownerId}`), key);
      if (rec.tokenHash !== undefined) m.sadd(this.k(`sess:tok:${rec.tokenHash}`), key);
      await m.exec();
    });
  }

  /** A session this node checked in Redis lately (see RECHECK_MS), else undefined. */
  useAtOnce(id: string, now: number, timeouts: SessionTimeouts): SessionRecord | undefined {
    return this.recentHit(this.keyOf(id), now, timeouts);
  }

  private recentHit(key: string, now: number, timeouts: SessionTimeouts): SessionRecord | undefined {
    const hit = this.recent.get(key);
    return hit && this.cluster.connected && now - hit.checked < Math.min(RECHECK_MS, timeoutOf(hit.rec, timeouts) / 4) ? hit.rec : undefined;
  }

  use(id: string, now: number, timeouts: SessionTimeouts): Promise<SessionRecord | undefined> {
    const key = this.keyOf(id);
    const hit = this.recentHit(key, now, timeouts);
    if (hit) return Promise.resolve(hit);
    return this.cluster.shared(async (redis) => {
      const text = await USE.run(redis, [this.seen(false), this.seen(true), this.k(`sess:${key}`)], [key, now, timeouts.apiMs, timeouts.webMs]);
      const stored = parseRecord(typeof text === 'string' ? text : null);
      this.recent.delete(key);
      if (!stored) return undefined;
      const rec: SessionRecord = { id, ...stored };
      this.recent.set(key, { rec, checked: now });
      if (this.recent.size > MAX_RECENT) this.recent.delete(this.recent.keys().next().value as string);
      return rec;
    });
  }

  remove(key: string): Promise<boolean> {
    this.recent.delete(key);
    return this.cluster.shared((redis) => this.removeWith(redis, key));
  }

  private async removeWith(redis: Redis, key: string): Promise<boolean> {
    const [[, text], [, api], [, web]] = (await redis.multi().get(this.k(`sess:${key}`)).zrem(this.seen(false), key).zrem(this.seen(true), key).del(this.k(`sess:${key}`), this.k(`sess:apps:${key}`)).exec()) as [
      [unknown, string | null],
      [unknown, number],
      [unknown, number],
    ];
    const rec = parseRecord(text);
    if (rec) {
      const m = redis.multi().srem(this.k(`sess:own:${rec.ownerId}`), key);
      if (rec.tokenHash !== undefined) m.srem(this.k(`sess:tok:${rec.tokenHash}`), key);
      await m.exec();
    }
    return api + web > 0;
  }

  byToken(tokenHash: string): Promise<string[]> {
    return this.cluster.shared((redis) => redis.smembers(this.k(`sess:tok:${tokenHash}`)));
  }

  byOwner(ownerId: number): Promise<StoredSession[]> {
    return this.cluster.shared(async (redis) => {
      const keys = await redis.smembers(this.k(`sess:own:${ownerId}`));
      if (keys.length === 0) return [];
      const texts = await redis.mget(keys.map((key) => this.k(`sess:${key}`)));
      return texts.flatMap((text, i) => {
        const rec = parseRecord(text);
        return rec ? [{ ...rec, key: keys[i]! }] : [];
      });
    });
  }

  expired(now: number, timeouts: SessionTimeouts): Promise<string[]> {
    return this.cluster.shared(async (redis) => {
      const [api, web] = await Promise.all([
        redis.zrangebyscore(this.seen(false), '-inf', now - timeouts.apiMs - 1, 'LIMIT', 0, 1000),
        redis.zrangebyscore(this.seen(true), '-inf', now - timeouts.webMs - 1, 'LIMIT', 0, 1000),
      ]);
      return [...api, ...web];
    });
  }

  exist(keys: readonly string[]): Promise<boolean[]> {
    return this.cluster.shared(async (redis) => {
      const [api, web] = await Promise.all([redis.zmscore(this.seen(false), ...keys), redis.zmscore(this.seen(true), ...keys)]);
      return keys.map((_, k) => api[k] !== null || web[k] !== null);
    });
  }

  announceEnd(key: string): void {
    this.cluster.broadcast(ENDED, key);
  }

  onEnded(listener: (key: string) => void): void {
    this.cluster.onBroadcast(ENDED, (body) => {
      if (typeof body !== 'string') return;
      this.recent.delete(body);
      listener(body);
    });
  }

  claimApp(key: string, vehicleId: string): Promise<boolean> {
    return this.cluster.shared((redis) => this.claimAppWith(redis, key, vehicleId));
  }

  private async claimAppWith(redis: Redis, key: string, vehicleId: string): Promise<boolean> {
    const apps = this.k(`sess:apps:${key}`);
    const held = await CLAIM.run(redis, [apps], [vehicleId, this.cluster.nodeId]);
    if (typeof held !== 'string') return true;
    // counted by a node that is gone: this node counts it now
    if (await redis.exists(this.k(`alive:${held}`))) return false;
    await redis.hset(apps, vehicleId, this.cluster.nodeId);
    return true;
  }

  releaseApp(key: string, vehicleId: string): void {
    this.cluster.shared((redis) => RELEASE.run(redis, [this.k(`sess:apps:${key}`)], [vehicleId, this.cluster.nodeId])).catch(() => undefined);
  }
}
