/**
 * Group data (docs/protocol/mp.md §14) of the cars of every node, in Redis: `g:<group>` maps each car's
 * vehicle id to `[node, data]`, `groups` lists the groups. A node that is gone takes its cars'
 * entries with it.
 */
import type { Redis } from 'ioredis';

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export class RedisGroups {
  constructor(
    private readonly k: (name: string) => string,
    private readonly nodeId: string,
  ) {}

  /** Writes (or, `data` null, removes) a car's data of a group. */
  write(redis: Redis, group: string, vehicleId: string, data: string | null): Promise<unknown> {
    const key = this.k(`g:${group}`);
    if (data === null) return redis.hdel(key, vehicleId);
    return redis.multi().sadd(this.k('groups'), group).hset(key, vehicleId, JSON.stringify([this.nodeId, data])).exec();
  }

  /** The data of the group's cars on other nodes: [vehicle id, data]. */
  async members(redis: Redis, group: string): Promise<[string, string][]> {
    const out: [string, string][] = [];
    for (const [v, text] of Object.entries(await redis.hgetall(this.k(`g:${group}`)))) {
      const entry = parseJson(text);
      if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string' && entry[0] !== this.nodeId) out.push([v, entry[1]]);
    }
    return out;
  }

  /** Drops the entries of the cars of a node (it is gone, or leaving). */
  async dropNode(redis: Redis, node: string): Promise<void> {
    for (const group of await redis.smembers(this.k('groups'))) {
      const key = this.k(`g:${group}`);
      const entries = await redis.hgetall(key);
      const stale = Object.entries(entries)
        .filter(([, text]) => (parseJson(text) as unknown[] | null)?.[0] === node)
        .map(([v]) => v);
      if (stale.length > 0) await redis.hdel(key, ...stale);
      if (stale.length === Object.keys(entries).length) await redis.srem(this.k('groups'), group);
    }
  }
}
