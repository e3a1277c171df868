/**
 * A clustered node with the embedded MQTT broker (the default) stops cleanly on SIGTERM: exit 0,
 * and it leaves the cluster at once, so that the same --node-id starts again right after (its
 * lease is gone, not left to run out).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectAsync } from 'mqtt';
import { exitCode } from '../cli/serve-process.js';
import { readUntil, skipCluster, startCluster, type Node } from './harness.js';

test('SIGTERM stops a clustered node with its embedded broker (exit 0); its node id starts again at once', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a] = c.nodes as [Node, Node];
  // something for every part to close: a car, an app, an MQTT client with a persistent session
  const car = await c.mp(a, 'C');
  await car.next();
  const app = await c.mp(a, 'A');
  await readUntil(app, 'T');
  const mqtt = await connectAsync(`mqtt://127.0.0.1:${a.mqtt}`, { username: 'demo', password: 'demopass', clientId: 'shutdown-test', clean: false, reconnectPeriod: 0 });
  t.after(() => mqtt.endAsync(true));
  await mqtt.subscribeAsync(['ovms/demo/CLCAR/#', 'ovms/demo/other/#'], { qos: 1 });

  a.run.child.kill('SIGTERM');
  assert.equal(await exitCode(a.run), 0, a.run.stderr.join('\n'));
  assert.ok(!a.logged('shutdown took too long: exiting'));

  // the same node id is free at once: no "node id in use"
  const again = await c.start('a');
  const res = await fetch(again.url('/api/vehicles'));
  assert.equal(res.status, 200);
});
