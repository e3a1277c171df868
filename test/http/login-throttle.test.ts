/**
 * The login throttle on the HTTP paths (src/core/login-throttle.ts through src/auth/login-guard.ts):
 * every path that checks a secret counts the attempt before it checks it, refuses an attempt over
 * a limit with 429 and `Retry-After` without checking it, and never refuses an honest client that
 * has the right secret and has not failed itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_AUTH, httpHarness, send, withQuery, type HttpResponse } from './helpers.js';

const from = (localAddress: string) => ({ localAddress });

function assertThrottled(r: HttpResponse, what: string): void {
  assert.equal(r.status, 429, `${what}: ${r.status} ${r.body}`);
  assert.match(r.headers['retry-after'] ?? '', /^[1-9]\d*$/, what);
}

/** Runs `count` requests with at most `inFlight` at once; resolves to their statuses. */
async function flood(count: number, inFlight: number, one: (k: number) => Promise<HttpResponse>): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) statuses.push((await one(next++)).status);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return statuses;
}

test('14 wrong logins for a user from one address neither slow nor refuse the right password from another', async (ctx) => {
  const h = await httpHarness(ctx); // the default limits
  for (let k = 1; k <= 14; k++) {
    const r = await h.request(`/api/vehicles?username=demo&password=wrong${k}`, from('127.0.0.2'));
    assert.equal(r.status, k <= 10 ? 401 : 429, `attempt ${k}`);
    if (k > 10) assertThrottled(r, `attempt ${k}`);
  }
  assert.equal((await h.request(withQuery('/api/vehicles', DEMO_AUTH), from('127.0.0.3'))).status, 200);
  // even the attacker's address may still log in as another user
  await h.t.addUser('other', 'otherpass');
  assert.equal((await h.request('/api/vehicles?username=other&password=otherpass', from('127.0.0.2'))).status, 200);
  assert.ok(h.t.logs.some((l) => l.includes('too many failed logins') && l.includes('"limit":"pair"')));
});

test('guesses from many addresses use up the user budget: fresh addresses wait, a client that logged in before does not', async (ctx) => {
  const h = await httpHarness(ctx, { loginLimits: { pair: { burst: 2, perMinute: 1 }, account: { burst: 6, perMinute: 1 } } });
  assert.equal((await h.request(withQuery('/api/vehicles', DEMO_AUTH), from('127.0.0.9'))).status, 200, "the owner's phone");
  for (let a = 10; a < 13; a++) {
    for (let k = 0; k < 2; k++) assert.equal((await h.request('/api/vehicles?username=demo&password=guess', from(`127.0.0.${a}`))).status, 401);
  }
  assertThrottled(await h.request('/api/vehicles?username=demo&password=guess', from('127.0.0.20')), 'a fresh address');
  assertThrottled(await h.request(withQuery('/api/vehicles', DEMO_AUTH), from('127.0.0.21')), 'a fresh address with the right password');
  assert.equal((await h.request(withQuery('/api/vehicles', DEMO_AUTH), from('127.0.0.9'))).status, 200, 'the trusted address');
});

test('1,200 concurrent wrong logins from one address: only the address budget is checked, the rest refused unchecked', async (ctx) => {
  // the default address burst (100), refilled too slowly to add an attempt while the flood runs
  const h = await httpHarness(ctx, { passwordChecks: 2, loginLimits: { address: { burst: 100, perMinute: 0.001 } } });
  const statuses = await flood(1200, 200, (k) => h.request(`/api/vehicles?username=nobody${k}&password=wrong`, from('127.0.0.4')));
  const checked = statuses.filter((s) => s === 401).length;
  assert.equal(checked, 100, 'the address burst');
  assert.equal(statuses.filter((s) => s === 429).length, 1100);
  assert.ok(h.t.server.credentials.queue.peak <= 2, `at most 2 password checks ran at once (${h.t.server.credentials.queue.peak})`);
  assert.equal((await h.request(withQuery('/api/vehicles', DEMO_AUTH), from('127.0.0.5'))).status, 200, 'others still get in');
});

test('many clients behind one address logging in at once with the right password are all served', async (ctx) => {
  const h = await httpHarness(ctx);
  const statuses = await flood(40, 40, () => h.request(withQuery('/api/vehicles', DEMO_AUTH), from('127.0.0.6')));
  assert.deepEqual([...new Set(statuses)], [200]);
});

test('/mqapi/auth: counted and refused like every login (403 without a check once over the limit)', async (ctx) => {
  const h = await httpHarness(ctx, { loginLimits: { pair: { burst: 3, perMinute: 1 } } });
  const auth = (password: string, localAddress: string) =>
    h.request('/mqapi/auth', {
      method: 'POST',
      localAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=demo&password=${password}`,
    });
  for (let k = 0; k < 3; k++) assert.equal((await auth('wrong', '127.0.0.2')).status, 403);
  assert.equal((await auth('demopass', '127.0.0.2')).status, 403, 'the right password is not checked now');
  assert.equal((await auth('demopass', '127.0.0.3')).status, 200, 'another address');
  assert.ok(h.t.logs.some((l) => l.includes('MQTT authentication refused: too many failed logins')));
});

test('/mqapi/auth through one broker: guesses of one MQTT client id do not lock out the broker\'s other clients', async (ctx) => {
  const h = await httpHarness(ctx, { loginLimits: { pair: { burst: 3, perMinute: 1 }, address: { burst: 5, perMinute: 1 } } });
  const auth = (password: string, clientid: string) =>
    h.request('/mqapi/auth', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=demo&password=${password}&clientid=${clientid}`,
    });
  for (let k = 0; k < 3; k++) assert.equal((await auth('wrong', 'attacker')).status, 403);
  assert.equal((await auth('demopass', 'attacker')).status, 403, 'that client id is refused unchecked');
  for (let k = 0; k < 6; k++) assert.equal((await auth('demopass', `module${k}`)).status, 200, `module${k}, same broker address`);
});

test('the custom API: car-password guesses on cmd and csv are throttled per vehicle and address', async (ctx) => {
  const h = await httpHarness(ctx, { loginLimits: { pair: { burst: 3, perMinute: 1 } } });
  const csv = (pass: string, localAddress: string) =>
    h.request(`/api/ovms/csv?fn.vehicleid=DEMO1&fn.carpass=${pass}&fn.types=D`, from(localAddress));
  const cmd = (pass: string, localAddress: string) =>
    h.request(`/api/ovms/cmd?fn.vehicleid=DEMO1&fn.carpass=${pass}&fn.cmd=stat`, from(localAddress));
  assert.equal((await csv('wrong', '127.0.0.2')).status, 401);
  assert.equal((await cmd('wrong', '127.0.0.2')).status, 401);
  assert.equal((await csv('wrong', '127.0.0.2')).status, 401);
  assertThrottled(await cmd('NETPASS', '127.0.0.2'), 'cmd over the limit');
  assertThrottled(await csv('NETPASS', '127.0.0.2'), 'csv over the limit');
  assert.equal((await csv('NETPASS', '127.0.0.3')).status, 200, 'another address');
  assert.equal((await send(h.httpPort, '/api/vehicles?username=demo&password=demopass', from('127.0.0.2'))).status, 200, 'a user account is another account');
});

test('web sign-in: a refused attempt answers 429 with the JSON error body', async (ctx) => {
  const h = await httpHarness(ctx, { loginLimits: { pair: { burst: 1, perMinute: 1 } } });
  const signIn = (password: string) =>
    h.request('/api/session', {
      method: 'POST',
      localAddress: '127.0.0.2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=demo&password=${password}`,
    });
  assert.equal((await signIn('wrong')).status, 401);
  const r = await signIn('demopass');
  assertThrottled(r, 'sign-in');
  assert.equal(JSON.parse(r.body).error, 'VTS_ERR_LOGIN_THROTTLED');
});

test('a live cookie session is never throttled: it checks no secret', async (ctx) => {
  const h = await httpHarness(ctx, { loginLimits: { pair: { burst: 2, perMinute: 1 } } });
  const cookie = await h.login();
  for (let k = 0; k < 3; k++) await h.request(`/api/vehicles?username=demo&password=wrong${k}`);
  assertThrottled(await h.asDemo('/api/vehicles'), 'the pair is over its limit');
  assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 200);
});
