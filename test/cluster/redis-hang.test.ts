/**
 * A connection to Redis that hangs (nothing answers, nothing is closed) is noticed: node A, behind
 * a proxy that stops forwarding, says so in its log, `/ready` answers 200 "degraded" while A
 * serves its own car alone, and node B (whose Redis answers) takes A out once its lease runs out.
 * When the proxy forwards again, A connects again, subscribes and announces its car again: a car
 * message on A reaches an app on B, and a command from B reaches the car on A. Runs its own Redis,
 * on a free port, with a short heartbeat (a hang is noticed within about two).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { m, eventually, roundTrip } from '../mp/helpers.js';
import { nextOf, readUntil, skipCluster, startCluster, type Node } from './harness.js';
import { freePort, freezingProxy, redisServer } from './own-redis.js';

const HEARTBEAT = ['--cluster-heartbeat', '0.5'];

async function ready(node: Node): Promise<{ code: number; status: string; cluster: string }> {
  const res = await fetch(node.url('/ready', false));
  const body = (await res.json()) as { status: string; checks: { cluster: string } };
  return { code: res.status, status: body.status, cluster: body.checks.cluster };
}

test('a node whose Redis connection hangs notices, serves alone, and joins again when Redis answers', { skip: skipCluster }, async (t) => {
  const port = await freePort();
  const redis = await redisServer(port);
  t.after(() => redis.kill('SIGKILL'));
  const proxy = await freezingProxy(port);
  t.after(() => proxy.close());
  const c = await startCluster(t, ['b'], { redisUrl: `redis://127.0.0.1:${port}`, extra: HEARTBEAT });
  const a = await c.start('a', ['--cluster', `redis://127.0.0.1:${proxy.port}`]);
  const b = c.nodes[0]!;

  const car = await c.mp(a, 'C');
  await car.next();
  const appA = await c.mp(a, 'A');
  await readUntil(appA, 'T');
  const appB = await c.mp(b, 'A');
  await readUntil(appB, 'T');
  car.send('S', '60,K,220,13');
  assert.deepEqual(await nextOf(appB, 'S'), m('S', '60,K,220,13'));
  assert.deepEqual(await ready(a), { code: 200, status: 'ready', cluster: 'ok' });

  proxy.freeze();
  await eventually(() => (a.logged('cluster: Redis does not answer: closing the connection and connecting again') ? true : undefined), 'node A to notice the hang');
  await eventually(async () => ((await ready(a)).status === 'degraded' ? true : undefined), '/ready of A to say degraded');
  assert.deepEqual(await ready(a), {
    code: 200,
    status: 'degraded',
    cluster: 'degraded: not connected to the cluster (Redis): serving its own connections alone',
  });
  // B's Redis answers: it takes A out once A's lease runs out
  await eventually(() => (b.logged('cluster: a node stopped answering: its cars and apps are gone from the counts') ? true : undefined), 'node B to take A out', 15_000);
  // A serves its car and app alone
  car.send('D', '4,5,6');
  assert.deepEqual(await nextOf(appA, 'D'), m('D', '4,5,6'));

  proxy.thaw();
  await eventually(() => (a.logged('cluster: Redis is back: joined the cluster again') ? true : undefined), 'node A to join again', 20_000);
  await eventually(async () => ((await ready(a)).status === 'ready' ? true : undefined), '/ready of A to say ready');
  // subscribed and announced again: the car's messages reach B, B's commands reach the car
  await eventually(async () => {
    car.send('L', '1.5,2.5');
    await roundTrip(car);
    return Promise.race([nextOf(appB, 'L'), new Promise<undefined>((r) => setTimeout(() => r(undefined), 500))]);
  }, 'a car message on A to reach the app on B', 20_000);
  appB.send('C', '7,stat');
  assert.deepEqual(await nextOf(car, 'C'), m('C', '7,stat'));
  car.send('c', '7,0,back');
  assert.deepEqual(await nextOf(appB, 'c'), m('c', '7,0,back'));
});
