/**
 * The hub without sockets: fake peers record what the hub sends them (a real SQLite store in a
 * temporary folder underneath).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ClientType } from '../../src/core/mp/welcome.js';
import { Hub } from '../../src/hub/hub.js';
import type { Peer } from '../../src/hub/links/peer.js';
import { openStore } from '../../src/store/open.js';
import type { Store, Vehicle } from '../../src/store/store.js';

class FakePeer implements Peer {
  static ids = 0;
  readonly id = ++FakePeer.ids;
  readonly remoteAddress = 'test';
  ptoken = '';
  rxBytes = 0;
  txBytes = 0;
  sent: string[] = [];
  closed: string | null = null;

  constructor(
    readonly clientType: ClientType,
    readonly vehicleId: string,
    readonly ownerId: number,
  ) {}

  send(code: string, data: string): void {
    this.sent.push(code + data);
  }

  close(reason: string): void {
    this.closed = reason;
  }

  take(): string[] {
    const s = this.sent;
    this.sent = [];
    return s;
  }
}

let dir: string;
let store: Store;
let hub: Hub;
let vehicle: Vehicle;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vts-hub-'));
  store = await openStore(dir, { writeBehindMs: 10 });
  const owner = await store.addOwner('demo', 'x', '*');
  vehicle = await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: '', carPassword: 'NETPASS' });
  hub = new Hub(store, pino({ level: 'silent' }), {
    serverVersion: 'vts-test',
    messageHistorySeconds: 0,
    notificationHistorySeconds: 0,
    utilisationDays: 90,
  });
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const peer = (type: ClientType): FakePeer => new FakePeer(type, vehicle.id, vehicle.ownerId);

test('app counts: Z to the car on every app login and logout, batch clients not counted', async () => {
  const car = peer('C');
  await hub.attach(car, vehicle);
  assert.deepEqual(car.take(), ['Z0']);
  const app = peer('A');
  const batch = peer('B');
  await hub.attach(app, vehicle);
  await hub.attach(batch, vehicle);
  assert.deepEqual(car.take(), ['Z1']);
  assert.deepEqual(hub.counts(vehicle.id), { net: 1, apps: 1, batches: 1 });
  hub.detach(app);
  hub.detach(app); // idempotent
  assert.deepEqual(car.take(), ['Z0']);
  hub.detach(batch);
  hub.detach(car);
  assert.deepEqual(hub.counts(vehicle.id), { net: 0, apps: 0, batches: 0 });
});

test('a response for a client that left is dropped, the next one still reaches its own client', async () => {
  const car = peer('C');
  const a1 = peer('A');
  const a2 = peer('A');
  await hub.attach(car, vehicle);
  await hub.attach(a1, vehicle);
  await hub.attach(a2, vehicle);
  a1.take();
  a2.take();
  hub.handle(a1, { code: 'C', data: '18' });
  hub.handle(a2, { code: 'C', data: '20,1234' });
  hub.detach(a1);
  hub.handle(car, { code: 'c', data: '18,0' });
  hub.handle(car, { code: 'c', data: '20,0' });
  assert.deepEqual(a1.take(), []);
  assert.deepEqual(a2.take(), ['c20,0']);
  hub.detach(a2);
  hub.detach(car);
});

test('a duplicate car login closes the older connection; clients see Z0 then Z1', async () => {
  const app = peer('A');
  await hub.attach(app, vehicle);
  const first = peer('C');
  await hub.attach(first, vehicle);
  app.take();
  const second = peer('C');
  await hub.attach(second, vehicle);
  assert.equal(first.closed, 'replaced by a newer login of the same vehicle');
  assert.equal(second.closed, null);
  assert.deepEqual(app.take(), ['Z0', 'Z1']);
  // the old connection ending later changes nothing
  hub.detach(first);
  assert.deepEqual(hub.counts(vehicle.id), { net: 1, apps: 1, batches: 0 });
  hub.detach(app);
  hub.detach(second);
});

test('messages for a client arrive after its replay, never inside it', async () => {
  const car = peer('C');
  await hub.attach(car, vehicle);
  hub.handle(car, { code: 'S', data: '80,K' });
  const app = peer('A');
  const attaching = hub.attach(app, vehicle);
  hub.handle(car, { code: 'D', data: '1,2' }); // arrives while the replay waits for the commit of S
  await attaching;
  // the replay (Z, stored messages, T<secs>) comes whole; the D was committed with the S before
  // the replay was read, so it is part of the replay and not sent again after it
  assert.deepEqual(app.take(), ['Z1', 'S80,K', 'D1,2', 'T0']);
  hub.handle(car, { code: 'L', data: '3,4' });
  await store.flush();
  assert.deepEqual(app.take(), ['L3,4', 'T0'], 'live messages after the replay');
  hub.detach(app);
  hub.detach(car);
});
