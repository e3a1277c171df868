/**
 * `--trust-proxy`: behind trusted proxies the client is the address X-Forwarded-For names (the
 * login throttle and the rate limit count it, not the proxy), and the proxies' own connections are
 * not capped per address; an X-Forwarded-For from anyone else changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { parseTrustedProxies, trustedProxyCheck } from '../../src/server/trusted-proxies.js';
import { startTestServer } from '../support/server.js';

/** A GET on a connection of its own; resolves to the status once the whole answer is read. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('--trust-proxy: the forwarded client is throttled, not the proxy; the proxy is not capped', async (t) => {
  const s = await startTestServer({ trustProxy: ['127.0.0.0/8'], loginLimits: { pair: { burst: 2, perMinute: 1 } }, maxConnectionsPerAddress: 2 });
  t.after(() => s.close());
  await s.addUser('demo', 'demopass');
  const port = s.server.ports.http!;
  const wrong = '/api/vehicles?username=demo&password=wrong';
  const right = '/api/vehicles?username=demo&password=demopass';
  const from = (address: string) => ({ 'x-forwarded-for': address });

  assert.equal(await get(port, wrong, from('203.0.113.7')), 401);
  assert.equal(await get(port, wrong, from('203.0.113.7')), 401);
  assert.equal(await get(port, wrong, from('203.0.113.7')), 429, 'that client used up its budget');
  assert.equal(await get(port, right, from('198.51.100.9')), 200, 'another client behind the same proxy is not');
  // more connections at once than the cap: the proxy is exempt
  const statuses = await Promise.all(Array.from({ length: 6 }, () => get(port, right, from('198.51.100.9'))));
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
});

test('without --trust-proxy, X-Forwarded-For is not believed', async (t) => {
  const s = await startTestServer({ loginLimits: { pair: { burst: 2, perMinute: 1 } } });
  t.after(() => s.close());
  await s.addUser('demo', 'demopass');
  const port = s.server.ports.http!;
  const wrong = '/api/vehicles?username=demo&password=wrong';
  assert.equal(await get(port, wrong, { 'x-forwarded-for': '203.0.113.1' }), 401);
  assert.equal(await get(port, wrong, { 'x-forwarded-for': '203.0.113.2' }), 401);
  assert.equal(await get(port, wrong, { 'x-forwarded-for': '203.0.113.3' }), 429, 'one client: the socket\'s address');
});

test('--trust-proxy values: addresses and networks; anything else refused', () => {
  assert.deepEqual(parseTrustedProxies('10.0.0.5, 10.1.0.0/16,fd00::/8'), ['10.0.0.5', '10.1.0.0/16', 'fd00::/8']);
  for (const bad of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/9', '::1/129']) assert.throws(() => parseTrustedProxies(bad), /not an IP address or network/);
  const trusted = trustedProxyCheck(['10.1.0.0/16', '::1']);
  assert.equal(trusted('10.1.2.3'), true);
  assert.equal(trusted('::ffff:10.1.2.3'), true, 'IPv4-mapped');
  assert.equal(trusted('10.2.0.1'), false);
  assert.equal(trusted('::1'), true);
});
