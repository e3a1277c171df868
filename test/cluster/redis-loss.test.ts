/**
 * A node that loses Redis keeps serving its own connections (a car and an app on it go on as on a
 * single node; `/ready` stays 200, "degraded"), says so once in its log, and joins the cluster again when Redis returns: then the
 * car's messages reach an app on another node again. Runs its own Redis, on a free port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { m, eventually, roundTrip } from '../mp/helpers.js';
import { nextOf, readUntil, skipCluster, startCluster } from './harness.js';
import { freePort, redisServer } from './own-redis.js';

test('a node that loses Redis serves its own connections, and joins again when Redis returns', { skip: skipCluster }, async (t) => {
  const port = await freePort();
  let redis = await redisServer(port);
  t.after(() => redis.kill('SIGKILL'));
  const c = await startCluster(t, ['a', 'b'], { redisUrl: `redis://127.0.0.1:${port}` });
  const [a, b] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0]];

  const car = await c.mp(a, 'C');
  await car.next();
  const appA = await c.mp(a, 'A');
  await readUntil(appA, 'T');
  const appB = await c.mp(b, 'A');
  await readUntil(appB, 'T');
  car.send('S', '60,K,220,13');
  assert.deepEqual(await nextOf(appB, 'S'), m('S', '60,K,220,13'));

  redis.kill('SIGKILL');
  await eventually(() => (a.logged('cluster: lost Redis: this node goes on serving its own connections and joins again when Redis returns') ? true : undefined), 'node A to notice');

  // still in service for a load balancer: ready, its cluster check degraded
  const ready = await fetch(a.url('/ready', false));
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), {
    checks: { cluster: 'degraded: not connected to the cluster (Redis): serving its own connections alone', listeners: 'ok', store: 'ok' },
    status: 'degraded',
  });

  // A goes on alone: its car and app, its HTTP API
  car.send('D', '4,5,6');
  assert.deepEqual(await nextOf(appA, 'D'), m('D', '4,5,6'));
  appA.send('C', '7,stat');
  assert.deepEqual(await nextOf(car, 'C'), m('C', '7,stat'));
  car.send('c', '7,0,alone');
  assert.deepEqual(await nextOf(appA, 'c'), m('c', '7,0,alone'));
  const status = await fetch(a.url('/api/status/CLCAR'));
  assert.equal(status.status, 200);
  assert.equal(((await status.json()) as { soc: string }).soc, '60');

  // Redis returns: both join again, and the car's messages reach the app on B again
  redis = await redisServer(port);
  await eventually(() => (a.logged('cluster: Redis is back: joined the cluster again') && b.logged('cluster: Redis is back: joined the cluster again') ? true : undefined), 'both nodes to join again', 20_000);
  await eventually(async () => {
    car.send('L', '1.5,2.5');
    await roundTrip(car);
    const got = await Promise.race([nextOf(appB, 'L'), new Promise<undefined>((r) => setTimeout(() => r(undefined), 500))]);
    return got;
  }, 'a car message on A to reach the app on B', 20_000);
});
