/**
 * A session used at once from memory (`ApiSessions.useAtOnce`, for the status answer that awaits
 * nothing): in this process every session is in memory, and the answer is `use`'s, idle clock
 * included; a cluster node answers only a session it checked in Redis in the last few seconds,
 * and nothing while Redis is out of reach. The clock is injected: no waiting.
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
const OWNER = { id: 1, name: 'demo' };

function sessionsOn(store: SessionStore): { sessions: ApiSessions; advance(ms: number): void } {
  let now = 1_700_000_000_000;
  const hub = { registerApiApp: () => 0, unregisterApiApp: () => undefined, now: () => now };
  return { sessions: new ApiSessions(hub, store, { apiMs: 3 * MINUTE, webMs: 7 * 24 * 60 * MINUTE }), advance: (ms) => (now += ms) };
}

test('in this process: the answer of use, its idle clock restarted', async () => {
  const { sessions, advance } = sessionsOn(new LocalSessionStore());
  const s = await sessions.create(OWNER, '*');
  assert.equal(sessions.useAtOnce(s.id)?.ownerName, 'demo');
  assert.equal(sessions.useAtOnce('no-such-session'), undefined);
  // used every 2 minutes, an API session (3 minutes) lives on
  for (let k = 0; k < 3; k++) {
    advance(2 * MINUTE);
    assert.ok(sessions.useAtOnce(s.id), `use ${k}`);
  }
  advance(3 * MINUTE + 1);
  assert.equal(sessions.useAtOnce(s.id), undefined, 'idle too long');
  assert.equal(await sessions.use(s.id), undefined);
  // the key of a cookie-less registration is no cookie
  const anonymous = sessions.anonymous(OWNER, '*', '127.0.0.1', true);
  assert.ok(anonymous);
  assert.equal(sessions.useAtOnce(anonymous.id), undefined);
});

test("in a cluster: only a session this node checked in Redis lately", { skip: await needs(redis) }, async (t) => {
  const r = new Redis('redis://127.0.0.1:6379');
  const prefix = `vts-test-at-once-${randomUUID()}:`;
  t.after(async () => {
    const keys = await r.keys(`${prefix}*`);
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
  });
  const cluster = {
    nodeId: 'test',
    connected: true,
    key: (name: string) => prefix + name,
    shared: <T>(op: (redis: Redis) => Promise<T>) => op(r),
    broadcast: () => undefined,
    onBroadcast: () => undefined,
  } as unknown as RedisCluster & { connected: boolean };
  const { sessions, advance } = sessionsOn(new RedisSessionStore(cluster));
  const s = await sessions.create(OWNER, '*');
  assert.equal(sessions.useAtOnce(s.id), undefined, 'not checked by this node yet');
  assert.equal((await sessions.use(s.id))?.ownerName, 'demo');
  assert.equal(sessions.useAtOnce(s.id)?.ownerName, 'demo', 'checked a moment ago');
  cluster.connected = false;
  assert.equal(sessions.useAtOnce(s.id), undefined, 'Redis out of reach');
  cluster.connected = true;
  advance(10_000);
  assert.equal(sessions.useAtOnce(s.id), undefined, 'checked too long ago: Redis is asked again');
  assert.ok(await sessions.use(s.id));
  assert.ok(sessions.useAtOnce(s.id));
});
