/** Scheme-0 logins (docs/protocol/mp.md §3, §4): the handshake as modules and the Perl clients do it. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { digestBase64, hmacMd5, randomToken, sessionKey } from '../../src/core/crypto/digest.js';
import { MpCipher } from '../../src/core/crypto/mp-cipher.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
  await t.addVehicle('PEER1', owner, 'PEERPASS', 'SERVER');
});
after(() => t.close());

const connect = (opts: Partial<Parameters<typeof MpClient.connect>[0]> = {}) =>
  MpClient.connect({
    host: '127.0.0.1',
    port: t.mpPort,
    clientType: 'A',
    vehicleId: 'TESTCAR',
    scheme: 0,
    password: 'NETPASS',
    ...opts,
  } as Parameters<typeof MpClient.connect>[0]);

test('the reply is exactly MP-S 0 <22-char token> <padded digest of that token>, in clear', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  const token = '0123456789ABCDEFGHIJKL';
  raw.sendLine(`MP-A 0 ${token} ${digestBase64('NETPASS', token)} TESTCAR`);
  const reply = await raw.next();
  const m = /^MP-S 0 ([A-Za-z0-9+/]{22}) ([A-Za-z0-9+/]{22}==)$/.exec(reply);
  assert.ok(m, `unexpected reply ${JSON.stringify(reply)}`);
  assert.notEqual(m[1], token);
  assert.equal(m[2], hmacMd5('NETPASS', m[1]!).toString('base64'));
  // the first message after it is encrypted with the session key: Z0 (car offline)
  const cipher = new MpCipher(sessionKey('NETPASS', m[1]!, token));
  const first = cipher.decrypt(await raw.next());
  assert.equal(first, 'MP-0 Z0');
  await raw.close();
});

test('padded and unpadded client digests are both accepted', async () => {
  for (const digestStyle of ['padded', 'unpadded'] as const) {
    const c = await connect({ digestStyle });
    assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
    await c.close();
  }
});

test('vehicle ids are upper-cased and extra tokens after the id are ignored', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  const token = randomToken();
  raw.sendLine(`MP-B 0 ${token} ${digestBase64('NETPASS', token)} testcar  some trailing words`);
  assert.match(await raw.next(), /^MP-S 0 \S{22} \S{22}==$/);
  await raw.close();
});

test('car, app and batch logins all succeed; the car learns the app count', async () => {
  const app = await connect({ clientType: 'A' });
  const batch = await connect({ clientType: 'B' });
  const car = await connect({ clientType: 'C' });
  assert.deepEqual(await car.next(), { code: 'Z', data: '1' });
  await Promise.all([app.close(), batch.close(), car.close()]);
});

test('a wrong password, an unknown vehicle, an unknown client type and scheme 7 are closed silently', async () => {
  const lines = [
    (tok: string) => `MP-A 0 ${tok} ${digestBase64('WRONG', tok)} TESTCAR`,
    (tok: string) => `MP-C 0 ${tok} ${digestBase64('NETPASS', tok)} NOSUCHCAR`,
    (tok: string) => `MP-X 0 ${tok} ${digestBase64('NETPASS', tok)} TESTCAR`,
    () => 'MP-A 7 a b TESTCAR',
    () => 'hello',
  ];
  for (const make of lines) {
    const raw = await rawConnect('127.0.0.1', t.mpPort);
    raw.sendLine(make(randomToken()));
    const info = await raw.closed;
    assert.equal(info.byClient, false);
    assert.deepEqual(raw.drain(), [], 'no reply text before the close');
  }
});

test('a peer server (S) logs in only for a vehicle of type SERVER', async () => {
  const peer = await connect({ clientType: 'S', vehicleId: 'PEER1', password: 'PEERPASS' });
  peer.send('A');
  assert.deepEqual(await peer.next(), { code: 'a', data: '' });
  await peer.close();
  await assert.rejects(connect({ clientType: 'S' }), { code: 'MP_LOGIN_CLOSED' });
});

test('the log of a failed login names the reason but no secret', async () => {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  const token = randomToken();
  const digest = digestBase64('WRONG', token);
  raw.sendLine(`MP-A 0 ${token} ${digest} TESTCAR`);
  await raw.closed;
  const line = t.logs.find((l) => l.includes('incorrect client authentication'));
  assert.ok(line, 'a log line about the failure');
  for (const secret of ['NETPASS', 'WRONG', digest]) assert.ok(!t.logs.join('\n').includes(secret), secret);
});
