/**
 * vts's web API (docs/web-api.md): browser sessions with CSRF tokens, password change,
 * the overview, live updates as Server-Sent Events, history series and trips, and the dashboard's
 * files at `/`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { eventually, m } from '../mp/helpers.js';
import { httpHarness, type HttpHarness } from './helpers.js';

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function signIn(h: HttpHarness, user = 'demo', password = 'demopass'): Promise<{ cookie: string; csrf: string }> {
  const r = await h.request('/api/session', json({ username: user, password }));
  assert.equal(r.status, 200, r.body);
  const cookie = r.headers['set-cookie']![0]!.split(';', 1)[0]!;
  return { cookie, csrf: (JSON.parse(r.body) as { csrf: string }).csrf };
}

test('web sign-in: JSON in, an HttpOnly SameSite=Strict cookie and a CSRF token out; wrong credentials 401', async (t) => {
  const h = await httpHarness(t);
  const bad = await h.request('/api/session', json({ username: 'demo', password: 'nope' }));
  assert.equal(bad.status, 401);
  assert.equal((JSON.parse(bad.body) as { error: string }).error, 'VTS_ERR_AUTH');
  const r = await h.request('/api/session', json({ username: 'demo', password: 'demopass' }));
  assert.equal(r.status, 200);
  const body = JSON.parse(r.body) as { user: string; csrf: string; timeout: number };
  assert.equal(body.user, 'demo');
  assert.match(body.csrf, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(body.timeout, 7 * 86_400, 'the web session timeout (--web-session-timeout), not the API one');
  const setCookie = r.headers['set-cookie']![0]!;
  assert.match(setCookie, /^svcapisession=[0-9A-F-]{36}; Path=\/; HttpOnly; SameSite=Strict$/);
  const cookie = setCookie.split(';', 1)[0]!;
  const me = await h.request('/api/session', { headers: { cookie } });
  assert.deepEqual(JSON.parse(me.body), body);
  // without a session: the documented JSON 401, as with a login that is no web session
  for (const path of ['/api/session', '/api/session?username=demo&password=demopass', '/api/session?username=demo&password=wrong']) {
    const none = await h.request(path);
    assert.equal(none.status, 401, path);
    assert.equal(none.headers['content-type'], 'application/json', path);
    assert.equal((JSON.parse(none.body) as { error: string }).error, 'VTS_ERR_AUTH', path);
  }
  // the cookie works for the API v2 too
  assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 200);
  // sign-out needs the CSRF token, then the cookie is dead
  assert.equal((await h.request('/api/session', { method: 'DELETE', headers: { cookie } })).status, 403);
  assert.equal((await h.request('/api/session', { method: 'DELETE', headers: { cookie, 'x-csrf-token': body.csrf } })).status, 204);
  assert.equal((await h.request('/api/vehicles', { headers: { cookie } })).status, 401);
  assert.ok(h.t.logs.every((l) => !l.includes('demopass') && !l.includes(body.csrf)), 'no secret in the logs');
});

test('a web session outlives --session-timeout (it has --web-session-timeout), while a GET /api/cookie session ends', async (t) => {
  const h = await httpHarness(t, { sessionTimeout: 1, webSessionTimeout: 3600 });
  const r = await h.request('/api/session', json({ username: 'demo', password: 'demopass' }));
  assert.equal((JSON.parse(r.body) as { timeout: number }).timeout, 3600);
  const web = r.headers['set-cookie']![0]!.split(';', 1)[0]!;
  const api = (await h.login()).split(';', 1)[0]!;
  // both count as apps of the car: it hears when one ends (asking would keep it alive)
  const car = await h.car();
  assert.deepEqual(await car.next(), m('Z', '0'));
  assert.equal((await h.request('/api/vehicle/TESTCAR', { headers: { cookie: api } })).status, 200);
  assert.deepEqual(await car.next(), m('Z', '1'));
  assert.equal((await h.request('/api/vehicle/TESTCAR', { headers: { cookie: web } })).status, 200);
  assert.deepEqual(await car.next(), m('Z', '2'));
  // both idle: the API session ends after its second; the web session is alive after that
  assert.deepEqual(await car.next(5000), m('Z', '1'));
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: api } })).status, 401);
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: web } })).status, 200);
  assert.equal((await h.request('/api/session', { headers: { cookie: web } })).status, 200);
});

test('CSRF: a web session must send X-CSRF-Token on state-changing calls; API cookies and credentials need none', async (t) => {
  const h = await httpHarness(t);
  const { cookie, csrf } = await signIn(h);
  const create = (headers: Record<string, string>) =>
    h.request('/api/token', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"application":"t","permit":"view"}' });
  const refused = await create({ cookie });
  assert.equal(refused.status, 403);
  assert.equal((JSON.parse(refused.body) as { error: string }).error, 'VTS_ERR_CSRF');
  assert.equal((await create({ cookie, 'x-csrf-token': csrf.slice(1) + 'x' })).status, 403);
  assert.equal((await create({ cookie, 'x-csrf-token': csrf })).status, 201);
  // reading needs no token
  assert.equal((await h.request('/api/token', { headers: { cookie } })).status, 200);
  // the reference's cookie (GET /api/cookie) keeps its behaviour
  assert.equal((await create({ cookie: await h.login() })).status, 201);
});

test('password change: current password checked, 8 characters at least, other web sessions end, tokens may not', async (t) => {
  const h = await httpHarness(t);
  const a = await signIn(h);
  const b = await signIn(h);
  const change = (s: { cookie: string; csrf: string }, body: unknown) =>
    h.request('/api/password', { method: 'POST', headers: { 'content-type': 'application/json', cookie: s.cookie, 'x-csrf-token': s.csrf }, body: JSON.stringify(body) });
  assert.equal((await change(a, { current: 'wrong', new: 'newpassword' })).status, 403);
  assert.equal((await change(a, { current: 'demopass', new: 'short' })).status, 400);
  assert.equal((await change(a, { current: 'demopass', new: 'newpassword' })).status, 204);
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: a.cookie } })).status, 200, 'the session that changed it stays');
  assert.equal((await h.request('/api/vehicles', { headers: { cookie: b.cookie } })).status, 401, 'the other web session ended');
  assert.equal((await h.request('/api/vehicles?username=demo&password=demopass')).status, 401);
  assert.equal((await h.request('/api/vehicles?username=demo&password=newpassword')).status, 200);
  const tok = JSON.parse((await h.request('/api/token?username=demo&password=newpassword', json({ application: 't', permit: '*' }))).body) as { token: string };
  const byToken = await h.request(`/api/password?username=demo&password=${tok.token}`, json({ current: 'newpassword', new: 'another1234' }));
  assert.equal(byToken.status, 403);
});

test('overview: link, connection, apps, age and the values of the last S record', async (t) => {
  const h = await httpHarness(t);
  const before = JSON.parse((await h.asDemo('/api/overview')).body) as Record<string, unknown>[];
  assert.deepEqual(
    before.map((v) => [v.id, v.online, v.link, v.soc, v.lastUpdate]),
    [
      ['DEMO1', false, null, null, null],
      ['TESTCAR', false, null, null, null],
    ],
  );
  const car = await h.car('DEMO1');
  car.send('S', '81.5,K,230,16.00,charging,standard,260,241,32,1200,0,123');
  const app = await h.client('A', 'DEMO1');
  void app;
  const row = await eventually(async () => {
    const rows = JSON.parse((await h.asDemo('/api/overview')).body) as Record<string, unknown>[];
    const r = rows.find((v) => v.id === 'DEMO1')!;
    return r.soc === 81.5 && r.apps === 1 ? r : undefined;
  }, 'overview with the S record');
  assert.deepEqual(row, {
    access: 'owner',
    age: row.age,
    apps: 1,
    batches: 0,
    chargeState: 'charging',
    charging: true,
    id: 'DEMO1',
    idealRange: 260,
    lastUpdate: row.lastUpdate,
    link: 'v2',
    name: 'DEMO1',
    online: true,
    owner: 'demo',
    range: 241,
    soc: 81.5,
    units: 'K',
  });
  assert.equal(typeof row.lastUpdate, 'number');
  assert.ok(typeof row.age === 'number' && row.age >= 0 && row.age < 5);
});

/** An SSE reader: the events received so far. */
function sse(port: number, path: string, headers: Record<string, string> = {}): Promise<{ res: IncomingMessage; events: { event: string; data: Record<string, unknown> }[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const events: { event: string; data: Record<string, unknown> }[] = [];
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      });
      resolve({ res, events, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

test('live: hello, link and the stored records, then records, notifications and link changes as they happen', async (t) => {
  const h = await httpHarness(t);
  const car = await h.car('DEMO1');
  car.send('S', '50.0,K,230,16.00,charging,standard,260,241');
  await eventually(async () => ((await h.t.server.store.getCarMessages('DEMO1')).length > 0 ? true : undefined), 'S stored');
  const { cookie } = await signIn(h);
  const s = await sse(h.httpPort, '/api/live/DEMO1', { cookie });
  t.after(() => s.close());
  assert.equal(s.res.statusCode, 200);
  assert.equal(s.res.headers['content-type'], 'text/event-stream');
  await eventually(() => (s.events.length >= 3 ? true : undefined), 'hello, link, record ' + JSON.stringify(s.events));
  assert.equal(s.events[0]!.event, 'hello');
  assert.equal(s.events[0]!.data.vehicle, 'DEMO1');
  assert.deepEqual(s.events[1], { event: 'link', data: { apps: 1, batches: 0, link: 'v2', online: true } });
  assert.equal(s.events[2]!.event, 'record');
  assert.equal(s.events[2]!.data.data, '50.0,K,230,16.00,charging,standard,260,241');
  // the stream counts as an app: the car hears Z1 (after the Z0 of its login)
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  assert.deepEqual(await car.next(), { code: 'Z', data: '1' });

  car.send('S', '51.0,K,230,16.00,charging,standard,261,242');
  car.send('PA', 'Alarm!');
  await eventually(() => (s.events.some((e) => e.event === 'notification') ? true : undefined), 'notification');
  const later = s.events.slice(3);
  assert.deepEqual(later[0]!.data.data, '51.0,K,230,16.00,charging,standard,261,242');
  assert.deepEqual({ ...later[1]!.data, time: 0 }, { text: 'Alarm!', time: 0, type: 'A' });
  await car.close();
  await eventually(() => (s.events.some((e) => e.event === 'link' && e.data.online === false) ? true : undefined), 'offline link event');
  // another user's vehicle, and no credentials
  const refused = await h.request('/api/live/NOPE', { headers: { cookie } });
  assert.equal(refused.status, 403);
  assert.deepEqual(JSON.parse(refused.body), { error: 'VTS_ERR_UNKNOWN_VEHICLE', message: 'no such vehicle among yours' });
  assert.equal((await h.request('/api/live/DEMO1')).status, 401);
});

test('history: series from S, D and L history and a trip from the odometer', async (t) => {
  const h = await httpHarness(t);
  const store = h.t.server.store;
  const t0 = Math.floor(Date.now() / 1000) - 3600;
  const add = (type: string, dt: number, data: string) => store.addHistorical({ vehicleId: 'DEMO1', type, recordNumber: 0, time: t0 + dt, data, expires: t0 + 86400 }, true);
  const d = (odo: number, bat: number) => `0,0,4,20,25,${bat},0,${odo},0,0,12`;
  const l = (lat: number, power: number) => `${lat},11.5,0,500,1,1,0,0,0,${power}`;
  await add('S', 0, '80.0,K,0,0,stopped,standard,300,280');
  await add('L', 0, l(48.1, 0));
  await add('D', 0, d(10000, 20));
  // 5 km in 5 minutes, 7.3 km in the next 5 minutes
  await add('D', 300, d(10050, 21));
  await add('L', 600, l(48.2, 12.5));
  await add('D', 600, d(10123, 22));
  await add('S', 610, '77.5,K,0,0,stopped,standard,290,270');
  await add('D', 1500, d(10123, 21));
  const r = await h.asDemo(`/api/history/DEMO1?from=${t0 - 10}&to=${t0 + 2000}`);
  assert.equal(r.status, 200, r.body);
  const body = JSON.parse(r.body) as { series: Record<string, [number, number][]>; trips: Record<string, unknown>[]; units: string };
  assert.deepEqual(body.series.soc, [
    [t0, 80],
    [t0 + 610, 77.5],
  ]);
  assert.deepEqual(body.series.range!.map((p) => p[1]), [280, 270]);
  assert.deepEqual(body.series.power!.map((p) => p[1]), [0, 12.5]);
  assert.deepEqual(body.series.tempBattery!.map((p) => p[1]), [20, 21, 22, 21]);
  assert.deepEqual(body.series.tempAmbient!.map((p) => p[1]), [12, 12, 12, 12]);
  assert.deepEqual(body.trips, [{ start: t0, end: t0 + 600, distance: 12.3, from: { lat: 48.1, lon: 11.5 }, to: { lat: 48.2, lon: 11.5 }, socStart: 80, socEnd: 77.5 }]);
  assert.equal(body.units, 'K');
  assert.equal((await h.asDemo('/api/history/DEMO1?from=5&to=1')).status, 400);
  const refused = await h.asDemo('/api/history/NOPE');
  assert.equal(refused.status, 403);
  assert.equal((JSON.parse(refused.body) as { error: string }).error, 'VTS_ERR_UNKNOWN_VEHICLE');
});

test('history trips: an odometer that goes back or jumps further than the car can drive ends a trip and is not counted', async (t) => {
  const h = await httpHarness(t);
  const store = h.t.server.store;
  const t0 = Math.floor(Date.now() / 1000) - 7200;
  const add = (dt: number, odo: number) =>
    store.addHistorical({ vehicleId: 'DEMO1', type: 'D', recordNumber: 0, time: t0 + dt, data: `0,0,4,20,25,20,0,${odo},0,0,12`, expires: t0 + 86400 }, true);
  // 15 km in 10 minutes; the emulator restarts with another seed (9,059.8 km less); 2 km; a jump
  // of 30,000 km in a minute (another restart); 1 km
  for (const [dt, odo] of [
    [0, 100_000],
    [300, 100_075],
    [600, 100_150],
    [660, 9_552],
    [720, 9_562],
    [780, 9_572],
    [840, 309_572],
    [900, 309_577],
    [960, 309_582],
  ] as const) {
    await add(dt, odo);
  }
  const r = await h.asDemo(`/api/history/DEMO1?from=${t0}&to=${t0 + 2000}`);
  assert.equal(r.status, 200, r.body);
  const body = JSON.parse(r.body) as { trips: { start: number; end: number; distance: number }[] };
  assert.deepEqual(
    body.trips.map((x) => [x.start - t0, x.end - t0, x.distance]),
    [
      [0, 600, 15],
      [660, 780, 2],
      [840, 960, 1],
    ],
  );
  // records at exactly `from` count
  assert.equal(body.trips[0]!.start, t0);
});

test('the dashboard: / is the built page (or a hint), /web/config.json has the tile settings', async (t) => {
  const h = await httpHarness(t, { web: { tileUrl: 'https://tiles.example/{z}/{x}/{y}.png', tileAttribution: 'Example' } });
  const cfg = await h.request('/web/config.json');
  assert.deepEqual(JSON.parse(cfg.body), { tileAttribution: 'Example', tileUrl: 'https://tiles.example/{z}/{x}/{y}.png' });
  const page = await h.request('/');
  if (page.status === 200) {
    assert.match(page.headers['content-type'] ?? '', /^text\/html/);
    assert.match(String(page.headers['content-security-policy'] ?? ''), /default-src 'self'/);
    assert.match(page.body, /<html/i);
  } else {
    assert.equal(page.status, 503);
    assert.match(page.body, /npm run build/);
  }
  assert.equal((await h.request('/api/nothing')).status, 404);
});
