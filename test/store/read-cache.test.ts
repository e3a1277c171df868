/**
 * The store's read cache of vehicles and stored car messages (src/store/read-cache.ts; the
 * PostgreSQL store keeps none): reads after the store's own writes see them, and a change
 * committed by another process (the admin CLI, another node on the same database) is seen at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed, sleep } from './helpers.js';

const msg = (data: string, time: number) => ({ code: 'S', data, time, paranoid: false, ptoken: '' });

test('own writes: a new car message, a paranoid token and a removal are seen by the next read', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 5 });
  await seed(store);
  assert.deepEqual(await store.getCarMessages('DEMO1'), []);
  assert.equal((await store.getVehicle('DEMO1'))?.lastUpdate, null);

  store.putCarMessage('DEMO1', msg('1', 100));
  assert.equal((await store.getCarMessages('DEMO1'))[0]?.data, '1', 'buffered');
  await store.flush();
  assert.equal((await store.getCarMessages('DEMO1'))[0]?.data, '1', 'committed');
  assert.equal((await store.getVehicle('DEMO1'))?.lastUpdate, 100);
  store.putCarMessage('DEMO1', msg('2', 101));
  await store.flush();
  assert.equal((await store.getCarMessages('DEMO1'))[0]?.data, '2');

  await store.setParanoidToken('DEMO1', 'tok');
  assert.equal((await store.getVehicle('DEMO1'))?.paranoidToken, 'tok');
  assert.ok(await store.removeVehicle('DEMO1'));
  assert.equal(await store.getVehicle('DEMO1'), undefined);
  assert.deepEqual(await store.getCarMessages('DEMO1'), []);
});

test('another process removes and re-adds the vehicle: the server sees it at once, old messages gone', async (t) => {
  const { open, store } = await freshStore(t, { writeBehindMs: 5 });
  const { owner } = await seed(store);
  store.putCarMessage('DEMO1', msg('old', 100));
  await store.flush();
  assert.equal((await store.getCarMessages('DEMO1')).length, 1);
  assert.equal((await store.getVehicle('DEMO1'))?.name, 'Demo car');

  const cli = await open();
  try {
    assert.ok(await cli.removeVehicle('DEMO1'));
    await sleep(2); // the store looks for other processes' commits at most once a millisecond
    assert.equal(await store.getVehicle('DEMO1'), undefined, 'the removal by the other process is seen');
    await cli.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: 'Re-added', carPassword: 'new' });
  } finally {
    await cli.close();
  }
  await sleep(2);
  const v = await store.getVehicle('DEMO1');
  assert.equal(v?.name, 'Re-added');
  assert.equal(v?.carPassword, 'new');
  assert.deepEqual(await store.getCarMessages('DEMO1'), [], 'no message of the removed vehicle survives');
});

test('owners and API tokens: own writes and another process\'s are seen by the next read', async (t) => {
  const { open, store } = await freshStore(t);
  const { owner } = await seed(store);
  const token = { ownerId: owner.id, tokenHash: 'a'.repeat(64), application: 'x', purpose: 'y', permit: 'auth', created: 1, lastUsed: null };
  assert.equal(await store.findApiToken(owner.id, token.tokenHash), undefined, 'not there (remembered as absent)');
  await store.addApiToken(token);
  assert.equal((await store.findApiToken(owner.id, token.tokenHash))?.permit, 'auth', 'own add forgets the absence');
  assert.equal((await store.getOwnerByName('DEMO'))?.passwordHash, 'hash', 'names fold case');

  const cli = await open();
  try {
    assert.ok(await cli.setOwnerPassword('demo', 'changed'));
    await sleep(2);
    assert.equal((await store.getOwnerByName('demo'))?.passwordHash, 'changed');
    assert.ok(await cli.removeApiToken(owner.id, token.tokenHash));
    await sleep(2);
    assert.equal(await store.findApiToken(owner.id, token.tokenHash), undefined, 'revoked by the other process');
    await cli.setOwnerRights('demo', 'auth');
    await sleep(2);
    assert.equal((await store.getOwnerByName('demo'))?.rights, 'auth');
  } finally {
    await cli.close();
  }
  await store.addApiToken(token);
  assert.ok(await store.removeApiToken(owner.id, token.tokenHash));
  assert.equal(await store.findApiToken(owner.id, token.tokenHash), undefined, 'own removal');
  assert.ok(await store.setOwnerPassword('demo', 'again'));
  assert.equal((await store.getOwnerByName('demo'))?.passwordHash, 'again', 'own password change');
});
