import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore } from './helpers.js';

test('addVehicles: one result per row; duplicates (stored or earlier in the rows) and unknown owners are skipped, the rest added', async (t) => {
  const { store } = await freshStore(t);
  const owner = await store.addOwner('fleet', 'hash', '*');
  await store.addVehicle({ id: 'OLD1', ownerId: owner.id, name: '', carPassword: 'secret12' });
  const results = await store.addVehicles([
    { id: 'car1', ownerId: owner.id, name: 'One', carPassword: 'pass0001' },
    { id: 'old1', ownerId: owner.id, name: '', carPassword: 'pass0002' },
    { id: 'CAR2', ownerId: owner.id + 99, name: '', carPassword: 'pass0003' },
    { id: 'Car1', ownerId: owner.id, name: 'Again', carPassword: 'pass0004' },
    { id: 'PEER', ownerId: owner.id, name: '', carPassword: 'pass0005', type: 'SERVER' },
  ]);
  assert.deepEqual(results, [
    { id: 'CAR1', added: true },
    { id: 'OLD1', added: false, error: 'VTS_ERR_DUPLICATE_VEHICLE' },
    { id: 'CAR2', added: false, error: 'VTS_ERR_UNKNOWN_USER' },
    { id: 'CAR1', added: false, error: 'VTS_ERR_DUPLICATE_VEHICLE' },
    { id: 'PEER', added: true },
  ]);
  const car1 = await store.getVehicle('CAR1');
  assert.equal(car1?.name, 'One');
  assert.equal(car1?.carPassword, 'pass0001');
  assert.equal(car1?.ownerName, 'fleet');
  assert.equal(car1?.type, 'CAR');
  assert.equal((await store.getVehicle('PEER'))?.type, 'SERVER');
  assert.equal((await store.getVehicle('OLD1'))?.carPassword, 'secret12');
  assert.equal(await store.getVehicle('CAR2'), undefined);
  assert.deepEqual(
    (await store.listVehicles()).map((v) => v.id),
    ['CAR1', 'OLD1', 'PEER'],
  );
});

test('addVehicles: no rows is nothing; thousands of rows go in at once', async (t) => {
  const { store } = await freshStore(t);
  assert.deepEqual(await store.addVehicles([]), []);
  const owner = await store.addOwner('fleet', 'hash', '*');
  const rows = Array.from({ length: 5000 }, (_, k) => ({ id: `F${k}`, ownerId: owner.id, name: `car ${k}`, carPassword: `password${k}` }));
  const results = await store.addVehicles(rows);
  assert.equal(results.filter((r) => r.added).length, 5000);
  assert.equal((await store.listVehicles(owner.id)).length, 5000);
  assert.equal((await store.getVehicle('F4999'))?.name, 'car 4999');
});
