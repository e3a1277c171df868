/**
 * Push in a cluster (issue 15): every node works off the one outbox, each notification is
 * delivered once; a node that dies holding a delivery leaves it to the others when its claim runs
 * out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roundTrip } from '../mp/helpers.js';
import { adminQuery } from '../support/postgres.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { skipCluster, startCluster, VEHICLE } from './harness.js';

async function settled(store: Parameters<typeof checkDelivered>[0], ownerId: number, count: number): Promise<void> {
  for (let k = 0; k < 400; k++) {
    if (await checkDelivered(store, ownerId, count)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the ${count} notifications were not all delivered: ${JSON.stringify(await store.push.listNotifications(ownerId, VEHICLE, 100))}`);
}

async function checkDelivered(store: { push: { listNotifications(o: number, v: string, l: number): Promise<{ deliveries: { state: string }[] }[]> } }, ownerId: number, count: number): Promise<boolean> {
  const ns = await store.push.listNotifications(ownerId, VEHICLE, 100);
  return ns.length === count && ns.every((n) => n.deliveries.length === 1 && n.deliveries[0]!.state === 'delivered');
}

test('two nodes, one outbox: each notification of a car is delivered once', { skip: skipCluster }, async (t) => {
  const receiver = await HttpReceiver.start();
  t.after(() => receiver.close());
  const c = await startCluster(t, ['a', 'b'], { extra: ['--push-limit', '0/0', '--webhook-allow', '127.0.0.1'] });
  await c.store.push.addTarget(c.ownerId, 'webhook', `${receiver.url}/hook`, '', 0);
  const car = await c.mp(c.nodes[0]!, 'C');
  await car.next(); // Z
  for (let k = 1; k <= 20; k++) car.send('P', `IAlert ${k}`);
  await roundTrip(car);
  await settled(c.store, c.ownerId, 20);
  const texts = receiver.requestsTo('/hook').map((r) => r.json<{ text: string }>().text);
  assert.equal(texts.length, 20, 'once each');
  assert.deepEqual([...new Set(texts)].sort(), Array.from({ length: 20 }, (_, k) => `Alert ${k + 1}`).sort());
});

test('the node holding a delivery dies (kill -9): another node delivers it once its claim runs out', { skip: skipCluster }, async (t) => {
  const receiver = await HttpReceiver.start();
  t.after(() => receiver.close());
  receiver.script('/hook', { hang: true });
  const c = await startCluster(t, ['a', 'b'], { extra: ['--push-timeout', '2', '--push-retry', '1', '--webhook-allow', '127.0.0.1'] });
  await c.store.push.addTarget(c.ownerId, 'webhook', `${receiver.url}/hook`, '', 0);
  const car = await c.mp(c.nodes[0]!, 'C');
  await car.next();
  car.send('P', 'ACharging stopped');
  await receiver.waitForRequests(1, 15_000);
  // which node holds it: the cluster's schema is the search_path of its database URL
  const schema = /search_path=(\w+)/.exec(new URL(c.databaseUrl).searchParams.get('options') ?? '')?.[1];
  assert.ok(schema);
  const { rows } = await adminQuery(`SELECT claimed_by FROM ${schema}.push_deliveries`);
  const holder = String((rows[0] as { claimed_by: unknown }).claimed_by);
  const dying = c.nodes.find((n) => n.id === holder);
  assert.ok(dying, `a node holds the delivery (${holder})`);
  await dying.kill();
  await receiver.waitForRequests(2, 30_000);
  await settled(c.store, c.ownerId, 1);
  assert.equal(receiver.requestsTo('/hook').length, 2, 'the cut-off attempt and the one that delivered');
});
