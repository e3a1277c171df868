/**
 * ABRP live telemetry end to end: a real server on an injected clock, a real MP car, the owner's
 * web API, and a local stand-in for ABRP's telemetry API (a real HTTP server) that records each
 * `/1/tlm/send` and answers what the test tells it. The policy (first send, nothing new while
 * parked, a significant change at once, 5 s above 70 km/h), the fields (none null), a 500 backing
 * off, a 401 stopping the link with the reason shown, linking again, DELETE stopping the sends,
 * another owner's vehicle refused, and the token nowhere in the log, the answers or the database.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { httpHarness, type HttpHarness, type HttpResponse } from '../http/helpers.js';

const T0 = 1_780_000_000;
const API_KEY = 'operator-api-key-5f1e2d3c';
const TOKEN = 'a1b2c3d4-1111-2222-3333-abcdefabcdef';
const TOKEN2 = 'f0e0d0c0-9999-8888-7777-123412341234';

interface Received {
  path: string;
  apiKey: string | null;
  token: string | null;
  tlm: Record<string, unknown>;
}

/** The stand-in: records every request; answers the queued answers in order, then 200 `{"status":"ok"}`. */
async function standIn(t: TestContext) {
  const received: Received[] = [];
  const answers: { status: number; body: string; headers?: Record<string, string> }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const tlm = url.searchParams.get('tlm');
    received.push({ path: url.pathname, apiKey: url.searchParams.get('api_key'), token: url.searchParams.get('token'), tlm: tlm === null ? {} : (JSON.parse(tlm) as Record<string, unknown>) });
    const a = answers.shift() ?? { status: 200, body: '{"status":"ok","result":null}' };
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, answers };
}

/** An `S` record: 42 fields, the given 1-based ones set. */
function sRecord(soc: number, state = 'stopped', more: Record<number, string | number> = {}): string {
  const f = new Array<string>(42).fill('0');
  Object.assign(f, { 0: String(soc), 1: 'K', 4: state, 5: 'standard', 6: '300', 11: '0', 32: '390.5', 33: '98', 36: '-1.5' });
  for (const [n, v] of Object.entries(more)) f[Number(n) - 1] = String(v);
  return f.join(',');
}
const dRecord = (parked: boolean) => `0,0,5,20,25,21,0,123456,0,${parked ? 600 : 0},12,1,1,1,12.6,0,12.8,0,20,0,20`;
const lRecord = (speed: number) => `52.520008,13.404954,90.0,34.0,1,1,${speed},0,0,${speed > 0 ? 15.5 : 0},1.2,0.3,0,0,AA,9,0.9,${speed},90`;

interface World {
  h: HttpHarness;
  abrp: Awaited<ReturnType<typeof standIn>>;
  clock: { t: number };
  car: MpClient;
  cookie: string;
  /** The car sends these records at the clock's time; the server has committed them and the ABRP side has done what they caused. */
  send(...records: [code: string, data: string][]): Promise<void>;
  /** The ABRP side's tick at the clock's time, and what it caused. */
  tick(): Promise<void>;
  api(method: string, vehicle: string, body?: unknown): Promise<HttpResponse>;
}

async function world(t: TestContext, abrpOn = true): Promise<World> {
  const abrp = await standIn(t);
  const clock = { t: T0 };
  const h = await httpHarness(t, {
    clock: () => clock.t * 1000,
    sessionTimeout: 30 * 86400,
    ...(abrpOn ? { abrp: { apiKey: API_KEY, url: abrp.url } } : {}),
  });
  const other = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHERCAR', other, 'NETPASS');
  const car = await h.car('TESTCAR');
  const cookie = (await h.login()).split(';', 1)[0]!;
  const server = h.t.server;
  const settle = async () => {
    server.abrp.tick();
    await server.abrp.settled();
  };
  return {
    h,
    abrp,
    clock,
    car,
    cookie,
    async send(...records) {
      for (const [code, data] of records) car.send(code, data);
      car.send('A');
      while ((await car.next()).code !== 'a');
      await server.store.flush();
      await settle();
    },
    tick: settle,
    api: (method, vehicle, body) =>
      h.request(`/api/abrp/${vehicle}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}

const json = (r: HttpResponse): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

test('a linked car: the policy, the fields, back-off on 500, a 401 stops the link, linking again, DELETE stops the sends', async (t) => {
  const w = await world(t);
  const { received, answers } = w.abrp;

  // not linked: the car's records go nowhere
  await w.send(['S', sRecord(80)], ['D', dRecord(true)], ['L', lRecord(0)]);
  assert.equal(received.length, 0);
  const unlinked = await w.api('GET', 'TESTCAR');
  assert.deepEqual(json(unlinked), { vehicleId: 'TESTCAR', configured: true, linked: false, state: null, since: null, lastSent: null, lastError: null, lastErrorTime: null, retryAt: null });

  // linked: the latest telemetry goes at once, with the API key and the token
  const put = await w.api('PUT', 'testcar', { token: TOKEN });
  assert.equal(put.status, 200, put.body);
  assert.deepEqual(json(put), { vehicleId: 'TESTCAR', configured: true, linked: true, state: 'pending', since: T0, lastSent: null, lastError: null, lastErrorTime: null, retryAt: null });
  await w.tick();
  assert.equal(received.length, 1);
  const first = received[0]!;
  assert.deepEqual([first.path, first.apiKey, first.token], ['/1/tlm/send', API_KEY, TOKEN]);
  assert.deepEqual(first.tlm, {
    utc: T0, soc: 80, power: 0, speed: 0, lat: 52.52001, lon: 13.40495, is_charging: false, is_dcfc: false, is_parked: true, kwh_charged: 0,
    soh: 98, heading: 90, elevation: 34, ext_temp: 12, batt_temp: 21, voltage: 390.5, current: -1.5, odometer: 12345.6, est_battery_range: 300,
  });
  assert.ok(Object.values(first.tlm).every((v) => v !== null));
  assert.equal(json(await w.api('GET', 'TESTCAR')).state, 'ok');
  assert.equal(json(await w.api('GET', 'TESTCAR')).lastSent, T0);

  // parked and nothing significant: nothing more (daily)
  w.clock.t += 1;
  await w.send(['D', dRecord(true)]);
  w.clock.t += 60;
  await w.send(['S', sRecord(80.2)], ['D', dRecord(true)]);
  w.clock.t += 600;
  await w.tick();
  assert.equal(received.length, 1);

  // a significant change goes at once
  w.clock.t += 2;
  await w.send(['S', sRecord(79)]);
  assert.equal(received.length, 2);
  assert.equal(received[1]!.tlm.soc, 79);

  // driving above 70 km/h: every 5 s, records every 2 s
  const drive0 = (w.clock.t += 10);
  await w.send(['D', dRecord(false)], ['L', lRecord(100)]); // parked flips: at once
  for (let i = 1; i <= 6; i++) {
    w.clock.t = drive0 + 2 * i;
    await w.send(['L', lRecord(100)]);
  }
  const driving = received.slice(2).map((r) => r.tlm.utc);
  assert.deepEqual(driving, [drive0, drive0 + 6, drive0 + 12]);
  assert.equal(received.at(-1)!.tlm.speed, 100);
  assert.equal(received.at(-1)!.tlm.is_parked, false);
  await w.send(['D', dRecord(true)], ['L', lRecord(0)]);
  const sentSoFar = received.length;

  // a 500 backs off: a later significant change waits for the retry
  answers.push({ status: 500, body: 'busy' });
  w.clock.t += 100;
  await w.send(['S', sRecord(78)]);
  assert.equal(received.length, sentSoFar + 1);
  const failing = json(await w.api('GET', 'TESTCAR'));
  assert.deepEqual([failing.state, failing.lastError, failing.lastErrorTime, failing.retryAt], ['failing', 'ABRP answered HTTP 500', w.clock.t, w.clock.t + 30]);
  const retryAt = failing.retryAt as number;
  w.clock.t += 10;
  await w.send(['S', sRecord(77)]);
  assert.equal(received.length, sentSoFar + 1, 'nothing during the back-off');
  w.clock.t = retryAt;
  await w.tick();
  assert.equal(received.length, sentSoFar + 2, 'the retry at its time');
  assert.equal(received.at(-1)!.tlm.soc, 77);
  const recovered = json(await w.api('GET', 'TESTCAR'));
  assert.deepEqual([recovered.state, recovered.lastSent, recovered.retryAt], ['ok', retryAt, null]);

  // a 401: the link stops, GET says why, nothing more is sent
  answers.push({ status: 401, body: `{"status":"error","error":"unknown token ${TOKEN}"}` });
  w.clock.t += 10;
  await w.send(['S', sRecord(76)]);
  const refused = json(await w.api('GET', 'TESTCAR'));
  assert.equal(refused.state, 'refused');
  assert.match(String(refused.lastError), /refused the token \(HTTP 401\)/);
  const afterRefusal = received.length;
  w.clock.t += 10;
  await w.send(['S', sRecord(75)]);
  w.clock.t += 1000;
  await w.tick();
  assert.equal(received.length, afterRefusal);

  // linked again with a new token: sent at once with it
  assert.equal((await w.api('PUT', 'TESTCAR', { token: TOKEN2 })).status, 200);
  await w.tick();
  assert.equal(received.length, afterRefusal + 1);
  assert.equal(received.at(-1)!.token, TOKEN2);

  // DELETE: nothing more
  const del = await w.api('DELETE', 'TESTCAR');
  assert.equal(del.status, 204);
  w.clock.t += 10;
  await w.send(['S', sRecord(60)]);
  assert.equal(received.length, afterRefusal + 1);
  assert.equal(json(await w.api('GET', 'TESTCAR')).linked, false);
  assert.equal((await w.api('DELETE', 'TESTCAR')).status, 404);

  // the tokens and the API key: never in the log, the answers or the database in clear
  const log = w.h.t.logs.join('\n');
  for (const secret of [TOKEN, TOKEN2, API_KEY]) assert.ok(!log.includes(secret), 'a secret in the log');
  assert.ok(log.includes('ABRP refused the token'), 'the refusal is logged (without the token)');
  await w.api('PUT', 'TESTCAR', { token: TOKEN });
  const row = (await w.h.t.server.store.abrp.getLink('TESTCAR'))!;
  assert.ok(row.token.startsWith('v1:') && !row.token.includes(TOKEN));
  const shown = (await w.api('GET', 'TESTCAR')).body;
  assert.ok(!shown.includes(TOKEN) && !shown.includes(row.token));
});

test("another owner's vehicle is refused like an unknown one; linking needs abrp.admin; a bad token is a 400 that does not echo it", async (t) => {
  const w = await world(t);
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const r = await w.api(method, 'OTHERCAR', method === 'PUT' ? { token: TOKEN } : undefined);
    assert.equal(r.status, 403, `${method}: ${r.body}`);
    assert.equal(json(r).error, 'VTS_ERR_UNKNOWN_VEHICLE');
  }
  assert.equal(await w.h.t.server.store.abrp.getLink('OTHERCAR'), undefined);
  for (const body of [{}, { token: '' }, { token: 'has space' }, { token: 'x'.repeat(257) }, { token: 5 }]) {
    const r = await w.api('PUT', 'TESTCAR', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(json(r).error, 'VTS_ERR_INVALID_INPUT');
    assert.ok(!r.body.includes('has space'));
  }
  // an API token: reading needs any login, linking the right abrp.admin (or admin)
  const token = async (permit: string): Promise<string> => {
    const r = await w.h.request('/api/token', { method: 'POST', headers: { cookie: w.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `application=abrp-test&purpose=tests&permit=${permit}` });
    assert.equal(r.status, 201, r.body);
    return (JSON.parse(r.body) as { token: string }).token;
  };
  const withToken = (secret: string, method: string) =>
    w.h.request(`/api/abrp/TESTCAR?username=demo&password=${secret}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: TOKEN }) });
  const reader = await token('status');
  assert.equal((await w.h.request(`/api/abrp/TESTCAR?username=demo&password=${reader}`)).status, 200);
  assert.equal((await withToken(reader, 'PUT')).status, 403);
  assert.equal((await withToken(reader, 'DELETE')).status, 403);
  assert.equal((await withToken(await token('abrp.admin'), 'PUT')).status, 200);

  // a token in the query string is not taken
  const q = await w.h.request(`/api/abrp/TESTCAR?token=${TOKEN}`, { method: 'PUT', headers: { cookie: w.cookie } });
  assert.equal(q.status, 400);
});

test('without --abrp-api-key a link cannot be made: PUT answers VTS_ERR_ABRP_OFF, GET says so', async (t) => {
  const w = await world(t, false);
  const r = await w.api('PUT', 'TESTCAR', { token: TOKEN });
  assert.equal(r.status, 503);
  assert.equal(json(r).error, 'VTS_ERR_ABRP_OFF');
  assert.match(String(json(r).message), /--abrp-api-key/);
  const got = json(await w.api('GET', 'TESTCAR'));
  assert.deepEqual([got.configured, got.linked], [false, false]);
  await w.send(['S', sRecord(50)]);
  assert.equal(w.abrp.received.length, 0);
});
