/**
 * Every node of a cluster must use one database: what one node stores, the others read (a car's
 * messages, users, tokens, the push outbox). The cluster keeps its database's identity
 * (Store.databaseId) in Redis, and a node that opened another database is refused.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { VtsError } from '../errors.js';
import { SAME_DATABASE } from './scripts.js';
import { connectRedis } from './redis-connect.js';

/**
 * Records `own` as the cluster's database, or checks that it is. Another database is refused while
 * any other node of the cluster runs; when none does, the cluster has moved (a new database, a
 * restored backup): this node's database becomes the cluster's.
 * @throws VtsError VTS_ERR_CLUSTER when the running nodes use another database
 */
export async function checkSharedDatabase(cmd: Redis, k: (name: string) => string, nodeId: string, own: string, log: Logger): Promise<void> {
  const found = await SAME_DATABASE.run(cmd, [k('database')], [own]);
  if (found === 1) return;
  const others = (await cmd.smembers(k('nodes'))).filter((n) => n !== nodeId);
  const alive = others.length ? await cmd.exists(...others.map((n) => k(`alive:${n}`))) : 0;
  if (alive === 0) {
    await cmd.set(k('database'), own);
    log.warn({ was: found, now: own }, "cluster: no running node uses the cluster's previous database: this node's database is the cluster's now");
    return;
  }
  throw new VtsError(
    'VTS_ERR_CLUSTER',
    `this node's database (id ${own}) is not the one the running nodes of the cluster share (id ${String(found)}): give every node the same --database`,
    { whole: true },
  );
}

/**
 * Before a node of a cluster creates a new SQLite database (its data dir has none): while other
 * nodes of the cluster run, theirs is not a file that does not exist yet, so the node is refused
 * before it creates anything. `exists` is asked again after Redis answered: a worker of the same
 * machine may have created the shared file meanwhile.
 * @throws VtsError VTS_ERR_CLUSTER when other nodes of the cluster run
 */
export async function refuseNewDatabase(cluster: { url: string; prefix: string; nodeId: string }, file: string, exists: () => boolean, log: Logger): Promise<void> {
  const prefix = cluster.prefix.endsWith(':') ? cluster.prefix : cluster.prefix + ':';
  const k = (name: string): string => prefix + name;
  const redis = await connectRedis(cluster.url, log, 'commands', `vts-check@${k(cluster.nodeId)}`);
  let running: string[];
  let found: string | null;
  try {
    const others = (await redis.smembers(k('nodes'))).filter((n) => n !== cluster.nodeId);
    const alive = await Promise.all(others.map((n) => redis.exists(k(`alive:${n}`))));
    running = others.filter((_n, i) => alive[i] === 1);
    found = await redis.get(k('database'));
  } finally {
    redis.disconnect();
  }
  if (running.length === 0 || exists()) return;
  throw new VtsError(
    'VTS_ERR_CLUSTER',
    `this node would create a new database (${file}), not the one the running nodes of the cluster share (id ${found ?? 'unknown'}): give every node the same --database`,
    { whole: true },
  );
}
