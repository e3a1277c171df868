/** MpClient over TLS and wss, with a throw-away self-signed certificate made by openssl. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MpClient, isMpClientError, type MpClientOptions } from '../../src/mp-client/mp-client.js';
import { startFakeServer, type FakeTransport } from './fake-server.js';

let cert: { key: string; cert: string } | undefined;
let dir: string | undefined;
let skip: string | false = false;

before(() => {
  try {
    dir = mkdtempSync(join(tmpdir(), 'vts-mpclient-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    cert = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    skip = 'openssl is not available to make a test certificate';
  }
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const transport of ['tls', 'wss'] as const satisfies readonly FakeTransport[]) {
  test(`${transport}: scheme 0 with rejectUnauthorized: false`, async (t) => {
    if (skip) return t.skip(skip);
    const server = await startFakeServer({ transport, tlsCert: cert!, greet: ['Z0'] });
    t.after(() => server.close());
    const c = await MpClient.connect({
      host: '127.0.0.1',
      port: server.port,
      transport,
      tls: { rejectUnauthorized: false },
      clientType: 'A',
      vehicleId: 'DEMO1',
      scheme: 0,
      password: 'NETPASS',
    });
    t.after(() => c.close());
    assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
    c.send('A');
    assert.deepEqual(await c.next(), { code: 'A', data: '' });
  });

  test(`${transport}: scheme 1 trusting the certificate as a CA`, async (t) => {
    if (skip) return t.skip(skip);
    const server = await startFakeServer({ transport, tlsCert: cert!, scheme: 1 });
    t.after(() => server.close());
    const c = await MpClient.connect({
      host: '127.0.0.1',
      port: server.port,
      transport,
      tls: { ca: cert!.cert },
      clientType: 'B',
      vehicleId: 'TESTCAR',
      scheme: 1,
      username: 'demo',
      password: 'demopass',
    } satisfies MpClientOptions);
    t.after(() => c.close());
    assert.equal(c.vehicleId, 'TESTCAR');
    c.send('A');
    assert.deepEqual(await c.next(), { code: 'A', data: '' });
  });

  test(`${transport}: an untrusted certificate fails to connect`, async (t) => {
    if (skip) return t.skip(skip);
    const server = await startFakeServer({ transport, tlsCert: cert! });
    t.after(() => server.close());
    await assert.rejects(
      MpClient.connect({
        host: '127.0.0.1',
        port: server.port,
        transport,
        clientType: 'A',
        vehicleId: 'DEMO1',
        scheme: 0,
        password: 'NETPASS',
      }),
      (err: unknown) => isMpClientError(err, 'MP_CONNECT_FAILED'),
    );
  });
}
