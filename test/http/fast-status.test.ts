/**
 * `GET /api/status/<id>` with a session cookie is answered before fastify (src/http/fast-status.ts):
 * with the bytes fastify sends for it (status line, headers in their order, body), and every
 * request it does not answer itself reaches fastify as it came, counted once by the rate limiter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastStatus, limiterVerdicts } from '../../src/http/fast-status.js';
import type { HttpContext } from '../../src/http/context.js';
import { roundTrip } from '../mp/helpers.js';
import { httpHarness } from './helpers.js';

const S = '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95';
const D = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';

/** One request on a connection of its own: the whole answer as sent (latin1). */
function rawAnswer(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.write(`${head}\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

const withoutClock = (raw: string) => raw.replace(/^(date|expires): .*$/gim, '$1: <now>');

test('the status answer before fastify has the bytes of fastify\'s (a query sends it through fastify)', async (ctx) => {
  // the server's clock stands still: the two answers of a pair would differ in the message ages
  // when they straddled a second
  const now = Date.now();
  const h = await httpHarness(ctx, { clock: () => now });
  const car = await h.car();
  car.send('S', S);
  car.send('D', D);
  await roundTrip(car);
  const cookie = (await h.login()).split(';')[0]!;
  const get = (path: string, method = 'GET') => rawAnswer(h.httpPort, `${method} ${path} HTTP/1.1\r\nCookie: ${cookie}`);
  for (const [fast, slow] of [
    ['/api/status/TESTCAR', '/api/status/TESTCAR?'],
    ['/api/status/testcar', '/api/status/testcar?x=1'],
    ['/api/status/DEMO1', '/api/status/DEMO1?'], // no records yet
    ['/api/status/NOSUCHCAR', '/api/status/NOSUCHCAR?'], // 403 from fastify either way
  ] as const) {
    const [a, b] = await Promise.all([get(fast), get(slow)]);
    assert.equal(withoutClock(a), withoutClock(b), fast);
  }
  // the records read once: the next answer comes from memory, inside the request event (SQLite's
  // read cache; the PostgreSQL store keeps none and reads again), with the same bytes
  const store = h.t.server.store;
  const read = store.getCarMessages.bind(store);
  let reads = 0;
  store.getCarMessages = (...a) => (reads++, read(...a));
  const atOnce = await get('/api/status/TESTCAR');
  assert.equal(reads, h.t.database === undefined ? 0 : 1);
  assert.equal(withoutClock(atOnce), withoutClock(await get('/api/status/TESTCAR?')));
  store.getCarMessages = read;
  const ok = await get('/api/status/TESTCAR');
  assert.match(ok, /^HTTP\/1\.1 200 Ok\r\ncontent-type: application\/json\r\ndate: .*\r\nexpires: .*\r\ncache-control: max-age=0\r\naccess-control-allow-origin: \*\r\ncontent-length: \d+\r\nConnection: close\r\n\r\n\{/);
  // a cookie that names no session: 401 from fastify, as before
  const none = await rawAnswer(h.httpPort, 'GET /api/status/TESTCAR HTTP/1.1\r\nCookie: svcapisession=nosuchsession');
  assert.match(none, /^HTTP\/1\.1 401 Unauthorized\r\n/);
  // HEAD: the head of GET, no body
  const head = await get('/api/status/TESTCAR', 'HEAD');
  assert.equal(withoutClock(head), withoutClock(ok).split('\r\n\r\n')[0] + '\r\n\r\n');
});

test('the status answer before fastify is in the access log like any other', async (ctx) => {
  const h = await httpHarness(ctx);
  const cookie = (await h.login()).split(';')[0]!;
  await rawAnswer(h.httpPort, `GET /api/status/DEMO1 HTTP/1.1\r\nCookie: ${cookie}`);
  const car = await h.car();
  car.send('S', S);
  await roundTrip(car);
  await rawAnswer(h.httpPort, `GET /api/status/TESTCAR HTTP/1.1\r\nCookie: ${cookie}`);
  const lines = h.t.logs.filter((l) => l.includes('"HTTP request"') && l.includes('/api/status/TESTCAR')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 1);
  assert.deepEqual({ ...lines[0], ms: 0, time: 0, pid: 0, hostname: '' }, { ...lines[0], method: 'GET', path: '/api/status/TESTCAR', status: 200, client: '127.0.0.1', group: 'api_v2', ms: 0, time: 0, pid: 0, hostname: '' });
});

/** The listener alone, with a context of stubs, behind a node server; `next` answers "fastify". */
async function listener(
  t: { after(fn: () => unknown): void },
  opts: { allowed?: boolean; closing?: boolean; paranoid?: boolean; fail?: boolean; atOnce?: boolean } = {},
) {
  const handedOn: { url: string; verdict: boolean | undefined }[] = [];
  const hits: string[] = [];
  const answered: unknown[][] = [];
  const session = (id: string) => (id === 'good' ? { ownerId: 7, ownerName: 'u', permit: '*' } : undefined);
  const vehicle = (id: string) => {
    if (opts.fail) throw new Error('store down');
    return id === 'CAR1' ? { id, ownerId: 7 } : id === 'CAR2' ? { id, ownerId: 8 } : undefined;
  };
  const messages = () => [{ code: 'S', data: S, time: 1_700_000_000, paranoid: opts.paranoid ?? false, ptoken: '', valid: true }];
  // atOnce: the session and the store answer from memory; else only when awaited
  const fromMemory = <A extends unknown[], R>(f: (...a: A) => R) => (...a: A): R | undefined => (opts.atOnce ? f(...a) : undefined);
  const ctx = {
    cookieNames: ['vts_session'],
    hub: { seconds: () => 1_700_000_000 },
    rateLimiter: { hit: (address: string) => (hits.push(address), opts.allowed ?? true) },
    sessions: { use: async (id: string) => session(id), useAtOnce: fromMemory(session) },
    store: {
      getVehicle: async (id: string) => vehicle(id),
      peekVehicle: fromMemory(vehicle),
      getCarMessages: async () => messages(),
      peekCarMessages: fromMemory(messages),
    },
  } as unknown as HttpContext;
  const next = (req: IncomingMessage, res: ServerResponse) => {
    handedOn.push({ url: req.url ?? '', verdict: limiterVerdicts.get(req) });
    res.end('fastify');
  };
  const server: Server = createServer(fastStatus(ctx, () => opts.closing ?? false, next, (...a) => answered.push(a.slice(0, 3))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const get = (path: string, cookie = 'vts_session=good', method = 'GET') => rawAnswer(port, `${method} ${path} HTTP/1.1\r\nCookie: ${cookie}`);
  return { get, handedOn, hits, answered };
}

for (const atOnce of [false, true]) {
  const how = atOnce ? 'from memory' : 'awaited';

  test(`the listener answers only a plain GET of an own vehicle with a live session (${how})`, async (t) => {
    const l = await listener(t, { atOnce });
    const ok = await l.get('/api/status/car1');
    assert.match(ok, /^HTTP\/1\.1 200 Ok\r\ncontent-type: application\/json\r\n/);
    assert.deepEqual(l.answered, [['GET', '/api/status/car1', 200]]);
    assert.deepEqual(l.handedOn, []);
    // not taken, not counted: fastify counts them in its onRequest hook
    for (const [path, cookie, method] of [
      ['/api/status/CAR1?', 'vts_session=good', 'GET'],
      ['/api/status/CAR%31', 'vts_session=good', 'GET'],
      ['/api/status/CAR1', 'vts_session=good', 'HEAD'],
      ['/api/status/CAR1', 'vts_session=good', 'DELETE'],
      ['/api/status/CAR1/x', 'vts_session=good', 'GET'],
      ['/api/charge/CAR1', 'vts_session=good', 'GET'],
      ['/api/status/CAR1', 'other=good', 'GET'],
    ] as const) {
      assert.equal((await l.get(path, cookie, method)).endsWith('fastify'), method !== 'HEAD', `${method} ${path}`);
      assert.deepEqual(l.handedOn.pop(), { url: path, verdict: undefined });
    }
    assert.equal(l.hits.length, 1);
    // counted here, then handed on with the verdict: a dead session, a vehicle of someone else, none
    for (const [path, cookie] of [['/api/status/CAR1', 'vts_session=bad'], ['/api/status/CAR2', 'vts_session=good'], ['/api/status/CAR3', 'vts_session=good']] as const) {
      assert.ok((await l.get(path, cookie)).endsWith('fastify'));
      assert.deepEqual(l.handedOn.pop(), { url: path, verdict: true });
    }
    assert.equal(l.hits.length, 4);
    assert.deepEqual(l.answered.length, 1);
  });

  test(`the listener hands on a refused, paranoid, failing or closing request (${how})`, async (t) => {
    const refused = await listener(t, { allowed: false, atOnce });
    assert.ok((await refused.get('/api/status/CAR1')).endsWith('fastify'));
    assert.deepEqual(refused.handedOn, [{ url: '/api/status/CAR1', verdict: false }]);
    for (const opts of [{ paranoid: true }, { fail: true }]) {
      const l = await listener(t, { ...opts, atOnce });
      assert.ok((await l.get('/api/status/CAR1')).endsWith('fastify'));
      assert.deepEqual(l.handedOn, [{ url: '/api/status/CAR1', verdict: true }]);
      assert.deepEqual(l.answered, []);
    }
    const closing = await listener(t, { closing: true, atOnce });
    assert.ok((await closing.get('/api/status/CAR1')).endsWith('fastify'));
    assert.deepEqual(closing.handedOn, [{ url: '/api/status/CAR1', verdict: undefined }]);
    assert.deepEqual(closing.hits, []);
  });
}
