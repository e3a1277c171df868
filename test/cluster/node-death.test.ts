/**
 * A node that dies (kill -9): the car it held logs in on another node at once; the survivors
 * notice the death by its lease (within 12 s: a 10 s lease renewed every 2 s) and drop its cars
 * and apps from every count; every `h` record whose ack the car got is in the database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { m, roundTrip } from '../mp/helpers.js';
import { countsEverywhere, nextOf, readUntil, skipCluster, startCluster } from './harness.js';

test('kill -9 of the node holding the car: the car moves, the counts are right again, no acked record is lost', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b', 'c']);
  const [a, b, cc] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0], (typeof c.nodes)[0]];

  const car = await c.mp(a, 'C');
  await car.next();
  const appA = await c.mp(a, 'A');
  await readUntil(appA, 'T');
  const appB = await c.mp(b, 'A');
  await readUntil(appB, 'T');
  const batchC = await c.mp(cc, 'B');
  await readUntil(batchC, 'T');
  await countsEverywhere(c, { net: 1, apps: 2, batches: 1 });

  // acknowledged historical records: each ack comes once the record is committed
  for (let k = 1; k <= 20; k++) car.send('h', `${k},0,*-LOG-Trip,${k},86400,trip ${k}`);
  const acks = new Set<string>();
  while (acks.size < 20) acks.add((await nextOf(car, 'h')).data);

  const killed = Date.now();
  await a.kill();
  // the module reconnects by itself, to another node, at once
  const car2 = await c.mp(cc, 'C');
  const z = await car2.next();
  assert.equal(z.code, 'Z');
  car2.send('S', '70,K,220,13');
  assert.deepEqual(await roundTrip(car2), []);

  // the survivors notice A's death: its app drops out of the counts; the car is online on C
  await countsEverywhere(c, { net: 1, apps: 1, batches: 1 }, [b, cc], 30_000);
  t.diagnostic(`counts right again ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);
  assert.ok(b.logged('cluster: a node stopped answering: its cars and apps are gone from the counts') || cc.logged('cluster: a node stopped answering: its cars and apps are gone from the counts'));

  // the app on B follows the car on C
  assert.deepEqual(await nextOf(appB, 'S'), m('S', '70,K,220,13'));
  appB.send('C', '7,stat');
  assert.deepEqual(await nextOf(car2, 'C'), m('C', '7,stat'));
  car2.send('c', '7,0,alive on C');
  assert.deepEqual(await nextOf(appB, 'c'), m('c', '7,0,alive on C'));

  const records = await c.store.getHistorical('CLCAR', '*-LOG-Trip', 0);
  const stored = new Set(records.map((r) => String(r.recordNumber)));
  for (const ack of acks) assert.ok(stored.has(ack), `acknowledged record ${ack} is stored`);
});
