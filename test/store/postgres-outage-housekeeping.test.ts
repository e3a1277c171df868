/**
 * The housekeeping (every minute: traffic counters, purges) during a PostgreSQL outage: its
 * failures are the outage's, which has one line of its own when it begins (src/store/outage.ts),
 * so they are logged at debug, not as an error line each minute the database stays away.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { freshSchema } from '../support/postgres.js';
import { startTestServer } from '../support/server.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { proxyPostgres } from '../support/tcp-proxy.js';

const skip = await needs(postgres);

const level = (line: string): number => (JSON.parse(line) as { level: number }).level;

test('a housekeeping run that fails in a database outage is logged at debug only', { skip }, async (t) => {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  const { proxy, url } = await proxyPostgres(s.url);
  t.after(() => proxy.close());
  const server = await startTestServer({ database: url, databaseTimeoutMs: 300, housekeepingMs: 100 });
  t.after(() => server.close());

  proxy.blackHole(true);
  await eventually(() => server.logs.find((l) => l.includes('the database is unavailable')), 'the outage line', 30_000);
  const failed = await eventually(() => server.logs.find((l) => l.includes('housekeeping failed')), 'a failed housekeeping run', 30_000);
  assert.equal(level(failed), 20, failed);
  const errors = server.logs.filter((l) => level(l) >= 50 && !l.includes('the database is unavailable'));
  assert.deepEqual(errors, [], 'the outage is its one error line');
  proxy.resume();
});
