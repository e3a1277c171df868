/**
 * What the hub passes on comes after the store's commit: each fake peer looks at the database
 * file through a second connection at the moment it is sent something, so a message that
 * arrives before its car message is committed fails the test.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import type { ClientType } from '../../src/core/mp/welcome.js';
import { Hub, type LiveEvent } from '../../src/hub/hub.js';
import type { Peer } from '../../src/hub/links/peer.js';
import { openStore } from '../../src/store/open.js';
import type { Store, Vehicle } from '../../src/store/store.js';

let dir: string;
let store: Store;
let hub: Hub;
let vehicle: Vehicle;
let committed: Database.Database;

/** The stored car messages as another process sees them: `S=…` per code. */
const committedMessages = (): string[] =>
  (committed.prepare('SELECT code, data FROM car_messages ORDER BY code').all() as { code: string; data: string }[]).map(
    (r) => `${r.code}=${r.data}`,
  );

class WatchingPeer implements Peer {
  static ids = 0;
  readonly id = ++WatchingPeer.ids;
  readonly remoteAddress = 'test';
  ptoken = '';
  rxBytes = 0;
  txBytes = 0;
  /** What was sent, each with what was committed at that moment. */
  sent: { msg: string; committed: string[] }[] = [];

  constructor(readonly clientType: ClientType) {}

  get vehicleId(): string {
    return vehicle.id;
  }

  get ownerId(): number {
    return vehicle.ownerId;
  }

  send(code: string, data: string): void {
    this.sent.push({ msg: code + data, committed: committedMessages() });
  }

  close(): void {}

  take(): string[] {
    const s = this.sent.map((x) => x.msg);
    this.sent = [];
    return s;
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vts-hub-'));
  // a write-behind delay of a minute: only what waits for a commit brings it forward
  store = await openStore(dir, { writeBehindMs: 60_000 });
  const owner = await store.addOwner('demo', 'x', '*');
  vehicle = await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: '', carPassword: 'NETPASS' });
  committed = new Database(join(dir, 'vts.sqlite'), { readonly: true });
  hub = new Hub(store, pino({ level: 'silent' }), {
    serverVersion: 'vts-test',
    messageHistorySeconds: 3600,
    notificationHistorySeconds: 3600,
    utilisationDays: 90,
  });
});
after(async () => {
  committed.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('a car message reaches apps, batch clients and live watchers only once it is committed; the car\'s ping is answered at once', async () => {
  const car = new WatchingPeer('C');
  const app = new WatchingPeer('A');
  const batch = new WatchingPeer('B');
  await hub.attach(car, vehicle);
  await hub.attach(app, vehicle);
  await hub.attach(batch, vehicle);
  car.take();
  app.take();
  batch.take();
  const live: { event: LiveEvent; committed: string[] }[] = [];
  const unwatch = hub.watch(vehicle.id, (event) => live.push({ event, committed: committedMessages() }));

  hub.handle(car, { code: 'S', data: '81,K' });
  hub.handle(car, { code: 'A', data: '' });
  assert.deepEqual(car.take(), ['a'], 'a keepalive, not held back');
  assert.equal(app.sent.length, 0, 'not before the commit');
  assert.equal(live.length, 0);
  await turn();
  for (const peer of [app, batch]) {
    assert.deepEqual(
      peer.sent.map((s) => [s.msg, s.committed.includes('S=81,K')]),
      [
        ['S81,K', true],
        ['T0', true],
      ],
    );
    peer.take();
  }
  assert.deepEqual(
    live.map((l) => [l.event.kind, l.committed.includes('S=81,K')]),
    [['record', true]],
  );
  unwatch();
  for (const p of [app, batch, car]) hub.detach(p);
});

test('an app\'s ping, a command response and a notification keep their order behind what was stored before them', async () => {
  const car = new WatchingPeer('C');
  const app = new WatchingPeer('A');
  await hub.attach(car, vehicle);
  await hub.attach(app, vehicle);
  car.take();
  app.take();
  const notified: string[][] = [];
  const listener = (): void => void notified.push(committedMessages());
  hub.events.on('notification', listener);

  hub.handle(app, { code: 'C', data: '7,stat' });
  assert.deepEqual(car.take(), ['C7,stat']);
  hub.handle(car, { code: 'D', data: '1,2' });
  hub.handle(car, { code: 'c', data: '7,0,ok' });
  hub.handle(car, { code: 'P', data: 'Ihello' });
  hub.handle(app, { code: 'A', data: '' });
  assert.equal(app.sent.length, 0);
  assert.equal(notified.length, 0);
  await turn();
  assert.deepEqual(
    app.sent.map((s) => [s.msg, s.committed.includes('D=1,2')]),
    [
      ['D1,2', true],
      ['T0', true],
      ['c7,0,ok', true],
      ['PIhello', true],
      ['a', true],
    ],
  );
  assert.equal(notified.length, 1);
  assert.ok(notified[0]!.includes('D=1,2'));
  hub.events.off('notification', listener);
  hub.detach(app);
  hub.detach(car);
});

test('with nothing buffered, what the hub sends goes out at once', async () => {
  await store.flush();
  const app = new WatchingPeer('A');
  await hub.attach(app, vehicle);
  app.take();
  hub.handle(app, { code: 'A', data: '' });
  assert.deepEqual(app.take(), ['a']);
  hub.detach(app);
});

test('a message stored after the replay was read is sent after the replay', async () => {
  await store.flush();
  const car = new WatchingPeer('C');
  await hub.attach(car, vehicle);
  const app = new WatchingPeer('A');
  const attaching = hub.attach(app, vehicle); // nothing buffered: the replay reads at once
  hub.handle(car, { code: 'L', data: '5,6' });
  await attaching;
  await turn();
  const sent = app.take();
  assert.deepEqual(sent.slice(-2), ['L5,6', 'T0'], 'after the replay');
  assert.equal(sent.filter((m) => m === 'L5,6').length, 1, 'once');
  hub.detach(app);
  hub.detach(car);
});

test('two messages of one code in the batch a replay reads: the app ends with the newer one', async () => {
  await store.flush();
  const car = new WatchingPeer('C');
  await hub.attach(car, vehicle);
  hub.handle(car, { code: 'D', data: 'first' }); // something buffered: the replay waits for a commit
  const app = new WatchingPeer('A');
  const attaching = hub.attach(app, vehicle);
  // while the replay waits, two messages of one code: the batch keeps only the newer, the
  // replay reads it, and both were passed on to the app (held until the replay is sent)
  hub.handle(car, { code: 'S', data: 'older' });
  hub.handle(car, { code: 'S', data: 'newer' });
  await attaching;
  await turn();
  const sent = app.take().filter((m) => m.startsWith('S'));
  assert.equal(sent.at(-1), 'Snewer', `the last S the app got: ${JSON.stringify(sent)}`);
  hub.detach(app);
  hub.detach(car);
});
