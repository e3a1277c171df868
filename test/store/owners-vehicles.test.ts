import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { freshStore, seed } from './helpers.js';

test('owners: add, get by name (any case) and id, list, password, rights', async (t) => {
  const { store } = await freshStore(t);
  const before = Math.floor(Date.now() / 1000);
  const demo = await store.addOwner('Demo', 'h1', '*');
  assert.equal(demo.name, 'Demo');
  assert.equal(demo.rights, '*');
  assert.ok(demo.created >= before && demo.created <= before + 5);
  const other = await store.addOwner('alice', 'h2', 'a,b');
  assert.notEqual(other.id, demo.id);

  const byName = await store.getOwnerByName('dEMO');
  assert.deepEqual(byName, { ...demo, passwordHash: 'h1' });
  assert.deepEqual(await store.getOwnerById(demo.id), demo);
  assert.equal(await store.getOwnerByName('nobody'), undefined);
  assert.equal(await store.getOwnerById(9999), undefined);
  assert.deepEqual(
    (await store.listOwners()).map((o) => o.name),
    ['alice', 'Demo'],
  );

  assert.equal(await store.setOwnerPassword('DEMO', 'h3'), true);
  assert.equal((await store.getOwnerByName('demo'))?.passwordHash, 'h3');
  assert.equal(await store.setOwnerPassword('nobody', 'x'), false);
  assert.equal(await store.setOwnerRights('demo', 'status'), true);
  assert.equal((await store.getOwnerById(demo.id))?.rights, 'status');
  assert.equal(await store.setOwnerRights('nobody', 'x'), false);
});

test('owners: a duplicate name in any case is VTS_ERR_DUPLICATE_USER', async (t) => {
  const { store } = await freshStore(t);
  await store.addOwner('demo', 'h', '*');
  await assert.rejects(store.addOwner('DeMo', 'h', '*'), (e) => isVtsError(e, 'VTS_ERR_DUPLICATE_USER'));
  assert.equal((await store.listOwners()).length, 1);
});

test('owners: removeOwner refuses while vehicles exist, then removes tokens and subscriptions', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await store.addApiToken({
    ownerId: owner.id,
    tokenHash: 'ab'.repeat(32),
    application: 'app',
    purpose: 'test',
    permit: '*',
    created: 1,
    lastUsed: null,
  });
  await store.upsertPushSubscription({
    ownerId: owner.id,
    vehicleId: 'DEMO1',
    appId: 'app1',
    pushType: 'gcm',
    pushKeyType: 'production',
    pushKeyValue: 'key',
    lastUpdated: 1,
    active: true,
  });
  await store.putAutoProvision({ key: 'VIN1', serverToken: 't', serverDigest: 'd', message: 'm', ownerId: owner.id });

  await assert.rejects(store.removeOwner('demo'), (e) => isVtsError(e, 'VTS_ERR_USER_HAS_VEHICLES'));
  assert.ok(await store.getOwnerByName('demo'));

  assert.equal(await store.removeVehicle('DEMO1'), true);
  assert.equal(await store.removeOwner('DEMO'), true);
  assert.equal(await store.getOwnerByName('demo'), undefined);
  assert.deepEqual(await store.listApiTokens(owner.id), []);
  assert.equal((await store.getAutoProvision('VIN1'))?.ownerId, null);
  assert.equal(await store.removeOwner('demo'), false);

  // ids are never reused
  const again = await store.addOwner('demo', 'h', '*');
  assert.ok(again.id > owner.id);
});

test('vehicles: add, get (any case), list by owner, ordered by id', async (t) => {
  const { store } = await freshStore(t);
  const demo = await store.addOwner('demo', 'h', '*');
  const alice = await store.addOwner('alice', 'h', '*');
  const v = await store.addVehicle({ id: 'zeta', ownerId: demo.id, name: 'Z', carPassword: 'pw,with,commas' });
  assert.deepEqual(v, {
    id: 'ZETA',
    ownerId: demo.id,
    ownerName: 'demo',
    name: 'Z',
    carPassword: 'pw,with,commas',
    type: 'CAR',
    paranoidToken: '',
    lastUpdate: null,
    created: v.created,
  });
  await store.addVehicle({ id: 'ALPHA', ownerId: demo.id, name: '', carPassword: 'p', type: 'SERVER' });
  await store.addVehicle({ id: 'Mid', ownerId: alice.id, name: '', carPassword: 'p' });

  assert.deepEqual(await store.getVehicle('zeta'), v);
  assert.deepEqual(await store.getVehicle('ZeTa'), v);
  assert.equal(await store.getVehicle('NONE'), undefined);
  assert.equal((await store.getVehicle('alpha'))?.type, 'SERVER');
  assert.deepEqual(
    (await store.listVehicles()).map((x) => x.id),
    ['ALPHA', 'MID', 'ZETA'],
  );
  assert.deepEqual(
    (await store.listVehicles(demo.id)).map((x) => x.id),
    ['ALPHA', 'ZETA'],
  );
  assert.deepEqual(
    (await store.listVehicles(alice.id)).map((x) => [x.id, x.ownerName]),
    [['MID', 'alice']],
  );
  assert.deepEqual(await store.listVehicles(9999), []);
});

test('vehicles: duplicate id (any case) and unknown owner are refused', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await assert.rejects(
    store.addVehicle({ id: 'demo1', ownerId: owner.id, name: '', carPassword: 'p' }),
    (e) => isVtsError(e, 'VTS_ERR_DUPLICATE_VEHICLE'),
  );
  await assert.rejects(
    store.addVehicle({ id: 'OTHER', ownerId: owner.id + 100, name: '', carPassword: 'p' }),
    (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'),
  );
  assert.equal(await store.getVehicle('OTHER'), undefined);
});

test('vehicles: removing one deletes its rows in every table', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await seed(store, 'KEEP');
  for (const id of ['DEMO1', 'KEEP']) {
    store.putCarMessage(id, { code: 'S', data: '1', time: 100, paranoid: false, ptoken: '' });
    await store.addHistorical({ vehicleId: id, type: 'T', recordNumber: 0, time: 100, data: 'x', expires: 1e10 }, true);
    store.addUtilisation([{ vehicleId: id, day: 86400, clientType: 'C', rx: 1, tx: 2 }]);
    await store.upsertPushSubscription({
      ownerId: owner.id,
      vehicleId: id,
      appId: 'a',
      pushType: 'gcm',
      pushKeyType: 'production',
      pushKeyValue: 'k',
      lastUpdated: 1,
      active: true,
    });
  }
  await store.flush();
  // a write still buffered when the vehicle goes must not come back
  store.putCarMessage('demo1', { code: 'D', data: '2', time: 101, paranoid: false, ptoken: '' });

  assert.equal(await store.removeVehicle('demo1'), true);
  assert.equal(await store.removeVehicle('DEMO1'), false);
  await store.flush();
  assert.equal(await store.getVehicle('DEMO1'), undefined);
  assert.deepEqual(await store.getCarMessages('DEMO1', true), []);
  assert.deepEqual(await store.summarizeHistorical('DEMO1', 0), []);
  assert.deepEqual(await store.getUtilisation('DEMO1', 0), []);
  assert.deepEqual(await store.listPushSubscriptions(owner.id, 'DEMO1'), []);

  // re-adding the id starts empty; the other vehicle is untouched
  await seed(store, 'DEMO1');
  assert.deepEqual(await store.getCarMessages('DEMO1', true), []);
  assert.equal((await store.getCarMessages('KEEP')).length, 1);
  assert.equal((await store.summarizeHistorical('KEEP', 0)).length, 2);
  assert.equal((await store.getUtilisation('KEEP', 0)).length, 1);
  assert.equal((await store.listPushSubscriptions(owner.id, 'KEEP')).length, 1);
});
