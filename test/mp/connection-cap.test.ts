/**
 * The cap on connections per source address (ConnectionCap): shared by the MP (TCP, TLS), HTTP
 * (HTTP, HTTPS) and MQTT (TCP, WebSocket) listeners; a connection over the cap is closed at once,
 * before the server reads anything of it, while another address still gets in; a closed
 * connection frees its place; one log line per address, not one per refused connection.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { connect as mqttConnect } from 'mqtt';
import { ConnectionCap } from '../../src/server/connection-cap.js';
import { addressKey, isLoopback, normaliseAddress } from '../../src/core/address-key.js';
import { createLogger } from '../../src/util/log.js';
import { startTestServer, TLS_CERT, TLS_KEY, type TestServer } from '../support/server.js';
import { eventually } from './helpers.js';

const CAP = 3;
const HONEST = '127.0.0.2';

interface Conn {
  socket: Socket;
  /** Bytes the server sent. */
  received: () => string;
  /** Resolves when the socket is closed, by either side. */
  closed: Promise<void>;
}

/** A raw TCP connection from `localAddress` (resolves once connected). */
function open(t: TestContext, port: number, localAddress = '127.0.0.1'): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port, localAddress });
    let data = '';
    socket.setEncoding('latin1').on('data', (d: string) => (data += d));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined); // a reset by the server shows as the close
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
    t.after(() => socket.destroy());
  });
}

async function server(t: TestContext): Promise<TestServer> {
  const s = await startTestServer({
    maxConnectionsPerAddress: CAP,
    tlsCert: TLS_CERT,
    tlsKey: TLS_KEY,
    mqtt: { port: 0, tlsPort: null, wsPort: 0 },
  });
  t.after(() => s.close());
  const owner = await s.addUser('demo', 'demopass');
  await s.addVehicle('TESTCAR', owner, 'NETPASS');
  return s;
}

/** Waits until the server counts `n` connections of `address` (it counts them as it accepts them). */
const counted = (s: TestServer, address: string, n: number) =>
  eventually(() => (s.server.connections.count(address) === n ? true : undefined), `${n} connections of ${address} counted`);

/** An HTTP status from `localAddress`, or the error when the connection was closed. */
function httpStatus(port: number, localAddress: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/vehicles', localAddress, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

/** An MP scheme-1 login from `localAddress` over a raw connection: the server's first line. */
async function mpLogin(t: TestContext, port: number, localAddress: string): Promise<string> {
  const c = await open(t, port, localAddress);
  c.socket.write('MP-A 1 demo demopass TESTCAR\r\n');
  await eventually(() => (c.received().includes('\n') ? true : undefined), 'the login reply');
  c.socket.destroy();
  return c.received().split('\r\n', 1)[0]!;
}

/** An MQTT 3.1.1 CONNECT (clean session, user name and password) from `localAddress`: the CONNACK in hex. */
async function mqttLogin(t: TestContext, port: number, localAddress: string): Promise<string> {
  const str = (v: string): Buffer => {
    const b = Buffer.from(v);
    return Buffer.concat([Buffer.from([b.length >> 8, b.length & 255]), b]);
  };
  const body = Buffer.concat([str('MQTT'), Buffer.from([4, 0xc2, 0, 60]), str('cap-test'), str('demo'), str('demopass')]);
  const c = await open(t, port, localAddress);
  c.socket.write(Buffer.concat([Buffer.from([0x10, body.length]), body]));
  await eventually(() => (c.received().length >= 4 ? true : undefined), 'the CONNACK');
  c.socket.destroy();
  return Buffer.from(c.received(), 'latin1').subarray(0, 4).toString('hex');
}

test('cap per address over every listener: the extra connection is closed at once, another address still gets in', async (t) => {
  const s = await server(t);
  const { mp, mpTls, http, https, mqtt, mqttWs } = s.server.ports;

  // the cap is shared: one MP, one HTTP and one MQTT connection from 127.0.0.1
  const held = [await open(t, mp), await open(t, http!), await open(t, mqtt!)];
  await counted(s, '127.0.0.1', CAP);

  // every listener closes a further connection of 127.0.0.1 without a byte
  for (const port of [mp, mpTls!, http!, https!, mqtt!, mqttWs!]) {
    const extra = await open(t, port);
    await extra.closed;
    assert.equal(extra.received(), '', `port ${port}: nothing is answered`);
  }
  assert.equal(typeof (await httpStatus(http!, '127.0.0.1')), 'string', 'an HTTP request of 127.0.0.1 gets no answer');
  const refusedMqtt = mqttConnect(`mqtt://127.0.0.1:${mqtt}`, { username: 'demo', password: 'demopass', reconnectPeriod: 0 });
  await new Promise<void>((resolve) => {
    refusedMqtt.once('connect', () => assert.fail('no MQTT login over the cap'));
    refusedMqtt.once('close', () => resolve());
  });
  refusedMqtt.end(true);
  const tls = tlsConnect({ host: '127.0.0.1', port: mpTls!, rejectUnauthorized: false });
  await new Promise<void>((resolve) => {
    tls.once('secureConnect', () => assert.fail('no TLS handshake over the cap'));
    tls.once('error', () => resolve());
    tls.once('close', () => resolve());
  });
  assert.equal(s.server.connections.count('127.0.0.1'), CAP, 'refused connections are not counted');

  // the held connections still work, and an honest client on another address is served
  assert.equal(held.filter((c) => c.socket.destroyed).length, 0);
  assert.equal(await httpStatus(http!, HONEST), 401, 'HTTP from another address');
  assert.match(await mpLogin(t, mp, HONEST), /^MP-S 1 /, 'MP login from another address');
  assert.equal(await mqttLogin(t, mqtt!, HONEST), '20020000', 'MQTT login from another address: CONNACK accepted');

  // a closed connection frees its place
  held[1]!.socket.destroy();
  await counted(s, '127.0.0.1', CAP - 1);
  assert.match(await mpLogin(t, mp, '127.0.0.1'), /^MP-S 1 /, 'a place is free again');

  // one line per address for all of the refusals
  const lines = s.logs.filter((l) => l.includes('connection limit of an address reached'));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.equal(JSON.parse(lines[0]!).address, '127.0.0.1');
});

test('the default cap is 256; 0 turns the cap off', async (t) => {
  const s = await startTestServer({});
  t.after(() => s.close());
  assert.equal(s.server.connections.max, 256);
  const off = await startTestServer({ maxConnectionsPerAddress: 0 });
  t.after(() => off.close());
  await off.addVehicle('TESTCAR', await off.addUser('demo', 'demopass'), 'NETPASS');
  const conns = await Promise.all(Array.from({ length: 5 }, () => open(t, off.server.ports.mp)));
  assert.match(await mpLogin(t, off.server.ports.mp, '127.0.0.1'), /^MP-/);
  assert.equal(conns.filter((c) => c.socket.destroyed).length, 0);
});

test('addresses: IPv4 one by one (also IPv4-mapped), IPv6 by /64', () => {
  assert.equal(addressKey('192.0.2.1'), '192.0.2.1');
  assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(addressKey('2001:db8:0:1::5'), '2001:db8:0:1::/64');
  assert.equal(addressKey('2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd'), '2001:db8:0:1::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  assert.equal(addressKey(undefined), 'unknown');
});

test('ConnectionCap: counts until close, refuses over the cap, logs once per address per interval', () => {
  const lines: string[] = [];
  const log = createLogger('info', { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream);
  let now = 0;
  const cap = new ConnectionCap(2, log, () => now, 1000);
  const sockets = Array.from({ length: 4 }, () => {
    const listeners: (() => void)[] = [];
    return { remoteAddress: '::ffff:10.0.0.1', on: (_e: string, l: () => void) => listeners.push(l), close: () => listeners.forEach((l) => l()) };
  });
  const admit = (k: number): boolean => cap.admit(sockets[k] as unknown as Socket);
  assert.deepEqual([admit(0), admit(1), admit(2), admit(3)], [true, true, false, false]);
  assert.equal(cap.count('10.0.0.1'), 2);
  assert.equal(lines.length, 1, 'one line for two refusals');
  now = 1000;
  assert.equal(admit(2), false);
  assert.equal(lines.length, 2, 'again after the interval');
  sockets[0]!.close();
  assert.equal(cap.count('10.0.0.1'), 1);
  assert.equal(admit(2), true);
  sockets[1]!.close();
  sockets[2]!.close();
  assert.equal(cap.addresses, 0, 'an address without connections is forgotten');
});

test('addresses as vts shows them, and which are this machine (the /mqapi client-id rule)', () => {
  assert.equal(normaliseAddress('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(normaliseAddress(undefined), 'unknown');
  assert.deepEqual(['127.0.0.1', '127.9.9.9', '::1', '10.0.0.1', '::ffff:127.0.0.1', '2001:db8::1'].map(isLoopback), [true, true, true, false, false, false]);
});
