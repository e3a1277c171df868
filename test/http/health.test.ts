/**
 * `GET /health` (liveness) and `GET /ready` (readiness: the store answers, the cluster when
 * configured, the listeners): their JSON bodies, and readiness that follows the store — a closed
 * store, and a PostgreSQL server that cannot be reached (a TCP proxy in front of it is cut) and
 * comes back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { needs, postgres } from '../support/services.js';
import { freshSchema } from '../support/postgres.js';
import { SERVER_VERSION } from '../../src/util/version.js';
import { startTestServer } from '../support/server.js';
import { httpHarness, send } from './helpers.js';
import { proxyPostgres } from '../support/tcp-proxy.js';

test('/health: the process serves', async (t) => {
  const h = await httpHarness(t);
  const r = await h.request('/health');
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['status', 'uptimeSeconds', 'version']);
  assert.equal(body.status, 'ok');
  assert.equal(body.version, SERVER_VERSION);
  assert.ok(Number.isInteger(body.uptimeSeconds) && (body.uptimeSeconds as number) >= 0);
  // HEAD too (a load balancer's cheap probe)
  assert.equal((await h.request('/health', { method: 'HEAD' })).status, 200);
});

test('/ready: ready while the store answers, 503 once it does not', async (t) => {
  const s = await startTestServer({ rateLimit: { burst: 0 } });
  // the store is closed below: the server's close then says so
  t.after(() => s.close().catch(() => undefined));
  const h = { request: (path: string) => send(s.server.ports.http!, path) };
  const r = await h.request('/ready');
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.body), { checks: { cluster: 'off', listeners: 'ok', store: 'ok' }, status: 'ready' });
  await s.server.store.close();
  const down = await h.request('/ready');
  assert.equal(down.status, 503);
  const body = JSON.parse(down.body) as { status: string; checks: Record<string, string> };
  assert.equal(body.status, 'not ready');
  assert.match(body.checks.store!, /^failed: /);
  assert.equal(body.checks.listeners, 'ok');
  // liveness does not depend on the store
  assert.equal((await h.request('/health')).status, 200);
});

test('/ready follows a PostgreSQL server that goes away and comes back', { skip: await needs(postgres) }, async (t) => {
  const schema = freshSchema();
  t.after(() => schema.drop());
  const { proxy, url } = await proxyPostgres(schema.url);
  t.after(() => proxy.close());
  const h = await httpHarness(t, { database: url });
  const ready = async (): Promise<{ status: number; store: string }> => {
    const r = await send(h.httpPort, '/ready');
    return { status: r.status, store: (JSON.parse(r.body) as { checks: { store: string } }).checks.store };
  };
  assert.deepEqual(await ready(), { status: 200, store: 'ok' });
  proxy.cut();
  const down = await ready();
  assert.equal(down.status, 503);
  assert.match(down.store, /^failed: /);
  proxy.restore();
  // the pool connects again for the next check
  let back = await ready();
  for (let k = 0; k < 50 && back.status !== 200; k++) {
    await new Promise((r) => setTimeout(r, 100));
    back = await ready();
  }
  assert.deepEqual(back, { status: 200, store: 'ok' });
});
