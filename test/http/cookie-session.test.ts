/**
 * Cookie sessions and API "app" registrations (docs/protocol/http-api-v2.md §3.4, §4.1, §4.2, §4.5, §4.6;
 * docs/protocol/http-api-v2.md §4.5): `GET /api/cookie` sets a bare `svcapisession=<UUID>` cookie; `GET
 * /api/vehicle/<id>` registers the session as an app and the connected car is sent `Z<n>`; the
 * session ends by `DELETE /api/cookie` or after `--session-timeout` without use (sliding), and the
 * car is sent its new count; cookie-less registrations expire the same way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { m, roundTrip } from '../mp/helpers.js';
import { httpHarness, withoutTimes } from './helpers.js';

const UUID = /^svcapisession=[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

test('login sets a bare svcapisession cookie; the cookie authenticates, also among other cookies', async (ctx) => {
  const h = await httpHarness(ctx);
  const r = await h.request('/api/cookie?username=demo&password=demopass');
  assert.equal(r.status, 200);
  assert.equal(r.body, 'Login ok\n');
  assert.equal(r.headers['content-type'], 'text/plain');
  assert.equal(r.headers['set-cookie']?.length, 1);
  const cookie = r.headers['set-cookie']![0]!;
  assert.match(cookie, UUID, 'no attributes: some clients split the raw header');

  for (const header of [cookie, `a=b; ${cookie}; c=d`, `a=b;${cookie}`]) {
    const v = await h.request('/api/vehicles', { headers: { cookie: header } });
    assert.equal(v.status, 200, header);
    assert.match(v.body, /^\[\{"id":"DEMO1"/);
  }
  const out = await h.request('/api/cookie', { method: 'DELETE', headers: { cookie } });
  assert.equal(out.status, 200);
  assert.equal(out.body, 'Logout ok\n');
  assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 401, 'the session is gone');
});

test('GET /api/vehicle registers the session as an app: the car gets Z1, logout sends Z0', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  assert.deepEqual(await car.next(), m('Z', '0'));
  car.send('S', '80,K,220,70,charging,standard,280,270');
  await roundTrip(car);
  const cookie = await h.login();

  const first = await h.request('/api/vehicle/testcar', { headers: { cookie } });
  assert.equal(first.status, 200);
  assert.equal(
    withoutTimes(first.body),
    '{"m_msgage_s":0,"m_msgtime_s":"T","v_apps_connected":1,"v_btcs_connected":0,"v_first_peer":1,"v_net_connected":1}\n',
  );
  assert.deepEqual(await roundTrip(car), [m('Z', '1')], 'the id in the path is case-insensitive');

  const again = JSON.parse((await h.request('/api/vehicle/TESTCAR', { headers: { cookie } })).body) as Record<string, unknown>;
  assert.equal(again.v_first_peer, 0);
  assert.equal(again.v_apps_connected, 1, 'the same session is not counted twice');
  assert.deepEqual(await roundTrip(car), []);

  const list = JSON.parse((await h.request('/api/vehicles', { headers: { cookie } })).body) as Record<string, unknown>[];
  assert.equal(list.find((v) => v.id === 'TESTCAR')?.v_apps_connected, 1);

  await h.request('/api/cookie', { method: 'DELETE', headers: { cookie } });
  assert.deepEqual(await roundTrip(car), [m('Z', '0')]);
});

test('MP apps and API sessions add up in Z; DELETE /api/vehicle unregisters', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  await car.next();
  const app = await h.client('A');
  await app.next();
  assert.deepEqual(await roundTrip(car), [m('Z', '1')]);
  const cookie = await h.login();
  const body = JSON.parse((await h.request('/api/vehicle/TESTCAR', { headers: { cookie } })).body) as Record<string, unknown>;
  assert.equal(body.v_first_peer, 0, 'an MP app was first');
  assert.equal(body.v_apps_connected, 2);
  assert.ok(!('m_msgtime_s' in body), 'no S record stored');
  assert.deepEqual(await roundTrip(car), [m('Z', '2')]);

  const del = await h.request('/api/vehicle/TESTCAR', { method: 'DELETE', headers: { cookie } });
  assert.equal(del.status, 200);
  assert.equal(del.body, 'Disconnect OK\n');
  assert.equal(del.headers['content-type'], 'application/json', 'as the reference: a JSON type on a text body');
  assert.deepEqual(await roundTrip(car), [m('Z', '1')]);
});

test('sessions end after the timeout without use (sliding): the car is sent its new count', async (ctx) => {
  const h = await httpHarness(ctx, { sessionTimeout: 1 });
  const car = await h.car();
  await car.next();
  const cookie = await h.login();
  await h.request('/api/vehicle/TESTCAR', { headers: { cookie } });
  assert.deepEqual(await roundTrip(car), [m('Z', '1')]);

  // used every 300 ms for 2 s: twice the timeout, yet the session lives (REF expired it at 1 s)
  for (let k = 0; k < 7; k++) {
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 200, `use ${k}`);
  }
  assert.deepEqual(await roundTrip(car), [], 'still registered');

  // then idle: the sweep ends it and the car hears Z0
  assert.deepEqual(await car.next(5000), m('Z', '0'));
  assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 401);
});

test('a cookie-less GET /api/vehicle registers an app that expires like a session', async (ctx) => {
  const h = await httpHarness(ctx, { sessionTimeout: 1 });
  const car = await h.car();
  await car.next();
  const r = JSON.parse((await h.asDemo('/api/vehicle/TESTCAR')).body) as Record<string, unknown>;
  assert.equal(r.v_first_peer, 1);
  assert.deepEqual(await roundTrip(car), [m('Z', '1')]);
  const again = JSON.parse((await h.asDemo('/api/vehicle/TESTCAR')).body) as Record<string, unknown>;
  assert.equal(again.v_apps_connected, 1, 'the same caller is one registration');
  assert.deepEqual(await car.next(5000), m('Z', '0'), 'no permanent phantom app');
  const list = JSON.parse((await h.asDemo('/api/vehicles')).body) as Record<string, unknown>[];
  assert.equal(list.find((v) => v.id === 'TESTCAR')?.v_apps_connected, 0);
});

test("a cookie-less registration's key is no cookie: sent as one, it authenticates nobody", async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  await car.next();
  assert.equal((await h.asDemo('/api/vehicle/TESTCAR')).status, 200, 'registered without a cookie');
  for (const address of ['127.0.0.1', '::ffff:127.0.0.1']) {
    const r = await h.request('/api/vehicles', { headers: { cookie: `svcapisession=-:${h.ownerId}:${address}` } });
    assert.equal(r.status, 401, address);
  }
});

test('--cookie-name sets another cookie name; svcapisession is accepted as well', async (ctx) => {
  const h = await httpHarness(ctx, { cookieName: 'ovmsapisession' });
  const r = await h.request('/api/cookie?username=demo&password=demopass');
  const cookie = r.headers['set-cookie']![0]!;
  assert.match(cookie, /^ovmsapisession=[0-9A-F-]{36}$/);
  const value = cookie.split('=')[1]!;
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: `ovmsapisession=${value}` } })).status, 200);
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: `svcapisession=${value}` } })).status, 200);
});

test('logging in again with a live cookie ends the old session (its vehicles get their new count)', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  await car.next();
  const cookie = await h.login();
  await h.request('/api/vehicle/TESTCAR', { headers: { cookie } });
  assert.deepEqual(await roundTrip(car), [m('Z', '1')]);
  const relogin = await h.request('/api/cookie', { headers: { cookie } });
  assert.equal(relogin.status, 200);
  const fresh = relogin.headers['set-cookie']![0]!;
  assert.notEqual(fresh, cookie);
  assert.deepEqual(await roundTrip(car), [m('Z', '0')]);
  assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 401);
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: fresh } })).status, 200);
});
