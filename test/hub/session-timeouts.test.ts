/**
 * Web sessions (the dashboard's sign-in, with a CSRF token) have their own idle timeout
 * (`--web-session-timeout`, 7 days by default), API sessions (`GET /api/cookie`) keep REF's short
 * one: each ends after its own idle time, in this process and in a cluster's Redis alike. The
 * clock is injected: no waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ApiSessions } from '../../src/hub/sessions/api-sessions.js';
import { LocalSessionStore, type SessionStore } from '../../src/hub/sessions/session-store.js';
import { RedisSessionStore } from '../../src/cluster/redis-sessions.js';
import type { RedisCluster } from '../../src/cluster/redis-cluster.js';
import { needs, redis } from '../support/services.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const OWNER = { id: 1, name: 'demo' };

/** Sessions on a store with a clock the test moves: API 3 minutes, web 7 days. */
function sessionsOn(store: SessionStore): { sessions: ApiSessions; advance(ms: number): void } {
  let now = 1_700_000_000_000;
  const hub = { registerApiApp: () => 0, unregisterApiApp: () => undefined, now: () => now };
  return { sessions: new ApiSessions(hub, store, { apiMs: 3 * MINUTE, webMs: 7 * DAY }), advance: (ms) => (now += ms) };
}

async function eachKindEndsAfterItsOwnTimeout(store: SessionStore): Promise<void> {
  const { sessions, advance } = sessionsOn(store);
  const api = await sessions.create(OWNER, '*');
  const web = await sessions.create(OWNER, '*', undefined, true);
  assert.equal(sessions.timeoutOf(api), 3 * MINUTE);
  assert.equal(sessions.timeoutOf(web), 7 * DAY);

  // 10 minutes idle: the API session has ended, the dashboard's has not
  advance(10 * MINUTE);
  assert.equal(await sessions.use(api.id), undefined, 'the API session ended after 3 minutes idle');
  assert.equal((await sessions.use(web.id))?.ownerName, 'demo', 'the web session lives on');
  await sessions.sweep();
  assert.equal(await sessions.use(api.id), undefined);

  // sliding: used every 6 days for 3 weeks, it lives; then a week and a minute idle, it ends
  for (let k = 0; k < 3; k++) {
    advance(6 * DAY);
    await sessions.sweep();
    assert.ok(await sessions.use(web.id), `use ${k}`);
  }
  advance(7 * DAY + MINUTE);
  await sessions.sweep();
  assert.equal(await sessions.use(web.id), undefined, 'the web session ended after its own idle time');
}

test('in this process: a web session ends after --web-session-timeout, an API session after --session-timeout', async () => {
  await eachKindEndsAfterItsOwnTimeout(new LocalSessionStore());
});

test("in a cluster's Redis: the same timeouts, in the Lua check and in the sweep", { skip: await needs(redis) }, async (t) => {
  const r = new Redis('redis://127.0.0.1:6379');
  const prefix = `vts-test-sessions-${randomUUID()}:`;
  t.after(async () => {
    const keys = await r.keys(`${prefix}*`);
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
  });
  // the parts of the cluster the store uses, on a real Redis
  const cluster = {
    nodeId: 'test',
    connected: true,
    key: (name: string) => prefix + name,
    shared: <T>(op: (redis: Redis) => Promise<T>) => op(r),
    broadcast: () => undefined,
    onBroadcast: () => undefined,
  } as unknown as RedisCluster;
  await eachKindEndsAfterItsOwnTimeout(new RedisSessionStore(cluster));
  assert.deepEqual(await r.keys(`${prefix}sess:seen*`), [], 'both sessions were swept');
});
