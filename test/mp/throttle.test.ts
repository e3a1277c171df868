/** Failed logins are throttled per (address, vehicle or user) and per address (docs/compatibility.md). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { digestBase64, randomToken } from '../../src/core/crypto/digest.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({
    loginThrottle: { free: 3, baseDelaySeconds: 0.4, maxDelaySeconds: 1, lockoutAfter: 6, windowSeconds: 600 },
    addressThrottle: { free: 100, lockoutAfter: 1000 },
  });
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
  await t.addVehicle('OTHER', owner, 'OTHERPASS');
});
after(() => t.close());

async function wrongLogin(vehicle: string): Promise<number> {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  const tok = randomToken();
  const started = Date.now();
  raw.sendLine(`MP-C 0 ${tok} ${digestBase64('WRONG', tok)} ${vehicle}`);
  await raw.closed;
  return Date.now() - started;
}

test('after the free failures each attempt waits, then attempts are refused; other vehicles are not affected', async () => {
  for (let k = 0; k < 3; k++) assert.ok((await wrongLogin('TESTCAR')) < 300, 'free failures are answered at once');
  assert.ok((await wrongLogin('TESTCAR')) >= 350, 'the 4th failure waited');
  // a good login for the same vehicle from the same address is delayed too, but succeeds
  const started = Date.now();
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  assert.ok(Date.now() - started >= 350);
  await car.close();
  // another vehicle from the same address is unaffected
  const other = Date.now();
  const app = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'OTHER', scheme: 0, password: 'OTHERPASS' });
  assert.ok(Date.now() - other < 300);
  await app.close();
  // beyond lockoutAfter failures even the right password is refused
  await wrongLogin('TESTCAR');
  await wrongLogin('TESTCAR');
  await assert.rejects(
    MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' }),
    { code: 'MP_LOGIN_CLOSED' },
  );
  assert.ok(t.logs.some((l) => l.includes('too many failed logins')));
});
