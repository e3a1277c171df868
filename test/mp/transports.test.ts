/** The MP over TLS and over WebSocket (docs/protocol/mp.md §1, §6), both schemes. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { MpClient, type MpClientOptions } from '../../src/mp-client/mp-client.js';
import { startTestServer, TLS_CERT, TLS_KEY, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({ tlsCert: TLS_CERT, tlsKey: TLS_KEY });
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
});
after(() => t.close());

const tlsPort = (): number => t.server.ports.mpTls!;

type Transport = 'tcp' | 'tls' | 'ws' | 'wss';
function opts(transport: Transport, extra: Record<string, unknown>): MpClientOptions {
  return {
    host: '127.0.0.1',
    port: transport === 'tls' || transport === 'wss' ? tlsPort() : t.mpPort,
    transport,
    tls: { rejectUnauthorized: false },
    vehicleId: 'TESTCAR',
    ...extra,
  } as MpClientOptions;
}

test('the TLS listener is up only with a certificate and reports its port', () => {
  assert.equal(typeof t.server.ports.mpTls, 'number');
  assert.notEqual(t.server.ports.mpTls, t.mpPort);
});

for (const transport of ['tls', 'ws', 'wss'] as const) {
  test(`${transport}: a car (scheme 0) and an app (scheme 1) talk through the server`, async () => {
    const app = await MpClient.connect(opts(transport, { clientType: 'A', scheme: 1, username: 'demo', password: 'demopass' }));
    assert.equal(app.transport, transport);
    await app.waitFor('T');
    const car = await MpClient.connect(opts(transport, { clientType: 'C', scheme: 0, password: 'NETPASS' }));
    assert.deepEqual(await car.next(), { code: 'Z', data: '1' });
    car.send('S', '80,K,220,70,charging,standard,280,270');
    assert.deepEqual(await app.waitFor('S'), { code: 'S', data: '80,K,220,70,charging,standard,280,270' });
    assert.deepEqual(await app.next(), { code: 'T', data: '0' });
    app.send('C', '7,stat');
    assert.deepEqual(await car.waitFor('C'), { code: 'C', data: '7,stat' });
    car.send('c', '7,0,State: charging\rSOC: 80%');
    assert.deepEqual(await app.waitFor('c'), { code: 'c', data: '7,0,State: charging\rSOC: 80%' });
    await Promise.all([app.close(), car.close()]);
  });
}

test('websocket frames carry one line each, without CR LF; /apiv2/ works too; other paths are refused', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${t.mpPort}/apiv2/`);
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(d.toString()));
  await new Promise((r) => ws.once('open', r));
  ws.send('MP-B 1 demo demopass TESTCAR\n');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(frames[0], 'MP-S 1 demo TESTCAR TESTCAR');
  assert.ok(frames.length >= 3 && frames.every((f) => !f.includes('\n') && !f.includes('\r')));
  // a ping frame is answered with a pong (REF ignored control frames)
  const pong = new Promise((r) => ws.once('pong', r));
  ws.ping();
  await pong;
  ws.close();

  const bad = new WebSocket(`ws://127.0.0.1:${t.mpPort}/other`);
  const status = await new Promise<number>((resolve) => {
    bad.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    bad.once('error', () => resolve(-1));
  });
  assert.equal(status, 404);
});

test('a plain HTTP request to /apiv2 without an upgrade gets 426 and does not disturb the MP', async () => {
  const res = await fetch(`http://127.0.0.1:${t.mpPort}/apiv2`);
  assert.equal(res.status, 426);
  const c = await MpClient.connect(opts('tcp', { clientType: 'B', scheme: 0, password: 'NETPASS' }));
  assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
  await c.close();
});
