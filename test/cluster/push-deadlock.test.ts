/**
 * Push deliveries recorded by two nodes at once (issue 26): both nodes send the deliveries of a
 * burst of notifications to the same targets and record the outcomes in overlapping transactions;
 * no transaction deadlocks, and no notification reaches a target twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { CARPASS, skipCluster, startCluster } from './harness.js';

const TARGETS = 4;
const ALERTS_PER_CAR = 100;

test('two nodes record a burst of deliveries to shared targets: no deadlock, no duplicate', { skip: skipCluster, timeout: 120_000 }, async (t) => {
  const receiver = await HttpReceiver.start();
  t.after(() => receiver.close());
  const c = await startCluster(t, ['a', 'b'], { extra: ['--push-limit', '0/0', '--webhook-allow', '127.0.0.1'] });
  // a car on each node, both of the owner of the targets: each node adds (and kicks) its own notifications
  await c.store.addVehicle({ id: 'CLCAR2', ownerId: c.ownerId, name: 'second car', carPassword: CARPASS });
  for (let k = 0; k < TARGETS; k++) await c.store.push.addTarget(c.ownerId, 'webhook', `${receiver.url}/hook${k}`, '', 0);
  const cars = [await c.mp(c.nodes[0]!, 'C'), await c.mp(c.nodes[1]!, 'C', 'CLCAR2')];
  await Promise.all(cars.map((car) => car.next())); // Z
  for (let k = 1; k <= ALERTS_PER_CAR; k++) for (const car of cars) car.send('P', `IAlert ${k}`);
  const total = 2 * ALERTS_PER_CAR * TARGETS;
  await receiver.waitForRequests(total, 90_000);
  const deadlocks = c.nodes.flatMap((n) => n.run.stderr.filter((l) => /deadlock|recording attempts failed/.test(l)));
  assert.deepEqual(deadlocks, [], 'no transaction deadlocked');
  // what is still in flight lands (a duplicate would come with it)
  const open = async (): Promise<number> => [...(await c.store.push.countOpen()).values()].reduce((a, b) => a + b, 0);
  for (let k = 0; k < 400 && (await open()) > 0; k++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await open(), 0, 'every delivery ended');

  const seen = new Map<string, number>();
  for (const r of receiver.requests) {
    const key = `${r.path} ${r.json<{ notificationId: number }>().notificationId}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const twice = [...seen].filter(([, n]) => n > 1);
  assert.equal(seen.size, total, 'every notification reached every target');
  assert.deepEqual(twice, [], 'no notification reached a target twice');
});
