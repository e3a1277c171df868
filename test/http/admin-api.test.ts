/**
 * The operator's calls (docs/accounts.md "The operator's page", docs/web-api.md "Admin"): only the
 * admin account itself (not another user, not an API token), the users with search and pages, each
 * action on a user (disable ends the sessions and live connections at once and refuses logins;
 * enable, verify, reset-password, remove), the vehicles, the server's figures, and the audit log
 * with what those actions wrote.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness, type HttpHarness, type HttpResponse } from './helpers.js';

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const parsed = <T>(r: HttpResponse): T => JSON.parse(r.body) as T;

interface Session {
  cookie: string;
  csrf: string;
  body: Record<string, unknown>;
}

async function signIn(h: HttpHarness, username: string, password: string): Promise<Session> {
  const r = await h.request('/api/session', json({ username, password }));
  assert.equal(r.status, 200, r.body);
  const body = parsed<Record<string, unknown>>(r);
  return { cookie: r.headers['set-cookie']![0]!.split(';', 1)[0]!, csrf: body.csrf as string, body };
}

/** The harness with an admin account `op` signed in. */
async function withOperator(t: Parameters<typeof httpHarness>[0]) {
  const h = await httpHarness(t);
  await h.t.addUser('op', 'op-password');
  await h.t.server.store.setOwnerFlags('op', { admin: true });
  const op = await signIn(h, 'op', 'op-password');
  const get = (path: string) => h.request(path, { headers: { cookie: op.cookie } });
  const send = (method: 'POST' | 'DELETE', path: string) => h.request(path, { method, headers: { cookie: op.cookie, 'x-csrf-token': op.csrf } });
  return { h, op, get, send };
}

test('only the admin account itself: others, API tokens and the signed-out get 403 or 401', async (t) => {
  const { h, op, get } = await withOperator(t);
  assert.deepEqual(op.body.admin, true);
  assert.deepEqual(Object.keys(op.body), ['admin', 'csrf', 'timeout', 'user']);
  const demo = await signIn(h, 'demo', 'demopass');
  assert.equal(demo.body.admin, false);
  assert.equal(parsed<{ admin: boolean }>(await h.request('/api/session', { headers: { cookie: op.cookie } })).admin, true);

  const paths = ['/api/admin/users', '/api/admin/vehicles', '/api/admin/server', '/api/admin/audit'];
  for (const path of paths) {
    assert.equal((await get(path)).status, 200, path);
    const other = await h.request(path, { headers: { cookie: demo.cookie } });
    assert.equal(other.status, 403, path);
    assert.equal(parsed<{ error: string }>(other).error, 'VTS_ERR_FORBIDDEN');
    assert.equal((await h.asDemo(path)).status, 403, path);
    assert.equal((await h.request(path)).status, 401, path);
  }
  const refused = await h.request('/api/admin/users/demo/disable', { method: 'POST', headers: { cookie: demo.cookie, 'x-csrf-token': demo.csrf } });
  assert.equal(refused.status, 403);
  assert.equal((await h.t.server.store.getOwnerByName('demo'))?.disabled, false);

  // an API token of the admin account is not the account itself
  const made = await h.request('/api/token?username=op&password=op-password', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'application=tool&purpose=t&permit=*' });
  assert.equal(made.status, 201, made.body);
  const token = parsed<{ token: string }>(made).token;
  assert.equal((await h.request(`/api/admin/users?username=op&password=${token}`)).status, 403);
  assert.equal((await h.request('/api/admin/users?username=op&password=op-password')).status, 200, 'the password without a session');

  // the right is read at each call: taken away, the open session may no longer
  await h.t.server.store.setOwnerFlags('op', { admin: false });
  assert.equal((await get('/api/admin/users')).status, 403);
  assert.equal(parsed<{ admin: boolean }>(await h.request('/api/session', { headers: { cookie: op.cookie } })).admin, false);
});

test('users: search on name and mail address, pages, counts and the last sign-in', async (t) => {
  const { h, get } = await withOperator(t);
  for (const name of ['alice', 'bob', 'carol', 'dave']) await h.t.addUser(name, `${name}-password`);
  const page = parsed<{ total: number; limit: number; offset: number; users: Record<string, unknown>[] }>(await get('/api/admin/users?limit=2&offset=1'));
  assert.deepEqual([page.total, page.limit, page.offset], [6, 2, 1]);
  assert.deepEqual(page.users.map((u) => u.name), ['bob', 'carol']);
  assert.deepEqual(Object.keys(page.users[0]!), ['name', 'email', 'verified', 'disabled', 'admin', 'totpEnabled', 'created', 'vehicles', 'lastSignIn']);
  const all = parsed<{ users: { name: string; vehicles: number; lastSignIn: number | null; admin: boolean }[] }>(await get('/api/admin/users'));
  assert.deepEqual(all.users.map((u) => [u.name, u.vehicles, u.admin]), [['alice', 0, false], ['bob', 0, false], ['carol', 0, false], ['dave', 0, false], ['demo', 2, false], ['op', 0, true]]);
  assert.equal(typeof all.users.find((u) => u.name === 'op')!.lastSignIn, 'number');
  assert.equal(all.users.find((u) => u.name === 'demo')!.lastSignIn, null);
  assert.deepEqual(parsed<{ users: { name: string }[] }>(await get('/api/admin/users?q=A')).users.map((u) => u.name), ['alice', 'carol', 'dave']);
  assert.deepEqual(parsed<{ total: number }>(await get('/api/admin/users?q=%25')).total, 0, 'a % is a character, not a pattern');
  for (const bad of ['limit=0', 'limit=201', 'offset=-1', 'limit=x', `q=${'x'.repeat(101)}`]) {
    const r = await get(`/api/admin/users?${bad}`);
    assert.equal(r.status, 400, bad);
    assert.equal(parsed<{ error: string }>(r).error, 'VTS_ERR_INVALID_INPUT');
  }
});

test('disable ends the sessions and live connections at once and refuses logins; enable lets them in again', async (t) => {
  const { h, send, get } = await withOperator(t);
  const demo = await signIn(h, 'demo', 'demopass');
  const api = await h.login();
  const app = await h.client('A', 'DEMO1');
  const closed = new Promise<void>((resolve) => app.once('close', () => resolve()));

  assert.equal((await send('POST', '/api/admin/users/DEMO/disable')).status, 204);
  await closed;
  assert.equal((await h.request('/api/session', { headers: { cookie: demo.cookie } })).status, 401, 'the web session ended');
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: api } })).status, 401, 'the API session ended');
  const again = await h.request('/api/session', json({ username: 'demo', password: 'demopass' }));
  assert.equal(again.status, 403);
  assert.equal(parsed<{ error: string }>(again).error, 'VTS_ERR_ACCOUNT_DISABLED');
  assert.equal((await h.asDemo('/api/vehicles')).status, 401);
  assert.equal(parsed<{ users: { name: string; disabled: boolean }[] }>(await get('/api/admin/users?q=demo')).users[0]!.disabled, true);
  assert.equal((await send('POST', '/api/admin/users/op/disable')).status, 400, 'not the own account');

  assert.equal((await send('POST', '/api/admin/users/demo/enable')).status, 204);
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);
  assert.equal((await send('POST', '/api/admin/users/nobody/enable')).status, 404);
  assert.equal((await send('POST', '/api/admin/users/demo/explode')).status, 404);
});

test('verify, reset-password (shown once, the old one and the sessions end) and remove (vehicles only when asked)', async (t) => {
  const { h, send, get } = await withOperator(t);
  await h.t.server.store.setOwnerFlags('demo', { verified: false });
  assert.equal((await h.request('/api/session', json({ username: 'demo', password: 'demopass' }))).status, 403);
  assert.equal((await send('POST', '/api/admin/users/demo/verify')).status, 204);
  const demo = await signIn(h, 'demo', 'demopass');

  const reset = await send('POST', '/api/admin/users/demo/reset-password');
  assert.equal(reset.status, 200);
  const { user, password } = parsed<{ user: string; password: string }>(reset);
  assert.equal(user, 'demo');
  assert.match(password, /^[a-z2-9]{20}$/);
  assert.equal((await h.request('/api/session', { headers: { cookie: demo.cookie } })).status, 401);
  assert.equal((await h.asDemo('/api/vehicles')).status, 401, 'the old password');
  assert.equal((await h.request(`/api/vehicles?username=demo&password=${password}`)).status, 200);

  const refused = await send('DELETE', '/api/admin/users/demo');
  assert.equal(refused.status, 409);
  assert.equal(parsed<{ error: string }>(refused).error, 'VTS_ERR_USER_HAS_VEHICLES');
  assert.equal((await send('DELETE', '/api/admin/users/demo?vehicles=yes')).status, 400);
  assert.equal((await send('DELETE', '/api/admin/users/op')).status, 400, 'not the own account');
  const removed = await send('DELETE', '/api/admin/users/demo?vehicles=remove');
  assert.equal(removed.status, 200, removed.body);
  assert.deepEqual(parsed(removed), { user: 'demo', vehicles: ['DEMO1', 'TESTCAR'] });
  assert.equal(await h.t.server.store.getOwnerByName('demo'), undefined);
  assert.equal(await h.t.server.store.getVehicle('DEMO1'), undefined);
  assert.equal((await send('DELETE', '/api/admin/users/demo')).status, 404);
  assert.deepEqual(parsed<{ total: number }>(await get('/api/admin/vehicles')).total, 0);
});

test('vehicles, server figures, and the audit log of what was done, newest first, paged and filtered', async (t) => {
  const { h, send, get } = await withOperator(t);
  const car = await h.car('DEMO1');
  await car.next();
  const vehicles = parsed<{ total: number; vehicles: Record<string, unknown>[] }>(await get('/api/admin/vehicles'));
  assert.equal(vehicles.total, 2);
  const [first] = vehicles.vehicles;
  assert.deepEqual(Object.keys(first!), ['id', 'name', 'owner', 'type', 'link', 'online', 'lastSeen', 'trafficToday', 'traffic30Days']);
  assert.deepEqual([first!.id, first!.owner, first!.link, first!.online], ['DEMO1', 'demo', 'v2', true]);
  assert.deepEqual([vehicles.vehicles[1]!.id, vehicles.vehicles[1]!.online, vehicles.vehicles[1]!.link], ['TESTCAR', false, null]);
  assert.deepEqual(parsed<{ vehicles: { id: string }[] }>(await get('/api/admin/vehicles?q=test')).vehicles.map((v) => v.id), ['TESTCAR']);
  assert.deepEqual(parsed<{ total: number }>(await get('/api/admin/vehicles?q=DEM')).total, 2, 'the owner name matches too');

  const server = parsed<{ self: { node: string; connections: Record<string, number> }; cluster: { clustered: boolean; nodes: unknown[] }; outbox: object; uptime: number }>(await get('/api/admin/server'));
  assert.equal(server.self.connections.cars, 1);
  assert.deepEqual(Object.keys(server.self.connections), ['cars', 'apps', 'batch', 'mqttModules', 'mqttClients', 'apiSessions', 'liveStreams']);
  assert.equal(server.cluster.clustered, false);
  assert.equal(server.cluster.nodes.length, 1);

  await h.request('/api/session', json({ username: 'demo', password: 'wrong-password' }));
  assert.equal((await send('POST', '/api/admin/users/demo/disable')).status, 204);
  assert.equal((await send('POST', '/api/admin/users/demo/enable')).status, 204);
  const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'current=demopass&new=another-password-1' };
  assert.equal((await h.asDemo('/api/password', form)).status, 204);

  const log = parsed<{ entries: { id: number; action: string; actor: string; via: string; target: string; detail: Record<string, unknown> }[]; next: number | null }>(await get('/api/admin/audit'));
  assert.deepEqual(
    log.entries.map((e) => [e.action, e.actor, e.via, e.target]),
    [
      ['password.change', 'demo', 'api', 'demo'],
      ['user.enable', 'op', 'web', 'demo'],
      ['user.disable', 'op', 'web', 'demo'],
      ['session.signin_failed', '', 'web', 'demo'],
      ['session.signin', 'op', 'web', 'op'],
    ],
  );
  assert.equal(log.next, null);
  assert.equal(log.entries[3]!.detail.reason, 'VTS_ERR_AUTH');
  assert.equal(log.entries[1]!.detail.client, '127.0.0.1');
  const page = parsed<{ entries: { action: string }[]; next: number }>(await get('/api/admin/audit?limit=2'));
  assert.deepEqual(page.entries.map((e) => e.action), ['password.change', 'user.enable']);
  assert.deepEqual(parsed<{ entries: { action: string }[] }>(await get(`/api/admin/audit?limit=2&before=${page.next}`)).entries.map((e) => e.action), ['user.disable', 'session.signin_failed']);
  assert.deepEqual(parsed<{ entries: { action: string }[] }>(await get('/api/admin/audit?action=user')).entries.map((e) => e.action), ['user.enable', 'user.disable']);
  assert.deepEqual(parsed<{ entries: { action: string }[] }>(await get('/api/admin/audit?actor=DEMO')).entries.map((e) => e.action), ['password.change']);
  assert.equal((await get('/api/admin/audit?before=x')).status, 400);
  const all = h.t.logs.join('\n');
  assert.ok(!all.includes('another-password-1') && !all.includes('op-password'));
});
