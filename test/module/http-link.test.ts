/**
 * The module emulator's HTTP server `/api/execute` (docs/protocol/commands.md §3): parameters from the
 * query (GET) or only the body (POST), the admin password as `apikey` (403 `ERROR: Unauthorized`
 * when wrong, 403 login form when missing, no check without a password), the 2000-byte limit of
 * shell commands (400), `type=js` through `evalScript`, the content type chosen by `output`, the
 * status line sent before the command ends and a chunked body after it, and 404 for everything
 * else. Real sockets; a fake console records what it was asked to run.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import type { CommandRunner } from '../../src/module/console/services.js';
import { ModuleHttpLink, type ModuleHttpLinkOptions } from '../../src/module/links/http-link.js';
import { send, type HttpResponse, type RequestOptions } from '../http/helpers.js';

const TLS_CERT = new URL('../fixtures/tls/cert.pem', import.meta.url).pathname;
const TLS_KEY = new URL('../fixtures/tls/key.pem', import.meta.url).pathname;

interface FakeRunner extends CommandRunner {
  lines: string[];
  scripts: string[];
}

function fakeRunner(): FakeRunner {
  const r: FakeRunner = {
    lines: [],
    scripts: [],
    execute: async (l) => {
      r.lines.push(l);
      return l === 'echo hi' ? 'hi\n' : 'Unrecognised command\n';
    },
    evalScript: async (code) => {
      r.scripts.push(code);
      return code === 'print(1+1)' ? '2' : 'ERROR: ReferenceError: identifier not defined\n';
    },
  };
  return r;
}

interface Harness {
  port: number;
  runner: FakeRunner;
  logs: string[];
  get(query: string, opts?: RequestOptions): Promise<HttpResponse>;
  post(body: string, opts?: RequestOptions): Promise<HttpResponse>;
}

async function harness(t: TestContext, o: Partial<ModuleHttpLinkOptions> = {}): Promise<Harness> {
  const logs: string[] = [];
  const log = createLogger(
    'debug',
    new Writable({
      write: (c: Buffer, _e, cb) => {
        logs.push(c.toString());
        cb();
      },
    }),
  );
  const runner = fakeRunner();
  const link = new ModuleHttpLink({ runner, adminPassword: 'pw', log, host: '127.0.0.1', port: 0, ...o });
  const port = await link.start();
  t.after(() => link.close());
  return {
    port,
    runner,
    logs,
    get: (query, opts) => send(port, `/api/execute${query === '' ? '' : '?' + query}`, opts),
    post: (body, opts) =>
      send(port, '/api/execute', {
        method: 'POST',
        body,
        ...opts,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts?.headers },
      }),
  };
}

function assertOutput(r: HttpResponse, body: string, type = 'application/octet-stream; charset=utf-8'): void {
  assert.equal(r.status, 200, r.body);
  assert.equal(r.reason, 'OK');
  assert.equal(r.body, body);
  assert.equal(r.headers['content-type'], type);
  assert.equal(r.headers['cache-control'], 'no-cache');
  assert.equal(r.headers['transfer-encoding'], 'chunked');
  assert.equal(r.headers['content-length'], undefined);
}

function assertHtml(r: HttpResponse, status: number): void {
  assert.equal(r.status, status, r.body);
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(r.headers['cache-control'], 'no-cache');
  assert.equal(r.headers['transfer-encoding'], 'chunked');
}

test('the right apikey runs the command: 200, the output as a chunked octet-stream, then the connection closes', async (t) => {
  const h = await harness(t);
  const r = await h.get('apikey=pw&command=echo%20hi');
  assertOutput(r, 'hi\n');
  assert.equal(r.headers.connection, 'close');
  assert.deepEqual(h.runner.lines, ['echo hi']);

  // a failing command is still a 200: there is no exit code
  assertOutput(await h.get('apikey=pw&command=nosuch+thing'), 'Unrecognised command\n');
  assert.deepEqual(h.runner.lines, ['echo hi', 'nosuch thing']);
  assert.deepEqual(h.runner.scripts, []);
});

test('output selects the content type; the body is the output whatever it is', async (t) => {
  const h = await harness(t);
  const types: [string, string][] = [
    ['&output=text', 'text/plain; charset=utf-8'],
    ['&output=json', 'application/json; charset=utf-8'],
    ['&output=binary', 'application/octet-stream; charset=x-user-defined'],
    ['&output=html', 'application/octet-stream; charset=utf-8'],
    ['&output=TEXT', 'application/octet-stream; charset=utf-8'],
    ['', 'application/octet-stream; charset=utf-8'],
  ];
  for (const [param, type] of types) assertOutput(await h.get(`apikey=pw&command=echo+hi${param}`), 'hi\n', type);
  assert.equal(h.runner.lines.length, types.length);
});

test('a wrong apikey is 403 "ERROR: Unauthorized" and runs nothing', async (t) => {
  const h = await harness(t);
  for (const key of ['wrong', 'PW', 'p', 'pw%20', 'pwx']) {
    const r = await h.get(`apikey=${key}&command=echo+hi`);
    assertHtml(r, 403);
    assert.equal(r.reason, 'Forbidden');
    assert.equal(r.body, 'ERROR: Unauthorized\n', key);
  }
  assert.equal((await h.post('apikey=wrong&command=echo+hi')).body, 'ERROR: Unauthorized\n');
  assert.deepEqual(h.runner.lines, []);
});

test('without an apikey the answer is 403 with the login form, and nothing runs', async (t) => {
  const h = await harness(t);
  for (const query of ['command=echo+hi', 'apikey=&command=echo+hi', '']) {
    const r = await h.get(query);
    assertHtml(r, 403);
    assert.match(r.body, /^<div class="alert alert-danger"><p class="lead">Login required<\/p><\/div>/, query);
    assert.match(r.body, /<form class="form-horizontal" method="post" action="\/api\/execute" target="#main">/);
    assert.match(r.body, /<input type="password" class="form-control" placeholder="Enter Password" name="password"/);
    assert.ok(r.body.endsWith('</form></div></div>'));
  }
  // a POST without apikey is a failed login of the form (its username/password fields)
  const r = await h.post('command=echo+hi');
  assertHtml(r, 403);
  assert.match(r.body, /Login validation failed, please check username &amp; password/);
  assert.deepEqual(h.runner.lines, []);
});

test('without an admin password there is no authentication at all', async (t) => {
  const h = await harness(t, { adminPassword: '' });
  assertOutput(await h.get('command=echo+hi'), 'hi\n');
  assertOutput(await h.get('apikey=anything&command=echo+hi'), 'hi\n');
  assert.deepEqual(h.runner.lines, ['echo hi', 'echo hi']);
});

test('the apikey is read as the firmware reads it: at most 199 bytes, URL-decoded', async (t) => {
  const long = 'k'.repeat(199);
  const h = await harness(t, { adminPassword: long });
  assertOutput(await h.get(`apikey=${long}&command=echo+hi`), 'hi\n');
  // the 200-byte buffer holds 199 bytes: what follows is never compared
  assertOutput(await h.get(`apikey=${long}EXTRA&command=echo+hi`), 'hi\n');
  assert.equal((await h.get(`apikey=${long.slice(1)}&command=echo+hi`)).status, 403);

  const h2 = await harness(t, { adminPassword: 'a b&c' });
  assertOutput(await h2.get('apikey=a+b%26c&command=echo+hi'), 'hi\n');
  assertOutput(await h2.get('APIKEY=a%20b%26c&command=echo+hi'), 'hi\n');
});

test('a missing or empty command is a 200 with the headers and an empty body', async (t) => {
  const h = await harness(t);
  assertOutput(await h.get('apikey=pw'), '');
  assertOutput(await h.get('apikey=pw&command='), '');
  assertOutput(await h.get('apikey=pw&command=&output=json'), '', 'application/json; charset=utf-8');
  assertOutput(await h.post('apikey=pw&type=js'), '');
  assert.deepEqual(h.runner.lines, []);
  assert.deepEqual(h.runner.scripts, []);
});

test('type=js runs the code as script eval does, unquoted and without a length limit', async (t) => {
  const h = await harness(t);
  assertOutput(await h.post('apikey=pw&type=js&command=print(1%2B1)'), '2');
  assertOutput(await h.get('apikey=pw&type=js&command=print(1%2B1)&output=text'), '2', 'text/plain; charset=utf-8');
  const code = `var s = ${JSON.stringify('x'.repeat(3000))};\nprint(s.length)`;
  assertOutput(await h.post(`apikey=pw&type=js&command=${encodeURIComponent(code)}`), 'ERROR: ReferenceError: identifier not defined\n');
  assert.deepEqual(h.runner.scripts, ['print(1+1)', 'print(1+1)', code]);
  // any other type is a shell command
  assertOutput(await h.get('apikey=pw&type=JS&command=echo+hi'), 'hi\n');
  assert.deepEqual(h.runner.lines, ['echo hi']);
});

test('POST reads the form body only (any content type); parameters in its query string count as missing', async (t) => {
  const h = await harness(t);
  assertOutput(await h.post('apikey=pw&command=echo+hi'), 'hi\n');
  assertOutput(await h.post('command=echo%20hi&apikey=pw', { headers: { 'content-type': 'text/plain' } }), 'hi\n');

  const r = await send(h.port, '/api/execute?apikey=pw&command=echo+hi', { method: 'POST', body: '' });
  assertHtml(r, 403);
  assert.match(r.body, /Login validation failed/);
  // and a GET ignores a body
  assert.equal((await send(h.port, '/api/execute', { body: 'apikey=pw&command=echo+hi' })).status, 403);
  assert.deepEqual(h.runner.lines, ['echo hi', 'echo hi']);
});

test('parameters as mongoose finds them: names in any case, the first occurrence, + as space, encoded line feeds kept', async (t) => {
  const h = await harness(t);
  await h.get('apikey=pw&COMMAND=echo+hi&command=other');
  await h.get('apikey=pw&xcommand=nope&command=a%0Ab');
  await h.post('apikey=pw&Command=echo%2Bhi');
  assert.deepEqual(h.runner.lines, ['echo hi', 'a\nb', 'echo+hi']);
});

test('a shell command over 2000 bytes is a 400; 2000 bytes run; JavaScript has no such limit', async (t) => {
  const h = await harness(t);
  for (const command of ['x'.repeat(2001), 'é'.repeat(1001)]) {
    const r = await h.post(`apikey=pw&command=${encodeURIComponent(command)}`);
    assertHtml(r, 400);
    assert.equal(r.reason, 'Bad Request');
    assert.equal(r.body, 'ERROR: command too long (max 2000 chars)');
  }
  assert.equal((await h.get(`apikey=pw&command=${'x'.repeat(2001)}`)).status, 400);
  assert.deepEqual(h.runner.lines, []);

  assertOutput(await h.post(`apikey=pw&command=${'x'.repeat(2000)}`), 'Unrecognised command\n');
  assertOutput(await h.post(`apikey=pw&command=${encodeURIComponent('é'.repeat(1000))}`), 'Unrecognised command\n');
  assertOutput(await h.post(`apikey=pw&type=js&command=${'y'.repeat(5000)}`), 'ERROR: ReferenceError: identifier not defined\n');
  assert.deepEqual(h.runner.lines, ['x'.repeat(2000), 'é'.repeat(1000)]);
  assert.deepEqual(h.runner.scripts, ['y'.repeat(5000)]);

  // the body itself is bounded
  const huge = await h.post(`apikey=pw&type=js&command=${'z'.repeat(100_000)}`);
  assert.equal(huge.status, 413);
  assert.equal(h.runner.scripts.length, 1);
});

test('every other path and method is a 404', async (t) => {
  const h = await harness(t);
  for (const [method, path] of [
    ['GET', '/'],
    ['GET', '/api'],
    ['GET', '/api/execute/'],
    ['GET', '/api/executes?apikey=pw&command=echo+hi'],
    ['GET', '/shell?apikey=pw&command=echo+hi'],
    ['POST', '/login'],
    ['PUT', '/api/execute?apikey=pw&command=echo+hi'],
    ['DELETE', '/api/execute?apikey=pw&command=echo+hi'],
    ['HEAD', '/api/execute?apikey=pw&command=echo+hi'],
  ] as const) {
    const r = await send(h.port, path, { method });
    assert.equal(r.status, 404, `${method} ${path}`);
    if (method !== 'HEAD') assert.equal(r.body, 'Not Found');
  }
  assert.deepEqual(h.runner.lines, []);
});

/** A console whose `sleep` commands finish when the test says so; the others at once. */
function heldRunner(): CommandRunner & { started: string[]; release(output: string): void } {
  const waiting: ((s: string) => void)[] = [];
  const r = {
    started: [] as string[],
    execute: (l: string) =>
      new Promise<string>((resolve) => {
        r.started.push(l);
        if (l.startsWith('sleep')) waiting.push(resolve);
        else resolve(l === 'echo hi' ? 'hi\n' : 'Unrecognised command\n');
      }),
    evalScript: async () => '',
    release: (output: string) => waiting.shift()!(output),
  };
  return r;
}

test('the status line and headers are sent before the command finishes; the output follows', { timeout: 10_000 }, async (t) => {
  const runner = heldRunner();
  const h = await harness(t, { runner });
  const body = await new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.port, path: '/api/execute?apikey=pw&command=sleep+5', agent: false }, (res) => {
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['transfer-encoding'], 'chunked');
      // the headers are here and the command is still running
      assert.deepEqual(runner.started, ['sleep 5']);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      runner.release('slept\n');
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(body, 'slept\n');
});

test('a command whose client went away still runs to its end; the server carries on', { timeout: 10_000 }, async (t) => {
  const runner = heldRunner();
  const h = await harness(t, { runner });
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: h.port, path: '/api/execute?apikey=pw&command=sleep+5', agent: false }, (res) => {
      res.destroy();
      req.destroy();
      resolve();
    });
    req.on('error', () => undefined);
    req.on('close', () => resolve());
    req.once('socket', (s) => s.once('error', reject));
    req.end();
  });
  assert.deepEqual(runner.started, ['sleep 5']);
  runner.release('nobody reads this\n');
  assertOutput(await send(h.port, '/api/execute?apikey=pw&command=echo+hi'), 'hi\n');
  assert.deepEqual(runner.started, ['sleep 5', 'echo hi']);
});

test('close() drops the connection of a command still running and stops listening', { timeout: 10_000 }, async (t) => {
  const runner = heldRunner();
  const link = new ModuleHttpLink({ runner, adminPassword: 'pw', log: createLogger('silent'), host: '127.0.0.1', port: 0 });
  const port = await link.start();
  t.after(() => link.close());
  const ended = new Promise<string>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/execute?apikey=pw&command=sleep+60', agent: false }, (res) => {
      res.on('error', () => resolve('aborted'));
      res.on('close', () => resolve(res.complete ? 'complete' : 'aborted'));
      res.resume();
      void link.close().then(() => runner.release('too late\n'));
    });
    req.on('error', () => resolve('aborted'));
    req.end();
  });
  assert.equal(await ended, 'aborted');
  await assert.rejects(send(port, '/api/execute?apikey=pw&command=echo+hi'), /ECONNREFUSED/);
  assert.deepEqual(runner.started, ['sleep 60']);
});

test('HTTPS with a certificate gives the same answers', async (t) => {
  const h = await harness(t, { tls: { cert: TLS_CERT, key: TLS_KEY } });
  assertOutput(await h.get('apikey=pw&command=echo+hi', { https: true }), 'hi\n');
  assert.equal((await h.get('apikey=wrong&command=echo+hi', { https: true })).body, 'ERROR: Unauthorized\n');
});

test('the log names the command but never its arguments or the apikey', async (t) => {
  const h = await harness(t);
  await h.get('apikey=pw&command=config+set+password+module+S3CRET');
  await h.get('apikey=G4RBAGE&command=echo+hi');
  await h.post('apikey=pw&type=js&command=print(%22T0KEN%22)');
  const text = h.logs.join('');
  assert.match(text, /"command":"config"/);
  assert.match(text, /"auth":"wrong"/);
  assert.doesNotMatch(text, /S3CRET|G4RBAGE|T0KEN|"pw"/);
});
