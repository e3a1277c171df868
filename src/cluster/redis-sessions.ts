/**
 * API sessions in the cluster's Redis (src/hub/session-store.ts), so that a cookie made on one node
 * works on every node: `sess:<id>` holds the session, the sorted set `sess:seen` when each was last
 * used (sliding expiry), `sess:tok:<hash>` and `sess:own:<owner>` find them by token and owner, and
 * `sess:apps:<id>` which node counts the session as an app of which vehicle.
 *
 * A node answers a session it used in the last few seconds from memory (`RECHECK_MS`, at most a
 * quarter of the session timeout), and only then asks Redis again, which also records the use:
 * one round trip per session and node every few seconds, not one per request. A session that ends
 * anywhere is dropped from every node's memory at once (the `session-end` broadcast); while Redis
 * is out of reach, nothing is answered from memory.
 */
import type { Redis } from 'ioredis';
import type { SessionRecord, SessionStore } from '../hub/session-store.js';
import type { RedisCluster } from './redis-cluster.js';
import { CLAIM, RELEASE, USE_SESSION as USE } from './scripts.js';

const ENDED = 'session-end';
/** How long a session a node checked in Redis is answered from its memory. */
const RECHECK_MS = 5000;
/** Sessions remembered per node (the oldest checked go first). */
const MAX_RECENT = 20_000;

function parseRecord(text: string | null): SessionRecord | undefined {
  if (text === null) return undefined;
  try {
    const r = JSON.parse(text) as Partial<SessionRecord>;
    if (typeof r.id !== 'string' || typeof r.ownerId !== 'number' || typeof r.ownerName !== 'string' || typeof r.permit !== 'string') return undefined;
    return {
      id: r.id,
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
  /** Sessions this node checked in Redis lately, by id, oldest check first. */
  private readonly recent = new Map<string, { rec: SessionRecord; checked: number }>();

  constructor(private readonly cluster: RedisCluster) {}

  private k(name: string): string {
    return this.cluster.key(name);
  }

  put(rec: SessionRecord, now: number): Promise<void> {
    return this.cluster.shared(async (redis) => {
      const m = redis.multi().set(this.k(`sess:${rec.id}`), JSON.stringify(rec)).zadd(this.k('sess:seen'), now, rec.id);
      m.sadd(this.k(`sess:own:${rec.ownerId}`), rec.id);
      if (rec.tokenHash !== undefined) m.sadd(this.k(`sess:tok:${rec.tokenHash}`), rec.id);
      await m.exec();
    });
  }

  use(id: string, now: number, timeoutMs: number): Promise<SessionRecord | undefined> {
    const hit = this.recent.get(id);
    if (hit && this.cluster.connected && now - hit.checked < Math.min(RECHECK_MS, timeoutMs / 4)) return Promise.resolve(hit.rec);
    return this.cluster.shared(async (redis) => {
      const text = await USE.run(redis, [this.k('sess:seen'), this.k(`sess:${id}`)], [id, now, timeoutMs]);
      const rec = parseRecord(typeof text === 'string' ? text : null);
      this.recent.delete(id);
      if (rec) {
        this.recent.set(id, { rec, checked: now });
        if (this.recent.size > MAX_RECENT) this.recent.delete(this.recent.keys().next().value as string);
      }
      return rec;
    });
  }

  remove(id: string): Promise<boolean> {
    this.recent.delete(id);
    return this.cluster.shared((redis) => this.removeWith(redis, id));
  }

  private async removeWith(redis: Redis, id: string): Promise<boolean> {
    const [[, text], [, removed]] = (await redis.multi().get(this.k(`sess:${id}`)).zrem(this.k('sess:seen'), id).del(this.k(`sess:${id}`), this.k(`sess:apps:${id}`)).exec()) as [
      [unknown, string | null],
      [unknown, number],
    ];
    const rec = parseRecord(text);
    if (rec) {
      const m = redis.multi().srem(this.k(`sess:own:${rec.ownerId}`), id);
      if (rec.tokenHash !== undefined) m.srem(this.k(`sess:tok:${rec.tokenHash}`), id);
      await m.exec();
    }
    return removed === 1;
  }

  byToken(tokenHash: string): Promise<string[]> {
    return this.cluster.shared((redis) => redis.smembers(this.k(`sess:tok:${tokenHash}`)));
  }

  byOwner(ownerId: number): Promise<SessionRecord[]> {
    return this.cluster.shared(async (redis) => {
      const ids = await redis.smembers(this.k(`sess:own:${ownerId}`));
      if (ids.length === 0) return [];
      const texts = await redis.mget(ids.map((id) => this.k(`sess:${id}`)));
      return texts.map(parseRecord).filter((r): r is SessionRecord => r !== undefined);
    });
  }

  expired(now: number, timeoutMs: number): Promise<string[]> {
    return this.cluster.shared((redis) => redis.zrangebyscore(this.k('sess:seen'), '-inf', now - timeoutMs - 1, 'LIMIT', 0, 1000));
  }

  exist(ids: readonly string[]): Promise<boolean[]> {
    return this.cluster.shared(async (redis) => (await redis.zmscore(this.k('sess:seen'), ...ids)).map((s) => s !== null));
  }

  announceEnd(id: string): void {
    this.cluster.broadcast(ENDED, id);
  }

  onEnded(listener: (id: string) => void): void {
    this.cluster.onBroadcast(ENDED, (body) => {
      if (typeof body !== 'string') return;
      this.recent.delete(body);
      listener(body);
    });
  }

  claimApp(id: string, vehicleId: string): Promise<boolean> {
    return this.cluster.shared((redis) => this.claimAppWith(redis, id, vehicleId));
  }

  private async claimAppWith(redis: Redis, id: string, vehicleId: string): Promise<boolean> {
    const key = this.k(`sess:apps:${id}`);
    const held = await CLAIM.run(redis, [key], [vehicleId, this.cluster.nodeId]);
    if (typeof held !== 'string') return true;
    // counted by a node that is gone: this node counts it now
    if (await redis.exists(this.k(`alive:${held}`))) return false;
    await redis.hset(key, vehicleId, this.cluster.nodeId);
    return true;
  }

  releaseApp(id: string, vehicleId: string): void {
    this.cluster.shared((redis) => RELEASE.run(redis, [this.k(`sess:apps:${id}`)], [vehicleId, this.cluster.nodeId])).catch(() => undefined);
  }
}
