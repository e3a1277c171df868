/**
 * Owners are isolated (docs/protocol/http-api-v2.md §2 step 5, §4.4; docs/compatibility.md HTTP #8): a user
 * sees only their own vehicles in `/api/vehicles`, and every vehicle endpoint answers
 * `403 Forbidden` with body `Forbidden\n` for another owner's vehicle exactly as for an unknown
 * one (nobody learns whether it exists), without side effects. Vehicle ids in paths are
 * case-insensitive for their owner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness, withQuery, withoutTimes, type HttpHarness, type RequestOptions } from './helpers.js';

const OTHER_AUTH = 'username=other&password=otherpass';

/** Every vehicle endpoint as [method, path prefix]; the vehicle id is appended. */
const VEHICLE_CALLS: [string, string, string?][] = [
  ['GET', '/api/vehicle/'],
  ['DELETE', '/api/vehicle/'],
  ['GET', '/api/protocol/'],
  ['GET', '/api/status/'],
  ['GET', '/api/tpms/'],
  ['GET', '/api/location/'],
  ['GET', '/api/charge/'],
  ['GET', '/api/historical/'],
  ['GET', '/api/historical/', '/S'],
];

async function withOther(ctx: Parameters<typeof httpHarness>[0]): Promise<HttpHarness> {
  const h = await httpHarness(ctx);
  const other = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHERCAR', other, 'NETPASS');
  return h;
}

async function assertAllForbidden(h: HttpHarness, vehicleId: string, auth: string): Promise<void> {
  for (const [method, prefix, suffix = ''] of VEHICLE_CALLS) {
    const path = prefix + vehicleId + suffix;
    const opts: RequestOptions = { method };
    const r = await h.request(withQuery(path, auth), opts);
    const what = `${method} ${path} as ${auth.split('&')[0]}`;
    assert.equal(r.status, 403, `${what}: ${r.body}`);
    assert.equal(r.reason, 'Forbidden', what);
    assert.equal(r.headers['content-type'], 'text/plain', what);
    assert.equal(r.headers['access-control-allow-origin'], '*', what);
    assert.equal(r.body, 'Forbidden\n', what);
  }
}

test('each owner sees only their own vehicles in /api/vehicles', async (ctx) => {
  const h = await withOther(ctx);
  const demo = await h.asDemo('/api/vehicles');
  assert.equal(demo.status, 200);
  assert.equal(
    demo.body,
    '[{"id":"DEMO1","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0},' +
      '{"id":"TESTCAR","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0}]\n',
  );
  const other = await h.request(withQuery('/api/vehicles', OTHER_AUTH));
  assert.equal(other.status, 200);
  assert.equal(other.body, '[{"id":"OTHERCAR","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0}]\n');

  // a user without vehicles gets an empty list
  await h.t.addUser('nocars', 'nocarspass');
  const none = await h.request('/api/vehicles?username=nocars&password=nocarspass');
  assert.equal(none.status, 200);
  assert.equal(none.body, '[]\n');
});

test("every vehicle endpoint answers 403 Forbidden for another owner's vehicle, in either direction", async (ctx) => {
  const h = await withOther(ctx);
  await assertAllForbidden(h, 'OTHERCAR', 'username=demo&password=demopass');
  await assertAllForbidden(h, 'othercar', 'username=demo&password=demopass');
  await assertAllForbidden(h, 'TESTCAR', OTHER_AUTH);
  await assertAllForbidden(h, 'demo1', OTHER_AUTH);

  // the same through a cookie session
  const cookie = await h.login('other', 'otherpass');
  for (const path of ['/api/status/TESTCAR', '/api/vehicle/DEMO1', '/api/historical/TESTCAR']) {
    const r = await h.request(path, { headers: { cookie } });
    assert.equal(r.status, 403, path);
    assert.equal(r.body, 'Forbidden\n', path);
  }
});

test('every vehicle endpoint answers 403 Forbidden for an unknown vehicle', async (ctx) => {
  const h = await withOther(ctx);
  await assertAllForbidden(h, 'NOSUCHCAR', 'username=demo&password=demopass');
  await assertAllForbidden(h, 'nosuchcar', OTHER_AUTH);
});

test("a refused GET /api/vehicle does not register the caller as an app of the other owner's car", async (ctx) => {
  const h = await withOther(ctx);
  const car = await h.car('OTHERCAR');
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  const cookie = await h.login();
  assert.equal((await h.request('/api/vehicle/OTHERCAR', { headers: { cookie } })).status, 403);
  assert.equal((await h.asDemo('/api/vehicle/OTHERCAR')).status, 403);
  const other = await h.request(withQuery('/api/vehicles', OTHER_AUTH));
  assert.equal(other.body, '[{"id":"OTHERCAR","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":1}]\n');
  // the car got no Z<n>: the ping's answer is the next thing it receives
  car.send('A');
  assert.deepEqual(await car.next(), { code: 'a', data: '' });
});

test('vehicle ids in paths are case-insensitive for the owner', async (ctx) => {
  const h = await withOther(ctx);
  const car = await h.car('TESTCAR');
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  car.send('S', '80,K,220,70,charging,standard,280,270');
  car.send('A');
  assert.deepEqual(await car.next(), { code: 'a', data: '' });

  for (const fn of ['status', 'charge', 'location', 'tpms', 'protocol', 'historical']) {
    const upper = await h.asDemo(`/api/${fn}/TESTCAR`);
    const lower = await h.asDemo(`/api/${fn}/testcar`);
    const mixed = await h.asDemo(`/api/${fn}/TestCar`);
    assert.equal(upper.status, 200, fn);
    assert.equal(lower.status, 200, `${fn} lower case: ${lower.body}`);
    assert.equal(mixed.status, 200, `${fn} mixed case`);
    assert.equal(withoutTimes(lower.body), withoutTimes(upper.body), fn);
    assert.equal(withoutTimes(mixed.body), withoutTimes(upper.body), fn);
  }
  const status = JSON.parse((await h.asDemo('/api/status/testcar')).body) as Record<string, unknown>;
  assert.equal(status.soc, '80', 'the stored S of TESTCAR');

  // connecting with a lower-case id counts for the car (Z1), and disconnecting likewise (Z0)
  const cookie = await h.login();
  const connect = await h.request('/api/vehicle/testcar', { headers: { cookie } });
  assert.equal(connect.status, 200);
  assert.equal((JSON.parse(connect.body) as Record<string, unknown>).v_apps_connected, 1);
  assert.deepEqual(await car.next(), { code: 'Z', data: '1' });
  const disconnect = await h.request('/api/vehicle/tEsTcAr', { method: 'DELETE', headers: { cookie } });
  assert.equal(disconnect.status, 200);
  assert.equal(disconnect.body, 'Disconnect OK\n');
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
});
