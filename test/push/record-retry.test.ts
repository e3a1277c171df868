/**
 * An outcome the database failed to record is recorded again shortly (issue 26): the delivery
 * was sent, so it must not be sent again when its claim runs out. A real outbox (SQLite, or
 * PostgreSQL with VTS_TEST_DATABASE) whose first recording fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher } from '../../src/push/dispatcher.js';
import type { DeliveryItem, PushProvider, SendResult } from '../../src/push/provider.js';
import type { PushStore } from '../../src/store/push-store.js';
import { freshStore, seed } from '../store/helpers.js';
import { RULES, notify, subscribe } from '../store/push-helpers.js';

test('recording an outcome fails once: it is recorded on the next try and the delivery is sent once', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'app', pushType: 'fcm', key: 'tok' });
  const now = Math.floor(Date.now() / 1000);
  await notify(store, owner.id, now, RULES);

  let failures = 1;
  const flaky: PushStore = Object.create(store.push) as PushStore;
  flaky.finishAttempts = async (...args) => {
    if (failures-- > 0) throw new Error('the database went away for a moment');
    return store.push.finishAttempts(...args);
  };
  let sent = 0;
  const provider: PushProvider = {
    channel: 'fcm',
    description: 'counts',
    batchSize: 1,
    async send(items: readonly DeliveryItem[]): Promise<SendResult[]> {
      sent += items.length;
      return items.map(() => ({ kind: 'delivered', detail: 'HTTP 200' }));
    },
    async close() {},
  };
  // a short claim (one-second attempts): without a second try it runs out and the delivery goes again
  const o = { ...DEFAULT_DISPATCHER_OPTIONS, claimer: 'node-a', timeoutSeconds: 1, pollMs: 100 };
  const d = new Dispatcher([provider], flaky, o, pino({ level: 'silent' }), () => Math.floor(Date.now() / 1000));
  t.after(() => d.stop());
  await d.start();
  const state = async (): Promise<string | undefined> => (await store.push.listNotifications(owner.id, undefined, 1))[0]?.deliveries[0]?.state;
  for (let k = 0; k < 300 && (await state()) !== 'delivered'; k++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await state(), 'delivered');
  assert.equal(failures, -1, 'the first recording failed');
  assert.equal(sent, 1, 'sent once');
});
