/**
 * API sessions, logins and the rate limit across the nodes of a cluster: a cookie made on one node
 * works on another and logging out anywhere ends it everywhere; revoking a token ends its
 * sessions everywhere; a session connected to a vehicle on two nodes is one app; the web sign-in;
 * failed logins and HTTP requests count on every node.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, m } from '../mp/helpers.js';
import { countsEverywhere, skipCluster, startCluster, type Node } from './harness.js';

const cookieOf = (res: Response): string => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

/** `GET` (or another method) of a node's path with only the cookie (no user name or password). */
const withCookie = (node: Node, path: string, cookie: string, method = 'GET'): Promise<Response> =>
  fetch(node.url(path, false), { method, headers: { cookie } });

/** `GET /api/cookie` on a node with the demo user's password, or with `password`: the session cookie. */
async function login(node: Node, password = 'demopass'): Promise<string> {
  const res = await fetch(node.url(`/api/cookie?username=demo&password=${encodeURIComponent(password)}`, false));
  assert.equal(res.status, 200, await res.text());
  const cookie = cookieOf(res);
  assert.match(cookie, /^svcapisession=[0-9A-F-]{36}$/);
  return cookie;
}

/** The ids of `/api/vehicles` with only the cookie, or the status when it is not 200. */
async function vehiclesWith(node: Node, cookie: string): Promise<string[] | number> {
  const res = await withCookie(node, '/api/vehicles', cookie);
  if (res.status !== 200) return res.status;
  return ((await res.json()) as { id: string }[]).map((v) => v.id);
}

test('a cookie made on one node works on another; logging out on that one ends it on the first', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const cookie = await login(a);
  assert.deepEqual(await vehiclesWith(b, cookie), ['CLCAR']);
  assert.equal(await vehiclesWith(b, 'svcapisession=00000000-0000-0000-0000-000000000000'), 401, 'an unknown cookie is refused');
  assert.deepEqual(await vehiclesWith(a, cookie), ['CLCAR']);

  const out = await withCookie(b, '/api/cookie', cookie, 'DELETE');
  assert.equal(out.status, 200);
  assert.equal(await out.text(), 'Logout ok\n');
  assert.equal(await vehiclesWith(b, cookie), 401);
  // A hears of the end by the cluster's broadcast (a moment later): then its session memory forgets it
  await eventually(async () => ((await vehiclesWith(a, cookie)) === 401 ? true : undefined), 'the session ending on A too');
});

test('revoking a token on one node ends the sessions opened with it on every node, and their apps', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const made = await fetch(a.url('/api/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'application=cluster&purpose=test&permit=session,auth',
  });
  assert.equal(made.status, 201);
  const { token } = (await made.json()) as { token: string };
  const cookie = await login(a, token);
  assert.deepEqual(await vehiclesWith(b, cookie), ['CLCAR']);
  assert.equal((await withCookie(a, '/api/vehicle/CLCAR', cookie)).status, 200);
  await countsEverywhere(c, { net: 0, apps: 1, batches: 0 });

  const revoked = await fetch(b.url(`/api/token/${token}`), { method: 'DELETE' });
  assert.equal(revoked.status, 200);
  await eventually(async () => ((await vehiclesWith(a, cookie)) === 401 ? true : undefined), 'the session opened on A ending');
  await eventually(async () => ((await vehiclesWith(b, cookie)) === 401 ? true : undefined), 'the session ending on B');
  await countsEverywhere(c, { net: 0, apps: 0, batches: 0 });
});

test('a session connected to the vehicle on two nodes is one app: Z1 once, v_apps_connected 1 everywhere', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const car = await c.mp(a, 'C');
  assert.deepEqual(await car.next(), m('Z', '0'));
  const cookie = await login(a);

  assert.equal((await withCookie(a, '/api/vehicle/CLCAR', cookie)).status, 200);
  assert.deepEqual(await car.next(), m('Z', '1'));
  const onB = await withCookie(b, '/api/vehicle/CLCAR', cookie);
  assert.equal(onB.status, 200);
  assert.equal(((await onB.json()) as { v_apps_connected: number }).v_apps_connected, 1);
  await countsEverywhere(c, { net: 1, apps: 1, batches: 0 });

  // its end (logging out on B) is the car's next Z: nothing was counted twice in between
  assert.equal((await withCookie(b, '/api/cookie', cookie, 'DELETE')).status, 200);
  assert.deepEqual(await car.next(), m('Z', '0'));
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
});

test('the web sign-in on one node is the session of another; signing out there ends it', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const signIn = await fetch(a.url('/api/session', false), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'username=demo&password=demopass',
  });
  assert.equal(signIn.status, 200);
  const cookie = cookieOf(signIn);
  const session = (await signIn.json()) as { csrf: string; user: string };
  assert.equal(session.user, 'demo');

  const who = await withCookie(b, '/api/session', cookie);
  assert.equal(who.status, 200);
  assert.deepEqual(await who.json(), { ...session, timeout: 7 * 86_400 });
  assert.equal((await fetch(b.url('/api/session', false))).status, 401, 'not without the cookie');

  const out = await fetch(b.url('/api/session', false), { method: 'DELETE', headers: { cookie, 'x-csrf-token': session.csrf } });
  assert.equal(out.status, 204);
  assert.equal((await withCookie(a, '/api/session', cookie)).status, 401);
});

test('wrong passwords on one node use up the login budget on another', { skip: skipCluster }, async (t) => {
  const pair = 10;
  const c = await startCluster(t, ['a', 'b'], { extra: ['--login-limit-pair', `${pair}/1`] });
  const [a, b] = c.nodes as [Node, Node];
  const cookie = await login(b);
  const wrong = (node: Node) => fetch(node.url('/api/vehicles?username=demo&password=wrong', false));
  for (let k = 0; k < pair; k++) assert.equal((await wrong(a)).status, 401, `wrong password ${k + 1} on A`);
  // alone, B would check `pair` wrong passwords of this address; with A's counted, it refuses within a few
  let onB = 0;
  let refused: Response;
  for (;;) {
    refused = await wrong(b);
    if (refused.status === 429) break;
    assert.equal(refused.status, 401);
    assert.ok(++onB < pair / 2, `B checked ${onB} wrong passwords: it did not count the ${pair} failed on A`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.match(await refused.text(), /^Too many failed logins: try again in \d+ s/);
  assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
  assert.equal((await fetch(b.url('/api/vehicles'))).status, 429, 'the right password is refused too');
  assert.deepEqual(await vehiclesWith(b, cookie), ['CLCAR'], 'a cookie checks no secret: never throttled');
});

test(
  "a right password being checked on one node does not make it forget another node's failures",
  { skip: skipCluster },
  async (t) => {
    const c = await startCluster(t, ['a', 'b'], { extra: ['--login-limit-pair', '3/1'] });
    const [a, b] = c.nodes as [Node, Node];
    // right passwords in flight on B (each given back when right) while A's failures arrive there
    let busy = true;
    const rights = Array.from({ length: 6 }, async () => {
      while (busy) assert.notEqual((await fetch(b.url('/api/vehicles'))).status, 401);
    });
    for (let k = 0; k < 3; k++) assert.equal((await fetch(a.url('/api/vehicles?username=demo&password=wrong', false))).status, 401);
    busy = false;
    await Promise.all(rights);
    await eventually(async () => {
      const res = await fetch(b.url('/api/vehicles'));
      if (res.status === 429) return true;
      assert.equal(res.status, 200);
      return undefined;
    }, 'B refusing the login with 429 after the 3 failures on A', 10_000);
  },
);

test('HTTP requests on one node count on the rate limit of another', { skip: skipCluster }, async (t) => {
  const burst = 40;
  const c = await startCluster(t, ['a', 'b'], { extra: ['--rate-limit-burst', String(burst), '--rate-limit-per-minute', '1', '--rate-limit-delay', '1'] });
  const [a, b] = c.nodes as [Node, Node];
  for (let k = 0; k < burst - 1; k++) assert.equal((await fetch(a.url('/api/vehicles', false))).status, 401, `request ${k + 1} on A`);
  // alone, B would allow `burst` requests of this address; with A's counted, it refuses within a few
  let onB = 0;
  for (;;) {
    const res = await fetch(b.url('/api/vehicles', false));
    onB++;
    if (res.status === 429) break;
    assert.equal(res.status, 401);
    assert.ok(onB < burst / 2, `B allowed ${onB} requests: it did not count the ${burst - 1} made on A`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal((await fetch(a.url('/api/vehicles', false))).status, 429, 'A is over quota too');
});
