import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { freshStore } from './helpers.js';

test('auto-provisioning records: put (upsert), get, remove', async (t) => {
  const { store } = await freshStore(t);
  const owner = await store.addOwner('demo', 'h', '*');
  const rec = {
    key: 'VIN123',
    serverToken: 'QRSTUVWXYZabcdefghijkl',
    serverDigest: 'jKkwybi5XvzB4pWe8D2y7g',
    message: '6xYikTZbcIBstfyuxKJpjwcoDHk=',
    ownerId: owner.id,
  };
  await store.putAutoProvision(rec);
  assert.deepEqual(await store.getAutoProvision('VIN123'), rec);
  await store.putAutoProvision({ ...rec, message: 'new', ownerId: null });
  assert.deepEqual(await store.getAutoProvision('VIN123'), { ...rec, message: 'new', ownerId: null });
  assert.equal(await store.getAutoProvision('VIN999'), undefined);
  assert.equal(await store.removeAutoProvision('VIN123'), true);
  assert.equal(await store.removeAutoProvision('VIN123'), false);
  assert.equal(await store.getAutoProvision('VIN123'), undefined);
  await assert.rejects(store.putAutoProvision({ ...rec, ownerId: 9999 }), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'));
});
