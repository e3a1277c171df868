/**
 * Requests that fail before their handler are the client's error (issue 13, defect 1): a body
 * that is not what its content type says (multipart without a boundary, not multipart, truncated;
 * bad JSON), a body too large, an unknown content type, a Content-Length that lies. Each answers
 * 4xx with the error body of its call's family (REF's line of text, or `{"error","message"}` for
 * the command and web APIs), is logged at debug, and writes nothing at error level.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { API_ROUTES } from '../../src/http/api-hall.js';
import { injectHarness, injectWithin, isErrorLine, rawExchange, type InjectHarness } from './inject.js';

const AUTH = 'username=demo&password=demopass';
const BODY_LIMIT = 4096;

let h: InjectHarness;
before(async () => {
  h = await injectHarness({ httpBodyLimit: BODY_LIMIT });
});
after(async () => {
  await h?.close();
});

/** The calls whose errors are JSON (src/http/api-hall.ts), by `<METHOD>:<fn>`. */
const JSON_CALLS = new Set([
  'POST:command',
  'PUT:charge',
  'PUT:lock',
  'PUT:valet',
  'PUT:features',
  'PUT:parameters',
  'PUT:reset',
  'PUT:homelink',
  'POST:session',
  'POST:password',
  'POST:push/targets',
  'POST:places',
  'PUT:places',
  'PUT:abrp',
  'POST:alerts',
  'PUT:alerts',
  'POST:session/passkey/options',
  'POST:session/passkey',
  'PUT:account',
  'POST:account',
  'POST:account/totp',
  'POST:account/totp/confirm',
  'POST:account/passkeys/options',
  'POST:account/passkeys',
  'PUT:account/passkeys',
  'POST:account/verify',
  'POST:account/verify/resend',
  'POST:account/reset',
  'POST:account/reset/confirm',
  'POST:account/vehicles',
  'PUT:account/vehicles',
  'POST:shares',
  'POST:admin/users',
]);

/** Every POST and PUT a client can make: the route list, `/api/*` as every call of the API. */
function postTargets(): { method: string; url: string; json: boolean }[] {
  const targets: { method: string; url: string; json: boolean }[] = [];
  for (const r of h.routes) {
    if (r.method !== 'POST' && r.method !== 'PUT') continue;
    if (r.url === '/api/*') {
      for (const key of API_ROUTES.keys()) {
        const [method, fn] = key.split(':') as [string, string];
        if (method === 'POST' || method === 'PUT') targets.push({ method, url: `/api/${fn}/DEMO1?${AUTH}`, json: JSON_CALLS.has(key) });
      }
      targets.push({ method: r.method, url: '/api/ovms/cmd', json: false }, { method: r.method, url: '/api/nosuchcall', json: false });
    } else {
      targets.push({ method: r.method, url: r.url, json: false });
    }
  }
  return targets;
}

async function expectRefused(
  what: string,
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  json: boolean,
  error: string,
  text: string,
): Promise<void> {
  const mark = h.t.logs.length;
  const r = await send();
  assert.equal(r.statusCode, status, `${what}: ${r.body}`);
  if (json) {
    assert.equal(r.headers['content-type'], 'application/json', what);
    assert.equal((JSON.parse(r.body) as { error: string }).error, error, what);
  } else {
    assert.equal(r.headers['content-type'], 'text/plain', what);
    assert.equal(r.body, text + '\n', what);
  }
  assert.equal(r.headers['access-control-allow-origin'], '*', what);
  const lines = h.logsFrom(mark);
  assert.deepEqual(lines.filter(isErrorLine), [], `${what}: nothing at error level`);
  assert.ok(
    lines.some((l) => l.includes('"level":20') && l.includes('HTTP request refused')),
    `${what}: logged at debug`,
  );
  assert.ok(!lines.some((l) => l.includes('"stack"')), `${what}: no stack logged`);
}

const B = 'vtsboundary42';
const field = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const MULTIPART = `multipart/form-data; boundary=${B}`;

const BROKEN_MULTIPART: [string, string, string][] = [
  ['no boundary', 'multipart/form-data', 'username=demo&password=demopass'],
  ['empty boundary', 'multipart/form-data; boundary=', field('a', 'b') + `--${B}--\r\n`],
  ['not multipart', MULTIPART, 'username=demo&password=demopass'],
  ['truncated in a part', MULTIPART, field('username', 'demo') + `--${B}\r\nContent-Disposition: form-data; name="password"\r\n\r\ndemo`],
  ['no closing boundary', MULTIPART, field('username', 'demo')],
  ['a file', MULTIPART, `--${B}\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nxx\r\n--${B}--\r\n`],
  ['a reserved field name', MULTIPART, field('__proto__', 'x') + `--${B}--\r\n`],
  ['a JSON part that is not JSON', MULTIPART, `--${B}\r\nContent-Disposition: form-data; name="a"\r\nContent-Type: application/json\r\n\r\n{x\r\n--${B}--\r\n`],
];

test('a multipart body that does not parse is a 400 with the family\'s error body on every POST and PUT route, logged at debug', async () => {
  const targets = postTargets();
  assert.ok(targets.some((t) => t.url === '/mqapi/auth') && targets.some((t) => t.url.startsWith('/api/token')));
  for (const target of targets) {
    for (const [name, type, body] of BROKEN_MULTIPART) {
      const text = name === 'a file' ? 'Malformed multipart body: files are not accepted' : name === 'a reserved field name' ? 'Malformed multipart body: reserved field name' : 'Malformed multipart body';
      await expectRefused(
        `${target.method} ${target.url} (${name})`,
        () => injectWithin(h.app, { method: target.method as 'POST', url: target.url, headers: { 'content-type': type }, payload: body }, 15_000),
        400,
        target.json,
        'VTS_ERR_BAD_REQUEST',
        text,
      );
    }
  }
});

test('the same bodies as real requests: 400; oversize or broken header blocks: 431, 400; the server keeps serving', async () => {
  const port = h.t.server.ports.http!;
  for (const [name, type, body] of BROKEN_MULTIPART) {
    const r = await fetch(`http://127.0.0.1:${port}/mqapi/auth`, { method: 'POST', headers: { 'content-type': type }, body });
    assert.equal(r.status, 400, name);
    await r.text();
  }
  // header blocks that node's parser refuses before any route: 431, 400; never a 500
  const mark = h.t.logs.length;
  const huge = await rawExchange(port, `GET /api/vehicles HTTP/1.1\r\nHost: x\r\nCookie: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
  assert.match(huge, /^HTTP\/1\.1 431 /);
  const badChunk = await rawExchange(
    port,
    'POST /mqapi/auth HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
  );
  assert.match(badChunk, /^HTTP\/1\.1 400 /);
  const rawUrl = await rawExchange(port, 'GET /api/vehicles?username=\u00e9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.match(rawUrl, /^HTTP\/1\.1 400 /);
  assert.deepEqual(h.logsFrom(mark).filter(isErrorLine), []);
  const ok = await fetch(`http://127.0.0.1:${port}/api/vehicles?${AUTH}`);
  assert.equal(ok.status, 200);
});

test('a well-formed multipart form still works, on chunked bodies too', async () => {
  const body = field('username', 'demo') + field('password', 'demopass') + field('username', 'second') + `--${B}--\r\n`;
  const sized = await h.app.inject({ method: 'POST', url: '/mqapi/auth', headers: { 'content-type': MULTIPART }, payload: body });
  assert.equal(sized.statusCode, 200);
  assert.equal(sized.statusMessage, 'Authentication OK');
  const chunked = await h.app.inject({
    method: 'POST',
    url: '/mqapi/auth',
    headers: { 'content-type': MULTIPART },
    payload: Readable.from([body.slice(0, 30), body.slice(30, 31), body.slice(31)]),
  });
  assert.equal(chunked.statusCode, 200);
});

test('a multipart body larger than the body limit, or with too many fields, is a 413', async () => {
  const big = field('application', 'x'.repeat(3000)) + field('purpose', 'y'.repeat(3000)) + `--${B}--\r\n`;
  const many = Array.from({ length: 25 }, (_, i) => field(`f${i}`, 'v')).join('') + `--${B}--\r\n`;
  for (const [name, payload] of [
    ['declared length', big],
    ['chunked', Readable.from([big.slice(0, 2000), big.slice(2000)])],
  ] as const) {
    await expectRefused(
      `multipart over the limit (${name})`,
      () => h.app.inject({ method: 'POST', url: `/api/token?${AUTH}`, headers: { 'content-type': MULTIPART }, payload }),
      413,
      false,
      'VTS_ERR_BODY_TOO_LARGE',
      'Request body too large',
    );
  }
  await expectRefused(
    'too many fields',
    () => h.app.inject({ method: 'POST', url: `/api/command/DEMO1?${AUTH}`, headers: { 'content-type': MULTIPART }, payload: many }),
    413,
    true,
    'VTS_ERR_BODY_TOO_LARGE',
    '',
  );
});

test('bad JSON, an unknown content type, an oversize form, a lying Content-Length: 4xx with the family\'s body', async () => {
  const cases: [string, string, Record<string, string>, string, number, string, string][] = [
    ['POST', `/api/token?${AUTH}`, { 'content-type': 'application/json' }, '{"permit":', 400, 'VTS_ERR_BAD_REQUEST', 'Malformed JSON body'],
    ['POST', `/api/command/DEMO1?${AUTH}`, { 'content-type': 'application/json' }, '{"command":', 400, 'VTS_ERR_BAD_REQUEST', ''],
    ['POST', '/api/session', { 'content-type': 'application/json' }, '', 400, 'VTS_ERR_BAD_REQUEST', ''],
    ['POST', '/api/session', { 'content-type': 'application/json' }, '{"__proto__":{"x":1}}', 400, 'VTS_ERR_BAD_REQUEST', ''],
    ['DELETE', `/api/token/x?${AUTH}`, { 'content-type': 'application/json' }, '[', 400, 'VTS_ERR_BAD_REQUEST', 'Malformed JSON body'],
    ['POST', '/mqapi/acl', { 'content-type': 'application/xml' }, '<a/>', 415, 'VTS_ERR_CONTENT_TYPE', 'Unsupported content type'],
    ['PUT', `/api/lock/DEMO1?${AUTH}`, { 'content-type': 'image/png' }, 'x', 415, 'VTS_ERR_CONTENT_TYPE', ''],
    ['POST', '/mqapi/auth', { 'content-type': 'application/x-www-form-urlencoded' }, 'a='.padEnd(BODY_LIMIT + 10, 'x'), 413, 'VTS_ERR_BODY_TOO_LARGE', 'Request body too large'],
    ['POST', '/mqapi/auth', { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '100' }, 'a=b', 400, 'VTS_ERR_BAD_REQUEST', 'Body size does not match Content-Length'],
  ];
  for (const [method, url, headers, payload, status, error, text] of cases) {
    const json = text === '';
    await expectRefused(`${method} ${url} ${JSON.stringify(headers)}`, () => h.app.inject({ method: method as 'POST', url, headers, payload }), status, json, error, text);
  }
});

test('an undecodable path is a 400 "Malformed URL encoding", logged at debug', async () => {
  await expectRefused('/api/%zz', () => h.app.inject({ url: '/api/%zz' }), 400, false, 'VTS_ERR_BAD_REQUEST', 'Malformed URL encoding');
  await expectRefused('/no%zz', () => h.app.inject({ url: '/no%zz' }), 400, false, 'VTS_ERR_BAD_REQUEST', 'Malformed URL encoding');
});

test('the debug line of a refused request carries no secret: neither the query nor a token in the path', async () => {
  const mark = h.t.logs.length;
  const secret = 'f00dfeed'.repeat(8);
  await h.app.inject({ method: 'DELETE', url: `/api/token/${secret}%zz?username=demo&password=${secret}` });
  await h.app.inject({ method: 'DELETE', url: `/api/token/${secret}`, headers: { 'content-type': 'application/json' }, payload: `{"${secret}` });
  await h.app.inject({ method: 'POST', url: `/mqapi/auth?password=${secret}`, headers: { 'content-type': MULTIPART }, payload: `--${B}\r\n${secret}` });
  const lines = h.logsFrom(mark);
  assert.equal(lines.filter((l) => l.includes('HTTP request refused')).length, 3);
  assert.ok(!lines.some((l) => l.includes(secret)), lines.join('\n'));
});

test('a NUL character (%00) in a path or a query (a user name, a vehicle id) is a 400 on every store, logged at debug', async () => {
  const urls = [
    `/api/vehicle/DE%00MO1?${AUTH}`,
    '/api/vehicles?username=de%00mo&password=demopass',
    `/api/status/DEMO1?${AUTH}&x=%00`,
    '/api/cookie?username=%00&password=x',
    '/mqapi/acl?username=%00',
    '/web/%00',
  ];
  for (const url of urls) {
    await expectRefused(`GET ${url}`, () => h.app.inject({ method: 'GET', url }), 400, false, 'VTS_ERR_BAD_REQUEST', 'Malformed URL: a NUL character (%00)');
  }
  // a user name holding one in a form body is a user name like any other (none has it): refused as unknown
  const r = await h.app.inject({ method: 'POST', url: '/mqapi/auth', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'username=de%00mo&password=demopass' });
  assert.notEqual(r.statusCode, 500);
  assert.notEqual(r.statusCode, 200);
});
