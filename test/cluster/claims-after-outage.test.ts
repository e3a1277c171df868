/**
 * Car claims survive a Redis outage: a car that logs in on node A while Redis is away (and so
 * cannot be claimed) is claimed when A joins again, so that a later login of the same car on
 * node B still closes A's connection. Runs its own Redis (restarted empty), on a free port.
 */
import { test } from 'node:test';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { eventually, roundTrip } from '../mp/helpers.js';
import { countsEverywhere, skipCluster, startCluster, type Node } from './harness.js';
import { freePort, redisServer } from './own-redis.js';

/** Resolves when the client's connection is closed; fails after a generous deadline. */
async function closed(client: MpClient, what: string): Promise<void> {
  let guard: NodeJS.Timeout | undefined;
  try {
    await Promise.race([client.closed, new Promise<never>((_r, reject) => (guard = setTimeout(() => reject(new Error(`${what} was not closed`)), 20_000)))]);
  } finally {
    clearTimeout(guard);
  }
}

test('a car that logged in while Redis was away is claimed when the node joins again', { skip: skipCluster }, async (t) => {
  const port = await freePort();
  let redis = await redisServer(port);
  t.after(() => redis.kill('SIGKILL'));
  const c = await startCluster(t, ['a', 'b'], { redisUrl: `redis://127.0.0.1:${port}` });
  const [a, b] = c.nodes as [Node, Node];

  redis.kill('SIGKILL');
  await eventually(() => (a.logged('cluster: lost Redis: this node goes on serving its own connections and joins again when Redis returns') ? true : undefined), 'node A to notice');
  const first = await c.mp(a, 'C');
  await first.next();

  redis = await redisServer(port);
  const back = 'cluster: Redis is back: joined the cluster again';
  await eventually(() => (a.logged(back) && b.logged(back) ? true : undefined), 'both nodes to join again', 20_000);

  // the car logs in again on B: A's connection of it is closed
  const second = await c.mp(b, 'C');
  await second.next();
  await closed(first, "node A's connection of the car");
  await roundTrip(second); // the new connection stays
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
});
