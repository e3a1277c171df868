/** MpClient over TLS and wss, with the test suite's self-signed certificate. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MpClient, isMpClientError, type MpClientOptions } from '../../src/mp-client/mp-client.js';
import { startFakeServer, type FakeTransport } from './fake-server.js';

// the suite's self-signed certificate for localhost and 127.0.0.1 (test/fixtures/tls/README.md)
const cert = {
  key: readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url), 'utf8'),
  cert: readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url), 'utf8'),
};

for (const transport of ['tls', 'wss'] as const satisfies readonly FakeTransport[]) {
  test(`${transport}: scheme 0 with rejectUnauthorized: false`, async (t) => {
    const server = await startFakeServer({ transport, tlsCert: cert, greet: ['Z0'] });
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
    const server = await startFakeServer({ transport, tlsCert: cert, scheme: 1 });
    t.after(() => server.close());
    const c = await MpClient.connect({
      host: '127.0.0.1',
      port: server.port,
      transport,
      tls: { ca: cert.cert },
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
    const server = await startFakeServer({ transport, tlsCert: cert });
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
