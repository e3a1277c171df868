/**
 * Remote commands through the server end to end: `vts serve` in process, an emulated
 * module (`vts module`'s EmulatedModule) connected over the MP, and the JSON command API
 * `POST /api/command/<id>` (shell, js, mp; sync and async), the audit, rights, not connected,
 * timeout, full queue, concurrent callers never swapped, and the custom API `/api/ovms/cmd`.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startV2Module } from '../support/module.js';
import type { ServerConfig } from '../../src/server/server.js';
import { eventually } from '../mp/helpers.js';
import { httpHarness, type HttpHarness } from './helpers.js';


async function withModule(ctx: TestContext, config: Partial<ServerConfig> = {}): Promise<HttpHarness> {
  const h = await httpHarness(ctx, config);
  await startV2Module(ctx, h.t, { id: 'TESTCAR', carPassword: 'NETPASS', seed: 3 });
  return h;
}

function post(h: HttpHarness, path: string, body: unknown, auth = 'username=demo&password=demopass') {
  return h.request(`${path}${path.includes('?') ? '&' : '?'}${auth}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

test('shell, js and mp commands: 200 {"output","result"}, module CR line breaks as LF', async (ctx) => {
  const h = await withModule(ctx);
  const shell = await post(h, '/api/command/TESTCAR', { command: 'echo a b' });
  assert.equal(shell.status, 200, shell.body);
  assert.equal(shell.headers['content-type'], 'application/json');
  assert.equal(shell.body, '{"output":"a\\nb\\n","result":0}\n');
  const js = await post(h, '/api/command/testcar', { command: 'print(20 + 22)', type: 'js' });
  assert.deepEqual(json(js.body), { output: '42', result: 0 });
  const lock = await post(h, '/api/command/TESTCAR', { command: '#20,1234', type: 'mp' });
  assert.deepEqual(json(lock.body), { output: '', result: 0 });
  const features = await post(h, '/api/command/TESTCAR', { command: '1', type: 'mp' });
  const lines = String(json(features.body).output).trimEnd().split('\n');
  assert.equal(lines.length, 32, 'the multi-record answer of command 1, one record per line');
  assert.equal(lines[31], '31,32,0');
  const form = await h.asDemo('/api/command/TESTCAR', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'command=' + encodeURIComponent('echo form') + '&timeout=5',
  });
  assert.deepEqual(json(form.body), { output: 'form\n', result: 0 });
});

test('errors: 400 bad input, 409 not connected, 403 for a foreign vehicle or without the right', async (ctx) => {
  const h = await withModule(ctx);
  for (const body of [{}, { command: '' }, { command: 'x', type: 'perl' }, { command: 'x', timeout: -1 }, { command: '#abc', type: 'mp' }]) {
    const r = await post(h, '/api/command/TESTCAR', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(json(r.body).error === 'VTS_ERR_INVALID_INPUT' || json(r.body).error === 'VTS_ERR_COMMAND_SYNTAX', true);
  }
  const offline = await post(h, '/api/command/DEMO1', { command: 'stat' });
  assert.equal(offline.status, 409);
  assert.equal(json(offline.body).error, 'VTS_ERR_NOT_CONNECTED');
  assert.equal((await post(h, '/api/command/NOSUCH', { command: 'stat' })).status, 403);
  await h.t.addUser('reader', 'readerpass', 'auth');
  const reader = await post(h, '/api/command/TESTCAR', { command: 'stat' }, 'username=reader&password=readerpass');
  assert.equal(reader.status, 403);
  assert.equal(reader.body, 'Insufficient rights\n');
});

test('a timeout answers 504 and frees the slot; the late reply never reaches the next caller', async (ctx) => {
  const h = await withModule(ctx);
  const slow = await post(h, '/api/command/TESTCAR', { command: 'sleep 2', timeout: 0.5 });
  assert.equal(slow.status, 504);
  assert.equal(json(slow.body).error, 'VTS_ERR_COMMAND_TIMEOUT');
  const next = await post(h, '/api/command/TESTCAR', { command: 'echo next' });
  assert.deepEqual(json(next.body), { output: 'next\n', result: 0 }, 'not the sleep\'s empty answer');
});

test('a full queue is refused at once with 503', async (ctx) => {
  const h = await withModule(ctx, { commands: { maxQueue: 1 } });
  const results = await Promise.all([1, 2, 3, 4].map(() => post(h, '/api/command/TESTCAR', { command: 'sleep 0.5', timeout: 10 })));
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 503, 503], 'one runs, one waits, the others are refused at once');
  assert.equal(json(results.find((r) => r.status === 503)!.body).error, 'VTS_ERR_QUEUE_FULL');
});

test('concurrent callers, over HTTP and MP, each get their own answer', async (ctx) => {
  const h = await withModule(ctx);
  const app = await h.client('A');
  await app.waitFor((m) => m.code === 'T', 10_000);
  app.send('C', '7,echo from-mp');
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, k) => post(h, '/api/command/TESTCAR', { command: `echo caller-${k}` })),
  );
  answers.forEach((r, k) => assert.deepEqual(json(r.body), { output: `caller-${k}\n`, result: 0 }));
  const mp = await app.waitFor((m) => m.code === 'c' && m.data.startsWith('7,'), 10_000);
  assert.equal(mp.data, '7,0,from-mp\r');
});

test('async: 202 with a job id, then GET reports the outcome', async (ctx) => {
  const h = await withModule(ctx);
  const started = await post(h, '/api/command/TESTCAR?async=1', { command: 'echo later' });
  assert.equal(started.status, 202);
  const job = String(json(started.body).job);
  assert.match(job, /^[0-9a-f-]{36}$/);
  const done = await eventually(async () => {
    const r = json((await h.asDemo(`/api/command/TESTCAR/${job}`)).body);
    return r.status === 'done' ? r : undefined;
  }, 'the job to end');
  assert.deepEqual(done, { job, output: 'later\n', result: 0, status: 'done' });
  assert.equal((await h.asDemo('/api/command/TESTCAR/00000000-0000-0000-0000-000000000000')).status, 404);
});

test('every execution is audited, secrets masked; the audit is listed per vehicle', async (ctx) => {
  const h = await withModule(ctx);
  await post(h, '/api/command/TESTCAR', { command: 'unlock 4711' });
  await post(h, '/api/command/TESTCAR', { command: '#22,4711', type: 'mp' });
  await post(h, '/api/command/DEMO1', { command: 'stat' });
  const audit = JSON.parse((await h.asDemo('/api/command/TESTCAR')).body) as Record<string, unknown>[];
  assert.equal(audit.length, 2);
  assert.deepEqual(
    audit.map((e) => [e.command, e.result, e.caller, e.via]),
    [
      ['22,***', '0', 'user:demo', 'api'],
      ['7,unlock ***', '0', 'user:demo', 'api'],
    ],
  );
  assert.ok(!JSON.stringify(audit).includes('4711'));
  assert.ok(!h.t.logs.some((l) => l.includes('4711')), 'no PIN in the logs');
  const offline = JSON.parse((await h.asDemo('/api/command/DEMO1')).body) as Record<string, unknown>[];
  assert.equal(offline[0]?.result, 'not-connected');
});

test('the custom API /api/ovms/cmd: vehicle id and car password, extended syntax, text or JSON', async (ctx) => {
  const h = await withModule(ctx);
  const q = (cmd: string, extra = '') =>
    h.request(`/api/ovms/cmd?fn.vehicleid=testcar&fn.carpass=NETPASS&fn.cmd=${encodeURIComponent(cmd)}${extra}`);
  const echo = await q('echo x,y');
  assert.equal(echo.status, 200);
  assert.equal(echo.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(echo.body, 'x;y\n', 'the module encodes commas as ;');
  const params = await q('#3/32');
  assert.equal(params.body.trimEnd().split('\n').length, 32);
  const modem = await q('@ATI');
  assert.equal(modem.status, 200);
  assert.match(modem.body, /^ATI\n\nOK\n/, 'MP 49: the modem output');
  const ussd = await q('*100#', '&fn.format=json');
  assert.deepEqual(json(ussd.body), { command: '*100#', output: '', result: 0, vehicleid: 'TESTCAR' }, 'MP 41 accepted');
  const audit = JSON.parse((await h.asDemo('/api/command/TESTCAR')).body) as Record<string, unknown>[];
  assert.deepEqual(
    audit.slice(0, 3).map((e) => [e.command, e.via, e.caller]),
    [
      ['41,*100#', 'custom-api', 'vehicle:TESTCAR'],
      ['49,ATI', 'custom-api', 'vehicle:TESTCAR'],
      ['3', 'custom-api', 'vehicle:TESTCAR'],
    ],
  );
  const asJson = await q('echo j', '&fn.format=json');
  assert.deepEqual(json(asJson.body), { command: 'echo j', output: 'j\n', result: 0, vehicleid: 'TESTCAR' });
  const wrong = await h.request('/api/ovms/cmd?fn.vehicleid=TESTCAR&fn.carpass=nope&fn.cmd=stat');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body, 'Authentication failed\n');
  assert.equal((await h.request('/api/ovms/cmd?fn.vehicleid=TESTCAR&fn.carpass=NETPASS')).status, 400);
  const offline = await h.request('/api/ovms/cmd?fn.vehicleid=DEMO1&fn.carpass=NETPASS&fn.cmd=stat');
  assert.equal(offline.status, 409);
  const post = await h.request('/api/ovms/cmd', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'fn.vehicleid=TESTCAR&fn.carpass=NETPASS&fn.cmd=' + encodeURIComponent('echo posted'),
  });
  assert.equal(post.body, 'posted\n');
  const alias = await h.request('/api/call?fn.name=ovms/cmd&fn.vehicleid=TESTCAR&fn.carpass=NETPASS&fn.cmd=echo%20alias');
  assert.equal(alias.body, 'alias\n');
});

test('the former "Not Yet Implemented" group runs on the vehicle: charge, lock, valet, homelink, features, parameters, reset', async (ctx) => {
  const h = await withModule(ctx);
  const call = async (method: string, path: string, query = '') => {
    const r = await h.request(`${path}?username=demo&password=demopass${query}`, { method });
    return { status: r.status, body: json(r.body) };
  };
  assert.deepEqual(await call('PUT', '/api/charge/TESTCAR'), { status: 200, body: { output: '', result: 0 } });
  await eventually(async () => ((await call('GET', '/api/charge/TESTCAR')).body.chargestate === 'charging' ? true : undefined), 'charging in the stored S');
  assert.deepEqual((await call('PUT', '/api/charge/TESTCAR', '&mode=range&current=16')).body, { output: '', result: 0 });
  assert.equal((await call('PUT', '/api/charge/TESTCAR', '&mode=turbo')).status, 400);
  assert.deepEqual((await call('DELETE', '/api/charge/TESTCAR')).body, { output: '', result: 0 });
  // `mode` and `current` set them and do not start charging (the module's MP 10, 15 and 16; README)
  await eventually(async () => ((await call('GET', '/api/charge/TESTCAR')).body.chargestate === 'stopped' ? true : undefined), 'stopped in the stored S');
  assert.deepEqual((await call('PUT', '/api/charge/TESTCAR', '&mode=performance')).body, { output: '', result: 0 });
  const set = await eventually(async () => {
    const b = (await call('GET', '/api/charge/TESTCAR')).body;
    return b.mode === 'performance' ? b : undefined;
  }, 'the mode in the stored S');
  assert.equal(set.chargestate, 'stopped', 'setting the mode does not start charging');
  assert.deepEqual((await call('DELETE', '/api/lock/TESTCAR', '&pin=1234')).body, { output: '', result: 0 });
  assert.equal((await call('PUT', '/api/lock/TESTCAR')).status, 400, 'a pin is required');
  assert.deepEqual((await call('PUT', '/api/lock/TESTCAR', '&pin=1234')).body, { output: '', result: 0 });
  const locked = await eventually(async () => {
    const s = (await call('GET', '/api/lock/TESTCAR')).body;
    return s.carlocked === 8 ? s : undefined;
  }, 'the lock in the stored D');
  assert.equal(locked.valetmode, 0);
  assert.deepEqual((await call('PUT', '/api/valet/TESTCAR', '&pin=1234')).body, { output: '', result: 0 });
  assert.deepEqual((await call('PUT', '/api/homelink/TESTCAR', '&button=2')).body, { output: '', result: 0 });
  assert.equal((await call('PUT', '/api/homelink/TESTCAR', '&button=4')).status, 400);
  const features = await call('GET', '/api/features/TESTCAR');
  assert.equal(features.body.result, 0);
  assert.equal((features.body.values as string[]).length, 32);
  assert.deepEqual((await call('PUT', '/api/features/TESTCAR', '&feature=8&value=1')).body, { output: '', result: 0 });
  assert.equal(((await call('GET', '/api/features/TESTCAR')).body.values as string[])[8], '1');
  const params = await call('GET', '/api/parameters/TESTCAR');
  assert.equal((params.body.values as string[])[8], 'TESTCAR', 'parameter 8 is the vehicle id');
  assert.deepEqual((await call('PUT', '/api/parameters/TESTCAR', '&parameter=2&value=M')).body, { output: '', result: 0 });
  assert.deepEqual((await call('PUT', '/api/reset/TESTCAR')).body, { output: '', result: 0 }, 'no answer awaited: the module reboots');
  await eventually(() => (h.t.server.hub.counts('TESTCAR').net === 0 ? true : undefined), 'the module went away to reboot', 10_000);
});

test('run: the notifications that carry the background output reach the command that started it', async (ctx) => {
  const h = await withModule(ctx);
  const r = await post(h, '/api/command/TESTCAR', { command: 'run echo one ; echo two', timeout: 10 });
  assert.deepEqual(json(r.body), { output: 'Background execution started.\none\ntwo\n', result: 0 });
  const started = await post(h, '/api/command/TESTCAR?async=1', { command: 'run echo three', timeout: 10 });
  const job = String(json(started.body).job);
  const done = await eventually(async () => {
    const b = json((await h.asDemo(`/api/command/TESTCAR/${job}`)).body);
    return b.status === 'done' ? b : undefined;
  }, 'the async run to end');
  assert.equal(done.output, 'Background execution started.\nthree\n');
});

test('a car that disconnects before it answers: the command ends at once with 409, not at its timeout', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car(); // logs in and never answers a command
  const pending = post(h, '/api/command/TESTCAR', { command: '#3', type: 'mp', timeout: 300 });
  await eventually(() => (h.t.server.hub.link('TESTCAR')?.commands.length === 1 ? true : undefined), 'the command reached the car');
  await car.close();
  const r = await pending;
  assert.equal(r.status, 409, r.body);
  assert.equal(json(r.body).error, 'VTS_ERR_NOT_CONNECTED');
  assert.match(String(json(r.body).message), /disconnected before it answered/);
});
