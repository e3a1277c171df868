/**
 * Bad input closes only the connection that sent it, with a log line that holds no secret, and
 * the server goes on serving everyone else (issue: "Nothing a client sends can crash the server").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { digestBase64, randomToken } from '../../src/core/crypto/digest.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { rawConnect } from '../../src/mp-client/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let watcher: MpClient;
before(async () => {
  t = await startTestServer({ limits: { maxWriteBuffer: 256 * 1024 } });
  const owner = await t.addUser('demo', 'demopass');
  await t.addVehicle('TESTCAR', owner, 'NETPASS');
  await t.addVehicle('OTHER', owner, 'OTHERPASS');
  // a long-lived, well-behaved app that must never notice anything
  watcher = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'OTHER', scheme: 0, password: 'OTHERPASS' });
  await watcher.waitFor('T');
});
after(async () => {
  await watcher.close();
  await t.close();
});

/** A fresh, well-behaved car and app still work, and the long-lived app is still connected. */
async function serverStillServes(): Promise<void> {
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await car.next();
  car.send('A');
  assert.deepEqual(await car.waitFor('a'), { code: 'a', data: '' });
  await car.close();
  watcher.send('A');
  assert.deepEqual(await watcher.waitFor('a'), { code: 'a', data: '' });
}

async function expectClosed(send: (raw: Awaited<ReturnType<typeof rawConnect>>) => void): Promise<void> {
  const raw = await rawConnect('127.0.0.1', t.mpPort);
  send(raw);
  const info = await raw.closed;
  assert.equal(info.byClient, false, 'the server closed it');
}

async function loggedIn(): Promise<MpClient> {
  const c = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await c.waitFor('T');
  return c;
}

test('a garbage first line', async () => {
  await expectClosed((raw) => raw.sendLine('GARBAGE LINE WITH NO MEANING'));
  await serverStillServes();
});

test('binary garbage with NUL bytes and invalid UTF-8', async () => {
  await expectClosed((raw) => raw.write(Buffer.from([0, 255, 254, 10, 13, 0xc3, 0x28, 10])));
  await serverStillServes();
});

test('a wrong digest and an unknown vehicle', async () => {
  const tok = randomToken();
  await expectClosed((raw) => raw.sendLine(`MP-C 0 ${tok} ${digestBase64('WRONG', tok)} TESTCAR`));
  await expectClosed((raw) => raw.sendLine(`MP-C 0 ${tok} ${digestBase64('NETPASS', tok)} NOSUCH`));
  await expectClosed((raw) => raw.sendLine(`MP-C 0 ${tok} not-base64-at-all!! TESTCAR`));
  await serverStillServes();
});

test('an undecodable line after login (not base64)', async () => {
  const c = await loggedIn();
  c.sendRaw('this is *not* base64 %%%');
  await c.closed;
  await serverStillServes();
});

test('a line that decrypts to something that is not an MP-0 message', async () => {
  const c = await loggedIn();
  c.sendPlaintext('HELLO WORLD');
  await c.closed;
  await serverStillServes();
});

test('a line over 16 KiB, before and after login, and on a WebSocket', async () => {
  await expectClosed((raw) => raw.write('MP-A ' + 'x'.repeat(17 * 1024)));
  await expectClosed((raw) => raw.sendLine('x'.repeat(17 * 1024)));
  const c = await loggedIn();
  c.send('S', 'y'.repeat(16 * 1024));
  await c.closed;
  const ws = new WebSocket(`ws://127.0.0.1:${t.mpPort}/apiv2`);
  await new Promise((r) => ws.once('open', r));
  ws.send('z'.repeat(20 * 1024));
  const code = await new Promise<number>((r) => ws.once('close', (c2) => r(c2)));
  assert.equal(code, 1009);
  await serverStillServes();
});

test('a line just under the limit is accepted', async () => {
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await car.next();
  car.send('X', 'q'.repeat(12 * 1024 - 100)); // base64 of it stays just under 16 KiB
  car.send('A');
  assert.deepEqual(await car.waitFor('a'), { code: 'a', data: '' });
  await car.close();
});

test('a flood of lines before the login completes', async () => {
  await expectClosed((raw) => {
    raw.sendLine('MP-A 1 demo demopass TESTCAR');
    for (let k = 0; k < 500; k++) raw.sendLine('A');
  });
  await serverStillServes();
});

test('a peer that vanishes mid-login or mid-line', async () => {
  for (const payload of ['MP-A 1 demo demopass TESTCAR\r\n', 'MP-A 0 abc', `MP-C 0 ${randomToken()}`]) {
    const s = connect({ host: '127.0.0.1', port: t.mpPort });
    await new Promise((r) => s.once('connect', r));
    s.write(payload);
    s.destroy();
  }
  await new Promise((r) => setTimeout(r, 100));
  await serverStillServes();
});

test('malformed messages inside a valid session are ignored, not fatal', async () => {
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await car.next();
  for (const [code, data] of [
    ['h', ''],
    ['H', 'only,two'],
    ['E', ''],
    ['E', 'X'],
    ['g', ''],
    ['c', ''],
    ['c', '1,0,x,y'],
    ['p', 'a,b'],
    ['P', ''],
    ['G', ''],
  ] as const) {
    car.send(code, data);
  }
  car.send('A');
  await car.waitFor('a');
  assert.equal(car.isClosed, false);
  await car.close();
  await serverStillServes();
});

test('a client that does not read is dropped once too much waits for it; others are unaffected', async () => {
  // an app that never reads: its socket is paused right after login
  const lazy = connect({ host: '127.0.0.1', port: t.mpPort });
  await new Promise((r) => lazy.once('connect', r));
  lazy.on('error', () => {});
  lazy.write('MP-B 1 demo demopass TESTCAR\r\n');
  await new Promise((r) => lazy.once('data', r));
  lazy.pause();
  const lazyClosed = new Promise((r) => lazy.once('close', r));
  const reader = await loggedIn();
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await car.next();
  const data = 'w'.repeat(8000);
  // ~24 MB towards the lazy client, in rounds the reading app can keep up with
  for (let round = 0; round < 150 && !t.logs.some((l) => l.includes('peer does not read')); round++) {
    for (let k = 0; k < 20; k++) car.send('X', data);
    car.send('A');
    await car.waitFor('a', 10_000);
    reader.drain();
  }
  assert.ok(t.logs.some((l) => l.includes('peer does not read')), 'the lazy client was dropped');
  lazy.resume(); // read what the kernel buffered, then see the end the server sent
  await lazyClosed;
  reader.send('A');
  await reader.waitFor('a', 10_000);
  await Promise.all([reader.close(), car.close()]);
  lazy.destroy();
  await serverStillServes();
});

test('a car message holding a NUL character is stored and forwarded as sent, on every store, and the other cars\' h records are still acknowledged', async () => {
  const car = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  const other = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'C', vehicleId: 'OTHER', scheme: 0, password: 'OTHERPASS' });
  try {
    const payload = '80,K,220,32,charging,standard\u0000,280';
    for (let k = 1; k <= 5; k++) {
      car.send('S', payload);
      other.send('h', `${k},0,*-LOG-Test,${k},3600,record ${k}`);
      assert.deepEqual(await other.waitFor('h'), { code: 'h', data: String(k) });
    }
    // a new app gets the stored message as it was sent
    const app = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: 'A', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
    const stored = [];
    for (let m = await app.next(); m.code !== 'T'; m = await app.next()) stored.push(m);
    await app.close();
    assert.deepEqual(stored.filter((m) => m.code === 'S').map((m) => m.data), [payload]);
    assert.deepEqual(t.logs.filter((l) => l.includes('"level":50')), [], 'nothing failed');
  } finally {
    await car.close();
    await other.close();
  }
});
