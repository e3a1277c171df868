/**
 * API tokens over HTTP (docs/protocol/http-api-v2.md §4.3, §3.3; docs/compatibility.md HTTP #4, #5, #9, #10,
 * #11): `POST /api/token` with a multipart, urlencoded or empty form (201, the token shown once),
 * `GET /api/token` (rows listing the token's SHA-256 in place of the secret), `DELETE
 * /api/token/<token>`; a token is a password of its user limited to its permit (`session` for a
 * cookie, `token.admin`/`admin` for token management, `v2` for an MP scheme-1 login); a token
 * cannot grant more than its creator holds; revoking a token ends its cookie sessions at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { DEMO_AUTH, httpHarness, withQuery, type HttpHarness, type HttpResponse, type RequestOptions } from './helpers.js';

const VEHICLES =
  '[{"id":"DEMO1","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0},' +
  '{"id":"TESTCAR","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0}]\n';
const CREATED_KEYS = ['application', 'owner', 'permit', 'purpose', 'token'];
const LISTED_KEYS = ['application', 'created', 'lastused', 'owner', 'permit', 'purpose', 'refreshed', 'token'];
const DATE_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const HEX64 = /^[0-9a-f]{64}$/;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A `multipart/form-data` body built by hand, as curl -F sends it. */
function multipart(fields: Record<string, string>): RequestOptions {
  const boundary = '------------------------63d55efd5935fbdb';
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.from(parts.join('') + `--${boundary}--\r\n`, 'utf8'),
  };
}

function urlencoded(fields: Record<string, string>): RequestOptions {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

const asUser = (path: string, user: string, password: string): string =>
  withQuery(path, `username=${encodeURIComponent(user)}&password=${encodeURIComponent(password)}`);

interface Created {
  application: string;
  owner: string;
  permit: string;
  purpose: string;
  token: string;
}

/** Asserts a 201 with exactly the five keys, in order, and a fresh 64-hex token; returns it. */
function assertCreated(r: HttpResponse, expected: Omit<Created, 'token'>): Created {
  assert.equal(r.status, 201, r.body);
  assert.equal(r.reason, 'Created');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  const body = JSON.parse(r.body) as Created;
  assert.deepEqual(Object.keys(body), CREATED_KEYS);
  assert.match(body.token, HEX64);
  assert.equal(r.body, JSON.stringify({ ...expected, token: body.token }) + '\n');
  return body;
}

/** Creates a token as demo (account password) with a urlencoded form; returns the secret. */
async function newToken(h: HttpHarness, permit: string, application = 'test'): Promise<string> {
  const r = await h.asDemo('/api/token', urlencoded({ application, purpose: 'tests', permit }));
  return assertCreated(r, { application, owner: 'demo', permit, purpose: 'tests' }).token;
}

async function mpScheme1(h: HttpHarness, password: string): Promise<MpClient> {
  return MpClient.connect({
    host: '127.0.0.1',
    port: h.t.mpPort,
    clientType: 'A',
    vehicleId: 'TESTCAR',
    scheme: 1,
    username: 'demo',
    password,
  });
}

test('POST /api/token with a multipart form: 201 with the five keys and a 64-hex token', async (ctx) => {
  const h = await httpHarness(ctx);
  const r = await h.asDemo(
    '/api/token',
    multipart({ application: 'conformance', purpose: 'golden transcripts', permit: 'auth,v2' }),
  );
  const a = assertCreated(r, { application: 'conformance', owner: 'demo', permit: 'auth,v2', purpose: 'golden transcripts' });

  const again = await h.asDemo('/api/token', multipart({ application: 'conformance', purpose: 'golden transcripts', permit: 'auth,v2' }));
  const b = assertCreated(again, { application: 'conformance', owner: 'demo', permit: 'auth,v2', purpose: 'golden transcripts' });
  assert.notEqual(a.token, b.token, 'every token is new');
});

test('POST /api/token with a urlencoded form, and with no fields (defaults notspecified/auth)', async (ctx) => {
  const h = await httpHarness(ctx);
  const enc = await h.asDemo('/api/token', urlencoded({ application: 'urlenc', purpose: 'p', permit: 'none' }));
  assertCreated(enc, { application: 'urlenc', owner: 'demo', permit: 'none', purpose: 'p' });

  const bare = await h.asDemo('/api/token', { method: 'POST' });
  assertCreated(bare, { application: 'notspecified', owner: 'demo', permit: 'auth', purpose: 'notspecified' });

  const someFields = await h.asDemo('/api/token', multipart({ purpose: 'only a purpose' }));
  assertCreated(someFields, { application: 'notspecified', owner: 'demo', permit: 'auth', purpose: 'only a purpose' });
});

test('GET /api/token lists every token with string values; the token field is its SHA-256, not the secret', async (ctx) => {
  const h = await httpHarness(ctx);
  const empty = await h.asDemo('/api/token');
  assert.equal(empty.status, 200);
  assert.equal(empty.body, '[]\n');

  const before = Math.floor(Date.now() / 1000);
  const s1 = await newToken(h, 'auth,v2', 'first');
  const s2 = await newToken(h, 'auth', 'second');
  const after = Math.floor(Date.now() / 1000);

  const r = await h.asDemo('/api/token');
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  const rows = JSON.parse(r.body) as Record<string, unknown>[];
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.deepEqual(Object.keys(row), LISTED_KEYS);
    for (const k of LISTED_KEYS) assert.equal(typeof row[k], 'string', `${k} is a string`);
    for (const k of ['created', 'lastused', 'refreshed']) {
      assert.match(row[k] as string, DATE_TIME);
      const t = Date.parse((row[k] as string).replace(' ', 'T') + 'Z') / 1000;
      assert.ok(t >= before && t <= after, `${k} ${String(row[k])} is the creation time`);
    }
    assert.equal(row.owner, 'demo');
    assert.equal(row.purpose, 'tests');
    assert.match(row.token as string, HEX64);
  }
  const byApp = new Map(rows.map((row) => [row.application, row]));
  assert.equal(byApp.get('first')?.token, sha256(s1));
  assert.equal(byApp.get('first')?.permit, 'auth,v2');
  assert.equal(byApp.get('second')?.token, sha256(s2));
  assert.equal(byApp.get('second')?.permit, 'auth');
  assert.ok(!r.body.includes(s1) && !r.body.includes(s2), 'no secret is listed');

  // the listed hash is no password
  const withHash = await h.request(asUser('/api/vehicles', 'demo', sha256(s1)));
  assert.equal(withHash.status, 401);
  assert.equal(withHash.body, 'Authentication failed\n');
});

test('a token is a password of its user: GET /api/vehicles with username and the token', async (ctx) => {
  const h = await httpHarness(ctx);
  await h.t.addUser('other', 'otherpass');
  const token = await newToken(h, 'auth');

  const r = await h.request(asUser('/api/vehicles', 'demo', token));
  assert.equal(r.status, 200);
  assert.equal(r.body, VEHICLES);
  const upper = await h.request(asUser('/api/vehicles', 'demo', token.toUpperCase()));
  assert.equal(upper.status, 200, 'hex digits in either case');
  assert.equal(upper.body, VEHICLES);

  // only for its own user
  const foreign = await h.request(asUser('/api/vehicles', 'other', token));
  assert.equal(foreign.status, 401);
  assert.equal(foreign.body, 'Authentication failed\n');
});

test('DELETE /api/token/<token>: 200 {owner, token}; the token stops working at once', async (ctx) => {
  const h = await httpHarness(ctx);
  const token = await newToken(h, 'auth');
  const keep = await newToken(h, 'auth', 'kept');
  assert.equal((await h.request(asUser('/api/vehicles', 'demo', token))).status, 200);

  const del = await h.asDemo(`/api/token/${token}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  assert.equal(del.reason, 'Ok');
  assert.equal(del.headers['content-type'], 'application/json');
  assert.equal(del.body, `{"owner":"demo","token":"${token}"}\n`);

  const after = await h.request(asUser('/api/vehicles', 'demo', token));
  assert.equal(after.status, 401);
  assert.equal(after.body, 'Authentication failed\n');
  assert.equal((await h.request(asUser('/api/vehicles', 'demo', keep))).status, 200, 'other tokens live on');

  const rows = JSON.parse((await h.asDemo('/api/token')).body) as { token: string }[];
  assert.deepEqual(
    rows.map((r) => r.token),
    [sha256(keep)],
  );
});

test('DELETE /api/token/<hash> (as GET /api/token lists it) revokes the token too', async (ctx) => {
  const h = await httpHarness(ctx);
  const token = await newToken(h, 'auth');
  const del = await h.asDemo(`/api/token/${sha256(token)}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  assert.equal(del.body, `{"owner":"demo","token":"${sha256(token)}"}\n`);
  assert.equal((await h.request(asUser('/api/vehicles', 'demo', token))).status, 401);
  assert.equal((await h.asDemo('/api/token')).body, '[]\n');
});

test('DELETE of an unknown token is still 200; DELETE /api/token without one is 404 Token missing', async (ctx) => {
  const h = await httpHarness(ctx);
  const token = await newToken(h, 'auth');

  const unknown = await h.asDemo('/api/token/nosuchtoken', { method: 'DELETE' });
  assert.equal(unknown.status, 200);
  assert.equal(unknown.body, '{"owner":"demo","token":"nosuchtoken"}\n');

  for (const path of ['/api/token', '/api/token/']) {
    const missing = await h.asDemo(path, { method: 'DELETE' });
    assert.equal(missing.status, 404, path);
    assert.equal(missing.reason, 'Token missing', path);
    assert.equal(missing.headers['content-type'], 'text/plain', path);
    assert.equal(missing.headers['access-control-allow-origin'], '*', path);
    assert.equal(missing.body, 'Token not specified\n', path);
  }
  assert.equal((await h.request(asUser('/api/vehicles', 'demo', token))).status, 200, 'nothing was deleted');
});

test('a default (auth) token reads vehicles but gets 403 Insufficient rights for cookies and tokens', async (ctx) => {
  const h = await httpHarness(ctx);
  const token = await newToken(h, 'auth');
  const as = (path: string, opts?: RequestOptions) => h.request(asUser(path, 'demo', token), opts);

  assert.equal((await as('/api/vehicles')).status, 200);
  assert.equal((await as('/api/status/TESTCAR')).status, 200);
  const calls: [string, RequestOptions][] = [
    ['/api/cookie', {}],
    ['/api/cookie', { method: 'DELETE' }],
    ['/api/token', {}],
    ['/api/token', { method: 'POST' }],
    [`/api/token/${token}`, { method: 'DELETE' }],
  ];
  for (const [path, opts] of calls) {
    const r = await as(path, opts);
    const what = `${opts.method ?? 'GET'} ${path}`;
    assert.equal(r.status, 403, what);
    assert.equal(r.reason, 'Forbidden', what);
    assert.equal(r.body, 'Insufficient rights\n', what);
    assert.equal(r.headers['set-cookie'], undefined, what);
  }
  assert.equal((await as('/api/vehicles')).status, 200, 'the token was not deleted by its own refused DELETE');
  assert.equal((JSON.parse((await h.asDemo('/api/token')).body) as unknown[]).length, 1, 'no token was created');
});

test('MP scheme 1 needs the right v2: a default token is refused, an auth,v2 token logs in', async (ctx) => {
  const h = await httpHarness(ctx);
  const plain = await newToken(h, 'auth');
  const v2 = await newToken(h, 'auth,v2');

  await assert.rejects(mpScheme1(h, plain), { code: 'MP_LOGIN_CLOSED' });
  const c = await mpScheme1(h, v2);
  try {
    assert.equal(c.vehicleId, 'TESTCAR');
    assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
  } finally {
    await c.close();
  }
});

test('a token with session opens a cookie session; revoking the token ends that session at once', async (ctx) => {
  const h = await httpHarness(ctx);
  const token = await newToken(h, 'auth,session');
  const other = await newToken(h, 'auth,session', 'other');
  const cookie = await h.login('demo', token);
  const otherCookie = await h.login('demo', other);
  const withCookie = (c: string) => h.request('/api/vehicles', { headers: { cookie: c } });
  assert.equal((await withCookie(cookie)).status, 200);

  // the session carries the token's rights, not the account's
  const tokens = await h.request('/api/token', { headers: { cookie } });
  assert.equal(tokens.status, 403);
  assert.equal(tokens.body, 'Insufficient rights\n');

  const del = await h.asDemo(`/api/token/${token}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  const after = await withCookie(cookie);
  assert.equal(after.status, 401);
  assert.equal(after.body, 'Authentication failed\n');
  assert.equal((await withCookie(otherCookie)).status, 200, 'a session of another token lives on');
});

test('a token may not grant more than its creator: a token.admin token creating * or admin gets 403', async (ctx) => {
  const h = await httpHarness(ctx);
  const admin = await newToken(h, 'token.admin,auth');
  const as = (opts: RequestOptions) => h.request(asUser('/api/token', 'demo', admin), opts);

  for (const permit of ['*', 'admin', 'v2', 'token.admin,v2', 'session']) {
    const r = await as(urlencoded({ permit }));
    assert.equal(r.status, 403, permit);
    assert.equal(r.reason, 'Forbidden', permit);
    assert.equal(r.body, 'Forbidden\n', permit);
  }
  // what it holds it may pass on
  assertCreated(await as(urlencoded({ permit: 'token.admin' })), {
    application: 'notspecified',
    owner: 'demo',
    permit: 'token.admin',
    purpose: 'notspecified',
  });
  assertCreated(await as(urlencoded({ permit: 'auth' })), {
    application: 'notspecified',
    owner: 'demo',
    permit: 'auth',
    purpose: 'notspecified',
  });
  // and it may list tokens
  const list = await h.request(asUser('/api/token', 'demo', admin));
  assert.equal(list.status, 200);
  assert.equal((JSON.parse(list.body) as unknown[]).length, 3);
  // the account password (rights *) may grant anything
  await newToken(h, '*', 'everything');
});

test('a token.admin token may create a default (auth) token: auth is held by every authenticated caller', async (ctx) => {
  const h = await httpHarness(ctx);
  const admin = await newToken(h, 'token.admin');
  const r = await h.request(asUser('/api/token', 'demo', admin), { method: 'POST' });
  assertCreated(r, { application: 'notspecified', owner: 'demo', permit: 'auth', purpose: 'notspecified' });
});

test('fields longer than 255 characters or a malformed permit: 400, no token created', async (ctx) => {
  const h = await httpHarness(ctx);
  const long = 'x'.repeat(256);
  const bad: [string, RequestOptions][] = [
    ['application', urlencoded({ application: long })],
    ['purpose', urlencoded({ purpose: long })],
    ['permit', urlencoded({ permit: Array.from({ length: 60 }, () => 'auth').join(',') })],
    ['multipart application', multipart({ application: long })],
    ['malformed permit', urlencoded({ permit: 'auth;v2' })],
  ];
  for (const [what, opts] of bad) {
    const r = await h.asDemo('/api/token', opts);
    assert.equal(r.status, 400, `${what}: ${r.body}`);
    assert.equal(r.headers['content-type'], 'text/plain', what);
    assert.ok(r.body.endsWith('\n') && r.body.length > 1, what);
  }
  assert.equal((await h.asDemo('/api/token')).body, '[]\n');

  // 255 is still fine
  const max = 'z'.repeat(255);
  assertCreated(await h.asDemo('/api/token', urlencoded({ application: max, purpose: max })), {
    application: max,
    owner: 'demo',
    permit: 'auth',
    purpose: max,
  });
});

test('a field far over the limit (beyond the 4096-character parameter cap) is refused too, not ignored', async (ctx) => {
  const h = await httpHarness(ctx);
  const huge = 'y'.repeat(5000);
  const statuses: Record<string, number> = {};
  statuses.urlencoded = (await h.asDemo('/api/token', urlencoded({ application: huge }))).status;
  statuses.multipart = (await h.asDemo('/api/token', multipart({ application: huge }))).status;
  statuses.query = (await h.asDemo(withQuery('/api/token', `application=${huge}`), { method: 'POST' })).status;
  assert.deepEqual(statuses, { urlencoded: 400, multipart: 400, query: 400 });
  assert.equal((await h.asDemo('/api/token')).body, '[]\n', 'no token was created with default fields');
});

test('credentials in a POST form body are used (urlencoded and multipart), unlike REF', async (ctx) => {
  const h = await httpHarness(ctx);
  const enc = await h.request('/api/token', urlencoded({ username: 'demo', password: 'demopass', application: 'body' }));
  assertCreated(enc, { application: 'body', owner: 'demo', permit: 'auth', purpose: 'notspecified' });

  const multi = await h.request('/api/token', multipart({ username: 'demo', password: 'demopass', permit: 'auth,v2' }));
  assertCreated(multi, { application: 'notspecified', owner: 'demo', permit: 'auth,v2', purpose: 'notspecified' });

  const wrong = await h.request('/api/token', urlencoded({ username: 'demo', password: 'wrong' }));
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body, 'Authentication failed\n');
  assert.equal((JSON.parse((await h.request(withQuery('/api/token', DEMO_AUTH))).body) as unknown[]).length, 2);
});
