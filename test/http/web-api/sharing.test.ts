/**
 * Own vehicles and sharing (docs/accounts.md "Own vehicles", "Sharing"): adding, renaming,
 * changing the car password (the module's next login needs the new one) and removing a vehicle
 * with its confirmation; shares CRUD; the isolation of a `view` user (no command, no change, no
 * share-on, no car password, no other shares), a `control` user's commands, and a revoked share
 * refused at once, over the API v2, the web API, the command API and MP app logins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient } from '../../../src/mp-client/mp-client.js';
import { httpHarness, withQuery, type HttpHarness } from '../helpers.js';

const BOB = 'username=bob&password=bobpass1';
const CAROL = 'username=carol&password=carolpass';

const jsonBody = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function setUp(ctx: Parameters<typeof httpHarness>[0]): Promise<HttpHarness> {
  const h = await httpHarness(ctx);
  await h.t.addUser('bob', 'bobpass1');
  await h.t.addUser('carol', 'carolpass');
  return h;
}

const as = (h: HttpHarness, auth: string, path: string, opts?: Parameters<HttpHarness['request']>[1]) => h.request(withQuery(path, auth), opts);

test('own vehicles: add (201, 400, 409), list, rename, new car password for the next car login, remove with confirmation', async (ctx) => {
  const h = await setUp(ctx);
  const added = await as(h, BOB, '/api/account/vehicles', jsonBody('POST', { id: 'bobcar', password: 'CARPASS1', name: 'Bob\'s car' }));
  assert.equal(added.status, 201, added.body);
  const v = JSON.parse(added.body) as Record<string, unknown>;
  assert.deepEqual({ ...v, created: 0 }, { access: 'owner', created: 0, id: 'BOBCAR', lastUpdate: null, name: "Bob's car", online: false, owner: 'bob', type: 'CAR' });
  assert.ok(!added.body.includes('CARPASS1'), 'the car password is never given back');

  assert.equal((await as(h, BOB, '/api/account/vehicles', jsonBody('POST', { id: 'bad id', password: 'x' }))).status, 400);
  assert.equal((await as(h, BOB, '/api/account/vehicles', jsonBody('POST', { id: 'OK1', password: 'has space' }))).status, 400);
  const taken = await as(h, BOB, '/api/account/vehicles', jsonBody('POST', { id: 'demo1', password: 'whatever' }));
  assert.equal(taken.status, 409);
  assert.equal(JSON.parse(taken.body).error, 'VTS_ERR_DUPLICATE_VEHICLE');

  const list = JSON.parse((await as(h, BOB, '/api/account/vehicles')).body) as { id: string }[];
  assert.deepEqual(list.map((x) => x.id), ['BOBCAR']);
  assert.ok(JSON.parse((await as(h, BOB, '/api/vehicles')).body).some((x: { id: string }) => x.id === 'BOBCAR'));

  const renamed = await as(h, BOB, '/api/account/vehicles/bobcar', jsonBody('PUT', { name: 'Family car' }));
  assert.equal(renamed.status, 200, renamed.body);
  assert.equal(JSON.parse(renamed.body).name, 'Family car');
  assert.equal((await as(h, BOB, '/api/account/vehicles/BOBCAR', jsonBody('PUT', {}))).status, 400);
  assert.equal((await as(h, BOB, '/api/account/vehicles/DEMO1', jsonBody('PUT', { name: 'mine' }))).status, 403, "another owner's vehicle");

  // the module logs in with the car password; after a change only the new one works
  const car1 = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'C', vehicleId: 'BOBCAR', scheme: 0, password: 'CARPASS1' });
  await car1.close();
  assert.equal((await as(h, BOB, '/api/account/vehicles/BOBCAR', jsonBody('PUT', { password: 'CARPASS2' }))).status, 200);
  await assert.rejects(MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'C', vehicleId: 'BOBCAR', scheme: 0, password: 'CARPASS1' }));
  const car2 = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'C', vehicleId: 'BOBCAR', scheme: 0, password: 'CARPASS2' });
  await car2.close();

  const unconfirmed = await as(h, BOB, '/api/account/vehicles/BOBCAR', { method: 'DELETE' });
  assert.equal(unconfirmed.status, 400);
  assert.equal((await as(h, BOB, '/api/account/vehicles/BOBCAR', jsonBody('DELETE', { confirm: 'OTHER' }))).status, 400);
  assert.ok(await h.t.server.store.getVehicle('BOBCAR'), 'not removed without its confirmation');
  assert.equal((await as(h, BOB, '/api/account/vehicles/BOBCAR', jsonBody('DELETE', { confirm: 'bobcar' }))).status, 204);
  assert.equal(await h.t.server.store.getVehicle('BOBCAR'), undefined);
});

test('shares: add, change, list, revoke; only the owner; an unknown user is 404', async (ctx) => {
  const h = await setUp(ctx);
  const add = await h.asDemo('/api/shares/demo1', jsonBody('POST', { user: 'bob', access: 'view' }));
  assert.equal(add.status, 201, add.body);
  assert.deepEqual({ ...JSON.parse(add.body), created: 0 }, { access: 'view', created: 0, user: 'bob' });
  assert.equal((await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'bob', access: 'control' }))).status, 200);
  assert.equal((await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'carol', access: 'view' }))).status, 201);
  assert.equal((await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'carol', access: 'admin' }))).status, 400);
  assert.equal((await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'demo', access: 'view' }))).status, 400);
  const unknown = await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'nobody', access: 'view' }));
  assert.equal(unknown.status, 404);
  assert.equal(JSON.parse(unknown.body).error, 'VTS_ERR_UNKNOWN_USER');
  const list = JSON.parse((await h.asDemo('/api/shares/DEMO1')).body) as { user: string; access: string }[];
  assert.deepEqual(list.map((s) => [s.user, s.access]), [['bob', 'control'], ['carol', 'view']]);
  assert.equal((await h.asDemo('/api/shares/DEMO1/carol', { method: 'DELETE' })).status, 204);
  assert.equal((await h.asDemo('/api/shares/DEMO1/carol', { method: 'DELETE' })).status, 404);
  assert.equal((await as(h, CAROL, '/api/shares/OTHER')).status, 403);
  // the audit log has each action, never a secret
  const log = await h.t.server.store.audit.list({ limit: 50, target: 'DEMO1' });
  assert.deepEqual(
    log.map((e) => [e.action, e.actor, e.detail.user, e.detail.access ?? null]).reverse(),
    [
      ['share.add', 'demo', 'bob', 'view'],
      ['share.add', 'demo', 'bob', 'control'],
      ['share.add', 'demo', 'carol', 'view'],
      ['share.revoke', 'demo', 'carol', null],
    ],
  );
});

test('a view user reads everything but commands, changes, shares on, sees the car password or other shares: never', async (ctx) => {
  const h = await setUp(ctx);
  await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'bob', access: 'view' }));
  await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'carol', access: 'control' }));
  const car = await h.car('DEMO1');
  car.send('S', '81.5,K,230,16.00,charging,standard,260,241,32,1200,0,123');

  // API v2: the shared vehicle appears like an own one, its reads answer
  const vehicles = JSON.parse((await as(h, BOB, '/api/vehicles')).body) as { id: string }[];
  assert.deepEqual(vehicles.map((v) => v.id), ['DEMO1']);
  for (const path of ['/api/status/DEMO1', '/api/charge/DEMO1', '/api/location/DEMO1', '/api/historical/DEMO1', '/api/vehicle/DEMO1']) {
    assert.equal((await as(h, BOB, path)).status, 200, path);
  }
  // the web API's reads (the dashboard's calls)
  const overview = JSON.parse((await as(h, BOB, '/api/overview')).body) as { id: string; access: string; owner: string }[];
  assert.deepEqual(overview.map((o) => [o.id, o.access, o.owner]), [['DEMO1', 'view', 'demo']]);
  for (const path of ['/api/history/DEMO1', '/api/drives/DEMO1', '/api/charges/DEMO1', '/api/battery/DEMO1', '/api/stats/DEMO1']) {
    assert.equal((await as(h, BOB, path)).status, 200, path);
  }
  // not the owner's other vehicle
  assert.equal((await as(h, BOB, '/api/status/TESTCAR')).status, 403);
  // the integrations tab: bob logs in as bob, under the owner's topics
  const integ = JSON.parse((await as(h, BOB, '/api/integrations/DEMO1')).body) as { mqtt: { username: string; topicPrefix: string } | null };
  if (integ.mqtt) assert.deepEqual([integ.mqtt.username, integ.mqtt.topicPrefix], ['bob', 'ovms/demo/DEMO1/']);

  // no command: 403 VTS_ERR_FORBIDDEN with its reason
  const cmd = await as(h, BOB, '/api/command/DEMO1', jsonBody('POST', { command: 'stat' }));
  assert.equal(cmd.status, 403, cmd.body);
  const e = JSON.parse(cmd.body) as { error: string; message: string };
  assert.equal(e.error, 'VTS_ERR_FORBIDDEN');
  assert.match(e.message, /view only/);
  assert.equal((await as(h, BOB, '/api/lock/DEMO1')).status, 200, 'the lock state is a read');

  // no change, no removal, no share-on, no other shares, no car password anywhere
  for (const [path, opts] of [
    ['/api/account/vehicles/DEMO1', jsonBody('PUT', { name: 'mine' })],
    ['/api/account/vehicles/DEMO1', jsonBody('PUT', { password: 'stolen' })],
    ['/api/account/vehicles/DEMO1', jsonBody('DELETE', { confirm: 'DEMO1' })],
    ['/api/shares/DEMO1', jsonBody('POST', { user: 'carol', access: 'control' })],
    ['/api/shares/DEMO1', { method: 'GET' }],
    ['/api/shares/DEMO1/carol', { method: 'DELETE' }],
    ['/api/alerts/DEMO1', { method: 'GET' }],
    ['/api/abrp/DEMO1', { method: 'GET' }],
  ] as const) {
    const r = await as(h, BOB, path, opts);
    assert.equal(r.status, 403, `${opts.method} ${path}: ${r.body}`);
    assert.equal(JSON.parse(r.body).error, 'VTS_ERR_FORBIDDEN', path);
  }
  const mine = await as(h, BOB, '/api/account/vehicles');
  assert.deepEqual(JSON.parse(mine.body).map((v: { id: string; access: string; owner: string }) => [v.id, v.access, v.owner]), [['DEMO1', 'view', 'demo']]);
  assert.ok(!mine.body.includes('NETPASS'));
  assert.equal((await h.t.server.store.getVehicle('DEMO1'))?.name, 'DEMO1');

  // MP: a view app login gets the vehicle, its command is refused with the reason
  const app = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'A', vehicleId: 'DEMO1', scheme: 1, username: 'bob', password: 'bobpass1' });
  ctx.after(() => app.close());
  app.send('C', '7,stat');
  const refused = await app.waitFor((m) => m.code === 'c');
  assert.match(refused.data, /^7,1,.*view only/);

  // a control user commands: the car gets it
  const ctl = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'A', vehicleId: 'DEMO1', scheme: 1, username: 'carol', password: 'carolpass' });
  ctx.after(() => ctl.close());
  ctl.send('C', '7,stat');
  const atCar = await car.waitFor((m) => m.code === 'C');
  assert.equal(atCar.data, '7,stat');
  car.send('c', '7,0,ok');
  assert.equal((await ctl.waitFor((m) => m.code === 'c')).data, '7,0,ok');
  const api = as(h, CAROL, '/api/command/DEMO1', jsonBody('POST', { command: 'stat', timeout: '5' }));
  await car.waitFor((m) => m.code === 'C');
  car.send('c', '7,0,ok');
  assert.equal((await api).status, 200);
});

test('a revoked share is refused at once: requests, MP app connections, live streams', async (ctx) => {
  const h = await setUp(ctx);
  await h.asDemo('/api/shares/DEMO1', jsonBody('POST', { user: 'bob', access: 'control' }));
  assert.equal((await as(h, BOB, '/api/status/DEMO1')).status, 200);
  const app = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'A', vehicleId: 'DEMO1', scheme: 1, username: 'bob', password: 'bobpass1' });
  ctx.after(() => app.close());
  assert.equal((await h.asDemo('/api/shares/DEMO1/bob', { method: 'DELETE' })).status, 204);
  await app.closed;
  assert.equal((await as(h, BOB, '/api/status/DEMO1')).status, 403);
  assert.equal((await as(h, BOB, '/api/overview')).body.trim(), '[]');
  const cmd = await as(h, BOB, '/api/command/DEMO1', jsonBody('POST', { command: 'stat' }));
  assert.equal(cmd.status, 403);
  await assert.rejects(MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'A', vehicleId: 'DEMO1', scheme: 1, username: 'bob', password: 'bobpass1' }));
});
