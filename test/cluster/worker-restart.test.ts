/**
 * `vts serve --workers 2 --node-id w`: a worker killed with -9 is replaced. The other worker goes
 * on answering meanwhile; the replacement keeps the dead one's node id (it waits for the dead
 * one's lease to run out instead of being refused) and joins, so the cluster has its two nodes
 * again, and the replacement serves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { eventually } from '../mp/helpers.js';
import { exitCode, listening, serveProcess } from '../cli/serve-process.js';
import { needs, redis, requireServices } from '../support/services.js';

const skip = await needs(redis);

test('--workers 2: a worker killed with -9 is replaced under its node id, and the service answers meanwhile', { skip }, async (t) => {
  await requireServices(redis);
  const dir = mkdtempSync(join(tmpdir(), 'vts-workers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openStore(dir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'WCAR', ownerId: owner.id, name: '', carPassword: 'NETPASS' });
  await store.close();
  const r = new Redis('redis://127.0.0.1:6379');
  t.after(() => r.disconnect());

  const prefix = `vtstest${randomBytes(4).toString('hex')}`;
  const run = serveProcess(['--workers', '2', '--node-id', 'w', '--cluster', 'redis://127.0.0.1:6379', '--cluster-prefix', prefix, '--data-dir', dir, '--mp-port', '0', '--http-port', '0', '--mqtt-port', '0']);
  t.after(() => run.child.kill('SIGKILL'));
  const ports = await listening(run);
  const listeners = (): { pid: number; node: string }[] =>
    run.stderr.filter((l) => l.includes('"msg":"vts listening"')).map((l) => JSON.parse(l) as { pid: number; node: string });
  assert.deepEqual(listeners().map((l) => l.node).sort(), ['w-1', 'w-2']);
  const victim = listeners().find((l) => l.node === 'w-2')!;
  const members = async (): Promise<string[]> => (await r.smembers(`${prefix}:nodes`)).sort();
  assert.deepEqual(await members(), ['w-1', 'w-2']);

  const answers = async (): Promise<void> => {
    const res = await fetch(`http://127.0.0.1:${ports.http as number}/api/vehicles?username=demo&password=demopass`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  };
  process.kill(victim.pid, 'SIGKILL');
  // the primary hands new connections to the surviving worker
  await eventually(() => (run.stderr.some((l) => l.includes('a worker died')) ? true : undefined), 'the primary to notice', 10_000);
  for (let k = 0; k < 10; k++) await answers();

  // the replacement joins under the same node id once the dead worker's lease has run out
  const again = await eventually(() => listeners().find((l) => l.node === 'w-2' && l.pid !== victim.pid), 'a new worker w-2 to listen', 30_000);
  assert.deepEqual(await members(), ['w-1', 'w-2']);
  assert.equal(await r.exists(`${prefix}:alive:w-2`), 1);
  assert.ok(!run.stderr.some((l) => l.includes('in use by a running node')), 'no "node id in use"');
  assert.ok(!run.stderr.some((l) => l.includes('a worker failed to start')), 'the restart is not a failure to start');
  for (let k = 0; k < 10; k++) await answers();
  t.diagnostic(`w-2 is pid ${again.pid} now (was ${victim.pid})`);

  run.child.kill('SIGTERM');
  assert.equal(await exitCode(run), 0);
  assert.equal(run.stdout.length, 1, 'the listening line, once');
});
