/**
 * The bodies clients rely on validate against the OpenAPI document's schemas (src/http/openapi/),
 * with JSON Schema 2020-12 (ajv): every golden body of test/fixtures/http/record-bodies.json (the
 * reference's bodies, byte for byte) against the schema of its route and status, and the real
 * answers of a running server (a car that sent its records, the API v2 lists, tokens, cookies, CSV,
 * the command and web APIs, push, /mqapi, /health, /ready). Negative checks prove the validation
 * bites: a number where the reference sends a string, a boolean for a masked bit, an extra key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';
import type { HttpMethod, MediaType, Operation, Reference, Response } from '../../src/http/openapi/types.js';
import { recordBodies } from '../fixtures/load.js';
import { roundTrip } from '../mp/helpers.js';
import { DEMO_AUTH, httpHarness, type HttpResponse } from './helpers.js';

const doc = buildOpenApiDocument();
const DOC_ID = 'vts-openapi';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(doc as unknown as Record<string, unknown>, DOC_ID);

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The described path template of a concrete path (`{x}` matches one segment; most literal segments wins). */
function templateOf(path: string, method: string): string {
  const parts = path.split('?', 1)[0]!.split('/').map((p) => decodeURIComponent(p));
  let best: string | undefined;
  let bestLiterals = -1;
  for (const [template, item] of Object.entries(doc.paths)) {
    if (!item[method as keyof typeof item]) continue;
    const t = template.split('/');
    if (t.length !== parts.length) continue;
    let literals = 0;
    const fits = t.every((seg, i) => (/^\{\w+\}$/.test(seg) ? parts[i] !== '' : (literals++, seg === parts[i])));
    if (fits && literals > bestLiterals) [best, bestLiterals] = [template, literals];
  }
  assert.ok(best, `no described ${method.toUpperCase()} ${path}`);
  return best;
}

interface Target {
  media: MediaType;
  /** Where its schema is, for ajv. */
  at: string;
  type: string;
}

/** The described response of (method, path, status) for a content type; null: described without a body. */
function describedMedia(method: string, path: string, status: number, contentType: string): Target | null {
  const template = templateOf(path, method);
  const op = doc.paths[template]![method as HttpMethod] as Operation;
  const code = String(status);
  const entry: Response | Reference | undefined = op.responses[code];
  assert.ok(entry, `${method.toUpperCase()} ${template}: ${code} is not described`);
  let base = pointer('paths', template, method, 'responses', code);
  let response = entry as Response;
  if ('$ref' in entry) {
    const name = entry.$ref.split('/').pop()!;
    base = pointer('components', 'responses', name);
    response = doc.components.responses[name]!;
  }
  if (!response.content) return null;
  const type = contentType.split(';', 1)[0]!.trim();
  const key = Object.keys(response.content ?? {}).find((k) => k.split(';', 1)[0]!.trim() === type);
  assert.ok(key, `${method.toUpperCase()} ${template} ${code}: content type ${type} not described`);
  return { media: response.content![key]!, at: `${base}/${pointer('content', key, 'schema')}`, type };
}

const validators = new Map<string, ValidateFunction>();
function validator(at: string): ValidateFunction {
  let v = validators.get(at);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}#/${at}` });
    validators.set(at, v);
  }
  return v;
}

/** Validation errors of a body against the schema of its route, status and content type ([] = valid). */
function check(method: string, path: string, status: number, contentType: string, body: string): string[] {
  const t = describedMedia(method.toLowerCase(), path, status, contentType);
  if (t === null) return body === '' ? [] : [`a body where none is described: ${body}`];
  // JSON is parsed, unless the schema says the body is text under a JSON type (DELETE /api/vehicle)
  const parsed = t.type === 'application/json' && t.media.schema.contentMediaType === undefined;
  const value: unknown = parsed ? JSON.parse(body) : body;
  const v = validator(t.at);
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

function assertValid(method: string, path: string, r: Pick<HttpResponse, 'status' | 'headers' | 'body'>): void {
  const errors = check(method, path, r.status, String(r.headers['content-type'] ?? ''), r.body);
  assert.deepEqual(errors, [], `${method} ${path} ${r.status}: ${r.body.slice(0, 300)}`);
}

/** A value against a named component schema. */
function componentErrors(name: string, value: unknown): number {
  const v = validator(pointer('components', 'schemas', name));
  return v(value) ? 0 : (v.errors?.length ?? 1);
}

test('every golden body of record-bodies.json validates against the schema of its route and status', () => {
  const cases = recordBodies();
  assert.ok(cases.length >= 10);
  for (const c of cases) {
    const type = c.status === 200 ? 'application/json' : 'text/plain';
    assert.deepEqual(check('get', `/api/${c.endpoint}/DEMO1`, c.status, type, c.body), [], `${c.name}: ${c.body}`);
  }
});

test('validation bites: a number where the reference sends a string, a boolean bit, an unknown key, a missing key', () => {
  const full = recordBodies().find((c) => c.name === 'status, full S and D');
  assert.ok(full);
  const body = JSON.parse(full.body) as Record<string, unknown>;
  assert.equal(componentErrors('StatusBody', body), 0);
  const wrong: [string, Record<string, unknown>][] = [
    ['soc as a number', { ...body, soc: 80 }],
    ['odometer as a number', { ...body, odometer: 12345 }],
    ['caron as a boolean', { ...body, caron: true }],
    ['caron as 1 (not its mask)', { ...body, caron: 1 }],
    ['m_msgage_s as a string', { ...body, m_msgage_s: '8' }],
    ['m_msgtime_s not a UTC time', { ...body, m_msgtime_s: '2026-11-22T02:14:45Z' }],
    ['an unknown key', { ...body, batterytemp: '20' }],
    ['a key of D missing', Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'carlocked'))],
  ];
  for (const [what, value] of wrong) assert.ok(componentErrors('StatusBody', value) > 0, `StatusBody: ${what} must fail`);
  assert.ok(check('get', '/api/status/DEMO1', 200, 'application/json', JSON.stringify({ ...body, soc: 80 })).length > 0);
  assert.ok(check('get', '/api/status/DEMO1', 502, 'text/plain', 'Paranoid vehicles\n').length > 0);

  assert.ok(componentErrors('ProtocolRow', { m_code: 'S', m_msg: '80', m_msgtime: '2026-11-22 02:13:38', m_paranoid: '0', m_ptoken: '' }) > 0, 'm_paranoid is a number');
  assert.ok(componentErrors('VehicleRow', { id: 'DEMO1', v_apps_connected: 0, v_btcs_connected: 0, v_net_connected: '1' }) > 0, 'counts are numbers');
  assert.ok(componentErrors('HistoricalSummaryRow', { distinctrecs: 1, first: '2026-11-22 02:13:38', h_recordtype: 'S', last: '2026-11-22 02:13:38', totalrecs: 1, totalsize: 63 }) > 0, 'totalsize is a string');
  assert.ok(componentErrors('Health', { status: 'ok', version: '0.1.0', uptimeSeconds: '12' }) > 0, 'uptimeSeconds is an integer');
  assert.equal(componentErrors('Health', { status: 'ok', version: '0.1.0', uptimeSeconds: 12 }), 0);
  assert.ok(componentErrors('Ready', { status: 'ready', checks: { store: true, cluster: 'off', listeners: 'ok' } }) > 0, 'checks are strings');
  assert.ok(componentErrors('TpmsBody', { m_msgtime_w: '2026-11-22 02:14:47', m_msgage_w: 6, fr_pressure: 206.8 }) > 0, 'W pressures are strings');
});

const F = '3.3.003,VIN0123456789ABCD,5,0,TR,EU,1,ovms';
const S = '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0';
const D = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
const L = '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95';
const W = '206.8,20,206.8,21,210.3,22,210.3,23,1';
const Y = '4,fl,fr,rl,rr,4,206.8,206.8,210.3,210.3,-1,4,20,21,22,23,-1,0,-1,0,-1';

test("a running server's answers validate: API v2 records and lists, tokens, cookie, CSV, errors", async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  for (const [code, data] of [['F', F], ['S', S], ['D', D], ['L', L], ['W', W]] as const) car.send(code, data);
  await roundTrip(car);

  const get = async (path: string, auth = true, method = 'GET') => {
    const r = auth ? await h.asDemo(path, { method }) : await h.request(path, { method });
    assertValid(method, path, r);
    return r;
  };
  for (const path of ['/api/vehicles', '/api/vehicle/TESTCAR', '/api/status/TESTCAR', '/api/charge/TESTCAR', '/api/location/TESTCAR', '/api/tpms/TESTCAR']) {
    assert.equal((await get(path)).status, 200, path);
  }
  for (const path of ['/api/protocol/TESTCAR', '/api/historical/TESTCAR', '/api/historical/TESTCAR/S', '/api/lock/TESTCAR', '/api/valet/TESTCAR']) {
    assert.equal((await get(path)).status, 200, path);
  }
  assert.ok(JSON.parse((await get('/api/historical/TESTCAR/S')).body).length > 0, 'history records to validate');
  for (const path of ['/api/historical/TESTCAR?format=csv', '/api/historical/TESTCAR/S?format=csv']) {
    const r = await get(path);
    assert.match(String(r.headers['content-type']), /^text\/csv/);
  }
  assert.equal((await get('/api/ovms/csv?fn.vehicleid=TESTCAR&fn.carpass=NETPASS&fn.types=S,D', false)).status, 200);
  assert.equal((await get('/api/ovms/csv?fn.vehicleid=TESTCAR&fn.carpass=WRONG&fn.types=S', false)).status, 401);
  assert.equal((await get('/api/ovms/cmd?fn.vehicleid=TESTCAR', false)).status, 400);
  // the extended TPMS body (Y)
  car.send('Y', Y);
  await roundTrip(car);
  const tpms = await get('/api/tpms/TESTCAR');
  assert.equal(typeof (JSON.parse(tpms.body) as Record<string, unknown>).fl_pressure, 'number');

  assert.equal((await get('/api/vehicle/TESTCAR', true, 'DELETE')).status, 200);
  const created = await h.asDemo('/api/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'application=test&permit=auth' });
  assertValid('POST', '/api/token', created);
  assert.equal(created.status, 201);
  assert.equal((await get('/api/token')).status, 200);
  assert.equal((await get(`/api/token/${(JSON.parse(created.body) as { token: string }).token}`, true, 'DELETE')).status, 200);
  assert.equal((await get('/api/token', true, 'DELETE')).status, 404);
  const cookie = await get('/api/cookie');
  assert.match(String(cookie.headers['set-cookie']), /^svcapisession=/);
  assert.equal((await get('/api/cookie', true, 'DELETE')).status, 200);

  // the errors clients see
  assert.equal((await get('/api/status/TESTCAR', false)).status, 401);
  assert.equal((await get('/api/status/NOSUCHCAR')).status, 403);
  assert.equal((await get('/api/historical/TESTCAR?since=yesterday')).status, 400);
  const tooLong = await h.request(`/api/vehicles?${DEMO_AUTH}&x=${'a'.repeat(5000)}`);
  assertValid('GET', '/api/vehicles', tooLong);
  assert.equal(tooLong.status, 400);
});

test("a running server's answers validate: the command and web APIs, push, /mqapi, operations", async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  for (const [code, data] of [['S', S], ['D', D], ['L', L]] as const) car.send(code, data);
  await roundTrip(car);
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const call = async (method: string, path: string, body?: string, auth = true, headers: Record<string, string> = {}) => {
    const opts = { method, headers: body === undefined ? headers : { ...form, ...headers }, ...(body === undefined ? {} : { body }) };
    const r = auth ? await h.asDemo(path, opts) : await h.request(path, opts);
    assertValid(method, path, r);
    return r;
  };

  // the command API: DEMO1 has no car (409), bad input (400), the audit
  assert.equal((await call('POST', '/api/command/DEMO1', 'command=stat')).status, 409);
  assert.equal((await call('POST', '/api/command/DEMO1', 'type=nonsense')).status, 400);
  assert.equal((await call('PUT', '/api/lock/DEMO1', 'pin=1234')).status, 409);
  assert.equal((await call('PUT', '/api/homelink/DEMO1', 'button=9')).status, 400);
  assert.equal((await call('GET', '/api/command/DEMO1')).status, 200);
  assert.equal((await call('GET', '/api/command/DEMO1/00000000-0000-0000-0000-000000000000')).status, 404);
  assert.equal((await call('GET', '/api/ovms/cmd?fn.vehicleid=DEMO1&fn.carpass=NETPASS&fn.cmd=stat&fn.format=json', undefined, false)).status, 409);

  // the web API: sign in, the session, overview, history, live refused for another vehicle
  const signIn = await call('POST', '/api/session', 'username=demo&password=demopass', false);
  assert.equal(signIn.status, 200);
  const web = String(signIn.headers['set-cookie']).split(';', 1)[0]!;
  const csrf = (JSON.parse(signIn.body) as { csrf: string }).csrf;
  assert.equal((await call('GET', '/api/session', undefined, false, { cookie: web })).status, 200);
  assert.equal((await call('GET', '/api/session', undefined, false)).status, 401);
  assert.equal((await call('GET', '/api/session')).status, 401);
  assert.equal((await call('POST', '/api/session', 'username=demo&password=wrong', false)).status, 401);
  assert.equal((await call('GET', '/api/overview')).status, 200);
  const history = await call('GET', '/api/history/TESTCAR');
  assert.ok((JSON.parse(history.body) as { series: { soc: unknown[] } }).series.soc.length > 0, 'a series to validate');
  assert.equal((await call('GET', '/api/history/TESTCAR?from=x')).status, 400);
  assert.equal((await call('GET', '/api/history/NOSUCHCAR')).status, 403);
  assert.equal((await call('POST', '/api/password', 'current=demopass&new=short')).status, 400);

  // push: a target added with the web session (and its CSRF token), listed, removed
  assert.equal((await call('POST', '/api/push/targets', 'kind=webhook&url=https://example.com/hook', false, { cookie: web })).status, 403);
  const added = await call('POST', '/api/push/targets', 'kind=webhook&url=https://example.com/hook&secret=s3cret', false, { cookie: web, 'x-csrf-token': csrf });
  assert.equal(added.status, 201);
  assert.equal((await call('GET', '/api/push/targets')).status, 200);
  assert.equal((await call('GET', '/api/push/subscriptions')).status, 200);
  assert.equal((await call('GET', '/api/push/subscriptions/TESTCAR')).status, 200);
  assert.equal((await call('GET', '/api/notifications/TESTCAR')).status, 200);
  assert.equal((await call('GET', '/api/notifications/TESTCAR?limit=0')).status, 400);
  assert.equal((await call('DELETE', `/api/push/targets/${(JSON.parse(added.body) as { id: number }).id}`)).status, 204);
  assert.equal((await call('DELETE', '/api/session', undefined, false, { cookie: web, 'x-csrf-token': csrf })).status, 204);

  // /mqapi, the dashboard's settings, health and readiness
  assert.equal((await call('POST', '/mqapi/auth', 'username=demo&password=demopass', false)).status, 200);
  assert.equal((await call('POST', '/mqapi/auth', 'username=demo&password=wrong', false)).status, 403);
  assert.equal((await call('POST', '/mqapi/superuser', 'username=', false)).status, 404);
  assert.equal((await call('POST', '/mqapi/acl', 'username=demo&topic=ovms/other/X/metric', false)).status, 403);
  assert.equal((await call('GET', '/web/config.json', undefined, false)).status, 200);
  assert.equal((await call('GET', '/api/openapi.json', undefined, false)).status, 200);
  const health = await call('GET', '/health', undefined, false);
  assert.equal(health.status, 200);
  const ready = await call('GET', '/ready', undefined, false);
  assert.equal(ready.status, 200);
});

test("a running server's ABRP answers validate: not linked, linked, bad input, another's vehicle, unlinked, not configured", async (ctx) => {
  // ABRP at a closed port: the sends fail in the background, the answers are what is checked
  const h = await httpHarness(ctx, { abrp: { apiKey: 'openapi-test-key', url: 'http://127.0.0.1:9' } });
  const call = async (method: string, path: string, body?: unknown, harness = h) => {
    const opts = body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const r = await harness.asDemo(path, opts);
    assertValid(method, path, r);
    return r;
  };
  assert.equal((await call('GET', '/api/abrp/TESTCAR')).status, 200);
  assert.equal((await call('PUT', '/api/abrp/TESTCAR', { token: 'a1b2c3d4-0000-1111-2222-333344445555' })).status, 200);
  assert.equal((await call('GET', '/api/abrp/TESTCAR')).status, 200);
  assert.equal((await call('PUT', '/api/abrp/TESTCAR', { token: '' })).status, 400);
  assert.equal((await call('GET', '/api/abrp/NOSUCHCAR')).status, 403);
  assert.equal((await call('DELETE', '/api/abrp/TESTCAR')).status, 204);
  assert.equal((await call('DELETE', '/api/abrp/TESTCAR')).status, 404);
  const off = await httpHarness(ctx);
  assert.equal((await call('PUT', '/api/abrp/TESTCAR', { token: 'a1b2c3d4' }, off)).status, 503);
});
