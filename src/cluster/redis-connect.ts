/** Connections to the cluster's Redis (ioredis), and how its address appears in messages (no password). */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { VtsError } from '../errors.js';

/** `host:port[/db]` of a Redis URL, without user or password (for logs and messages). */
export function redisTarget(url: string): string {
  try {
    const u = new URL(url);
    const db = u.pathname && u.pathname !== '/' ? u.pathname : '';
    return `${u.hostname}:${u.port || '6379'}${db}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** Checks a `--cluster` value: a `redis://` or `rediss://` URL. */
export function parseRedisUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`not a URL: use redis://host:6379`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new Error(`not a redis:// or rediss:// URL: ${u.protocol}`);
  return value;
}

/**
 * A connected client (`name`: its name in Redis' CLIENT LIST). While Redis is out of reach,
 * commands fail at once (no offline queue: the node goes on alone) and the client reconnects by
 * itself, every 2 s at most.
 */
export async function connectRedis(url: string, log: Logger, role: string, name = `vts-${role}`): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    connectionName: name,
  });
  let lastError = '';
  let lastCode: string | undefined;
  redis.on('error', (err: Error) => {
    lastCode = (err as NodeJS.ErrnoException).code ?? lastCode;
    // said once per kind of error, not on every reconnect attempt
    if (err.message === lastError) return;
    lastError = err.message;
    log.debug({ err: err.message, role }, 'cluster: Redis connection error');
  });
  redis.on('ready', () => (lastError = ''));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    // the socket's own error (ECONNREFUSED, ENOTFOUND…) says more than the client's "Connection is closed"
    const why = (err as NodeJS.ErrnoException).code ?? lastCode ?? (err as Error).message;
    throw new VtsError('VTS_ERR_CLUSTER', `cannot reach Redis at ${redisTarget(url)} (${why}): check --cluster and that Redis runs there`, { whole: true, cause: err });
  }
  return redis;
}
