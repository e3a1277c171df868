/**
 * The `/api` dispatcher's answers (docs/protocol/http-api-v2.md §1, §2, §2.1, §4.13): 404 before
 * authentication for unknown calls, 401, 403, the former 501 group's rights, and the headers every response
 * carries (CORS included, errors too); CORS preflight and HEAD, which the reference refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness, type HttpResponse } from './helpers.js';

function assertText(r: HttpResponse, status: number, reason: string, body: string): void {
  assert.equal(r.status, status, r.body);
  assert.equal(r.reason, reason);
  assert.equal(r.body, body);
  assert.equal(r.headers['content-type'], 'text/plain');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.equal(r.headers['cache-control'], 'max-age=0');
  assert.ok(r.headers.date);
  assert.equal(r.headers.expires, r.headers.date);
  assert.equal(r.headers['content-length'], String(Buffer.byteLength(body)));
}

test('unknown calls are 404 "Unrecognised API call" before any authentication', async (ctx) => {
  const h = await httpHarness(ctx);
  for (const [method, path] of [
    ['GET', '/api/nosuchthing'],
    ['GET', '/api'],
    ['GET', '/api/'],
    ['PUT', '/api/vehicles'],
    ['POST', '/api/status/TESTCAR'],
    ['PUT', '/api/feature/TESTCAR'],
  ]) {
    assertText(await h.request(path!, { method }), 404, 'Unrecognised API call', 'Unrecognised API call\n');
  }
});

test('paths outside /api (and the dashboard at /) are 404 "not found"', async (ctx) => {
  const h = await httpHarness(ctx);
  for (const path of ['/foo/bar', '/apix', '/mqapi/nothing', '/assets/nothing.js', '/index.htm']) {
    assertText(await h.request(path), 404, 'not found', 'not found\n');
  }
});

test('401 "Authentication failed": no credentials, wrong password, unknown user, unknown cookie', async (ctx) => {
  const h = await httpHarness(ctx);
  for (const [path, headers] of [
    ['/api/vehicles', {}],
    ['/api/vehicles?username=demo&password=wrong', {}],
    ['/api/vehicles?username=nobody&password=x', {}],
    ['/api/vehicles?username=demo', {}],
    ['/api/vehicles', { cookie: 'svcapisession=00000000-0000-0000-0000-000000000000' }],
  ] as [string, Record<string, string>][]) {
    assertText(await h.request(path, { headers }), 401, 'Unauthorized', 'Authentication failed\n');
  }
  const logs = h.t.logs.join('\n');
  assert.ok(!logs.includes('password=wrong') && !logs.includes('"wrong"'), 'no password in the logs');
});

test('403 "Forbidden" for a vehicle that is not the caller\'s; 403 "Insufficient rights" for a missing right', async (ctx) => {
  const h = await httpHarness(ctx);
  assertText(await h.asDemo('/api/status/NOSUCHCAR'), 403, 'Forbidden', 'Forbidden\n');
  assertText(await h.asDemo('/api/vehicle/NOSUCHCAR'), 403, 'Forbidden', 'Forbidden\n');
  await h.t.addUser('reader', 'readerpass', 'auth');
  assertText(
    await h.request('/api/token?username=reader&password=readerpass'),
    403,
    'Forbidden',
    'Insufficient rights\n',
  );
  assertText(
    await h.request('/api/cookie?username=reader&password=readerpass'),
    403,
    'Forbidden',
    'Insufficient rights\n',
  );
  await h.t.addUser('nobody', 'nobodypass', 'none');
  assertText(await h.request('/api/vehicles?username=nobody&password=nobodypass'), 401, 'Unauthorized', 'Authentication failed\n');
});

test('the reference\'s "Not Yet Implemented" group needs authentication, then the command right', async (ctx) => {
  const h = await httpHarness(ctx);
  await h.t.addUser('reader', 'readerpass', 'auth');
  const group = [
    ['PUT', 'charge'],
    ['DELETE', 'charge'],
    ['PUT', 'lock'],
    ['DELETE', 'lock'],
    ['PUT', 'valet'],
    ['DELETE', 'valet'],
    ['GET', 'features'],
    ['PUT', 'features'],
    ['GET', 'parameters'],
    ['PUT', 'parameters'],
    ['PUT', 'reset'],
    ['PUT', 'homelink'],
  ];
  for (const [method, fn] of group) {
    assertText(await h.request(`/api/${fn}/DEMO1`, { method }), 401, 'Unauthorized', 'Authentication failed\n');
    assertText(
      await h.request(`/api/${fn}/DEMO1?username=reader&password=readerpass`, { method }),
      403,
      'Forbidden',
      'Insufficient rights\n',
    );
  }
  // the states need no command right (they read the stored D record)
  assert.equal((await h.request('/api/lock/DEMO1?username=demo&password=demopass')).body, '{}\n');
});

test('CORS preflight (OPTIONS) is answered with the allowed methods and headers', async (ctx) => {
  const h = await httpHarness(ctx);
  const r = await h.request('/api/vehicles', {
    method: 'OPTIONS',
    headers: { origin: 'https://example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-custom' },
  });
  assert.equal(r.status, 204);
  assert.equal(r.body, '');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.match(String(r.headers['access-control-allow-methods']), /GET/);
  assert.match(String(r.headers['access-control-allow-methods']), /DELETE/);
  assert.equal(r.headers['access-control-allow-headers'], 'x-custom');
});

test('HEAD is answered like GET, without a body', async (ctx) => {
  const h = await httpHarness(ctx);
  const get = await h.asDemo('/api/vehicles');
  const head = await h.asDemo('/api/vehicles', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-type'], 'application/json');
  assert.equal(get.headers['content-length'], String(Buffer.byteLength(get.body)));
});

test('bad requests: undecodable path 400, oversize body 413; the server keeps serving', async (ctx) => {
  const h = await httpHarness(ctx, { httpBodyLimit: 1024 });
  const bad = await h.request('/api/status/%E0%A4%A?username=demo&password=demopass');
  assert.equal(bad.status, 400);
  assert.equal(bad.headers['access-control-allow-origin'], '*');
  const big = await h.asDemo('/api/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'application=' + 'x'.repeat(4096),
  });
  assert.equal(big.status, 413);
  assert.equal(big.headers['content-type'], 'text/plain');
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);
});

test('/api/vehicles lists exactly id, v_apps_connected, v_btcs_connected, v_net_connected, ordered by id', async (ctx) => {
  const h = await httpHarness(ctx);
  const r = await h.asDemo('/api/vehicles');
  assert.equal(
    r.body,
    '[{"id":"DEMO1","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0},' +
      '{"id":"TESTCAR","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0}]\n',
  );
  const car = await h.car('TESTCAR');
  await car.next(); // Z0
  const batch = await h.client('B', 'TESTCAR');
  await batch.next(); // Z1
  const app = await h.client('A', 'TESTCAR');
  await app.next();
  const after = JSON.parse((await h.asDemo('/api/vehicles')).body) as Record<string, unknown>[];
  assert.deepEqual(after[1], { id: 'TESTCAR', v_apps_connected: 1, v_btcs_connected: 1, v_net_connected: 1 });
});
