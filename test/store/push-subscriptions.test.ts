import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import type { PushSubscription } from '../../src/store/store.js';
import { freshStore, seed } from './helpers.js';

test('push subscriptions: upsert by (owner, vehicle, app), list per owner and vehicle', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await seed(store, 'DEMO2');
  const sub = (appId: string, vehicleId = 'DEMO1', key = 'k1'): PushSubscription => ({
    ownerId: owner.id,
    vehicleId,
    appId,
    pushType: 'gcm',
    pushKeyType: 'production',
    pushKeyValue: key,
    lastUpdated: 100,
    active: true,
  });
  await store.upsertPushSubscription(sub('b-app'));
  await store.upsertPushSubscription(sub('a-app', 'demo1')); // vehicle id upper-cased
  await store.upsertPushSubscription(sub('a-app', 'DEMO2'));
  await store.upsertPushSubscription({ ...sub('b-app', 'DEMO1', 'k2'), lastUpdated: 200, active: false });

  assert.deepEqual(await store.listPushSubscriptions(owner.id, 'demo1'), [
    sub('a-app'),
    { ...sub('b-app', 'DEMO1', 'k2'), lastUpdated: 200, active: false },
  ]);
  assert.deepEqual(await store.listPushSubscriptions(owner.id, 'DEMO2'), [sub('a-app', 'DEMO2')]);
  assert.deepEqual(await store.listPushSubscriptions(owner.id + 1, 'DEMO1'), []);

  await assert.rejects(store.upsertPushSubscription(sub('x', 'NOPE')), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_VEHICLE'));
  await assert.rejects(
    store.upsertPushSubscription({ ...sub('x'), ownerId: 9999 }),
    (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'),
  );
});
