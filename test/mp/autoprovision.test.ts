/** Auto-provisioning `AP-C` (docs/protocol/mp.md §7), which REF has broken (docs/compatibility.md #11). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
  // the vector of docs/protocol/mp.md §7
  await t.server.store.putAutoProvision({
    key: 'VIN0123456789ABCD',
    serverToken: 'QRSTUVWXYZabcdefghijkl',
    serverDigest: 'jKkwybi5XvzB4pWe8D2y7g',
    message: '6xYikTZbcIBstfyuxKJpjwcoDHk=',
    ownerId: owner,
  });
});
after(() => t.close());

test('a known key gets AP-S 0 <stoken> <sdigest> <msg>; a repeat gets AP-X', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  raw.sendLine('AP-C 0 VIN0123456789ABCD');
  assert.equal(await raw.next(), 'AP-S 0 QRSTUVWXYZabcdefghijkl jKkwybi5XvzB4pWe8D2y7g 6xYikTZbcIBstfyuxKJpjwcoDHk=');
  raw.sendLine('AP-C 0 VIN0123456789ABCD');
  assert.equal(await raw.next(), 'AP-X');
  await raw.close();
});

test('an unknown key gets AP-X; another scheme is closed', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  raw.sendLine('AP-C 0 NOSUCHKEY');
  assert.equal(await raw.next(), 'AP-X');
  await raw.close();
  const other = await rawConnect('127.0.0.1', t.mpPort);
  other.sendLine('AP-C 1 VIN0123456789ABCD');
  await other.closed;
  assert.deepEqual(other.drain(), []);
});

test('an MP login may follow auto-provisioning on the same connection (over a WebSocket too)', async () => {
  // the MpClient sends its welcome first, so drive the AP-C by hand on a raw connection
  const raw = await rawConnect('127.0.0.1', t.mpPort, { transport: 'ws' });
  raw.sendLine('AP-C 0 VIN0123456789ABCD');
  assert.match(await raw.next(), /^AP-S 0 /);
  raw.sendLine('MP-B 1 demo demopass TESTCAR');
  assert.equal(await raw.next(), 'MP-S 1 demo TESTCAR TESTCAR');
  assert.equal(await raw.next(), 'Z0');
  await raw.close();
  const c = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await c.close();
});
