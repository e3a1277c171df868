/**
 * A cookie is a credential: the cluster's Redis never holds one. Sessions are keyed by the
 * SHA-256 of their cookie (key names, set members, records, the session-end broadcasts), and a
 * session still works across nodes and ends everywhere when it is logged out anywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { eventually } from '../mp/helpers.js';
import { REDIS_URL, skipCluster, startCluster, type Node } from './harness.js';

/** Every key under the prefix with what it holds (names, members, fields, values), as text. */
async function everything(r: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      out.push(key);
      const type = await r.type(key);
      if (type === 'string') out.push((await r.get(key)) ?? '');
      else if (type === 'set') out.push(...(await r.smembers(key)));
      else if (type === 'zset') out.push(...(await r.zrange(key, 0, -1)));
      else if (type === 'hash') out.push(...Object.entries(await r.hgetall(key)).flat());
      else if (type === 'list') out.push(...(await r.lrange(key, 0, -1)));
    }
  } while (cursor !== '0');
  return out;
}

test('no cookie in Redis: sessions are keyed by its SHA-256; one still works on every node and ends everywhere', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const r = new Redis(REDIS_URL);
  const listener = new Redis(REDIS_URL);
  t.after(() => {
    r.disconnect();
    listener.disconnect();
  });
  // what the nodes tell each other
  const heard: string[] = [];
  listener.on('message', (_channel: string, payload: string) => heard.push(payload));
  await listener.subscribe(`${c.prefix}:all`);

  const res = await fetch(a.url('/api/cookie'));
  assert.equal(res.status, 200);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const value = cookie.slice(cookie.indexOf('=') + 1);
  assert.match(value, /^[0-9A-F-]{36}$/);
  const withCookie = (node: Node, path: string, method = 'GET'): Promise<Response> => fetch(node.url(path, false), { method, headers: { cookie } });

  // used on B, connected to the vehicle there (a registration in Redis too)
  assert.equal((await withCookie(b, '/api/vehicles')).status, 200);
  assert.equal((await withCookie(b, '/api/vehicle/CLCAR')).status, 200);
  const stored = await everything(r, c.prefix);
  assert.ok(stored.some((s) => s.includes(':sess:')), `the session is in Redis: ${stored.join(' ')}`);
  const leaks = stored.filter((s) => s.toUpperCase().includes(value));
  assert.deepEqual(leaks, [], 'no key, member or value holds the cookie');

  // logged out on A: ended on B too; the broadcast named no cookie either
  const out = await withCookie(a, '/api/cookie', 'DELETE');
  assert.equal(out.status, 200);
  await eventually(async () => ((await withCookie(b, '/api/vehicles')).status === 401 ? true : undefined), 'the session to end on B');
  assert.equal((await withCookie(a, '/api/vehicles')).status, 401);
  await eventually(() => (heard.some((m) => m.includes('session-end')) ? true : undefined), 'the session-end broadcast');
  assert.deepEqual(heard.filter((m) => m.toUpperCase().includes(value)), [], 'no message between nodes holds the cookie');
  assert.deepEqual((await everything(r, c.prefix)).filter((s) => s.includes(':sess:')), [], 'nothing of the session is left');
});
