/**
 * The HTTPS listener (docs/protocol/http-api-v2.md §1): with a certificate and key (ServerConfig `tlsCert`,
 * `tlsKey`, as `vts serve --tls-cert/--tls-key` passes them) the server also serves the API over
 * TLS on its own port, with the same answers as over plain HTTP; without them there is no HTTPS
 * listener. The certificate is the suite's self-signed one (test/fixtures/tls).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { DEMO_AUTH, httpHarness, withQuery } from './helpers.js';

// the suite's self-signed certificate for localhost and 127.0.0.1 (test/fixtures/tls/README.md)
const cert = new URL('../fixtures/tls/cert.pem', import.meta.url).pathname;
const key = new URL('../fixtures/tls/key.pem', import.meta.url).pathname;

test('with a certificate the API is also served over HTTPS, with the same bodies as over HTTP', async (ctx) => {
  const h = await httpHarness(ctx, { tlsCert: cert, tlsKey: key });
  const httpsPort = h.t.server.ports.https;
  assert.equal(typeof httpsPort, 'number');
  assert.ok(Number.isInteger(httpsPort) && httpsPort! > 0 && httpsPort! < 65536, `port ${String(httpsPort)}`);
  assert.notEqual(httpsPort, h.httpPort);

  for (const path of ['/api/vehicles', '/api/status/TESTCAR', '/api/historical/DEMO1']) {
    const plain = await h.asDemo(path);
    const secure = await h.asDemo(path, { https: true });
    assert.equal(plain.status, 200, path);
    assert.equal(secure.status, 200, path);
    assert.equal(secure.reason, 'Ok', path);
    assert.equal(secure.body, plain.body, path);
    assert.equal(secure.headers['content-type'], 'application/json', path);
    assert.equal(secure.headers['access-control-allow-origin'], '*', path);
  }
  assert.equal(
    (await h.asDemo('/api/vehicles', { https: true })).body,
    '[{"id":"DEMO1","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0},' +
      '{"id":"TESTCAR","v_apps_connected":0,"v_btcs_connected":0,"v_net_connected":0}]\n',
  );

  // errors look the same too
  const denied = await h.request('/api/vehicles', { https: true });
  assert.equal(denied.status, 401);
  assert.equal(denied.body, 'Authentication failed\n');
});

test('the HTTPS listener presents the configured certificate', async (ctx) => {
  const h = await httpHarness(ctx, { tlsCert: cert, tlsKey: key });
  const expected = new X509Certificate(readFileSync(cert)).fingerprint256;
  const presented = await new Promise<string>((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: h.t.server.ports.https!, rejectUnauthorized: false }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fp);
    });
    socket.on('error', reject);
  });
  assert.equal(presented, expected);
});

test('a cookie from a login over HTTPS works on both listeners (one session store)', async (ctx) => {
  const h = await httpHarness(ctx, { tlsCert: cert, tlsKey: key });
  const login = await h.request(withQuery('/api/cookie', DEMO_AUTH), { https: true });
  assert.equal(login.status, 200);
  assert.equal(login.body, 'Login ok\n');
  const cookie = login.headers['set-cookie']?.[0];
  assert.ok(cookie);
  for (const https of [true, false]) {
    const r = await h.request('/api/vehicles', { https, headers: { cookie } });
    assert.equal(r.status, 200, `https: ${https}`);
  }
});

test('without a certificate there is no HTTPS listener', async (ctx) => {
  const h = await httpHarness(ctx);
  assert.equal(h.t.server.ports.https, null);
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);
});
