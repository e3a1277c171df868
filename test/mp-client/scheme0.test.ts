/** MpClient over TCP with protection scheme 0, against the in-test fake server. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { MpClient, isMpClientError, type MpClientOptions, type MpMessage } from '../../src/mp-client/mp-client.js';
import { handshakeVector } from '../fixtures/load.js';
import { startFakeServer, type FakeServerOptions } from './fake-server.js';

const V = handshakeVector().scheme0;

async function setup(t: { after(fn: () => Promise<unknown> | void): void }, fake: FakeServerOptions = {}) {
  const server = await startFakeServer(fake);
  t.after(() => server.close());
  const connect = async (o: Partial<MpClientOptions> = {}): Promise<MpClient> => {
    const client = await MpClient.connect({
      host: '127.0.0.1',
      port: server.port,
      clientType: 'A',
      vehicleId: 'DEMO1',
      scheme: 0,
      password: 'NETPASS',
      ...o,
    } as MpClientOptions);
    t.after(() => client.close());
    return client;
  };
  return { server, connect };
}

test('login, send and receive (echo)', async (t) => {
  const { server, connect } = await setup(t);
  const c = await connect();
  assert.equal(c.scheme, 0);
  assert.equal(c.transport, 'tcp');
  assert.equal(c.vehicleId, 'DEMO1');
  assert.match(c.clientToken!, /^[A-Za-z0-9+/]{22}$/);
  assert.match(c.serverToken!, /^[A-Za-z0-9+/]{22}$/);
  assert.equal(c.sessionKey!.length, 16);
  assert.deepEqual(c.vehicles, []);
  c.send('A');
  c.send('S', '80,K,220,70,charging,standard,280,270');
  assert.deepEqual(await c.next(), { code: 'A', data: '' });
  assert.deepEqual(await c.next(), { code: 'S', data: '80,K,220,70,charging,standard,280,270' });
  assert.deepEqual(server.rxMessages, [
    { code: 'A', data: '' },
    { code: 'S', data: '80,K,220,70,charging,standard,280,270' },
  ]);
  // The welcome line: padded digest by default.
  assert.match(server.welcomes[0]!, /^MP-A 0 [A-Za-z0-9+/]{22} [A-Za-z0-9+/]{22}== DEMO1$/);
});

test('the §4.6 vector end to end: fixed tokens give the golden wire lines', async (t) => {
  const { server, connect } = await setup(t, {
    cars: { TESTCAR: V.carPassword },
    serverToken: V.serverToken,
    greet: ['Z0'],
    onMessage: (m, s) => {
      if (m.code === 'A') s.send('a');
    },
  });
  const car = await connect({ clientType: 'C', vehicleId: V.vehicleId, password: V.carPassword, clientToken: V.clientToken });
  assert.equal(server.welcomes[0], V.clientWelcomeLine);
  assert.equal(car.sessionKey!.toString('hex'), V.sessionKeyHex);
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' }); // row 1
  car.send('A'); // row 2
  assert.deepEqual(await car.next(), { code: 'a', data: '' }); // row 3
  car.send('P', 'IHello world'); // row 4
  await waitUntil(() => server.rxLines.length === 2);
  assert.deepEqual(server.txLines, [V.exchange[0]!.wire, V.exchange[2]!.wire]);
  assert.deepEqual(server.rxLines, [V.exchange[1]!.wire, V.exchange[3]!.wire]);
});

test('unpadded digest style', async (t) => {
  const { server, connect } = await setup(t);
  await connect({ digestStyle: 'unpadded', clientToken: V.clientToken });
  assert.equal(server.welcomes[0], `MP-A 0 ${V.clientToken} ${V.clientDigestUnpadded} DEMO1`);
});

test('welcomeLine() shows what is sent; the vehicle id is sent as given', async (t) => {
  const { server, connect } = await setup(t);
  const c = await connect({ vehicleId: 'demo1', clientType: 'B', clientToken: V.clientToken, password: 'NETPASS' });
  assert.equal(server.welcomes[0], c.welcomeLine());
  assert.ok(c.welcomeLine().endsWith(' demo1'));
  assert.equal(c.vehicleId, 'DEMO1');
});

test('messages sent in the same TCP write as the reply are not lost', async (t) => {
  const { connect } = await setup(t, { greet: ['Z0', 'S80,K,220', 'L22.274165,114.185715', 'T46'] });
  const c = await connect();
  assert.deepEqual(await c.collect(50), [
    { code: 'Z', data: '0' },
    { code: 'S', data: '80,K,220' },
    { code: 'L', data: '22.274165,114.185715' },
    { code: 'T', data: '46' },
  ]);
});

test('lines split across TCP chunks and LF-only line ends', async (t) => {
  const { connect } = await setup(t, {
    lineEnding: '\n',
    onMessage: (m, s) => {
      const line = s.encode(m.code, m.data);
      s.writeRaw(line.slice(0, 3));
      setTimeout(() => s.writeRaw(line.slice(3) + '\n'), 30);
    },
    greet: ['Z1'],
  });
  const c = await connect();
  assert.deepEqual(await c.next(), { code: 'Z', data: '1' });
  c.send('c', '7,0,line 1\rline 2');
  assert.deepEqual(await c.next(), { code: 'c', data: '7,0,line 1\rline 2' });
});

test('data with CR and commas round-trips; the message event sees every message', async (t) => {
  const { connect } = await setup(t);
  const c = await connect();
  const seen: MpMessage[] = [];
  c.on('message', (m) => seen.push(m));
  const lines = ['7,0,a\rb\r', 'x,,y,', ''];
  for (const d of lines) c.send('c', d);
  for (const d of lines) assert.deepEqual(await c.next(), { code: 'c', data: d });
  assert.equal(seen.length, 3);
});

test('waitFor discards earlier messages; accepts a code or a predicate', async (t) => {
  const { connect } = await setup(t, { greet: ['Z0', 'S1', 'L2', 'T3', 'F4'] });
  const c = await connect();
  assert.deepEqual(await c.waitFor('T'), { code: 'T', data: '3' });
  assert.deepEqual(await c.waitFor((m) => m.data === '4'), { code: 'F', data: '4' });
  assert.equal(c.buffered, 0);
});

test('waitFor timeout reports the skipped messages', async (t) => {
  const { connect } = await setup(t, { greet: ['Z0', 'T3'] });
  const c = await connect();
  await assert.rejects(c.waitFor('X', 100), (err: unknown) => {
    assert.ok(isMpClientError(err, 'MP_TIMEOUT'));
    assert.match(err.message, /Z0 \| T3/);
    return true;
  });
});

test('next() times out with MP_TIMEOUT, and later messages still arrive', async (t) => {
  const { connect } = await setup(t);
  const c = await connect();
  await assert.rejects(c.next(50), (err: unknown) => isMpClientError(err, 'MP_TIMEOUT'));
  c.send('A');
  assert.deepEqual(await c.next(), { code: 'A', data: '' });
});

test('concurrent next() calls are served in order', async (t) => {
  const { connect } = await setup(t);
  const c = await connect();
  const p = [c.next(), c.next(), c.next()];
  c.send('A', '1');
  c.send('A', '2');
  c.send('A', '3');
  assert.deepEqual((await Promise.all(p)).map((m) => m.data), ['1', '2', '3']);
});

test('async iteration ends when the server closes the connection', async (t) => {
  const { connect } = await setup(t, {
    greet: ['Z0', 'T1'],
    onMessage: (m, s) => {
      if (m.code === 'Q') s.close();
    },
  });
  const c = await connect();
  const got: string[] = [];
  setTimeout(() => c.send('Q'), 20);
  for await (const m of c) got.push(m.code + m.data);
  assert.deepEqual(got, ['Z0', 'T1']);
  assert.equal(c.isClosed, true);
});

test('closed resolves when the server closes; next() then rejects with MP_CLOSED; send throws', async (t) => {
  const { connect } = await setup(t, {
    onMessage: (m, s) => {
      s.send('a');
      s.close();
    },
  });
  const c = await connect();
  c.send('A');
  const info = await c.closed;
  assert.equal(info.byClient, false);
  assert.deepEqual(await c.next(), { code: 'a', data: '' }); // buffered before the close
  await assert.rejects(c.next(), (err: unknown) => isMpClientError(err, 'MP_CLOSED'));
  assert.throws(() => c.send('A'), (err: unknown) => isMpClientError(err, 'MP_CLOSED'));
});

test('a pending next() rejects with MP_CLOSED when the server closes', async (t) => {
  const { connect } = await setup(t, { onMessage: (_m, s) => s.close() });
  const c = await connect();
  const pending = c.next(5000);
  c.send('Q');
  await assert.rejects(pending, (err: unknown) => isMpClientError(err, 'MP_CLOSED'));
});

test('collect returns early when the connection closes', async (t) => {
  const { connect } = await setup(t, {
    greet: ['Z0'],
    onMessage: (_m, s) => {
      s.send('x', 'bye');
      s.close();
    },
  });
  const c = await connect();
  c.send('Q');
  const started = Date.now();
  assert.deepEqual(await c.collect(3000), [
    { code: 'Z', data: '0' },
    { code: 'x', data: 'bye' },
  ]);
  assert.ok(Date.now() - started < 2000);
});

test('close() by the client', async (t) => {
  const { connect } = await setup(t);
  const c = await connect();
  const info = await c.close();
  assert.equal(info.byClient, true);
  assert.equal(c.isClosed, true);
  assert.deepEqual(await c.closed, info);
  await c.close(); // idempotent
});

test('sendRaw sends an unencrypted line; the fake server (like REF) then closes', async (t) => {
  const { server, connect } = await setup(t);
  const c = await connect();
  c.sendRaw('MP-0 A');
  await c.closed;
  assert.deepEqual(server.badLines, ['MP-0 A']);
});

test('sendPlaintext encrypts arbitrary text', async (t) => {
  const { server, connect } = await setup(t);
  const c = await connect();
  c.sendPlaintext('not an MP-0 message');
  await c.closed;
  assert.equal(server.badLines.length, 1);
  assert.notEqual(server.badLines[0], 'not an MP-0 message');
});

test('undecodable lines from the server are recorded as protocol errors, not queued', async (t) => {
  const { connect } = await setup(t, {
    onMessage: (m, s) => {
      s.sendLine('!!! not base64');
      s.sendLine(s.encodePlain('MP-0')); // decrypts, but has no code
      s.send('a');
    },
  });
  const c = await connect();
  const errors: string[] = [];
  c.on('protocolError', (e) => errors.push(e.reason));
  c.send('A');
  assert.deepEqual(await c.next(), { code: 'a', data: '' });
  assert.deepEqual(errors, ['not-base64', 'not-mp0']);
  assert.equal(c.protocolErrors.length, 2);
});

test('autoPong answers A with a', async (t) => {
  const { server, connect } = await setup(t, { greet: ['AFA'], onMessage: () => undefined });
  const c = await connect({ clientType: 'C', autoPong: true });
  assert.deepEqual(await c.next(), { code: 'A', data: 'FA' });
  await waitUntil(() => server.rxMessages.length === 1);
  assert.deepEqual(server.rxMessages, [{ code: 'a', data: '' }]);
});

test('stats count lines and bytes (+2 per line) including the welcome exchange', async (t) => {
  const { connect } = await setup(t);
  const c = await connect({ clientToken: V.clientToken });
  c.send('A');
  await c.next();
  assert.equal(c.stats.linesSent, 2);
  assert.equal(c.stats.linesReceived, 2);
  assert.equal(c.stats.bytesSent, `MP-A 0 ${V.clientToken} ${V.clientDigestPadded} DEMO1`.length + 2 + '53qce+M0'.length + 2);
});

// ---- login failures ---------------------------------------------------------------------------

test('wrong password: the server closes → MP_LOGIN_CLOSED', async (t) => {
  const { connect } = await setup(t);
  await assert.rejects(connect({ password: 'WRONG' }), (err: unknown) => isMpClientError(err, 'MP_LOGIN_CLOSED'));
});

test('unknown vehicle: MP_LOGIN_CLOSED', async (t) => {
  const { connect } = await setup(t);
  await assert.rejects(connect({ vehicleId: 'NOSUCHCAR', clientType: 'C' }), (err: unknown) =>
    isMpClientError(err, 'MP_LOGIN_CLOSED'),
  );
});

test('no reply: MP_LOGIN_TIMEOUT after timeoutMs', async (t) => {
  const { connect } = await setup(t, { login: 'silent' });
  const started = Date.now();
  await assert.rejects(connect({ timeoutMs: 150 }), (err: unknown) => isMpClientError(err, 'MP_LOGIN_TIMEOUT'));
  assert.ok(Date.now() - started >= 140);
});

test('connection refused: MP_CONNECT_FAILED', async () => {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  await assert.rejects(
    MpClient.connect({ host: '127.0.0.1', port, clientType: 'A', vehicleId: 'X', scheme: 0, password: 'p' }),
    (err: unknown) => isMpClientError(err, 'MP_CONNECT_FAILED'),
  );
});

for (const [name, mutate] of [
  ['an unpadded server digest', (r: string) => r.replace(/=+$/, '')],
  ['trailing text after the digest', (r: string) => `${r} extra`],
  ['a trailing blank', (r: string) => `${r} `],
  ['two blanks between fields', (r: string) => r.replace('MP-S 0 ', 'MP-S 0  ')],
  ['a wrong digest', (r: string) => r.replace(/ \S+$/, ' AAAAAAAAAAAAAAAAAAAAAA==')],
  ['a scheme-1 reply', () => 'MP-S 1 demo DEMO1 DEMO1'],
  ['garbage', () => 'hello'],
  ['an encrypted line', () => '53qce+MvMw=='],
] as const) {
  test(`a reply with ${name} is rejected: MP_LOGIN_REJECTED`, async (t) => {
    const { connect } = await setup(t, { login: mutate });
    await assert.rejects(connect(), (err: unknown) => isMpClientError(err, 'MP_LOGIN_REJECTED'));
  });
}

test('a server token equal to the client token is rejected (§4.2 step 4)', async (t) => {
  const { connect } = await setup(t, { serverToken: V.clientToken });
  await assert.rejects(connect({ clientToken: V.clientToken }), (err: unknown) => {
    assert.ok(isMpClientError(err, 'MP_LOGIN_REJECTED'));
    assert.match(err.message, /token/);
    return true;
  });
});

async function waitUntil(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
