/**
 * A node's lease names the process that holds it (host and pid): a node restarted right after a
 * crash (kill -9) takes its dead predecessor's lease over at once instead of being refused as "in
 * use by a running node"; a lease that another host's process holds is waited for, with a line
 * that says so, and taken once it runs out. (A node id that a running node holds is still refused:
 * test/cli/serve-cluster-errors.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { eventually } from '../mp/helpers.js';
import { REDIS_URL, counts, skipCluster, startCluster } from './harness.js';

test('a node restarted right after kill -9 takes its dead predecessor\'s lease over at once', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['b']);
  // a lease of 40 s (5 heartbeats): the restart below comes well within it even on a loaded machine,
  // where starting a node may take longer than the default 10 s
  const slow = ['--cluster-heartbeat', '8'];
  const a = await c.start('a', slow);
  await a.kill();
  const again = await c.start('a', slow);
  assert.ok(again.logged('cluster: took over the node id from its previous process on this host, which no longer runs'), again.run.stderr.join('\n'));
  assert.ok(!again.logged('cluster: the node id is held by another process (a previous run that ended without leaving?): waiting for its lease to run out'));
  await counts(again);
});

test("a node id whose lease another host's process holds is waited for, then taken", { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['b']);
  const r = new Redis(REDIS_URL);
  t.after(() => r.disconnect());
  // as a node of another machine that died a moment ago would have left it
  const key = `${c.prefix}:alive:a`;
  await r.set(key, 'd3ad another-host/pid:[1] 4242', 'PX', 60_000);
  const starting = c.start('a');
  // once the new node is connected (it looks at the lease next), the lease has a moment left
  await eventually(async () => (((await r.call('CLIENT', 'LIST')) as string).includes(`name=vts-messages@${c.prefix}:a `) ? true : undefined), 'node a to connect', 30_000);
  await r.pexpire(key, 1500);
  const a = await starting;
  assert.ok(a.logged('cluster: the node id is held by another process (a previous run that ended without leaving?): waiting for its lease to run out'), a.run.stderr.join('\n'));
  const line = JSON.parse(a.run.stderr.find((l) => l.includes('waiting for its lease to run out'))!) as { holder: string };
  assert.equal(line.holder, 'pid 4242 on another-host/pid:[1]');
  assert.match((await r.get(`${c.prefix}:alive:a`)) ?? '', / \d+$/);
  assert.notEqual(await r.get(`${c.prefix}:alive:a`), 'd3ad another-host/pid:[1] 4242');
});
