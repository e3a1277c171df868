/**
 * The owners' places in the store (src/store/drives-store.ts) on SQLite, or on PostgreSQL with
 * VTS_TEST_DATABASE: added, listed, changed and removed by their owner only, and removed with the
 * owner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { place } from './drives-helpers.js';
import { freshStore, seed } from './helpers.js';

test('places: added with a new id, listed by id, changed and removed by their owner only', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  const other = await store.addOwner('other', 'h', '*');
  const d = store.drives;
  assert.deepEqual(await d.listPlaces(owner.id), []);

  const home = await d.addPlace(owner.id, place('Home'));
  const work = await d.addPlace(owner.id, place('Work \u0000 "ü"', { lat: -33.86785, lon: 151.20732, radius: 5000, timeOfUse: [], pricePerMinute: 0.05 }));
  const theirs = await d.addPlace(other.id, place('Theirs'));
  assert.deepEqual(home, { ...place('Home'), id: home.id });
  assert.ok(work.id > home.id && theirs.id > work.id);
  assert.deepEqual(await d.listPlaces(owner.id), [home, work]);
  assert.deepEqual(await d.listPlaces(other.id), [theirs]);

  // only the fields of a place are kept
  const extra = { ...place('Extra'), id: 999, owner: 'x', timeOfUse: [{ from: '01:00', to: '02:00', pricePerKwh: 0.2, note: 'x' }] };
  const added = await d.addPlace(owner.id, extra);
  assert.deepEqual(added, { ...place('Extra'), timeOfUse: [{ from: '01:00', to: '02:00', pricePerKwh: 0.2 }], id: added.id });
  assert.deepEqual((await d.listPlaces(owner.id))[2], added);

  const changed = place('Home (new)', { radius: 10, currency: 'CHF', sessionFee: 0 });
  assert.deepEqual(await d.updatePlace(owner.id, home.id, changed), { ...changed, id: home.id });
  assert.deepEqual((await d.listPlaces(owner.id))[0], { ...changed, id: home.id });

  // another owner's place, or none: nothing
  assert.equal(await d.updatePlace(owner.id, theirs.id, changed), undefined);
  assert.equal(await d.updatePlace(owner.id, 123456, changed), undefined);
  assert.equal(await d.updatePlace(owner.id, 2 ** 70, changed), undefined);
  assert.equal(await d.removePlace(owner.id, theirs.id), false);
  assert.equal(await d.removePlace(owner.id, -1), false);
  assert.deepEqual(await d.listPlaces(other.id), [theirs]);

  assert.equal(await d.removePlace(owner.id, work.id), true);
  assert.equal(await d.removePlace(owner.id, work.id), false);
  assert.deepEqual((await d.listPlaces(owner.id)).map((p) => p.id), [home.id, added.id]);
});

test('places of an unknown owner are refused; removing an owner removes its places', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  const other = await store.addOwner('other', 'h', '*');
  const d = store.drives;
  await assert.rejects(d.addPlace(987654, place('x')), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'));
  const gone = await d.addPlace(other.id, place('Gone'));
  const kept = await d.addPlace(owner.id, place('Kept'));
  assert.equal(await store.removeOwner('other'), true);
  assert.deepEqual(await d.listPlaces(other.id), []);
  assert.equal(await d.updatePlace(other.id, gone.id, place('x')), undefined);
  assert.deepEqual(await d.listPlaces(owner.id), [kept]);
});
