/** Digests and tokens (src/core/crypto/digest.ts, docs/protocol/mp.md §4.1–§4.4). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { digestBase64, hmacMd5, randomToken, sessionKey, verifyDigest } from '../../src/core/crypto/digest.js';
import { handshakeVector } from '../fixtures/load.js';

const S = handshakeVector().scheme0;

test('verifyDigest accepts the padded and the unpadded form (§4.1)', () => {
  assert.equal(verifyDigest(S.carPassword, S.clientToken, S.clientDigestPadded), true);
  assert.equal(verifyDigest(S.carPassword, S.clientToken, S.clientDigestUnpadded), true);
});

test('verifyDigest rejects a digest for another password or another token', () => {
  assert.equal(verifyDigest('WRONG', S.clientToken, S.clientDigestPadded), false);
  assert.equal(verifyDigest(S.carPassword, S.serverToken, S.clientDigestPadded), false);
  // One flipped character in the middle.
  const flipped = S.clientDigestPadded.replace('P', 'Q');
  assert.notEqual(flipped, S.clientDigestPadded);
  assert.equal(verifyDigest(S.carPassword, S.clientToken, flipped), false);
});

test('verifyDigest rejects garbage and wrong lengths', () => {
  const bad = [
    '',
    'garbage',
    '!!!!!!!!!!!!!!!!!!!!!!==',
    S.clientDigestPadded.slice(0, 21), // 21 chars
    S.clientDigestPadded.slice(0, 23), // 22 chars + one '='
    S.clientDigestPadded + '=', // three '='
    S.clientDigestPadded + 'AAAA', // longer
    S.clientDigestUnpadded + 'AA', // 24 chars, 18 bytes
    ` ${S.clientDigestPadded}`,
    `${S.clientDigestPadded}\n`,
    Buffer.from(hmacMd5(S.carPassword, S.clientToken)).toString('hex'), // hex, 32 chars
    hmacMd5(S.carPassword, S.clientToken).toString('base64url'), // URL-safe alphabet
  ];
  for (const d of bad) assert.equal(verifyDigest(S.carPassword, S.clientToken, d), false, JSON.stringify(d));
});

test('digestBase64 is the padded 24-character form the server sends (§4.3)', () => {
  const d = digestBase64('NETPASS', 'anytoken');
  assert.equal(d.length, 24);
  assert.ok(d.endsWith('=='));
  assert.equal(Buffer.from(d, 'base64').toString('hex'), hmacMd5('NETPASS', 'anytoken').toString('hex'));
});

test('hmacMd5 accepts bytes as well as strings', () => {
  assert.deepEqual(hmacMd5(Buffer.from('NETPASS'), Buffer.from(S.clientToken)), hmacMd5('NETPASS', S.clientToken));
});

test('sessionKey puts the server token first (§4.4)', () => {
  const k = sessionKey(S.carPassword, S.serverToken, S.clientToken);
  assert.equal(k.toString('hex'), S.sessionKeyHex);
  assert.notEqual(sessionKey(S.carPassword, S.clientToken, S.serverToken).toString('hex'), S.sessionKeyHex);
});

test('randomToken: 22 characters from the base64 alphabet by default', () => {
  for (let n = 0; n < 50; n++) {
    const t = randomToken();
    assert.match(t, /^[A-Za-z0-9+/]{22}$/);
  }
  assert.notEqual(randomToken(), randomToken());
});

test('randomToken maps each random byte to alphabet[byte & 63]', () => {
  const fixed = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, k) => k * 4 + 64 * (k % 3));
  // k*4 & 63 → 0, 4, 8, … 60, 0, 4 …
  assert.equal(randomToken(16, fixed), 'AEIMQUYcgkosw048');
  assert.equal(randomToken(4, () => Uint8Array.from([0, 63, 64, 255])), 'A/A/');
  assert.equal(randomToken(0), '');
});
