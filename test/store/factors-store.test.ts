/**
 * The second factors' part of the store (src/store/factors-store.ts), on SQLite and (with
 * VTS_TEST_DATABASE) PostgreSQL: API password logins, the TOTP life (begin, enable with recovery
 * codes, a step used once, disable), recovery codes used up, passkeys, and challenges that are
 * used once and expire.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import type { Passkey } from '../../src/store/factors-store.js';
import { freshStore } from './helpers.js';

test('API password logins and TOTP: begin, enable, a step used once, recovery codes, disable', async (t) => {
  const { store } = await freshStore(t);
  const demo = await store.addOwner('demo', 'h', '*');
  const f = store.factors;

  assert.equal((await store.getOwnerByName('demo'))?.apiPasswords, true);
  assert.equal(await f.setApiPasswords(demo.id, false), true);
  assert.equal((await store.getOwnerByName('demo'))?.apiPasswords, false, 'the owners cache is emptied');
  assert.equal(await f.setApiPasswords(9999, false), false);

  assert.deepEqual(await f.getTotp(demo.id), { secret: null, enabled: false, step: 0 });
  assert.equal(await f.enableTotp(demo.id, 5, ['a']), false, 'nothing begun');
  assert.equal(await f.beginTotp(demo.id, 'v1:sealed'), true);
  assert.equal(await f.enableTotp(demo.id, 100, ['h1', 'h2', 'h3']), true);
  assert.deepEqual(await f.getTotp(demo.id), { secret: 'v1:sealed', enabled: true, step: 100 });
  assert.equal((await store.getOwnerByName('demo'))?.totpEnabled, true);
  assert.equal(await f.beginTotp(demo.id, 'v1:other'), false, 'an enabled TOTP is kept');
  assert.equal(await f.enableTotp(demo.id, 200, []), false, 'enabled already');

  assert.equal(await f.useTotpStep(demo.id, 100), false, 'the confirming step is used');
  assert.equal(await f.useTotpStep(demo.id, 101), true);
  assert.equal(await f.useTotpStep(demo.id, 101), false);
  assert.equal(await f.useTotpStep(demo.id, 99), false, 'never an older step');

  assert.equal(await f.countRecoveryCodes(demo.id), 3);
  assert.equal(await f.useRecoveryCode(demo.id, 'h2'), true);
  assert.equal(await f.useRecoveryCode(demo.id, 'h2'), false);
  assert.equal(await f.useRecoveryCode(demo.id, 'nope'), false);
  assert.equal(await f.countRecoveryCodes(demo.id), 2);

  await f.disableTotp(demo.id);
  assert.deepEqual(await f.getTotp(demo.id), { secret: null, enabled: false, step: 0 });
  assert.equal(await f.countRecoveryCodes(demo.id), 0);
  assert.equal((await store.getOwnerByName('demo'))?.totpEnabled, false);
});

test('passkeys and WebAuthn challenges', async (t) => {
  const { store } = await freshStore(t);
  const demo = await store.addOwner('demo', 'h', '*');
  const alice = await store.addOwner('alice', 'h', '*');
  const f = store.factors;
  const key = (id: string, ownerId: number, created: number): Passkey => ({
    id, ownerId, publicKey: 'pk-' + id, counter: 0, transports: ['internal', 'hybrid'], name: 'Laptop', created, lastUsed: null,
  });
  await f.addPasskey(key('B', demo.id, 20));
  await f.addPasskey(key('A', demo.id, 10));
  await f.addPasskey(key('C', alice.id, 5));
  await assert.rejects(f.addPasskey(key('A', alice.id, 1)), (e) => isVtsError(e, 'VTS_ERR_CONFLICT'));
  assert.deepEqual((await f.listPasskeys(demo.id)).map((p) => p.id), ['A', 'B']);
  assert.deepEqual(await f.getPasskey('A'), key('A', demo.id, 10));

  assert.equal(await f.renamePasskey(alice.id, 'A', 'Stolen'), false, "another owner's");
  assert.equal(await f.renamePasskey(demo.id, 'A', 'Phone'), true);
  await f.usePasskey('A', 7, 1000);
  const a = await f.getPasskey('A');
  assert.equal(a?.name, 'Phone');
  assert.equal(a?.counter, 7);
  assert.equal(a?.lastUsed, 1000);
  assert.equal(await f.removePasskey(alice.id, 'A'), false);
  assert.equal(await f.removePasskey(demo.id, 'A'), true);
  assert.deepEqual((await f.listPasskeys(demo.id)).map((p) => p.id), ['B']);

  await f.putChallenge({ id: 'c1', ownerId: demo.id, purpose: 'passkey-register', challenge: 'xyz', expires: 1300 }, 1000);
  await f.putChallenge({ id: 'c2', ownerId: null, purpose: 'passkey-signin', challenge: 'abc', expires: 1300 }, 1000);
  assert.equal(await f.takeChallenge('c1', 'passkey-signin', 1000), undefined, 'of another purpose');
  assert.deepEqual(await f.takeChallenge('c1', 'passkey-register', 1100), { id: 'c1', ownerId: demo.id, purpose: 'passkey-register', challenge: 'xyz', expires: 1300 });
  assert.equal(await f.takeChallenge('c1', 'passkey-register', 1100), undefined, 'used once');
  assert.equal(await f.takeChallenge('c2', 'passkey-signin', 1301), undefined, 'expired');
  await f.putChallenge({ id: 'c3', ownerId: null, purpose: 'passkey-signin', challenge: 'abc', expires: 2000 }, 1000);
  await f.putChallenge({ id: 'c4', ownerId: null, purpose: 'passkey-signin', challenge: 'def', expires: 9000 }, 2001);
  assert.equal(await f.takeChallenge('c3', 'passkey-signin', 1500), undefined, 'swept when a later one was put');
  assert.equal((await f.takeChallenge('c4', 'passkey-signin', 2001))?.challenge, 'def');
});
