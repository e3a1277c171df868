/**
 * The cluster of a benchmark run: `vts serve --cluster` children sharing the run's database (the
 * SQLite file of its data folder, or its PostgreSQL schema) and one Redis under a key prefix of
 * the run's own (`vtsbench<pid><random>`), whose keys are removed at the end.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startServerProcess, type ServerProcess, type ServerProcessOptions } from './server-process.js';

export interface BenchCluster {
  readonly url: string;
  readonly prefix: string;
  /** Starts a node of this cluster (`--node-id id`); `extra` goes after the cluster's options. */
  start(nodeId: string, extra?: string[], options?: ServerProcessOptions): Promise<ServerProcess>;
  /** Removes the prefix's keys from Redis. */
  cleanup(): Promise<void>;
}

/** Null when Redis answers a PING at `url` within 2 s, else why not. */
export async function redisProblem(url: string): Promise<string | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  let first: NodeJS.ErrnoException | null = null; // the socket's own error (ECONNREFUSED…), not ioredis's 'Connection is closed'
  redis.on('error', (err: NodeJS.ErrnoException) => (first ??= err));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    const e = first ?? (err as NodeJS.ErrnoException);
    return e.code ?? e.message;
  } finally {
    redis.disconnect();
  }
}

/** `serverArgs` are the options every node gets (the database, the rate limiter). */
export function benchCluster(url: string, dataDir: string, serverArgs: string[]): BenchCluster {
  const prefix = `vtsbench${process.pid}${randomBytes(3).toString('hex')}`;
  return {
    url,
    prefix,
    start: (nodeId, extra = [], options = {}) =>
      startServerProcess(dataDir, [...serverArgs, '--cluster', url, '--cluster-prefix', prefix, '--node-id', nodeId, ...extra], options),
    async cleanup() {
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
