/** Inactivity timeouts and server pings (docs/protocol/mp.md §3, §13.1), with short test timeouts. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({
    sweepIntervalMs: 50,
    timeouts: { welcomeMs: 300, appMs: 600, batchMs: 400, carMs: 61_000, carPingGapMs: 300 },
  });
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
});
after(() => t.close());

const connect = (clientType: 'A' | 'B' | 'C') =>
  MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType, vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });

test('a connection that sends no welcome line is closed', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  const started = Date.now();
  await raw.closed;
  assert.ok(Date.now() - started >= 250);
});

test('a silent app and a silent batch client are closed; one that pings stays', async () => {
  const silentApp = await connect('A');
  const silentBatch = await connect('B');
  const busy = await connect('A');
  const pinger = setInterval(() => busy.send('A'), 100);
  try {
    await Promise.all([silentApp.closed, silentBatch.closed]);
    assert.equal(busy.isClosed, false);
  } finally {
    clearInterval(pinger);
    await busy.close();
  }
});

test('a quiet car is pinged with A/FA and stays connected when it answers', async () => {
  // carMs − 60 s = 1 s of server silence before the first ping
  const car = await connect('C');
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  const ping = await car.waitFor('A', 5000);
  assert.deepEqual(ping, { code: 'A', data: 'FA' });
  car.send('a');
  assert.equal(car.isClosed, false);
  await car.close();
});
