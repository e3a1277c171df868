/**
 * Every node of a cluster must use one database: what one node stores, the others read (a car's
 * messages, users, tokens, the push outbox). The cluster keeps its database's identity
 * (Store.databaseId) in Redis, and a node that opened another database is refused.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { VtsError } from '../errors.js';
import { SAME_DATABASE } from './scripts.js';

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
