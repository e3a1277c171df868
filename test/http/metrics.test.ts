/**
 * `GET /metrics` (issue 17): absent without `--metrics-token`, 401 without the right bearer token
 * (throttled like every secret check), and the Prometheus text whose values move as traffic flows:
 * connections, car messages by code, HTTP requests by group and status, commands by link and
 * outcome, store commits, login failures and refused requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricNames } from '../../src/metrics/catalog.js';
import { httpHarness, type HttpHarness } from './helpers.js';

const TOKEN = 'metrics-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** The samples of a scrape: `name{labels}` (labels as printed) → value. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    samples.set(m[1]!, Number(m[2]));
  }
  return samples;
}

async function scrape(h: HttpHarness): Promise<Map<string, number>> {
  const r = await h.request('/metrics', { headers: AUTH });
  assert.equal(r.status, 200, r.body);
  return parse(r.body);
}

/** The sample, 0 when the scrape has none. */
const value = (s: Map<string, number>, key: string): number => s.get(key) ?? 0;

test('/metrics is absent (404) without --metrics-token', async (t) => {
  const h = await httpHarness(t);
  const r = await h.request('/metrics', { headers: AUTH });
  assert.equal(r.status, 404);
  assert.match(r.body, /--metrics-token/);
});

test('/metrics wants the bearer token: 401 without it or with a wrong one, then throttled', async (t) => {
  const h = await httpHarness(t, { metricsToken: TOKEN, loginLimits: { pair: { burst: 3, perMinute: 1 } } });
  const none = await h.request('/metrics');
  assert.equal(none.status, 401);
  assert.equal(none.headers['www-authenticate'], 'Bearer realm="vts metrics"');
  assert.equal((await h.request('/metrics', { headers: { authorization: `Basic ${TOKEN}` } })).status, 401);
  // the right token first: a right secret gives its attempt back
  const ok = await h.request('/metrics', { headers: AUTH });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const wrong = [];
  for (let k = 0; k < 4; k++) wrong.push((await h.request('/metrics', { headers: { authorization: 'Bearer not-the-token' } })).status);
  assert.deepEqual(wrong, [401, 401, 401, 429]);
  // counted as failed secret checks, like wrong passwords
  assert.equal(h.t.server.guard.failures, 3);
});

test("wrong tokens from other addresses never lock out the scraper: the throttle is per address, a long right token is always served", async (t) => {
  // a small budget: 3 tries per address, 5 for the whole account (the default account bucket)
  const limits = { pair: { burst: 3, perMinute: 1 }, account: { burst: 5, perMinute: 1 } };
  const h = await httpHarness(t, { metricsToken: TOKEN, loginLimits: limits });
  const scrape = (localAddress: string, token = TOKEN) => h.request('/metrics', { headers: { authorization: `Bearer ${token}` }, localAddress });
  // 4 addresses send 4 wrong tokens each: each gets its 429, far more than the account's 5
  for (const a of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) {
    const got = [];
    for (let k = 0; k < 4; k++) got.push((await scrape(a, 'wrong-token')).status);
    assert.deepEqual(got, [401, 401, 401, 429], a);
  }
  // the scraper, from an address never seen (as after a restart), and again: served
  assert.equal((await scrape('127.0.0.9')).status, 200);
  assert.equal((await scrape('127.0.0.9')).status, 200);
  // the right token is served even from an address that guessed (it cannot be guessed: 29 characters)
  assert.equal((await scrape('127.0.0.2')).status, 200);
  assert.equal((await scrape('127.0.0.2', 'wrong-token')).status, 429);
});

test('a short metrics token is throttled like a password, per address', async (t) => {
  const h = await httpHarness(t, { metricsToken: 'short', loginLimits: { pair: { burst: 3, perMinute: 1 }, account: { burst: 5, perMinute: 1 } } });
  const scrape = (localAddress: string, token: string) => h.request('/metrics', { headers: { authorization: `Bearer ${token}` }, localAddress });
  for (const a of ['127.0.0.2', '127.0.0.3']) for (let k = 0; k < 3; k++) assert.equal((await scrape(a, 'guess')).status, 401);
  // the guesser's address is refused even with the right token: trying cannot find it
  assert.equal((await scrape('127.0.0.2', 'short')).status, 429);
  // another address is not
  assert.equal((await scrape('127.0.0.9', 'short')).status, 200);
});

test('a scrape has every metric of the catalogue and the process metrics', async (t) => {
  const h = await httpHarness(t, { metricsToken: TOKEN });
  const r = await h.request('/metrics', { headers: AUTH });
  for (const name of metricNames()) assert.match(r.body, new RegExp(`^# TYPE ${name} `, 'm'), `${name} is missing`);
  const s = parse(r.body);
  for (const kind of ['car', 'app', 'batch', 'mqtt_module', 'api_session']) assert.equal(s.get(`vts_connections{kind="${kind}"}`), 0, kind);
  for (const channel of ['apns', 'fcm', 'expo', 'mail', 'webhook', 'ntfy']) assert.equal(s.get(`vts_push_outbox{channel="${channel}"}`), 0, channel);
});

test('the values move as traffic flows', async (t) => {
  const h = await httpHarness(t, { metricsToken: TOKEN });
  const before = await scrape(h);

  const car = await h.car('DEMO1');
  const app = await h.client('A', 'DEMO1');
  car.send('S', '80,K,220,70,charging,standard,280,270');
  car.send('D', '0,0,5,0,0,0,0,0,0,0');
  car.send('S', '81,K,220,70,charging,standard,281,271');
  await app.waitFor((m) => m.code === 'S' && m.data.startsWith('81,'));
  assert.equal((await h.asDemo('/api/status/DEMO1')).status, 200);
  assert.equal((await h.request('/api/vehicles?username=demo&password=wrong-password')).status, 401);
  const command = await h.asDemo('/api/command/TESTCAR', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"command":"stat"}' });
  assert.equal(command.status, 409, command.body); // TESTCAR is not connected
  await h.t.server.store.flush();

  const after = await scrape(h);
  const delta = (key: string): number => value(after, key) - value(before, key);
  assert.equal(after.get('vts_connections{kind="car"}'), 1);
  assert.equal(after.get('vts_connections{kind="app"}'), 1);
  assert.equal(delta('vts_car_messages_received_total{code="S"}'), 2);
  assert.equal(delta('vts_car_messages_received_total{code="D"}'), 1);
  assert.equal(delta('vts_http_requests_total{group="api_v2",status="200"}'), 1);
  assert.equal(delta('vts_http_requests_total{group="command_api",status="409"}'), 1);
  assert.equal(delta('vts_http_requests_total{group="api_v2",status="401"}'), 1);
  assert.equal(delta('vts_http_requests_total{group="metrics",status="200"}'), 1); // the first scrape
  assert.equal(delta('vts_http_request_duration_seconds_count{group="api_v2"}'), 2);
  assert.equal(delta('vts_commands_total{link="none",outcome="not-connected"}'), 1);
  assert.equal(delta('vts_command_duration_seconds_count{link="none"}'), 1);
  assert.equal(delta('vts_login_failures_total'), 1);
  assert.ok(delta('vts_store_batch_rows_count') >= 1, 'a store commit was counted');
  assert.ok(delta('vts_store_batch_rows_sum') >= 2, 'the batches held the car messages (S coalesced, D)');
  assert.ok(delta('vts_store_commit_duration_seconds_count') >= 1);
  assert.ok(value(after, 'process_resident_memory_bytes') > 0);
  assert.ok(after.has('nodejs_eventloop_lag_p99_seconds'));

  await car.close();
  await app.close();
  const gone = await scrape(h);
  assert.equal(gone.get('vts_connections{kind="car"}'), 0);
});

test('requests the rate limiter refuses are counted; /health, /ready and /metrics are never limited', async (t) => {
  const h = await httpHarness(t, { metricsToken: TOKEN, rateLimit: { burst: 2, perMinute: 1, max: 2, delaySeconds: 0 } });
  const statuses = [];
  for (let k = 0; k < 4; k++) statuses.push((await h.asDemo('/api/vehicles')).status);
  assert.deepEqual(statuses, [200, 200, 429, 429]);
  for (let k = 0; k < 10; k++) {
    assert.equal((await h.request('/health')).status, 200);
    assert.equal((await h.request('/ready')).status, 200);
  }
  const s = await scrape(h);
  assert.equal(s.get('vts_throttled_total{kind="http_rate"}'), 2);
  assert.equal(s.get('vts_http_requests_total{group="api_v2",status="429"}'), 2);
  assert.equal(s.get('vts_http_requests_total{group="health",status="200"}'), 20);
});
