/**
 * The outbox survives the process (issue 15): a notification whose delivery was under way when
 * `vts serve` was killed (kill -9) is delivered by the next start, once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { FREE_PORTS, listening, serveProcess } from '../cli/serve-process.js';
import { TEST_DATABASE, freshSchema } from '../support/postgres.js';
import { HttpReceiver } from '../support/push/http-receiver.js';

test('kill -9 while a delivery is in flight: the next start delivers it', async (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-push-restart-'));
  const schema = TEST_DATABASE ? freshSchema(TEST_DATABASE) : undefined;
  ctx.after(async () => {
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const dbArgs = ['--data-dir', dir, ...(schema ? ['--database', schema.url] : []), '--webhook-allow', '127.0.0.1'];
  const receiver = await HttpReceiver.start();
  ctx.after(() => receiver.close());
  receiver.script('/hook', { hang: true });

  const store = await openStore(dir, { database: schema?.url });
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: 'Leaf', carPassword: 'NETPASS' });
  await store.push.addTarget(owner.id, 'webhook', `${receiver.url}/hook`, '', 0);
  await store.close();

  const first = serveProcess([...FREE_PORTS, ...dbArgs, '--push-retry', '1']);
  const { mp } = (await listening(first)) as { mp: number };
  const car = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
  await car.next(); // Z
  car.send('P', 'ACharging stopped');
  await receiver.waitForRequests(1, 15_000);
  first.child.kill('SIGKILL');
  await first.exit;
  await car.close();

  const second = serveProcess([...FREE_PORTS, ...dbArgs, '--push-retry', '1']);
  ctx.after(() => void second.child.kill('SIGTERM'));
  await listening(second);
  await receiver.waitForRequests(2, 15_000);
  const texts = receiver.requestsTo('/hook').map((r) => r.json<{ text: string; vehicleName: string }>());
  assert.deepEqual(texts.map((t) => t.text), ['Charging stopped', 'Charging stopped']);
  assert.equal(texts[1]!.vehicleName, 'Leaf');

  // the outbox says delivered, after one attempt (the one the crash cut off never ended)
  const check = await openStore(dir, { database: schema?.url });
  ctx.after(() => check.close());
  let ns = await check.push.listNotifications(owner.id, 'TESTCAR', 10);
  for (let k = 0; k < 100 && ns[0]?.deliveries[0]?.state !== 'delivered'; k++) {
    await new Promise((r) => setTimeout(r, 50));
    ns = await check.push.listNotifications(owner.id, 'TESTCAR', 10);
  }
  assert.equal(ns.length, 1);
  assert.equal(ns[0]!.deliveries[0]!.state, 'delivered');
  assert.equal(receiver.requestsTo('/hook').length, 2, 'delivered once after the restart');
});
