/**
 * Abuse limits of the HTTP listener (docs/protocol/http-api-v2.md §1.1; docs/compatibility.md HTTP #3, #16,
 * #17): the per-address rate limiter refuses a request once the address's quota is used up with
 * `429 Too many requests`, an empty body and the CORS header, before routing and authentication.
 * The login throttle is tested in test/http/login-throttle.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_AUTH, httpHarness, send, withQuery, type HttpResponse } from './helpers.js';

/** A GET from another loopback source address. */
const getFrom = (localAddress: string, port: number, path: string): Promise<HttpResponse> => send(port, path, { localAddress });

const LIMITED = { rateLimit: { burst: 3, delaySeconds: 0, perMinute: 60, max: 240 } };

function assert429(r: HttpResponse, what: string): void {
  assert.equal(r.status, 429, `${what}: ${r.status} ${r.body}`);
  assert.equal(r.reason, 'Too many requests', what);
  assert.equal(r.body, '', what);
  assert.equal(r.headers['content-length'], '0', what);
  assert.equal(r.headers['access-control-allow-origin'], '*', what);
}

test('the first requests of an address pass (burst 3), then 429 Too many requests with an empty body', async (ctx) => {
  const h = await httpHarness(ctx, LIMITED);
  const VEHICLES = (await h.asDemo('/api/vehicles')).body;
  assert.match(VEHICLES, /^\[\{"id":"DEMO1"/);
  for (let k = 2; k <= 3; k++) {
    const r = await h.asDemo('/api/vehicles');
    assert.equal(r.status, 200, `request ${k}`);
    assert.equal(r.body, VEHICLES, `request ${k}`);
  }
  for (let k = 4; k <= 6; k++) assert429(await h.asDemo('/api/vehicles'), `request ${k}`);
});

test('the limiter runs before routing and authentication, and counts every request', async (ctx) => {
  const h = await httpHarness(ctx, LIMITED);
  assert.equal((await h.request('/api/vehicles')).status, 401, 'a failed request is counted');
  assert.equal((await h.request('/nosuchpath')).status, 404, 'so is one outside /api');
  assert.equal((await h.request('/api/nosuchcall')).status, 404);
  assert429(await h.asDemo('/api/vehicles'), 'good credentials');
  assert429(await h.request('/api/nosuchcall'), 'unknown call');
  assert429(await h.request('/nosuchpath'), 'outside /api');
  assert429(await h.request(withQuery('/api/token', DEMO_AUTH), { method: 'POST' }), 'POST');
});

test('the quota is per source address', async (ctx) => {
  const h = await httpHarness(ctx, LIMITED);
  for (let k = 1; k <= 3; k++) assert.equal((await h.asDemo('/api/vehicles')).status, 200);
  assert429(await h.asDemo('/api/vehicles'), '127.0.0.1 over its quota');

  const path = withQuery('/api/vehicles', DEMO_AUTH);
  for (let k = 1; k <= 3; k++) assert.equal((await getFrom('127.0.0.2', h.httpPort, path)).status, 200, `127.0.0.2 #${k}`);
  assert429(await getFrom('127.0.0.2', h.httpPort, path), '127.0.0.2 over its quota');
});

test('burst 0 turns the limiter off', async (ctx) => {
  const h = await httpHarness(ctx, { rateLimit: { burst: 0, delaySeconds: 0 } });
  for (let k = 1; k <= 30; k++) assert.equal((await h.asDemo('/api/vehicles')).status, 200, `request ${k}`);
});
