/**
 * A graceful stop sends no delivery twice (issue 26): on SIGTERM during a burst of notifications,
 * the requests in flight are let finish and their outcomes recorded; the next start sends what
 * was left, and each notification reaches each target once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { FREE_PORTS, exitCode, listening, serveProcess } from '../cli/serve-process.js';
import { TEST_DATABASE, freshSchema } from '../support/postgres.js';

const ALERTS = 60;
const TARGETS = 2;

test('SIGTERM during a burst of deliveries, then a new start: no notification reaches a target twice', async (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-push-stop-'));
  const schema = TEST_DATABASE ? freshSchema(TEST_DATABASE) : undefined;
  ctx.after(async () => {
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const dbArgs = ['--data-dir', dir, ...(schema ? ['--database', schema.url] : []), '--push-limit', '0/0', '--webhook-allow', '127.0.0.1'];

  // a webhook endpoint that counts each (target, notification) as the request comes in and answers a little later
  const seen = new Map<string, number>();
  let waiting: (() => void) | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = `${req.url} ${(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { notificationId: number }).notificationId}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      waiting?.();
      setTimeout(() => res.end(), 150);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  ctx.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const requests = (): number => [...seen.values()].reduce((a, b) => a + b, 0);
  const until = async (what: () => boolean, why: string): Promise<void> => {
    for (let k = 0; k < 600 && !what(); k++) await new Promise<void>((r) => ((waiting = r), setTimeout(r, 50)));
    assert.ok(what(), why);
  };

  const store = await openStore(dir, { database: schema?.url });
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: 'Leaf', carPassword: 'NETPASS' });
  for (let k = 0; k < TARGETS; k++) await store.push.addTarget(owner.id, 'webhook', `${url}/hook${k}`, '', 0);
  await store.close();

  const first = serveProcess([...FREE_PORTS, ...dbArgs]);
  const { mp } = (await listening(first)) as { mp: number };
  const car = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await car.next(); // Z
  for (let k = 1; k <= ALERTS; k++) car.send('P', `IAlert ${k}`);
  await until(() => requests() >= 10, 'the burst began');
  first.child.kill('SIGTERM');
  assert.equal(await exitCode(first), 0, first.stderr.join('\n'));
  await car.close().catch(() => undefined);
  assert.ok(seen.size < ALERTS * TARGETS, 'the stop came during the burst');

  const second = serveProcess([...FREE_PORTS, ...dbArgs]);
  ctx.after(async () => {
    second.child.kill('SIGTERM');
    await second.exit;
  });
  await listening(second);
  await until(() => seen.size === ALERTS * TARGETS, `every notification reached every target (${seen.size})`);
  const check = await openStore(dir, { database: schema?.url });
  ctx.after(() => check.close());
  const open = async (): Promise<number> => [...(await check.push.countOpen()).values()].reduce((a, b) => a + b, 0);
  for (let k = 0; k < 200 && (await open()) > 0; k++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await open(), 0, 'every delivery ended');
  assert.deepEqual(
    [...seen].filter(([, n]) => n > 1),
    [],
    'no notification reached a target twice',
  );
});
