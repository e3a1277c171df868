/**
 * store.signup (src/store/signup-store.ts) on the test's database (SQLite, or PostgreSQL with
 * VTS_TEST_DATABASE): signed-up owners (unverified, a unique address in any case), single-use
 * account tokens with their expiry, and invitation codes that count their uses down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore } from './helpers.js';

test('a signed-up owner: unverified, with its address; a taken name or address is answered, not thrown', async (t) => {
  const { store } = await freshStore(t);
  await store.addOwner('cli-made', 'scrypt$x', '*');
  const made = await store.signup.addUnverifiedOwner('Alice', 'scrypt$a', 'Alice@Example.org', 100);
  assert.ok('owner' in made);
  assert.deepEqual(
    { ...made.owner, id: 0 },
    { id: 0, name: 'Alice', rights: '*', created: 100, email: 'Alice@Example.org', verified: false, disabled: false, admin: false, apiPasswords: true, totpEnabled: false },
  );
  assert.deepEqual(await store.signup.addUnverifiedOwner('alice', 'scrypt$b', 'other@example.org', 101), { taken: 'name' });
  assert.deepEqual(await store.signup.addUnverifiedOwner('CLI-MADE', 'scrypt$b', 'other@example.org', 101), { taken: 'name' });
  assert.deepEqual(await store.signup.addUnverifiedOwner('bob', 'scrypt$b', 'alice@EXAMPLE.org', 101), { taken: 'email' });

  const found = await store.signup.ownerByEmail('ALICE@example.ORG');
  assert.equal(found?.name, 'Alice');
  assert.equal(found?.passwordHash, 'scrypt$a');
  assert.equal(await store.signup.ownerByEmail('nobody@example.org'), undefined);

  // the login path reads the owner (cached on SQLite): verifying shows there at once
  assert.equal((await store.getOwnerByName('alice'))?.verified, false);
  assert.equal(await store.signup.setVerified(made.owner.id), true);
  assert.equal((await store.getOwnerByName('alice'))?.verified, true);
  assert.equal(await store.signup.setVerified(99999), false);
  assert.equal((await store.getOwnerByName('cli-made'))?.verified, true, 'CLI accounts are verified');
});

test('account tokens: single use, of one purpose, refused once expired; expired ones are purged', async (t) => {
  const { store } = await freshStore(t);
  const made = await store.signup.addUnverifiedOwner('alice', 'scrypt$a', 'alice@example.org', 100);
  assert.ok('owner' in made);
  const id = made.owner.id;
  await store.signup.addToken({ tokenHash: 'a'.repeat(64), ownerId: id, purpose: 'verify', expires: 200, created: 100 });
  await store.signup.addToken({ tokenHash: 'b'.repeat(64), ownerId: id, purpose: 'reset', expires: 200, created: 100 });
  await store.signup.addToken({ tokenHash: 'c'.repeat(64), ownerId: id, purpose: 'reset', expires: 150, created: 100 });
  await store.signup.addToken({ tokenHash: 'd'.repeat(64), ownerId: id, purpose: 'verify', expires: 300, created: 100 });

  assert.equal(await store.signup.takeToken('a'.repeat(64), 'verify', 200), id, 'valid up to its expiry');
  assert.equal(await store.signup.takeToken('a'.repeat(64), 'verify', 200), undefined, 'single use');
  assert.equal(await store.signup.takeToken('b'.repeat(64), 'verify', 120), undefined, 'another purpose');
  assert.equal(await store.signup.takeToken('b'.repeat(64), 'reset', 120), undefined, 'and it is gone then');
  assert.equal(await store.signup.takeToken('c'.repeat(64), 'reset', 151), undefined, 'expired');
  assert.equal(await store.signup.takeToken('e'.repeat(64), 'reset', 100), undefined, 'unknown');

  await store.signup.removeTokens(id, 'reset');
  assert.equal(await store.signup.takeToken('d'.repeat(64), 'verify', 120), id, 'removing the reset tokens leaves the verify ones');

  // a new token purges every expired one
  await store.signup.addToken({ tokenHash: 'f'.repeat(64), ownerId: id, purpose: 'reset', expires: 400, created: 100 });
  await store.signup.addToken({ tokenHash: '1'.repeat(64), ownerId: id, purpose: 'reset', expires: 1000, created: 500 });
  assert.equal(await store.signup.takeToken('f'.repeat(64), 'reset', 0), undefined, 'purged when it had expired');
  assert.equal(await store.signup.takeToken('1'.repeat(64), 'reset', 600), id);

  // tokens go with their owner
  await store.signup.addToken({ tokenHash: '2'.repeat(64), ownerId: id, purpose: 'verify', expires: 1000, created: 500 });
  assert.equal(await store.removeOwner('alice'), true);
  assert.equal(await store.signup.takeToken('2'.repeat(64), 'verify', 600), undefined);
});

test('invitation codes: uses counted down, expiry, listed newest first, removed by a prefix of the hash', async (t) => {
  const { store } = await freshStore(t);
  await store.signup.addInvite({ codeHash: 'aa11'.padEnd(64, '0'), usesLeft: 2, expires: null, created: 100 });
  await store.signup.addInvite({ codeHash: 'bb22'.padEnd(64, '0'), usesLeft: 1, expires: 500, created: 200 });
  assert.deepEqual(
    (await store.signup.listInvites()).map((i) => [i.codeHash.slice(0, 4), i.usesLeft, i.expires, i.created]),
    [
      ['bb22', 1, 500, 200],
      ['aa11', 2, null, 100],
    ],
  );
  assert.equal(await store.signup.useInvite('bb22'.padEnd(64, '0'), 501), false, 'expired');
  assert.equal(await store.signup.useInvite('aa11'.padEnd(64, '0'), 10_000), true);
  assert.equal(await store.signup.useInvite('aa11'.padEnd(64, '0'), 10_000), true);
  assert.equal(await store.signup.useInvite('aa11'.padEnd(64, '0'), 10_000), false, 'used up');
  assert.deepEqual((await store.signup.listInvites()).map((i) => i.codeHash.slice(0, 4)), ['bb22'], 'a used-up code is gone');
  assert.equal(await store.signup.useInvite('cc33'.padEnd(64, '0'), 0), false, 'unknown');
  assert.equal(await store.signup.removeInvites(''), 0, 'an empty prefix removes nothing');
  assert.equal(await store.signup.removeInvites('BB2'), 1);
  assert.deepEqual(await store.signup.listInvites(), []);
});

test('sign-ups never verified are purged after a while (with their tokens), unless verified or owning a vehicle', async (t) => {
  const { store } = await freshStore(t);
  const add = async (name: string, created: number) => {
    const r = await store.signup.addUnverifiedOwner(name, 'scrypt$x', `${name}@example.org`, created);
    assert.ok('owner' in r);
    return r.owner;
  };
  const old = await add('old', 100);
  const verified = await add('verified', 100);
  await store.signup.setVerified(verified.id);
  const withCar = await add('withcar', 100);
  await store.addVehicle({ id: 'CAR1', ownerId: withCar.id, name: 'car', carPassword: 'secret' });
  await add('recent', 1000);
  await store.addOwner('cli', 'scrypt$x', '*');
  await store.signup.addToken({ tokenHash: '9'.repeat(64), ownerId: old.id, purpose: 'verify', expires: 10_000, created: 100 });
  assert.equal((await store.getOwnerByName('old'))?.name, 'old', 'read (and cached) before the purge');

  assert.deepEqual(await store.signup.purgeUnverified(500, 100), ['old']);
  assert.equal(await store.getOwnerByName('old'), undefined);
  assert.equal(await store.signup.takeToken('9'.repeat(64), 'verify', 200), undefined);
  assert.deepEqual((await store.listOwners()).map((o) => o.name).sort(), ['cli', 'recent', 'verified', 'withcar']);
  assert.deepEqual(await store.signup.purgeUnverified(500, 100), []);
  // the name and the address are free again
  assert.ok('owner' in (await store.signup.addUnverifiedOwner('old', 'scrypt$y', 'old@example.org', 600)));
});
