/**
 * External services some tests need beyond what `npm install` brings: an anonymous Mosquitto on
 * 127.0.0.1:1883, Debian's Chromium, PostgreSQL (127.0.0.1:5432, or VTS_TEST_DATABASE), Redis
 * (127.0.0.1:6379) and MariaDB (127.0.0.1:3306, or VTS_TEST_MARIADB). On a machine without one, the tests that need it are
 * skipped, each with one line that says what is missing and how to get it, and the run still
 * passes. With `VTS_TEST_REQUIRE_SERVICES=1` (set by `.ci/run`) nothing is skipped: a missing
 * service fails those tests with the same line, so CI always runs everything.
 *
 * Use it in a test's options: `test(name, { skip: await needs(mosquitto) }, fn)`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { connectAsync } from 'mqtt';
import pg from 'pg';
import { PG_TEST_URL } from './postgres.js';

/** True when a missing service must fail the tests instead of skipping them. */
export const REQUIRE_SERVICES = process.env.VTS_TEST_REQUIRE_SERVICES === '1';

export const MOSQUITTO_HOST = '127.0.0.1';
export const MOSQUITTO_PORT = 1883;
export const CHROMIUM_PATH = process.env.VTS_CHROMIUM ?? '/usr/bin/chromium';

/** A service check: null when the service is there, or the one line that says what is missing and how to get it. */
export type ServiceCheck = () => Promise<string | null>;

const memo = new Map<ServiceCheck, Promise<string | null>>();

/** An anonymous MQTT login to the Mosquitto of this machine. */
export const mosquitto: ServiceCheck = async () => {
  try {
    const client = await connectAsync(`mqtt://${MOSQUITTO_HOST}:${MOSQUITTO_PORT}`, {
      reconnectPeriod: 0,
      connectTimeout: 3000,
      clientId: `vts-probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    });
    await client.endAsync();
    return null;
  } catch (err) {
    const why = (err as { code?: unknown }).code ?? (err as Error).message;
    return (
      `needs an anonymous Mosquitto on ${MOSQUITTO_HOST}:${MOSQUITTO_PORT} (${String(why)}): ` +
      'apt-get install mosquitto, then `mosquitto -d` (.ci/run starts it)'
    );
  }
};

/** Debian's Chromium, driven by playwright-core (which does not download a browser). */
export const chromium: ServiceCheck = async () =>
  existsSync(CHROMIUM_PATH)
    ? null
    : `needs Chromium at ${CHROMIUM_PATH}: apt-get install chromium (or set VTS_CHROMIUM to its path; .ci/run installs it)`;

/** The curl command (the README's HTTP examples use it). */
export const curl: ServiceCheck = async () =>
  spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0 ? null : 'needs the curl command: apt-get install curl';

/** The reason of the first missing service, memoised per check. */
export async function missing(...checks: ServiceCheck[]): Promise<string | null> {
  for (const check of checks) {
    let result = memo.get(check);
    if (!result) memo.set(check, (result = check()));
    const why = await result;
    if (why !== null) return why;
  }
  return null;
}

/**
 * The `skip` option of a test that needs these services: false when they are there, the reason
 * when one is missing. With REQUIRE_SERVICES it is always false; the test then calls
 * `requireServices` (or fails on its own connection attempt) with the same reason.
 */
export async function needs(...checks: ServiceCheck[]): Promise<string | false> {
  const why = await missing(...checks);
  if (why === null || REQUIRE_SERVICES) return false;
  return why;
}

/** Throws the reason when a service is missing (for tests that run under REQUIRE_SERVICES). */
export async function requireServices(...checks: ServiceCheck[]): Promise<void> {
  const why = await missing(...checks);
  if (why !== null) throw new Error(`${why} (a failure, not a skip: VTS_TEST_REQUIRE_SERVICES=1)`);
}

/** A login to the PostgreSQL of the tests (VTS_TEST_DATABASE, else this machine's `test` database). */
export const postgres: ServiceCheck = async () => {
  const shown = PG_TEST_URL.replace(/\/\/[^@/]*@/, '//');
  const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    const why = (err as { code?: unknown }).code ?? (err as Error).message;
    return (
      `needs PostgreSQL at ${shown} (${String(why)}): apt-get install postgresql, then ` +
      '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (.ci/run starts it)'
    );
  } finally {
    await client.end().catch(() => undefined);
  }
};

/** A Redis on 127.0.0.1:6379 that answers PING. */
export const redis: ServiceCheck = () =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: 6379 });
    const done = (why: string | null): void => {
      socket.destroy();
      resolve(
        why === null
          ? null
          : `needs Redis on 127.0.0.1:6379 (${why}): apt-get install redis-server, then ` +
              '`redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log` (.ci/run starts it)',
      );
    };
    socket.setTimeout(3000, () => done('no answer'));
    socket.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => done(chunk.toString().startsWith('+PONG') ? null : chunk.toString().trim()));
  });

/** The MariaDB (or MySQL) of this machine: root without a password on 127.0.0.1:3306 (`vts import` tests). */
export const MARIADB_URL = process.env.VTS_TEST_MARIADB ?? 'mysql://root@127.0.0.1:3306';

export const mariadb: ServiceCheck = async () => {
  const { createConnection: connect } = await import('mysql2/promise');
  try {
    const c = await connect({ uri: MARIADB_URL, connectTimeout: 3000 });
    await c.end();
    return null;
  } catch (err) {
    const why = (err as { code?: unknown }).code ?? (err as Error).message;
    return (
      `needs MariaDB at ${MARIADB_URL.replace(/\/\/[^@/]*@/, '//')} (${String(why)}): apt-get install mariadb-server, then ` +
      '`start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd` (.ci/run starts it; VTS_TEST_MARIADB sets another URL)'
    );
  }
};
