/**
 * `vts serve` with cluster options that cannot work: `--workers` without `--cluster`, a Redis that
 * is not there, a node id a running node holds. One line `vts: …` that says what to do, exit 1,
 * no stack, and the process ends by itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
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

test('--workers 2 with a Redis that is not there: the workers fail, the command exits 1 and says why', async (t) => {
  const dir = tempFolder(t);
  const r = await spawnVts(['serve', '--workers', '2', '--cluster', 'redis://127.0.0.1:1', '--data-dir', dir, ...OFF]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '', 'no listening line');
  assert.ok(plainLines(r.stderr).includes('vts: cannot reach Redis at 127.0.0.1:1 (ECONNREFUSED): check --cluster and that Redis runs there (VTS_ERR_CLUSTER)'), r.stderr);
  assert.ok(!hasStack(r.stderr), r.stderr);
});

test('a server that is not Redis, and a Redis database number that is not there or not a number', { skip: await needs(redis) }, async (t) => {
  await requireServices(redis);
  const dir = tempFolder(t);
  // answers nothing and hangs up: as a web server or another service on the port would
  const s = createServer((socket) => socket.destroy());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.after(() => s.close());
  const port = (s.address() as { port: number }).port;
  assertFailed(
    await spawnVts(['serve', '--cluster', `redis://127.0.0.1:${port}`, '--data-dir', dir, ...OFF]),
    new RegExp(`^vts: cannot reach Redis at 127\\.0\\.0\\.1:${port} \\(the server there closed the connection( \\(E[A-Z]+\\))?: is it a Redis server\\?\\): check --cluster and that Redis runs there \\(VTS_ERR_CLUSTER\\)$`),
  );
  assertFailed(
    await spawnVts(['serve', '--cluster', 'redis://127.0.0.1:6379/99', '--data-dir', dir, ...OFF]),
    /^vts: Redis at 127\.0\.0\.1:6379\/99 has no database 99 \(ERR .*\): use a number below its "databases" setting \(16 by default\) \(VTS_ERR_CLUSTER\)$/,
  );
  const word = await spawnVts(['serve', '--cluster', 'redis://127.0.0.1:6379/one', '--data-dir', dir, ...OFF]);
  assert.equal(word.code, 1);
  assert.match(word.stderr, /not a Redis database number: one/);
});

test('a node whose database is not the one the running nodes share is refused; once none runs, the cluster moves', { skip: await needs(redis) }, async (t) => {
  await requireServices(redis);
  const cluster = ['--cluster', 'redis://127.0.0.1:6379', '--cluster-prefix', `vtstest${randomBytes(4).toString('hex')}`];
  const first = serveProcess(['--data-dir', tempFolder(t), ...OFF, ...cluster, '--node-id', 'a']);
  t.after(() => first.child.kill('SIGKILL'));
  await listening(first);
  // a data dir with another database
  const other = tempFolder(t);
  await (await openStore(other)).close();
  assertFailed(
    await spawnVts(['serve', '--data-dir', other, ...OFF, ...cluster, '--node-id', 'b']),
    /^vts: this node's database \(id [0-9a-f]{32}\) is not the one the running nodes of the cluster share \(id [0-9a-f]{32}\): give every node the same --database \(VTS_ERR_CLUSTER\)$/,
  );
  // a data dir without a database (a forgotten --database): refused before anything is created
  const empty = join(tempFolder(t), 'data');
  assertFailed(
    await spawnVts(['serve', '--data-dir', empty, ...OFF, ...cluster, '--node-id', 'c']),
    new RegExp(`^vts: this node would create a new database \\(${empty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/vts\\.sqlite\\), not the one the running nodes of the cluster share \\(id [0-9a-f]{32}\\): give every node the same --database \\(VTS_ERR_CLUSTER\\)$`),
  );
  assert.equal(existsSync(empty), false, 'no data dir, no database file');
  // the refused node left no lease behind: with the first stopped, it joins under its id at once
  first.child.kill('SIGTERM');
  await first.exit;
  const moved = serveProcess(['--data-dir', other, ...OFF, ...cluster, '--node-id', 'b']);
  t.after(() => moved.child.kill('SIGKILL'));
  await listening(moved);
  assert.ok(moved.stderr.some((l) => l.includes("this node's database is the cluster's now")), moved.stderr.join('\n'));
});
