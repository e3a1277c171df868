/**
 * HEAD is answered like GET without a body on every route (docs/compatibility.md): each GET route
 * the app registers has its HEAD route, and a HEAD request over a real connection answers, with
 * GET's status, content type and length, and no body: `/api/live` included (issue 13, defect 6:
 * it never answered).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { API_ROUTES } from '../../src/http/api-hall.js';
import { injectHarness, type InjectHarness } from './inject.js';
import { send, type HttpResponse } from './helpers.js';

/** Generous: only a request that is never answered fails this way. */
const ANSWER_MS = 15_000;
const AUTH = 'username=demo&password=demopass';

let h: InjectHarness;
before(async () => {
  h = await injectHarness();
});
after(async () => {
  await h?.close();
});

function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_MS} ms`)), ANSWER_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The status and headers of a GET; the body is not waited for (a live stream never ends). */
function getHeaders(port: number, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const body = new Promise<string>((done) => {
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
        res.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
      });
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      if (res.headers['content-type'] === 'text/event-stream') setTimeout(() => req.destroy(), 50);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Concrete paths of the GET routes: `/api` and `/api/*` stand for every GET call of the API. */
function getPaths(): string[] {
  const paths = new Set<string>();
  for (const r of h.routes) {
    if (r.method !== 'GET') continue;
    if (r.url === '/api' || r.url === '/api/*') {
      paths.add(`/api?${AUTH}`);
      for (const key of API_ROUTES.keys()) {
        const [method, fn] = key.split(':');
        if (method === 'GET') paths.add(`/api/${fn}/DEMO1?${AUTH}`);
      }
      paths.add(`/api/ovms/csv?fn.vehicleid=DEMO1&fn.carpass=NETPASS&fn.types=S`);
    } else {
      assert.ok(!r.url.includes(':') && !r.url.includes('*'), `a GET route with parameters the test does not know: ${r.url}`);
      paths.add(r.url);
    }
  }
  return [...paths];
}

test('every GET route has its HEAD route', () => {
  const heads = new Set(h.routes.filter((r) => r.method === 'HEAD').map((r) => r.url));
  const gets = h.routes.filter((r) => r.method === 'GET').map((r) => r.url);
  assert.ok(gets.includes('/web/config.json') && gets.includes('/api/*') && gets.includes('/assets/app.js'), gets.join(' '));
  assert.deepEqual(
    gets.filter((url) => !heads.has(url)),
    [],
    'GET routes without HEAD',
  );
});

test('HEAD answers like GET without a body, on every GET route (live streams included)', async () => {
  const port = h.t.server.ports.http!;
  const paths = getPaths();
  assert.ok(paths.some((p) => p.startsWith('/api/live/')));
  for (const path of paths) {
    const get = await within(`GET ${path}`, getHeaders(port, path));
    const head: HttpResponse = await within(`HEAD ${path}`, send(port, path, { method: 'HEAD' }));
    const what = `HEAD ${path}`;
    assert.equal(head.status, get.status, what);
    assert.equal(head.body, '', what);
    assert.equal(head.headers['content-type'], get.headers['content-type'], what);
    assert.equal(head.headers['access-control-allow-origin'], '*', what);
    if (get.headers['content-type'] !== 'text/event-stream') {
      const body = await within(`GET ${path} body`, get.body);
      assert.equal(get.headers['content-length'], String(Buffer.byteLength(body)), `GET ${path}`);
      assert.equal(head.headers['content-length'], get.headers['content-length'], what);
    }
  }
});

test('HEAD /api/live/<id> answers the stream\'s headers at once and ends (issue 13, defect 6)', async () => {
  const port = h.t.server.ports.http!;
  for (const auth of [AUTH, `username=demo&password=${h.token}`]) {
    const r = await within('HEAD /api/live/DEMO1', send(port, `/api/live/DEMO1?${auth}`, { method: 'HEAD' }));
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/event-stream');
    assert.equal(r.body, '');
  }
  const cookie = await within('HEAD /api/live/DEMO1 (cookie)', send(port, '/api/live/DEMO1', { method: 'HEAD', headers: { cookie: h.web.cookie } }));
  assert.equal(cookie.status, 200);
  // like GET: not the caller's vehicle
  const other = await within('HEAD /api/live/OTHER1', send(port, `/api/live/OTHER1?${AUTH}`, { method: 'HEAD' }));
  assert.equal(other.status, 403);
  assert.equal(other.body, '');
});
