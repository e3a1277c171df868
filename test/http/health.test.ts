/**
 * `GET /health` (liveness) and `GET /ready` (readiness: the store answers, the cluster when
 * configured, the listeners): their JSON bodies, and readiness that follows the store — a closed
 * store, and a PostgreSQL server that cannot be reached (a TCP proxy in front of it is cut) and
 * comes back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { needs, postgres } from '../support/services.js';
import { freshSchema, PG_TEST_URL } from '../support/postgres.js';
import { SERVER_VERSION } from '../../src/version.js';
import { startTestServer } from '../support/server.js';
import { httpHarness, send } from './helpers.js';

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

/** A TCP proxy to `port` whose connections can be cut and new ones refused. */
async function cuttableProxy(port: number): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = createConnection({ host: '127.0.0.1', port });
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}

test('/ready follows a PostgreSQL server that goes away and comes back', { skip: await needs(postgres) }, async (t) => {
  const upstream = new URL(PG_TEST_URL);
  const proxy = await cuttableProxy(Number(upstream.port || 5432));
  t.after(() => proxy.close());
  const schema = freshSchema();
  t.after(() => schema.drop());
  const viaProxy = new URL(schema.url);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const h = await httpHarness(t, { database: viaProxy.toString() });
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
