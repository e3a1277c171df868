/**
 * Many honest cars behind one address (a carrier NAT): a car that has logged in stops counting
 * toward the per-address connection cap (src/util/cap-release.ts), and the login throttle gives
 * every right secret its attempt back, so the defaults let far more cars than the cap and the
 * address budget in from one address, all at once. What has not logged in still counts.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from '../../src/server/connection-cap.js';
import { DEFAULT_LOGIN_LIMITS } from '../../src/core/login-throttle.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from './helpers.js';

const NAT = '127.0.0.3';

async function fleet(t: TestContext, cars: number, cap?: number): Promise<{ s: TestServer; ids: string[] }> {
  const s = await startTestServer(cap === undefined ? {} : { maxConnectionsPerAddress: cap });
  t.after(() => s.close());
  const owner = await s.addUser('fleet', 'fleetpass');
  const ids = Array.from({ length: cars }, (_, k) => `NAT${k}`);
  await s.server.store.addVehicles(ids.map((id) => ({ id, ownerId: owner, name: id, carPassword: `pass-${id}` })));
  return { s, ids };
}

const car = (t: TestContext, s: TestServer, id: string): Promise<MpClient> =>
  MpClient.connect({ host: '127.0.0.1', port: s.mpPort, localAddress: NAT, clientType: 'C', vehicleId: id, scheme: 0, password: `pass-${id}` }).then((c) => {
    t.after(() => c.close());
    return c;
  });

/** A raw connection from the NAT address that sends nothing; resolves with whether the server closed it at once. */
function silent(t: TestContext, s: TestServer): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: s.mpPort, localAddress: NAT });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
    t.after(() => socket.destroy());
  });
}

test('cars that logged in do not count toward the cap; connections that have not logged in still do', async (t) => {
  const { s, ids } = await fleet(t, 10, 3);
  // one after another: a login holds a place while it runs (on PostgreSQL it awaits the
  // database, so ten at once would find the three places taken)
  const cars: Awaited<ReturnType<typeof car>>[] = [];
  for (const id of ids) cars.push(await car(t, s, id));
  assert.equal(cars.length, 10, 'ten cars from one address with a cap of 3');
  await eventually(() => (s.server.connections.count(NAT) === 0 ? true : undefined), 'the cars released');
  // what has not logged in is capped as before
  const held = await Promise.all([silent(t, s), silent(t, s), silent(t, s)]);
  await eventually(() => (s.server.connections.count(NAT) === 3 ? true : undefined), 'three counted');
  const extra = await silent(t, s);
  await extra.closed;
  assert.equal(held.filter((h) => h.socket.destroyed).length, 0);
  // a car that leaves is not taken off the count a second time
  cars[0]!.close();
  await eventually(() => (cars[0]!.isClosed ? true : undefined), 'the car closed');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(s.server.connections.count(NAT), 3);
  // a car's new login needs a place while it logs in: free one, and it gets in
  held[0]!.socket.destroy();
  await eventually(() => (s.server.connections.count(NAT) === 2 ? true : undefined), 'a place free');
  await car(t, s, ids[0]!);
  await eventually(() => (s.server.connections.count(NAT) === 2 ? true : undefined), 'released again');
});

test('the defaults: more cars than the cap and the address budget log in from one address at once', async (t) => {
  const n = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS + 44;
  assert.ok(n > DEFAULT_LOGIN_LIMITS.address.burst);
  const { s, ids } = await fleet(t, n);
  const results = await Promise.allSettled(ids.map((id) => car(t, s, id)));
  const refused = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
  assert.deepEqual(refused, []);
  assert.equal(ids.filter((id) => s.server.hub.linkKind(id) === 'v2').length, n, 'every car is connected');
  assert.equal(s.server.connections.count(NAT), 0);
});
