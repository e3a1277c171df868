/**
 * A stop does not lose the notifications still being written: the push service writes a
 * vehicle's notifications one after another, and `stop()` waits until the last of them is in the
 * outbox (the next start delivers them). A real SQLite store whose writes are made slow.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PushService } from '../../src/push/push-service.js';
import { openStore } from '../../src/store/open.js';
import { quietLog } from '../support/module.js';

test('stop() while notifications are still being written: every one is in the outbox afterwards', async (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-push-stop-writes-'));
  ctx.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openStore(dir, {});
  ctx.after(() => store.close());
  const owner = await store.addOwner('demo', 'x', '*');
  await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: 'Leaf', carPassword: 'NETPASS' });

  // each write waits a turn of the timers first, so most of them are still queued when stop() is called
  const add = store.push.addNotification.bind(store.push);
  let written = 0;
  store.push.addNotification = async (n, rules) => {
    await new Promise((r) => setTimeout(r, 5));
    const added = await add(n, rules);
    written++;
    return added;
  };

  const push = new PushService(store, { limit: { burst: 0, perMinute: 0 } }, quietLog, { dataDir: dir, database: undefined, claimer: 'test' });
  const COUNT = 20;
  for (let k = 1; k <= COUNT; k++) {
    push.submit({ ownerId: owner.id, vehicleId: 'TESTCAR', alertType: 'I', text: `Alert ${k}`, time: 1_700_000_000 + k, push: true });
  }
  await push.stop();
  assert.equal(written, COUNT, 'stop() returned after every write');
  const texts = (await store.push.listNotifications(owner.id, 'TESTCAR', 100)).map((n) => n.text);
  assert.deepEqual(
    texts.sort(),
    Array.from({ length: COUNT }, (_, k) => `Alert ${k + 1}`).sort(),
    'every notification is in the outbox',
  );
});
