/**
 * The copy of the other nodes' presence stays right when only a node's pub/sub connection to Redis
 * drops (its command connection carries on): the node joins again (it may have missed messages
 * meanwhile), so a car that left in the gap is gone from its counts too. Whatever else leaves a
 * copy wrong is put right when the node reads the others' presence again (every 30 s by default,
 * `--cluster-repair`; 5 s here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { eventually } from '../mp/helpers.js';
import { REDIS_URL, countsEverywhere, skipCluster, startCluster, type Node } from './harness.js';

/** The id of a node's connection in Redis' CLIENT LIST, by its name. */
async function clientId(r: Redis, name: string): Promise<string | undefined> {
  const list = (await r.call('CLIENT', 'LIST')) as string;
  for (const line of list.split('\n')) {
    const fields = new Map(line.split(' ').map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)] as [string, string]));
    if (fields.get('name') === name) return fields.get('id');
  }
  return undefined;
}

test("a node whose subscriber connection is killed still learns that a car on another node left", { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const r = new Redis(REDIS_URL);
  t.after(() => r.disconnect());

  const car = await c.mp(b, 'C');
  await car.next();
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });

  const id = await eventually(() => clientId(r, `vts-messages@${c.prefix}:${a.id}`), "A's subscriber connection");
  await r.call('CLIENT', 'KILL', 'ID', id);
  // the car leaves while A's subscriber is away (ioredis reconnects within ~100 ms)
  await car.close();
  await countsEverywhere(c, { net: 0, apps: 0, batches: 0 }, [a, b], 10_000);
});

test("a wrong copy of another node's presence is put right by the periodic re-read (every --cluster-repair)", { skip: skipCluster }, async (t) => {
  // every 5 s here (30 s by default): long enough for the wrong copy to be seen first
  const c = await startCluster(t, ['a', 'b'], { extra: ['--cluster-repair', '5'] });
  const [a, b] = c.nodes as [Node, Node];
  const r = new Redis(REDIS_URL);
  t.after(() => r.disconnect());
  await countsEverywhere(c, { net: 0, apps: 0, batches: 0 });

  // a stray message tells A that B holds the car (as a message lost or garbled on the way would)
  await r.publish(`${c.prefix}:all`, JSON.stringify({ t: 'p', n: b.id, v: 'CLCAR', p: { car: true, v3: false, apps: 1, batches: 0 } }));
  await countsEverywhere(c, { net: 1, apps: 1, batches: 0 }, [a]);
  await countsEverywhere(c, { net: 0, apps: 0, batches: 0 }, [a, b], 15_000);
  assert.ok(a.logged("cluster: the copy of the other nodes' presence had drifted: put right"));
});
