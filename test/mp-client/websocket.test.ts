/** MpClient over a WebSocket (`ws://host:port/apiv2`, one line per text frame; docs/protocol/mp.md §6). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient, isMpClientError, rawConnect, type MpClientOptions } from '../../src/mp-client/mp-client.js';
import { handshakeVector } from '../fixtures/load.js';
import { startFakeServer, type FakeServerOptions } from './fake-server.js';

const V = handshakeVector().scheme0;

async function setup(t: { after(fn: () => Promise<unknown> | void): void }, fake: FakeServerOptions = {}) {
  const server = await startFakeServer({ transport: 'ws', ...fake });
  t.after(() => server.close());
  const connect = async (o: Partial<MpClientOptions> = {}): Promise<MpClient> => {
    const client = await MpClient.connect({
      host: '127.0.0.1',
      port: server.port,
      transport: 'ws',
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

test('scheme 0 over ws: frames carry one line without CR LF', async (t) => {
  const { server, connect } = await setup(t, { greet: ['Z0', 'T3'] });
  const c = await connect();
  assert.equal(c.transport, 'ws');
  assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
  assert.deepEqual(await c.next(), { code: 'T', data: '3' });
  c.send('A');
  c.send('c', '7,0,a\rb');
  assert.deepEqual(await c.next(), { code: 'A', data: '' });
  assert.deepEqual(await c.next(), { code: 'c', data: '7,0,a\rb' });
  assert.equal(server.rxFrames.length, 3);
  for (const f of server.rxFrames) assert.doesNotMatch(f, /[\r\n]/);
  assert.match(server.rxFrames[0]!, /^MP-A 0 \S{22} \S{24} DEMO1$/);
});

test('the §4.6 vector over ws', async (t) => {
  const { server, connect } = await setup(t, {
    cars: { TESTCAR: V.carPassword },
    serverToken: V.serverToken,
    greet: ['Z0'],
    onMessage: (m, s) => {
      if (m.code === 'A') s.send('a');
    },
  });
  const car = await connect({ clientType: 'C', vehicleId: V.vehicleId, password: V.carPassword, clientToken: V.clientToken });
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  car.send('A');
  assert.deepEqual(await car.next(), { code: 'a', data: '' });
  car.send('P', 'IHello world');
  await car.collect(50);
  assert.deepEqual(server.rxFrames, [V.clientWelcomeLine, V.exchange[1]!.wire, V.exchange[3]!.wire]);
  assert.deepEqual(server.txLines, [V.exchange[0]!.wire, V.exchange[2]!.wire]);
});

test('scheme 1 over ws', async (t) => {
  const { server, connect } = await setup(t, { scheme: 1, greet: ['Z1'] });
  const c = await connect({ scheme: 1, username: 'demo', password: 'demopass', vehicleId: '*' } as Partial<MpClientOptions>);
  assert.deepEqual(c.vehicles, ['DEMO1', 'TESTCAR']);
  assert.deepEqual(await c.next(), { code: 'Z', data: '1' });
  c.send('C', '31');
  assert.deepEqual(await c.next(), { code: 'C', data: '31' });
  assert.deepEqual(server.rxFrames, ['MP-A 1 demo demopass *', 'C31']);
});

test('login failure over ws: MP_LOGIN_CLOSED', async (t) => {
  const { connect } = await setup(t);
  await assert.rejects(connect({ password: 'WRONG' }), (err: unknown) => isMpClientError(err, 'MP_LOGIN_CLOSED'));
});

test('server close over ws resolves closed', async (t) => {
  const { connect } = await setup(t, { onMessage: (_m, s) => s.close() });
  const c = await connect();
  c.send('Q');
  const info = await c.closed;
  assert.equal(info.byClient, false);
});

test('client close over ws', async (t) => {
  const { connect } = await setup(t);
  const c = await connect();
  assert.equal((await c.close()).byClient, true);
});

test('a wrong path fails to connect: MP_CONNECT_FAILED', async (t) => {
  const { connect } = await setup(t);
  await assert.rejects(connect({ wsPath: '/nope' }), (err: unknown) => isMpClientError(err, 'MP_CONNECT_FAILED'));
});

test('rawConnect over ws: one frame per sendLine', async (t) => {
  const { server } = await setup(t);
  const raw = await rawConnect('127.0.0.1', server.port, { transport: 'ws' });
  raw.sendLine('hello');
  await raw.closed;
  assert.deepEqual(server.rxFrames, ['hello']);
});
