/**
 * Route-level fuzz of every HTTP route through fastify's `inject()` (issue 13): random methods,
 * paths (the registered routes and every `/api` call with random arguments, and garbage), query
 * strings, headers (cookies, content types, authorization, forwarding, CSRF, oversize values) and
 * bodies (forms, multipart, JSON, garbage), with valid credentials on part of the inputs (a
 * cookie session, a web session with its CSRF token, a password, a token, a car password) so that
 * authenticated routes are reached; CAR1 is an emulated module that sends records and answers
 * commands. Properties: never a 500, nothing logged at error level,
 * never an unhandled rejection or exception, and every request answered (a live stream counts
 * when its headers arrive). A last property sends raw request lines over a real socket, where
 * node's parser and no URL normalisation stand in front of the routes. VTS_FUZZ_RUNS scales the
 * cases, VTS_FUZZ_SEED replays a failure (test/support/fuzz.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { API_ROUTES } from '../../src/http/api-hall.js';
import { injectHarness, isErrorLine, rawExchange, type Credentials, type InjectHarness } from '../http/inject.js';
import { fuzzParams } from '../support/fuzz.js';

/** Generous: only a request that is never answered fails this way. */
const ANSWER_MS = 15_000;
const BODY_LIMIT = 16 * 1024;

let h: InjectHarness;
let creds: Credentials;
const failures: unknown[] = [];
const onFailure = (err: unknown) => failures.push(err);

before(async () => {
  process.on('unhandledRejection', onFailure);
  process.on('uncaughtException', onFailure);
  // commands to the emulated module CAR1 end within 1.5 s (answered or 504), well before ANSWER_MS
  h = await injectHarness({ httpBodyLimit: BODY_LIMIT, commands: { defaultTimeoutMs: 1000, maxTimeoutMs: 1500 } }, { module: true });
  creds = { cookie: h.cookie, web: h.web, token: h.token };
});

after(async () => {
  await h?.close();
  process.off('unhandledRejection', onFailure);
  process.off('uncaughtException', onFailure);
});

// ---- the inputs ----

const API_CALLS = [...API_ROUTES.keys()].map((k) => k.split(':') as [string, string]);
const API_FNS = [...new Set(API_CALLS.map(([, fn]) => fn))];
const apiArgs = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom('DEMO1', 'CAR1', 'car1', 'CAR1', 'OTHER1', 'NOSUCH', '') }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))) }), { maxLength: 3 });
/** Parameter names the routes read. */
const PARAM_NAMES = [
  'username', 'password', 'since', 'format', 'permit', 'application', 'purpose', 'command', 'type', 'timeout', 'async',
  'limit', 'from', 'to', 'mode', 'current', 'pin', 'button', 'feature', 'parameter', 'value', 'topic', 'acc', 'new',
  'fn.name', 'fn.vehicleid', 'fn.carpass', 'fn.cmd', 'fn.types', 'fn.since', 'fn.format',
];
const VALUES = [
  'demo', 'other', 'demopass', 'DEMO1', 'CAR1', 'OTHER1', 'NETPASS', 'CARPASS', 'csv', 'json', '1', '0', '-1', 'true', '*', 'auth',
  'auth,v2', 'shell', 'js', 'mp', 'S', 'D', 'L', 'W', 'Y', 'S,D,L', '2026-01-01', '2026-01-01 00:00:00', '99999999999999999999',
  'standard', 'range', '16', '1234', 'ovms/cmd', 'ovms/csv', '#5', '*100#', '@AT', 'stat', 'ovms/demo/#', '', ' ', 'NaN',
  'newpassword1',
];

const text = (max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...VALUES) },
    { weight: 2, arbitrary: fc.string({ maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ maxLength: max, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.string({ maxLength: max, unit: fc.constantFrom('%', '%zz', '%00', '%2F', '%E0%A4%A', '+', '&', '=', '/', '..', '\\', ';', '"', '\u0000', '\r\n', 'a') }) },
    { weight: 1, arbitrary: fc.oneof(fc.nat({ max: 300 }), fc.nat({ max: 6000 })).map((n) => 'x'.repeat(n)) },
  );

/** A URL component: percent-encoded, or raw (with whatever `%` garbage it holds). */
const component = (max: number) =>
  fc.tuple(text(max), fc.boolean()).map(([s, raw]) => (raw ? s.replace(/[\s#?&=]/g, '') : encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))));

const vehicleArg = fc.oneof(fc.constantFrom('DEMO1', 'CAR1', 'OTHER1', 'NOSUCH', ''), component(20));

/** Paths: every `/api` call with random arguments, the other routes, and garbage. */
function pathArb(h: InjectHarness): fc.Arbitrary<string> {
  const fixed = [...new Set(h.routes.map((r) => r.url).filter((u) => u !== '*' && !u.startsWith('/api')))];
  const api = fc
    .tuple(
      fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...API_FNS, 'ovms', 'call') }, { weight: 1, arbitrary: component(10) }),
      fc.array(fc.oneof({ weight: 3, arbitrary: vehicleArg }, { weight: 1, arbitrary: component(30) }), { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([fn, args, slash]) => `/api/${[fn, ...args].join('/')}${slash ? '/' : ''}`);
  const known = fc.tuple(fc.constantFrom(...fixed), fc.option(component(20), { nil: undefined })).map(([u, extra]) => (extra === undefined ? u : `${u}/${extra}`));
  const garbage = fc
    .array(fc.oneof(component(12), fc.constantFrom('..', '.', '', 'api', 'mqapi', 'web', 'assets', '%2e%2e', '%2f', '%5c', '~')), { minLength: 1, maxLength: 6 })
    // `//x` and `/\\x` would be a host to inject() (the raw property below sends them)
    .map((segs) => '/' + segs.join('/').replace(/^[/\\]+/, ''));
  return fc.oneof({ weight: 6, arbitrary: api }, { weight: 2, arbitrary: known }, { weight: 2, arbitrary: garbage }, { weight: 1, arbitrary: fc.constantFrom('/api', '/mqapi', '/', '/api//') });
}

type Pair = [string, string];
const pairs = fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PARAM_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }), text(40)), { maxLength: 8 });

const queryString = (ps: Pair[], raw: boolean) =>
  ps.map(([k, v]) => (raw ? `${k.replace(/[#&=\s]/g, '')}=${v.replace(/[#&\s]/g, '')}` : `${encodeURIComponent(k.replace(/[\uD800-\uDFFF]/g, ''))}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}`)).join('&');

type Auth = 'none' | 'query' | 'token' | 'cookie' | 'web' | 'web-no-csrf' | 'wrong' | 'garbage-cookie' | 'carpass' | 'wrong-carpass' | 'body';
const authArb = fc.constantFrom<Auth>('none', 'query', 'token', 'cookie', 'web', 'web-no-csrf', 'wrong', 'garbage-cookie', 'carpass', 'wrong-carpass', 'body');

type BodyKind = 'none' | 'urlencoded' | 'multipart' | 'multipart-broken' | 'json' | 'json-garbage' | 'bytes';
const bodyKindArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<BodyKind>('none', 'urlencoded', 'multipart', 'json') },
  { weight: 1, arbitrary: fc.constantFrom<BodyKind>('multipart-broken', 'json-garbage', 'bytes') },
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 60, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
  fc.nat({ max: 20_000 }).map((n) => 'h'.repeat(n)),
);
const contentTypeArb = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=fz',
  'multipart/form-data; boundary="fz"',
  'multipart/form-data; boundary=',
  'text/plain',
  'application/octet-stream',
  'application/xml',
  '*/*',
  'garbage',
  ';;;',
  'application/json; boundary=fz',
);

const anyMethod = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('OPTIONS', 'PATCH', 'PROPFIND', 'SEARCH', 'TRACE', 'QUERY', 'LOCK', 'MKCOL') },
);
/** The method and path: half of them an `/api` call as its route list has it (method and name), the custom API too. */
const targetArb = (h: InjectHarness) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...API_CALLS), apiArgs).map(([[method, fn], args]) => ({ method: method === 'GET' && args.length === 3 ? 'HEAD' : method, path: `/api/${[fn, ...args].join('/')}` })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('GET', 'POST'), fc.constantFrom('/api/ovms/cmd', '/api/ovms/csv', '/api/call')).map(([method, path]) => ({ method, path })) },
    { weight: 2, arbitrary: fc.tuple(anyMethod, pathArb(h)).map(([method, path]) => ({ method, path })) },
  );

const caseArb = (h: InjectHarness) =>
  fc.record({
    target: targetArb(h),
    query: pairs,
    rawQuery: fc.boolean(),
    auth: authArb,
    /** The authentication of a custom API call (`/api/ovms/…`, `/api/call`). */
    customAuth: fc.constantFrom<Auth>('carpass', 'carpass', 'wrong-carpass', 'none'),
    address: fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`),
    bodyKind: bodyKindArb,
    body: pairs,
    json: fc.jsonValue({ maxDepth: 3 }),
    bytes: fc.uint8Array({ maxLength: 200 }),
    contentType: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: contentTypeArb }),
    custom: fc.record({
      'fn.name': fc.constantFrom('ovms/cmd', 'ovms/csv', 'ovms/x', 'other/cmd', ''),
      'fn.cmd': fc.oneof(fc.constantFrom('stat', '#5', '#24,1', '*100#', '@ATI', '', 'x'.repeat(300)), text(20)),
      'fn.types': fc.oneof(fc.constantFrom('S', 'S,D,L', '*', '', ',,', 's,S'), text(20)),
      'fn.since': fc.oneof(fc.constantFrom('2026-01-01', '2026-01-01 12:00:00', ''), text(20)),
    }),
    cut: fc.nat(),
    headers: fc.record(
      {
        cookie: fc.oneof(headerValue, text(40).map((v) => `svcapisession=${v.replace(/[^\x20-\x7e]/g, '')}; a=b`)),
        authorization: fc.oneof(headerValue, fc.constantFrom('Basic ZGVtbzpkZW1vcGFzcw==', 'Bearer x', 'Basic', '')),
        'x-forwarded-for': fc.oneof(headerValue, fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'unknown')),
        'x-csrf-token': headerValue,
        accept: fc.constantFrom('*/*', 'text/event-stream', 'application/json', ''),
        'access-control-request-headers': headerValue,
        'x-fuzz': headerValue,
      },
      { requiredKeys: [] },
    ),
  });
type Case = typeof caseArb extends (h: InjectHarness) => fc.Arbitrary<infer C> ? C : never;

const B = 'fz';
const multipart = (ps: Pair[]) => ps.map(([k, v]) => `--${B}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '')}"\r\n\r\n${v}\r\n`).join('') + `--${B}--\r\n`;

const VALID: ReadonlySet<Auth> = new Set<Auth>(['query', 'token', 'cookie', 'web', 'web-no-csrf', 'carpass', 'body']);
const notCredentials = ([k]: Pair) => k !== 'username' && k !== 'password';

/**
 * The request of a case: valid credentials on part of them, a body of the kind asked. Only
 * requests with valid credentials come from 127.0.0.1, and they carry no other user name or
 * password: a failed login is counted against its address and user (src/http/auth.ts), and the
 * valid ones must stay admitted. Failed logins come from random addresses, for random users.
 */
function requestOf(c: Case): InjectOptions {
  const headers: Record<string, string> = { ...c.headers };
  const auth = /^\/api\/(ovms\/|call)/.test(c.target.path) ? c.customAuth : c.auth;
  const valid = VALID.has(auth);
  const query: Pair[] = valid ? c.query.filter(notCredentials) : [...c.query];
  const body: Pair[] = valid ? c.body.filter(notCredentials) : [...c.body];
  const remoteAddress = valid ? '127.0.0.1' : c.address;
  switch (auth) {
    case 'query':
      query.unshift(['username', 'demo'], ['password', 'demopass']);
      break;
    case 'token':
      query.unshift(['username', 'demo'], ['password', creds.token]);
      break;
    case 'cookie':
      headers.cookie = creds.cookie;
      break;
    case 'web':
      headers.cookie = creds.web.cookie;
      headers['x-csrf-token'] = creds.web.csrf;
      break;
    case 'web-no-csrf':
      headers.cookie = creds.web.cookie;
      break;
    case 'wrong':
      query.unshift(['username', `fuzz${c.address.replace(/\./g, '')}`], ['password', 'wrong-password']);
      break;
    case 'carpass':
      query.unshift(['fn.vehicleid', 'CAR1'], ['fn.carpass', 'CARPASS'], ...Object.entries(c.custom));
      break;
    case 'wrong-carpass':
      query.unshift(['fn.vehicleid', 'CAR1'], ['fn.carpass', 'WRONG'], ...Object.entries(c.custom));
      break;
    case 'body':
      body.unshift(['username', 'demo'], ['password', 'demopass']);
      break;
    default:
  }
  let payload: string | Buffer | undefined;
  let type: string | undefined;
  switch (c.bodyKind) {
    case 'urlencoded':
      payload = queryString(body, false);
      type = 'application/x-www-form-urlencoded';
      break;
    case 'multipart':
      payload = multipart(body);
      type = `multipart/form-data; boundary=${B}`;
      break;
    case 'multipart-broken': {
      const full = multipart(body);
      payload = full.slice(0, c.cut % Math.max(1, full.length));
      type = `multipart/form-data; boundary=${B}`;
      break;
    }
    case 'json':
      payload = JSON.stringify(auth === 'body' ? { ...Object.fromEntries(body), json: c.json } : c.json);
      type = 'application/json';
      break;
    case 'json-garbage': {
      const full = JSON.stringify(Object.fromEntries(body));
      payload = full.slice(0, c.cut % Math.max(1, full.length));
      type = 'application/json';
      break;
    }
    case 'bytes':
      payload = Buffer.from(c.bytes);
      break;
    default:
      payload = undefined;
  }
  if (c.contentType !== undefined) type = c.contentType;
  if (type !== undefined) headers['content-type'] = type;
  const qs = queryString(query, c.rawQuery);
  return {
    method: c.target.method as InjectOptions['method'],
    url: c.target.path + (qs ? `?${qs}` : ''),
    headers,
    payload,
    remoteAddress,
    payloadAsStream: true,
  };
}

/** The answer: the status once the body has ended, or once the headers of a live stream came. */
async function answer(opts: InjectOptions): Promise<{ status: number; body: string; stream: boolean }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms: ${opts.method} ${String(opts.url).slice(0, 200)}`)), ANSWER_MS);
  });
  try {
    const r: LightMyRequestResponse = await Promise.race([h.app.inject(opts), deadline]);
    const stream = r.stream();
    if (r.headers['content-type'] === 'text/event-stream' && opts.method !== 'HEAD') {
      stream.destroy();
      return { status: r.statusCode, body: '', stream: true };
    }
    const chunks: Buffer[] = [];
    const body = (async () => {
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    })();
    return { status: r.statusCode, body: await Promise.race([body, deadline]), stream: false };
  } finally {
    clearTimeout(timer);
  }
}

/** Calls that end sessions, revoke tokens or change the password: the credentials are renewed after them. */
const STATEFUL = /^\/api\/(cookie|session|password|token)(\/|$)/;

const seen = new Map<number, number>();

test('every route, random requests: never a 500, nothing at error level, always answered', async () => {
  await fc.assert(
    fc.asyncProperty(caseArb(h), async (c) => {
      const opts = requestOf(c);
      const mark = h.t.logs.length;
      const r = await answer(opts);
      seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
      const what = `${opts.method} ${String(opts.url).slice(0, 300)}`;
      assert.notEqual(r.status, 500, `${what}: ${r.body}`);
      assert.deepEqual(h.logsFrom(mark).filter(isErrorLine), [], `${what}: logged at error level`);
      assert.deepEqual(failures, [], 'no unhandled rejection or exception');
      // (a refused renewal keeps the old ones: fewer authenticated cases, not a failure)
      if (STATEFUL.test(c.target.path)) creds = await h.freshCredentials().catch(() => creds);
    }),
    fuzzParams(1500),
  );
  // the fuzz reaches the handlers, not only the 401s and 404s
  for (const code of [200, 400, 401, 403, 404]) assert.ok((seen.get(code) ?? 0) > 0, `no ${code} among ${JSON.stringify([...seen])}`);
});

test('raw request targets over a real socket: never a 500, always answered', async () => {
  const port = h.t.server.ports.http!;
  const target = fc.oneof(
    fc.tuple(pathArb(h), pairs, fc.boolean()).map(([p, q, raw]) => p + (q.length ? `?${queryString(q, raw)}` : '')),
    fc
      .array(fc.constantFrom('/', '..', '.', '%', '%zz', '%2e', '%2f', '%00', '\\', 'api', 'live', 'DEMO1', '?', '&', '=', '#', ';', '*', '~', '\u00e9', '\u007f', 'a', '//'), { minLength: 1, maxLength: 12 })
      .map((parts) => '/' + parts.join('')),
    fc.constantFrom('*', 'http://localhost/api/vehicles', '/api/live/DEMO1', 'api/vehicles', '/%', '/api/%'),
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'), target, fc.constantFrom('', 'username=demo&password=demopass'), async (method, path, auth) => {
      const t = auth && path.startsWith('/api') ? path + (path.includes('?') ? '&' : '?') + auth : path;
      const mark = h.t.logs.length;
      const head = `${method} ${t} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;
      const answerText = await rawExchange(port, head, { headersOnly: true, timeoutMs: ANSWER_MS });
      const statusLine = answerText.split('\r\n', 1)[0] ?? '';
      assert.match(statusLine, /^HTTP\/1\.1 \d{3}/, `answered: ${JSON.stringify(head)}`);
      assert.doesNotMatch(statusLine, /^HTTP\/1\.1 500/, JSON.stringify(head));
      assert.deepEqual(h.logsFrom(mark).filter(isErrorLine), [], `${JSON.stringify(head)}: logged at error level`);
    }),
    fuzzParams(200),
  );
  assert.deepEqual(failures, []);
});
