/**
 * `vts serve` with cluster options that cannot work: `--workers` without `--cluster`, a Redis that
 * is not there, a node id a running node holds. One line `vts: …` that says what to do, exit 1,
 * no stack, and the process ends by itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { listening, serveProcess } from './serve-process.js';
import { hasStack, plainLines, spawnVts, tempFolder, type Exited } from './spawn-helpers.js';
import { needs, redis, requireServices } from '../support/services.js';

const OFF = ['--mp-port', '0', '--http-port', '0', '--mqtt-port', 'off'];

function assertFailed(r: Exited, line: string | RegExp): void {
  assert.equal(r.code, 1, `exit code; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '', 'no listening line');
  const lines = plainLines(r.stderr);
  assert.equal(lines.length, 1, r.stderr);
  if (typeof line === 'string') assert.equal(lines[0], line);
  else assert.match(lines[0]!, line);
  assert.ok(!hasStack(r.stderr), `no stack: ${r.stderr}`);
}

test('--workers needs --cluster; a bad --cluster or --workers value is named', async (t) => {
  const dir = tempFolder(t);
  assertFailed(
    await spawnVts(['serve', '--workers', '2', '--data-dir', dir, ...OFF]),
    'vts: invalid configuration: --workers needs --cluster: the workers are nodes of one cluster (e.g. --cluster redis://127.0.0.1:6379) (VTS_ERR_CONFIG)',
  );
  const bad = await spawnVts(['serve', '--cluster', 'http://redis.example', '--data-dir', dir, ...OFF]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /option '--cluster <url>' argument 'http:\/\/redis\.example' is invalid\. not a redis:\/\/ or rediss:\/\/ URL/);
  const workers = await spawnVts(['serve', '--workers', '0', '--cluster', 'redis://127.0.0.1:6379', '--data-dir', dir, ...OFF]);
  assert.equal(workers.code, 1);
  assert.match(workers.stderr, /not a number of workers \(1-256, or auto\): 0/);
});

test('a Redis that is not there: one line with its address and why, no password', async (t) => {
  const dir = tempFolder(t);
  // a port nothing listens on
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  assertFailed(
    await spawnVts(['serve', '--cluster', `redis://user:s3cret@127.0.0.1:${port}`, '--data-dir', dir, ...OFF]),
    `vts: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED): check --cluster and that Redis runs there (VTS_ERR_CLUSTER)`,
  );
});

test('a node id that a running node holds is refused', { skip: await needs(redis) }, async (t) => {
  await requireServices(redis);
  const dir = tempFolder(t);
  const cluster = ['--cluster', 'redis://127.0.0.1:6379', '--cluster-prefix', `vtstest${randomBytes(4).toString('hex')}`, '--node-id', 'twin'];
  const first = serveProcess(['--data-dir', dir, ...OFF, ...cluster]);
  t.after(() => first.child.kill('SIGKILL'));
  await listening(first);
  assertFailed(
    await spawnVts(['serve', '--bind', '127.0.0.1', '--data-dir', dir, ...OFF, ...cluster]),
    'vts: the node id twin is in use by a running node of this cluster: give each node its own --node-id (VTS_ERR_CLUSTER)',
  );
});
