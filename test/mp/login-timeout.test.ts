/**
 * The login timeout (`--timeout-login`, `timeouts.welcomeMs`): an MP connection that has not logged
 * in by then is closed by its own timer, not by the far coarser inactivity sweep: a silent socket,
 * a half welcome line, a TLS socket that never starts its handshake, a WebSocket upgrade that
 * never completes. A client that logged in stays, and so does one whose welcome line came in time
 * while the server's check of it takes longer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { LOGIN_CHECK_MS } from '../../src/mp/connection.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../../src/server/server.js';
import { startTestServer, TLS_CERT, TLS_KEY, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({
    tlsCert: TLS_CERT,
    tlsKey: TLS_KEY,
    timeouts: { welcomeMs: 300 },
    sweepIntervalMs: 3_600_000, // the sweep would close them too: here only the login timer may
  });
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
});
after(() => t.close());

/** A raw TCP socket that sends nothing: what it received once the server closed it. */
function silentUntilClosed(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port });
    let received = '';
    s.setEncoding('latin1').on('data', (d: string) => (received += d));
    s.on('error', () => undefined);
    s.once('close', () => resolve(received));
  });
}

test('the default login timeout is 10 s', () => {
  assert.equal(DEFAULT_LOGIN_TIMEOUT_MS, 10_000);
});

test('a silent connection and one with half a welcome line are closed by the login timer', async () => {
  const silent = await rawConnect('127.0.0.1', t.mpPort);
  const half = await rawConnect('127.0.0.1', t.mpPort);
  half.write('MP-C 0 abcdef');
  const [a, b] = await Promise.all([silent.closed, half.closed]);
  assert.equal(a.byClient, false);
  assert.equal(b.byClient, false);
});

test('a logged-in client stays while a connection opened after it times out', async () => {
  const app = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await app.waitFor('T');
  // opened after the app: its timer runs out after the app's would have
  const late = await rawConnect('127.0.0.1', t.mpPort);
  assert.equal((await late.closed).byClient, false);
  assert.equal(app.isClosed, false);
  app.send('A');
  assert.deepEqual(await app.waitFor('a'), { code: 'a', data: '' });
  await app.close();
});

test('a login whose check takes longer than the login timeout is answered: the timer stops at the welcome line', async () => {
  // the store slow to answer, as behind thousands of other logins in a reconnect storm
  const store = t.server.store;
  const getVehicle = store.getVehicle.bind(store);
  let asked = 0;
  store.getVehicle = async (id) => {
    asked++;
    await new Promise((r) => setTimeout(r, 900)); // three login timeouts
    return getVehicle(id);
  };
  try {
    const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
    assert.ok(asked > 0, 'the check went through the slow store');
    car.send('A');
    assert.deepEqual(await car.waitFor('a'), { code: 'a', data: '' });
    await car.close();
  } finally {
    store.getVehicle = getVehicle;
  }
});

test('the server gives a login it cannot answer up after LOGIN_CHECK_MS, not the login timeout', () => {
  assert.ok(LOGIN_CHECK_MS >= 6 * DEFAULT_LOGIN_TIMEOUT_MS);
});

test('a TLS socket that never starts its handshake is closed', async () => {
  assert.equal(await silentUntilClosed(t.server.ports.mpTls!), '');
});

test('a WebSocket upgrade that drips its headers is closed', async () => {
  const s = netConnect({ host: '127.0.0.1', port: t.mpPort });
  s.on('error', () => undefined);
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write('GET /apiv2 HTTP/1.1\r\nHost: x\r\n');
  const drip = setInterval(() => s.writable && s.write('X'), 50);
  try {
    await new Promise<void>((r) => s.once('close', () => r()));
  } finally {
    clearInterval(drip);
  }
});

test('a WebSocket client that upgrades but never logs in is closed', async () => {
  const ws = await rawConnect('127.0.0.1', t.mpPort, { transport: 'ws' });
  assert.equal((await ws.closed).byClient, false);
});
