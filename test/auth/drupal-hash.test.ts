/**
 * Drupal 7 password hashes (src/auth/drupal-hash.ts): a published vector (hashcat's example of
 * mode 7900, password `hashcat`) verifies; other passwords and malformed hashes do not, without
 * throwing; a user whose stored hash is a Drupal one logs in with that password and has vts's
 * own hash from then on (SQLite, or PostgreSQL with VTS_TEST_DATABASE).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authenticateUser } from '../../src/auth/authenticate.js';
import { drupalBase64, isDrupalHash, verifyDrupalHash } from '../../src/auth/drupal-hash.js';
import { needsRehash, verifyPassword } from '../../src/auth/password.js';
import { PasswordChecker } from '../../src/auth/password-checker.js';
import { freshStore } from '../store/helpers.js';

const HASHCAT = '$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf';

test('a published Drupal 7 hash verifies with its password only', async () => {
  assert.ok(isDrupalHash(HASHCAT));
  assert.ok(needsRehash(HASHCAT));
  assert.equal(await verifyDrupalHash('hashcat', HASHCAT), true);
  assert.equal(await verifyPassword('hashcat', HASHCAT), true, 'through the one password check');
  for (const wrong of ['Hashcat', 'hashcat ', '', 'hashcat\0']) assert.equal(await verifyDrupalHash(wrong, HASHCAT), false, JSON.stringify(wrong));
});

test("malformed hashes are not Drupal hashes, and verify to false", async () => {
  const bad = [
    HASHCAT.slice(0, 54),
    `${HASHCAT}x`,
    `$P$${HASHCAT.slice(3)}`,
    `$S$!${HASHCAT.slice(4)}`, // not a count character
    `$S$4${HASHCAT.slice(4)}`, // 2^6: below Drupal's minimum
    `$S$z${HASHCAT.slice(4)}`, // 2^63: above its maximum
    `${HASHCAT.slice(0, 54)}é`,
    'scrypt$16384$8$1$c2FsdA==$aGFzaA==',
  ];
  for (const stored of bad) {
    assert.equal(isDrupalHash(stored), false, stored);
    assert.equal(await verifyDrupalHash('hashcat', stored), false, stored);
  }
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 60 }), async (s) => {
      assert.equal(typeof (await verifyDrupalHash('x', s.startsWith('$S$') ? s : `$S$${s}`)), 'boolean');
    }),
    { numRuns: 200 },
  );
});

test("Drupal's base64: 3 bytes make 4 characters, low bits first", () => {
  assert.equal(drupalBase64(new Uint8Array([0, 0, 0])), '....');
  assert.equal(drupalBase64(new Uint8Array([0x3f])), 'z.');
  assert.equal(drupalBase64(new Uint8Array([0xff, 0xff, 0xff])), 'zzzz');
  assert.equal(drupalBase64(new Uint8Array(64)).length, 86);
});

test('a user with a Drupal hash logs in with its password and has a vts hash from then on', async (t) => {
  const { store } = await freshStore(t);
  await store.addOwner('olduser', HASHCAT, '*');
  const checker = new PasswordChecker();
  assert.equal(await authenticateUser(store, checker, 'olduser', 'wrong', Date.now()), null);
  assert.equal((await store.getOwnerByName('olduser'))?.passwordHash, HASHCAT, 'a failed login changes nothing');
  const first = await authenticateUser(store, checker, 'olduser', 'hashcat', Date.now());
  assert.equal(first?.via, 'password');
  assert.equal(first?.permit, '*');
  const rehashed = (await store.getOwnerByName('olduser'))!.passwordHash;
  assert.match(rehashed, /^scrypt\$/);
  assert.equal(needsRehash(rehashed), false);
  const again = await authenticateUser(store, new PasswordChecker(), 'olduser', 'hashcat', Date.now());
  assert.equal(again?.owner.name, 'olduser', 'the same password against the new hash');
  assert.equal(await authenticateUser(store, new PasswordChecker(), 'olduser', 'Hashcat', Date.now()), null);
  // the replacement applies only to the hash it replaces: a password changed meanwhile stays
  assert.equal(await store.setOwnerPassword('olduser', 'scrypt$other', HASHCAT), false);
  assert.equal((await store.getOwnerByName('olduser'))!.passwordHash, rehashed);
});
