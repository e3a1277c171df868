/**
 * MQTT and sharing (docs/accounts.md "Sharing"): a user a vehicle is shared with subscribes to that
 * vehicle's topics under its owner's prefix (not to the owner's other vehicles); `view` publishes
 * nothing and never gets the vehicle's `client/…` topics; `control` publishes commands; a revoked
 * share closes the user's connection at once and refuses the next subscription.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MqttClient } from 'mqtt';
import { mqttHarness } from './harness.js';

async function granted(c: MqttClient, topics: string[]): Promise<number[]> {
  try {
    const r = await c.subscribeAsync(topics, { qos: 0 });
    return r.map((g) => g.qos);
  } catch (err) {
    return (err as { packet?: { granted?: number[] } }).packet?.granted ?? [];
  }
}

const received = (c: MqttClient, topic: string): Promise<string> =>
  new Promise((resolve) => c.on('message', (t, payload) => t === topic && resolve(payload.toString())));

const closed = (c: MqttClient): Promise<void> => new Promise((resolve) => (c.disconnected ? resolve() : c.once('close', () => resolve())));

test('MQTT: a view user reads the shared vehicle only, publishes nothing; control commands; revoked: cut at once', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  await h.t.addVehicle('SHARED1', h.ownerId, 'NETPASS');
  await h.t.addVehicle('PRIVATE1', h.ownerId, 'NETPASS');
  const bob = await h.t.addUser('bob', 'bobpass1');
  const carol = await h.t.addUser('carol', 'carolpass');
  await h.t.server.store.shares.putShare('SHARED1', bob, 'view', 1);
  await h.t.server.store.shares.putShare('SHARED1', carol, 'control', 1);

  const viewer = await h.mqtt({ username: 'bob', password: 'bobpass1', reconnectPeriod: 0 });
  assert.deepEqual(await granted(viewer, ['ovms/demo/SHARED1/#', 'ovms/demo/PRIVATE1/#', 'ovms/demo/#', 'ovms/demo/+/metric/#']), [0, 128, 128, 128]);

  const owner = await h.mqtt({ username: 'demo', password: 'demopass' });
  const metric = received(viewer, 'ovms/demo/SHARED1/metric/v/b/soc');
  const command = new Promise<string>((resolve) => viewer.on('message', (topic) => topic.includes('/client/') && resolve(topic)));
  await owner.publishAsync('ovms/demo/SHARED1/client/app1/command/1', 'stat');
  await owner.publishAsync('ovms/demo/SHARED1/metric/v/b/soc', '81');
  assert.equal(await metric, '81');
  const none = await Promise.race([command, new Promise<null>((r) => setTimeout(() => r(null), 300))]);
  assert.equal(none, null, "a view user never gets the vehicle's client topics");

  // a publish that is refused closes the connection (MQTT 3.1.1)
  const gone = closed(viewer);
  viewer.publish('ovms/demo/SHARED1/client/bob1/command/1', 'stat');
  await gone;

  const controller = await h.mqtt({ username: 'carol', password: 'carolpass', reconnectPeriod: 0 });
  assert.deepEqual(await granted(controller, ['ovms/demo/SHARED1/client/carol1/response/#']), [0]);
  const atCar = received(owner, 'ovms/demo/SHARED1/client/carol1/command/7');
  await owner.subscribeAsync('ovms/demo/SHARED1/client/+/command/#');
  await controller.publishAsync('ovms/demo/SHARED1/client/carol1/command/7', 'stat');
  assert.equal(await atCar, 'stat');

  // revoked: the connection holding the vehicle is closed, a new one is refused the topics
  const cut = closed(controller);
  assert.equal((await h.asUser('/api/shares/SHARED1/carol', { method: 'DELETE' })).status, 204);
  await cut;
  const again = await h.mqtt({ username: 'carol', password: 'carolpass', reconnectPeriod: 0 });
  assert.deepEqual(await granted(again, ['ovms/demo/SHARED1/#']), [128]);
});
