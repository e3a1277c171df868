import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { freshStore, seed } from './helpers.js';

test('shares: put, change access, get, list both ways, remove', async (t) => {
  const { store } = await freshStore(t);
  const { vehicle } = await seed(store);
  const bob = await store.addOwner('Bob', 'h', '*');
  const amy = await store.addOwner('amy', 'h', '*');

  const s = await store.shares.putShare('demo1', bob.id, 'view', 1000);
  assert.deepEqual(s, { vehicleId: 'DEMO1', userId: bob.id, userName: 'Bob', access: 'view', created: 1000 });
  assert.equal(await store.shares.getShare('DEMO1', bob.id), 'view');
  assert.equal(await store.shares.getShare('DEMO1', amy.id), undefined);

  const changed = await store.shares.putShare('DEMO1', bob.id, 'control', 2000);
  assert.equal(changed.access, 'control');
  assert.equal(changed.created, 1000, 'a changed share keeps its creation time');
  await store.shares.putShare('DEMO1', amy.id, 'view', 3000);

  assert.deepEqual(
    (await store.shares.listShares('demo1')).map((x) => [x.userName, x.access]),
    [['amy', 'view'], ['Bob', 'control']],
  );
  const shared = await store.shares.listSharedWith(bob.id);
  assert.equal(shared.length, 1);
  assert.equal(shared[0]!.access, 'control');
  assert.equal(shared[0]!.vehicle.id, vehicle.id);
  assert.equal(shared[0]!.vehicle.ownerName, 'demo');

  assert.equal(await store.shares.removeShare('demo1', bob.id), true);
  assert.equal(await store.shares.removeShare('DEMO1', bob.id), false);
  assert.equal(await store.shares.getShare('DEMO1', bob.id), undefined);
  assert.deepEqual(await store.shares.listSharedWith(bob.id), []);
});

test('shares: unknown vehicle or user is refused; a share goes with its vehicle and with the user', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const bob = await store.addOwner('bob', 'h', '*');
  await assert.rejects(store.shares.putShare('NOPE', bob.id, 'view', 1), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_VEHICLE'));
  await assert.rejects(store.shares.putShare('DEMO1', 9999, 'view', 1), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'));

  await store.shares.putShare('DEMO1', bob.id, 'view', 1);
  assert.equal(await store.removeOwner('bob'), true);
  assert.deepEqual(await store.shares.listShares('DEMO1'), []);

  const carl = await store.addOwner('carl', 'h', '*');
  await store.shares.putShare('DEMO1', carl.id, 'control', 1);
  assert.equal(await store.removeVehicle('DEMO1'), true);
  assert.deepEqual(await store.shares.listSharedWith(carl.id), []);
});

test('updateVehicle: renames, changes the car password, the next read sees it; unknown: undefined', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await store.getVehicle('DEMO1'); // cached
  const renamed = await store.updateVehicle('demo1', { name: 'Family car' });
  assert.equal(renamed?.name, 'Family car');
  assert.equal(renamed?.carPassword, 'secret');
  const changed = await store.updateVehicle('DEMO1', { carPassword: 'n3w' });
  assert.equal(changed?.name, 'Family car');
  assert.equal((await store.getVehicle('DEMO1'))?.carPassword, 'n3w');
  assert.equal(await store.updateVehicle('NOPE', { name: 'x' }), undefined);
});
