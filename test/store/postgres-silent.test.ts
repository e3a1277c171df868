/**
 * PostgreSQL connections that go silent (issue 26): a TCP proxy of the test's own in front of the
 * server stops forwarding without closing anything (test/support/tcp-proxy.ts), as a partition
 * or a failover that moved the address looks to vts. With `databaseTimeoutMs` (`--database-timeout`)
 * a statement on a silent connection fails instead of waiting for ever, the pool is replaced, a
 * durable write is tried again on a new connection, and the outage is told once when it begins
 * and once when it ends.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { isOutage, type OutageEvent } from '../../src/store/outage.js';
import type { Store } from '../../src/store/store.js';
import { PG_TEST_URL, freshSchema, withSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { type TcpProxy, proxyPostgres } from '../support/tcp-proxy.js';
import { eventually } from '../mp/helpers.js';
import { seed } from './helpers.js';

const skip = await needs(postgres);

/** A store whose connections go through a proxy, with a short statement timeout; its outage events. */
async function behindProxy(t: TestContext): Promise<{ store: Store; proxy: TcpProxy; events: OutageEvent[]; background: unknown[] }> {
  await requireServices(postgres);
  const schema = freshSchema();
  const { proxy, url } = await proxyPostgres(withSchema(PG_TEST_URL, schema.schema));
  const events: OutageEvent[] = [];
  const background: unknown[] = [];
  const store = await openStore('', {
    database: url,
    databaseTimeoutMs: 500,
    onOutage: (e) => events.push(e),
    onBackgroundError: (err) => background.push(err),
  });
  t.after(async () => {
    await store.close().catch(() => undefined);
    await proxy.close();
    await schema.drop();
  });
  return { store, proxy, events, background };
}

const record = (time: number) => ({ vehicleId: 'DEMO1', type: '*-Test', recordNumber: 0, time, data: `at ${time}`, expires: time + 3600 });

test('a pool connection that goes silent is given up: the durable write waiting on it commits on a new connection, and the outage is told once', { skip, timeout: 30_000 }, async (t) => {
  const { store, proxy, events, background } = await behindProxy(t);
  await seed(store);
  await store.addHistorical(record(1000), true);
  assert.ok(proxy.accepted > 0);

  // every connection open now stays silent for good; a new one goes through
  proxy.blackHole();
  await store.addHistorical(record(1001), true);
  assert.deepEqual((await store.getHistorical('DEMO1', '*-Test', 0)).map((r) => r.data), ['at 1000', 'at 1001']);
  assert.equal(await store.databaseId(), await store.databaseId());

  assert.deepEqual(events.map((e) => e.state), ['down', 'up']);
  const up = events[1] as Extract<OutageEvent, { state: 'up' }>;
  assert.ok(up.failures >= 1, `${up.failures} failure(s) counted`);
  // the retry said so in the background, as an error of the outage (which the server does not log again)
  assert.ok(background.length > 0 && background.every(isOutage));
});

test('while no connection answers, reads fail instead of waiting for ever; when the database answers again the store recovers by itself', { skip, timeout: 30_000 }, async (t) => {
  const { store, proxy, events } = await behindProxy(t);
  await seed(store);

  // the connections open now, and the new ones too, until resume
  proxy.blackHole(true);
  await assert.rejects(store.databaseId(), (err) => isVtsError(err, 'VTS_ERR_DATABASE'));
  await assert.rejects(store.getOwnerByName('demo'), (err) => isVtsError(err, 'VTS_ERR_DATABASE'));
  assert.deepEqual(events.map((e) => e.state), ['down'], 'one event for all the failures');

  proxy.resume();
  const owner = await eventually(() => store.getOwnerByName('demo').catch(() => undefined), 'a read that answers', 15_000);
  assert.equal(owner.name, 'demo');
  assert.deepEqual(events.map((e) => e.state), ['down', 'up']);
  const up = events[1] as Extract<OutageEvent, { state: 'up' }>;
  assert.ok(up.failures >= 2, `${up.failures} failures counted`);
});
