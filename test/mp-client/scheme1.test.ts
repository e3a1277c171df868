/** MpClient with protection scheme 1 (username/password, bare lines; docs/protocol/mp.md §5). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient, isMpClientError, type MpClientOptions } from '../../src/mp-client/mp-client.js';
import { startFakeServer, type FakeServerOptions } from './fake-server.js';

async function setup(t: { after(fn: () => Promise<unknown> | void): void }, fake: FakeServerOptions = {}) {
  const server = await startFakeServer({ scheme: 1, ...fake });
  t.after(() => server.close());
  const connect = async (o: Partial<MpClientOptions> = {}): Promise<MpClient> => {
    const client = await MpClient.connect({
      host: '127.0.0.1',
      port: server.port,
      clientType: 'A',
      vehicleId: 'DEMO1',
      scheme: 1,
      username: 'demo',
      password: 'demopass',
      ...o,
    } as MpClientOptions);
    t.after(() => client.close());
    return client;
  };
  return { server, connect };
}

test('login parses MP-S 1 <user> <vehicle> <vehicles…> (transcripts §8a)', async (t) => {
  const { server, connect } = await setup(t, { greet: ['Z0', 'T86'] });
  const c = await connect();
  assert.equal(server.welcomes[0], 'MP-A 1 demo demopass DEMO1');
  assert.equal(c.scheme, 1);
  assert.equal(c.username, 'demo');
  assert.equal(c.vehicleId, 'DEMO1');
  assert.deepEqual(c.vehicles, ['DEMO1', 'TESTCAR']);
  assert.equal(c.clientToken, undefined);
  assert.equal(c.sessionKey, undefined);
  assert.deepEqual(await c.next(), { code: 'Z', data: '0' });
  assert.deepEqual(await c.next(), { code: 'T', data: '86' });
});

test('vehicle `*` takes the server’s choice', async (t) => {
  const { server, connect } = await setup(t);
  const c = await connect({ vehicleId: '*' });
  assert.equal(server.welcomes[0], 'MP-A 1 demo demopass *');
  assert.equal(c.vehicleId, 'DEMO1');
});

test('messages are sent and received as bare lines, CR and commas preserved', async (t) => {
  const { server, connect } = await setup(t);
  const c = await connect();
  c.send('A');
  c.send('C', '31');
  c.send('c', '7,0,a\rb,c');
  assert.deepEqual(await c.next(), { code: 'A', data: '' });
  assert.deepEqual(await c.next(), { code: 'C', data: '31' });
  assert.deepEqual(await c.next(), { code: 'c', data: '7,0,a\rb,c' });
  assert.deepEqual(server.rxLines, ['A', 'C31', 'c7,0,a\rb,c']);
  assert.deepEqual(server.txLines, ['A', 'C31', 'c7,0,a\rb,c']);
});

test('an empty line from the server is a protocol error', async (t) => {
  const { connect } = await setup(t, {
    onMessage: (_m, s) => {
      s.sendLine('');
      s.send('a');
    },
  });
  const c = await connect();
  c.send('A');
  assert.deepEqual(await c.next(), { code: 'a', data: '' });
  assert.deepEqual(c.protocolErrors, [{ line: '', reason: 'empty-line' }]);
});

test('wrong password: MP_LOGIN_CLOSED (transcripts §8a "Scheme 1 wrong password")', async (t) => {
  const { connect } = await setup(t);
  await assert.rejects(connect({ password: 'wrong' }), (err: unknown) => isMpClientError(err, 'MP_LOGIN_CLOSED'));
});

test('a scheme-0 reply to a scheme-1 login is rejected', async (t) => {
  const { connect } = await setup(t, { login: () => 'MP-S 0 abcdefghijklmnopqrstuv iLI5YsbubZz2pvXTjR9l9A==' });
  await assert.rejects(connect(), (err: unknown) => isMpClientError(err, 'MP_LOGIN_REJECTED'));
});

test('a reply without a vehicle is rejected', async (t) => {
  const { connect } = await setup(t, { login: () => 'MP-S 1 demo' });
  await assert.rejects(connect(), (err: unknown) => isMpClientError(err, 'MP_LOGIN_REJECTED'));
});
