/**
 * One send to ABRP (src/abrp/sender.ts) against a local stand-in: the request (GET
 * /1/tlm/send with api_key, token, tlm), and failures told in words that never hold the token or
 * the API key: an error answer quoting the token, a 429 with Retry-After, a refused connection, a
 * server that does not answer in time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendTlm } from '../../src/abrp/sender.js';

const TOKEN = 'tok-0123456789-secret';
const KEY = 'key-abcdef-secret';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('the request, and answers read without quoting the secrets', async (t) => {
  const seen: string[] = [];
  const answers = [
    { status: 200, body: '{"status":"ok"}', headers: {} },
    { status: 200, body: `{"status":"error","error":"no such token ${TOKEN}"}`, headers: {} },
    { status: 429, body: '', headers: { 'retry-after': '90' } },
  ];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const a = answers.shift()!;
    res.writeHead(a.status, a.headers);
    res.end(a.body);
  });
  const url = await listen(server);
  t.after(() => server.close());
  const config = { url, apiKey: KEY, timeoutMs: 5000 };
  assert.deepEqual(await sendTlm(config, TOKEN, '{"utc":1,"soc":50}'), { kind: 'ok' });
  const u = new URL(seen[0]!.slice(4), url);
  assert.equal(seen[0]!.slice(0, 3), 'GET');
  assert.equal(u.pathname, '/1/tlm/send');
  assert.deepEqual([u.searchParams.get('api_key'), u.searchParams.get('token'), u.searchParams.get('tlm')], [KEY, TOKEN, '{"utc":1,"soc":50}']);
  assert.deepEqual(await sendTlm(config, TOKEN, '{}'), { kind: 'retry', reason: 'ABRP answered an error: no such token [redacted]' });
  assert.deepEqual(await sendTlm(config, TOKEN, '{}'), { kind: 'retry', reason: 'ABRP answered HTTP 429', retryAfter: 90 });
});

test('a refused connection and a silent server are failures to try again, in a few words', async (t) => {
  const closed = createServer();
  const gone = await listen(closed);
  await new Promise<void>((r) => closed.close(() => r()));
  assert.deepEqual(await sendTlm({ url: gone, apiKey: KEY, timeoutMs: 5000 }, TOKEN, '{}'), { kind: 'retry', reason: 'could not reach ABRP (ECONNREFUSED)' });

  const silent = createServer(() => undefined);
  const url = await listen(silent);
  t.after(() => {
    silent.closeAllConnections();
    silent.close();
  });
  assert.deepEqual(await sendTlm({ url, apiKey: KEY, timeoutMs: 50 }, TOKEN, '{}'), { kind: 'retry', reason: 'ABRP did not answer in time' });
});
