import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashApiToken, newApiToken } from '../../src/auth/api-token.js';
import { isVtsError } from '../../src/errors.js';
import type { ApiToken } from '../../src/store/store.js';
import { freshStore } from './helpers.js';

test('API tokens: add, find, list, touch (buffered), remove', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  const demo = await store.addOwner('demo', 'h', '*');
  const alice = await store.addOwner('alice', 'h', '*');
  const token = (ownerId: number, created: number, permit = '*'): ApiToken => ({
    ownerId,
    tokenHash: hashApiToken(newApiToken()),
    application: 'app',
    purpose: 'testing',
    permit,
    created,
    lastUsed: null,
  });
  const t1 = token(demo.id, 200);
  const t2 = token(demo.id, 100, 'status,charge');
  const t3 = token(alice.id, 150);
  for (const tk of [t1, t2, t3]) await store.addApiToken(tk);

  assert.deepEqual(await store.findApiToken(demo.id, t1.tokenHash), t1);
  assert.equal(await store.findApiToken(alice.id, t1.tokenHash), undefined); // another owner's
  assert.deepEqual(await store.listApiTokens(demo.id), [t2, t1]); // by creation
  assert.deepEqual(await store.listApiTokens(alice.id), [t3]);

  store.touchApiToken(demo.id, t1.tokenHash, 1000);
  store.touchApiToken(demo.id, t1.tokenHash, 900); // never goes back
  // buffered: the login path's lookup shows what is committed, the listing waits for the commit
  assert.equal((await store.findApiToken(demo.id, t1.tokenHash))?.lastUsed, null);
  assert.equal((await store.listApiTokens(demo.id))[1]?.lastUsed, 1000);
  await store.flush();
  assert.equal((await store.findApiToken(demo.id, t1.tokenHash))?.lastUsed, 1000); // committed
  assert.equal((await store.listApiTokens(demo.id))[0]?.lastUsed, null);

  assert.equal(await store.removeApiToken(demo.id, t1.tokenHash), true);
  assert.equal(await store.removeApiToken(demo.id, t1.tokenHash), false);
  assert.equal(await store.findApiToken(demo.id, t1.tokenHash), undefined);

  await assert.rejects(store.addApiToken(token(9999, 1)), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'));
});
