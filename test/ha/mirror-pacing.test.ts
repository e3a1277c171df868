/**
 * A flush of many vehicles goes out a bounded number of topics per event-loop turn (aedes queues
 * what exceeds its messages in flight, at a cost that grows with the queue), every topic in the
 * end; a vehicle forgotten meanwhile is not published; `close` publishes what is left at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import { PUBLISHES_PER_TURN, StateMirror } from '../../src/mqtt/state-mirror.js';
import type { Hub } from '../../src/hub/hub.js';
import type { Store } from '../../src/store/store.js';

const S = '80.5,K,230,16.00,charging,standard,250,220,16,3600,0,125,0,1,0,0,0,0,24.50,120,0,0,90,0,0,0,0,60,120,300,0,-7.36,398.20,97.50,7.40,93.00,-18.50,0.0,5.0,1234.5,64.0';
const D = '5,8,5,21,22,23,123,456789,0,600,12,1,1,1,12.6,0,12.8,0,24,0.5,21';
const L = '52.520008,13.404954,90,34,1,1,0.0,123,0,2.500,0.100,0.000,0,0,3,9,1.2,0.0,0';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function mirrorOf(published: string[]): StateMirror {
  const hub = { links: { linkKind: () => null }, link: () => undefined, cluster: { clustered: false }, seconds: () => 1_700_000_000 } as unknown as Hub;
  const store = { getVehicle: async (id: string) => ({ id, ownerName: 'alice' }), drives: { listCharges: async () => [] } } as unknown as Store;
  const log = { warn: () => undefined, error: () => undefined } as unknown as Logger;
  return new StateMirror({
    hub,
    store,
    log,
    metrics: true,
    flushMs: 3_600_000, // flushed by the test
    publish: (topic) => void published.push(topic),
    clearPrefix: () => undefined,
    prefixOf: (id, owner) => `ovms/${owner}/${id}/`,
  });
}

async function primed(mirror: StateMirror, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, k) => `CAR${k}`);
  for (const id of ids) {
    mirror.prime(id, ['S' + S, 'D' + D, 'L' + L].map((m) => ({ code: m[0]!, data: m.slice(1), time: 1_700_000_000, paranoid: false })));
  }
  for (let k = 0; k < 20 && ids.some((id) => mirror.facts(id) === null); k++) await turn(); // the vehicle read
  assert.ok(ids.every((id) => mirror.facts(id) !== null), 'every vehicle loaded');
  return ids;
}

test('a large flush goes out a bounded number of topics per event-loop turn, all of them in the end', async () => {
  const published: string[] = [];
  const mirror = mirrorOf(published);
  const ids = await primed(mirror, 100);
  mirror.flush();
  const first = published.length;
  const perVehicle = published.filter((t) => t.startsWith('ovms/alice/CAR0/')).length;
  assert.ok(perVehicle > 10, `a vehicle's state is many topics (${perVehicle})`);
  assert.ok(first >= PUBLISHES_PER_TURN && first < PUBLISHES_PER_TURN + perVehicle, `the first turn published ${first} topics`);
  let turns = 1;
  for (let idle = 0; idle < 5; ) {
    const before = published.length;
    mirror.flush(); // a flush while one is going out adds nothing: it goes on in its own turns
    await turn();
    if (published.length === before) idle++;
    else turns++;
  }
  assert.equal(published.length, ids.length * perVehicle, 'every topic of every vehicle, once');
  const perId = new Map<string, number>();
  for (const t of published) perId.set(t.split('/')[2]!, (perId.get(t.split('/')[2]!) ?? 0) + 1);
  assert.deepEqual([...perId.keys()].sort(), [...ids].sort());
  assert.ok([...perId.values()].every((n) => n === perVehicle), 'each vehicle whole, once');
  assert.ok(turns > 2, `over several turns (${turns})`);
  mirror.close();
});

test('a vehicle forgotten while a flush goes out is not published; close publishes the rest at once', async () => {
  const published: string[] = [];
  const mirror = mirrorOf(published);
  const ids = await primed(mirror, 50);
  mirror.flush();
  const last = ids[ids.length - 1]!;
  assert.ok(!published.some((t) => t.startsWith(`ovms/alice/${last}/`)), 'the last vehicle waits for a later turn');
  mirror.forget(last);
  mirror.close();
  assert.ok(!published.some((t) => t.startsWith(`ovms/alice/${last}/`)), 'the forgotten vehicle is not published');
  for (const id of ids.slice(0, -1)) assert.ok(published.includes(`ovms/alice/${id}/metric/v/b/soc`), `${id} published by close`);
});
