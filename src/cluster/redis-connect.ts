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
  if (!/^\/?(\d{1,5})?$/.test(u.pathname)) throw new Error(`not a Redis database number: ${u.pathname.slice(1)} (redis://host:6379/<number>, 0 by default)`);
  return value;
}

/** The database number of a Redis URL (its path; 0 when none). */
function databaseOf(url: string): number {
  const path = new URL(url).pathname.slice(1);
  return path ? Number(path) : 0;
}

/** How long a Redis command, or a connection that is not ready yet, may take by default (ms). */
export const DEFAULT_REDIS_TIMEOUT_MS = 4000;

/**
 * A connected client (`name`: its name in Redis' CLIENT LIST). While Redis is out of reach,
 * commands fail at once (no offline queue: the node goes on alone) and the client reconnects by
 * itself, every 2 s at most. A command that gets no answer within `timeoutMs` fails (a Redis that
 * hangs does not hold its callers); `watchConnection` notices such a connection and closes it.
 */
export async function connectRedis(url: string, log: Logger, role: string, name = `vts-${role}`, timeoutMs = DEFAULT_REDIS_TIMEOUT_MS): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
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
  // a server that accepts the connection but never answers (a frozen Redis) would hold the start
  let silent = false;
  const guard = setTimeout(() => {
    silent = true;
    redis.stream?.destroy();
  }, timeoutMs);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    // the socket's own error (ECONNREFUSED, ENOTFOUND…) says more than the client's "Connection is closed"
    const message = (err as Error).message;
    const code = (err as NodeJS.ErrnoException).code ?? lastCode;
    // a server that hangs up on the client's first command (PostgreSQL, a web server…)
    const hungUp = code === 'EPIPE' || code === 'ECONNRESET' || (code === undefined && message === 'Connection is closed.');
    const why = silent
      ? `it does not answer within ${timeoutMs} ms`
      : hungUp
        ? `the server there closed the connection${code ? ` (${code})` : ''}: is it a Redis server?`
        : (code ?? message);
    throw new VtsError('VTS_ERR_CLUSTER', `cannot reach Redis at ${redisTarget(url)} (${why}): check --cluster and that Redis runs there`, { whole: true, cause: err });
  } finally {
    clearTimeout(guard);
  }
  // ioredis goes on with database 0 when its SELECT fails: a database Redis does not have is an error
  const db = databaseOf(url);
  if (db > 0) {
    try {
      await redis.select(db);
    } catch (err) {
      redis.disconnect();
      throw new VtsError('VTS_ERR_CLUSTER', `Redis at ${redisTarget(url)} has no database ${db} (${(err as Error).message}): use a number below its "databases" setting (16 by default)`, { whole: true, cause: err });
    }
  }
  return redis;
}

/**
 * Notices a connection that hangs: the server stopped answering but the TCP connection stays open
 * (a frozen Redis, a network path that drops everything), which closes nothing by itself. Every
 * `everyMs` the connection is sent a PING (a subscriber's too); when nothing at all has come back
 * on it `timeoutMs` later (a reply, a message), or when it has stayed connected but not ready that
 * long, it is closed (`onHung` is told why first) and the client connects again by itself. What
 * arrived is looked at after the pending input has been read: a busy process is not taken for a
 * silent server. Returns a function that stops watching.
 */
export function watchConnection(redis: Redis, everyMs: number, timeoutMs: number, onHung: (why: string) => void): () => void {
  let waitingSince: number | null = null;
  /** Chunks received on the current socket. */
  let received = 0;
  let watched: Redis['stream'] | null = null;
  let checking: NodeJS.Timeout | null = null;
  const hung = (why: string): void => {
    waitingSince = null;
    onHung(why);
    // end() would wait for the silent server's FIN: the socket is dropped at once instead
    redis.stream?.destroy();
  };
  const timer = setInterval(() => {
    if (redis.status === 'connect') {
      // connected, its ready check not answered
      waitingSince ??= Date.now();
      if (Date.now() - waitingSince >= timeoutMs) hung(`connected, but no answer within ${timeoutMs} ms`);
      return;
    }
    waitingSince = null;
    if (redis.status !== 'ready' || checking) return;
    const stream = redis.stream;
    if (stream !== watched) {
      watched = stream;
      received = 0;
      stream.on('data', () => received++);
    }
    const before = received;
    // its answer (or its timeout) does not matter: whether anything came back does
    redis.ping().catch(() => undefined);
    checking = setTimeout(
      () =>
        setImmediate(() => {
          checking = null;
          if (received === before && redis.stream === stream && redis.status === 'ready') hung(`no answer to a PING within ${timeoutMs} ms`);
        }),
      timeoutMs,
    );
    checking.unref();
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (checking) clearTimeout(checking);
  };
}
