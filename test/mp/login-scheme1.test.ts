/** Scheme-1 logins (docs/protocol/mp.md §5): user name + password or API token, plaintext frames. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiToken, newApiToken } from '../../src/auth/api-token.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let v2Token: string;
let authToken: string;
before(async () => {
  t = await startTestServer();
  const owner = await t.addUser('demo', 'demopass');
  await t.addUser('limited', 'limitedpass', 'auth');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
  await t.addVehicle('DEMO1', owner, 'NETPASS');
  v2Token = newApiToken();
  authToken = newApiToken();
  for (const [token, permit] of [
    [v2Token, 'v2'],
    [authToken, 'auth'],
  ] as const) {
    await t.server.store.addApiToken({
      ownerId: owner,
      tokenHash: hashApiToken(token),
      application: 'test',
      purpose: 'test',
      permit,
      created: 0,
      lastUsed: null,
    });
  }
});
after(() => t.close());

test('password login: MP-S 1 <user> <vehicle> <all vehicles>, then bare lines', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  raw.sendLine('MP-A 1 demo demopass demo1');
  assert.equal(await raw.next(), 'MP-S 1 demo DEMO1 DEMO1 TESTCAR');
  assert.equal(await raw.next(), 'Z0');
  assert.equal(await raw.next(), 'T3020399');
  raw.sendLine('A');
  assert.equal(await raw.next(), 'a');
  raw.sendLine('C31');
  assert.equal(await raw.next(), 'c31,1,No historical data available');
  await raw.close();
});

test('vehicle * selects the first vehicle of the owner', async () => {
  const c = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: '*', scheme: 1, username: 'demo', password: 'demopass' });
  assert.equal(c.vehicleId, 'DEMO1');
  assert.deepEqual(c.vehicles, ['DEMO1', 'TESTCAR']);
  await c.close();
});

test('an API token with the right v2 logs in; one without it does not', async () => {
  const c = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'B', vehicleId: 'TESTCAR', scheme: 1, username: 'demo', password: v2Token });
  assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
  await c.close();
  await assert.rejects(
    MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'B', vehicleId: 'TESTCAR', scheme: 1, username: 'demo', password: authToken }),
    { code: 'MP_LOGIN_CLOSED' },
  );
});

test('wrong password, unknown user, a user without v2, a foreign vehicle: closed silently', async () => {
  for (const line of [
    'MP-A 1 demo wrong DEMO1',
    'MP-A 1 nobody demopass DEMO1',
    'MP-A 1 limited limitedpass *',
    'MP-A 1 demo demopass OTHERCAR',
  ]) {
    const raw = await rawConnect('127.0.0.1', t.mpPort);
    raw.sendLine(line);
    await raw.closed;
    assert.deepEqual(raw.drain(), [], line);
  }
});

test('a car can log in with scheme 1 and its messages reach an app', async () => {
  const app = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await app.waitFor('T');
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 1, username: 'demo', password: 'demopass' });
  assert.deepEqual(await car.next(), { code: 'Z', data: '1' });
  car.send('L', '51.5,-0.1');
  assert.deepEqual(await app.waitFor('L'), { code: 'L', data: '51.5,-0.1' });
  await Promise.all([app.close(), car.close()]);
});
