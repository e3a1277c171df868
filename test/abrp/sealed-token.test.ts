/** Sealed secrets (src/core/crypto/sealed-secret.ts): AES-256-GCM bound to its row, unreadable under another key. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseSealKey, seal, unseal } from '../../src/core/crypto/sealed-secret.js';

test('a sealed token opens with its key and row only, and does not show the token', () => {
  const key = randomBytes(32);
  const token = 'a1b2c3d4-e5f6-0000-1111-222233334444';
  const sealed = seal(key, token, 'CAR1');
  assert.ok(sealed.startsWith('v1:'));
  assert.ok(!sealed.includes(token) && !Buffer.from(sealed.slice(3), 'base64').toString('latin1').includes(token));
  assert.notEqual(seal(key, token, 'CAR1'), sealed, 'a fresh IV each time');
  assert.equal(unseal(key, sealed, 'CAR1'), token);
  assert.equal(unseal(key, sealed, 'CAR2'), null, 'another row');
  assert.equal(unseal(randomBytes(32), sealed, 'CAR1'), null, 'another key');
  assert.equal(unseal(key, sealed.slice(0, -4) + 'AAAA', 'CAR1'), null, 'damaged');
  assert.equal(unseal(key, 'plain', 'CAR1'), null);
});

test('a key is 64 hexadecimal digits', () => {
  assert.equal(parseSealKey('ab'.repeat(32))?.length, 32);
  assert.equal(parseSealKey(' ' + 'AB'.repeat(32) + '\n')?.length, 32);
  assert.equal(parseSealKey('ab'.repeat(31)), null);
  assert.equal(parseSealKey('zz'.repeat(32)), null);
});
