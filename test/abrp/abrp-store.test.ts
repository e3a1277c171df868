/**
 * The ABRP links of the store (src/store/abrp-store.ts) on SQLite, and on PostgreSQL with
 * VTS_TEST_DATABASE: link, link again, results guarded by the token they were sent with, and the
 * link going with its vehicle and its owner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { freshStore, seed } from '../store/helpers.js';

test('a link is made pending, records its sends and failures, and is made anew by a new token', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store, 'CAR1');
  assert.equal(await store.abrp.getLink('CAR1'), undefined);
  assert.deepEqual(await store.abrp.listLinked(), []);
  const made = await store.abrp.putLink('car1', owner.id, 'v1:sealed-a', 100);
  assert.deepEqual(made, {
    vehicleId: 'CAR1', ownerId: owner.id, token: 'v1:sealed-a', state: 'pending', created: 100,
    lastSent: null, lastTlm: '', lastError: '', lastErrorTime: null, failures: 0, retryAt: null,
  });
  assert.equal(await store.abrp.recordFailure('CAR1', 'v1:sealed-a', { state: 'failing', error: 'ABRP answered HTTP 500', time: 110, failures: 1, retryAt: 140 }), true);
  assert.deepEqual(
    { ...(await store.abrp.getLink('CAR1'))!, token: '' },
    { ...made, token: '', state: 'failing', lastError: 'ABRP answered HTTP 500', lastErrorTime: 110, failures: 1, retryAt: 140 },
  );
  assert.equal(await store.abrp.recordSent('CAR1', 'v1:sealed-a', 150, '{"utc":150}'), true);
  const sent = (await store.abrp.getLink('CAR1'))!;
  assert.deepEqual([sent.state, sent.lastSent, sent.lastTlm, sent.failures, sent.retryAt, sent.lastError], ['ok', 150, '{"utc":150}', 0, null, 'ABRP answered HTTP 500']);

  // linked again: the old results are forgotten, and a late result of the old token changes nothing
  await store.abrp.putLink('CAR1', owner.id, 'v1:sealed-b', 200);
  assert.equal(await store.abrp.recordSent('CAR1', 'v1:sealed-a', 210, '{"utc":210}'), false);
  assert.equal(await store.abrp.recordFailure('CAR1', 'v1:sealed-a', { state: 'refused', error: 'x', time: 210, failures: 1, retryAt: null }), false);
  const again = (await store.abrp.getLink('CAR1'))!;
  assert.deepEqual([again.state, again.token, again.lastSent, again.lastError], ['pending', 'v1:sealed-b', null, '']);

  assert.deepEqual(await store.abrp.listLinked(), ['CAR1']);
  assert.equal(await store.abrp.removeLink('CAR1'), true);
  assert.equal(await store.abrp.removeLink('CAR1'), false);
  assert.deepEqual(await store.abrp.listLinked(), []);
  assert.equal(await store.abrp.recordSent('CAR1', 'v1:sealed-b', 220, '{}'), false);
});

test('a link goes with its vehicle and its owner; an unknown vehicle cannot be linked', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store, 'CAR1');
  await store.abrp.putLink('CAR1', owner.id, 'v1:x', 1);
  await store.removeVehicle('CAR1');
  assert.equal(await store.abrp.getLink('CAR1'), undefined);
  await assert.rejects(store.abrp.putLink('NOSUCH', owner.id, 'v1:x', 1), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_VEHICLE'));

  const other = await store.addOwner('other', 'h', '*');
  await store.addVehicle({ id: 'CAR2', ownerId: other.id, name: '', carPassword: 'p' });
  await store.abrp.putLink('CAR2', other.id, 'v1:y', 1);
  await store.removeVehicle('CAR2');
  assert.equal(await store.removeOwner('other'), true);
  assert.equal(await store.abrp.getLink('CAR2'), undefined);
});
