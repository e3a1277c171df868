/**
 * Property-based fuzz of the scheme-0 crypto path (src/core/crypto/): the base64 + RC4 line cipher,
 * one-shot RC4, the handshake digests. Decrypting garbage never throws: a line that is not base64
 * is null and leaves the stream where it was; every line a cipher encrypts, its peer decrypts; a
 * digest check is false for anything but the digest; an RC4 key of the wrong length is the
 * documented RangeError and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { digestBase64, randomToken, sessionKey, verifyDigest } from '../../src/core/crypto/digest.js';
import { MpCipher, rc4Once } from '../../src/core/crypto/mp-cipher.js';
import { Rc4 } from '../../src/core/crypto/rc4.js';
import { sameSecret } from '../../src/core/crypto/same-secret.js';
import { fuzzParams, timed } from '../support/fuzz.js';

/** The documented shape of a wire line: base64 (padded or not), not one character too many. */
const isBase64Line = (s: string): boolean => s.length > 0 && s.length % 4 !== 1 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
const wellFormed = (s: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

const key = fc.uint8Array({ minLength: 1, maxLength: 64 });
const plaintext = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: fc.constantFrom('M', 'P', '-', '0', ' ', ',', '\r', '\n', 'é', '😀', '\u0000'), maxLength: 200 }),
);
const b64Char = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
/** Garbage, and nearly-base64: the right alphabet with padding, blanks, line breaks and URL-safe letters in odd places. */
const wireGarbage = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
  fc.string({ unit: fc.oneof({ weight: 8, arbitrary: b64Char }, fc.constantFrom('=', ' ', '\r', '\n', '-', '_', '.', '\u0000')), maxLength: 80 }),
  fc.string({ unit: b64Char, maxLength: 80 }),
);

test('property: every line one cipher encrypts, its peer decrypts (a whole session, both directions)', () => {
  fc.assert(
    fc.property(key, fc.array(fc.tuple(fc.boolean(), plaintext), { maxLength: 12 }), (k, lines) => {
      const server = new MpCipher(k);
      const car = new MpCipher(k);
      for (const [toCar, line] of lines) {
        const [from, to] = toCar ? [server, car] : [car, server];
        const wire = from.encrypt(line);
        assert.ok(wire === '' || (isBase64Line(wire) && wire.length % 4 === 0), wire);
        if (wire === '') continue; // an empty plaintext has no wire form the peer would decrypt
        const back = to.decrypt(wire);
        // a lone surrogate is not UTF-8: it comes back as U+FFFD, everything else exactly
        assert.equal(back, wellFormed(line) ? line : Buffer.from(line, 'utf8').toString('utf8'));
      }
    }),
    fuzzParams(1500),
  );
});

test('property: decrypting garbage never throws; a line that is not base64 is null and does not move the stream', () => {
  fc.assert(
    fc.property(key, fc.array(fc.oneof(wireGarbage, plaintext), { maxLength: 8 }), plaintext, (k, junk, line) => {
      const sender = new MpCipher(k);
      const receiver = new MpCipher(k);
      const probe = new MpCipher(k);
      let moved = false;
      for (const j of junk) {
        const r = receiver.decrypt(j);
        if (isBase64Line(j)) {
          assert.equal(typeof r, 'string');
          if (Buffer.from(j, 'base64').length > 0) moved = true;
        } else assert.equal(r, null, JSON.stringify(j));
        assert.equal(probe.decrypt(j) === null, r === null);
      }
      const wire = sender.encrypt(line);
      if (!moved && wire !== '') assert.equal(receiver.decrypt(wire), Buffer.from(line, 'utf8').toString('utf8'));
    }),
    fuzzParams(2000),
  );
});

test('property: RC4 is its own inverse; a key of 1..256 bytes works, any other length is the RangeError', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), fc.nat(2048), (k, data, drop) => {
      if (k.length === 0 || k.length > 256) {
        assert.throws(() => new Rc4(k, drop), RangeError);
        assert.throws(() => rc4Once(k, data), RangeError);
        return;
      }
      const once = rc4Once(k, Uint8Array.from(data));
      assert.deepEqual(rc4Once(k, once), data);
      const a = new Rc4(k, drop);
      const b = new Rc4(k, 0);
      b.skip(drop);
      assert.deepEqual(a.apply(Uint8Array.from(data)), b.apply(Uint8Array.from(data)), 'priming is skipping');
    }),
    fuzzParams(1000),
  );
});

test('property: a digest check is true for the digest (padded or not) and false for garbage and mutations', () => {
  const secret = fc.string({ unit: 'binary', maxLength: 30 });
  fc.assert(
    fc.property(secret, fc.string({ maxLength: 30 }), fc.oneof(wireGarbage, fc.string({ unit: b64Char, minLength: 22, maxLength: 22 })), fc.nat(), b64Char, (pass, msg, junk, at, c) => {
      const d = digestBase64(pass, msg);
      assert.equal(d.length, 24);
      assert.equal(verifyDigest(pass, msg, d), true);
      assert.equal(verifyDigest(pass, msg, d.slice(0, 22)), true);
      const expected = Buffer.from(d, 'base64');
      for (const given of [junk, d.slice(0, at % 24) + c + d.slice((at % 24) + 1), d + '=', ' ' + d, d.slice(0, 22) + '=']) {
        const ok = verifyDigest(pass, msg, given);
        // only an encoding of the same 16 bytes passes (the last character's unused bits do not count)
        if (ok) assert.deepEqual(Buffer.from(given, 'base64'), expected, given);
      }
      assert.equal(sessionKey(pass, msg, junk).length, 16);
    }),
    fuzzParams(1500),
  );
});

test('property: tokens are base64 letters of the asked length; sameSecret is string equality', () => {
  fc.assert(
    fc.property(fc.nat(64), fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }), (n, a, b) => {
      assert.match(randomToken(n), new RegExp(`^[A-Za-z0-9+/]{${n}}$`));
      assert.equal(sameSecret(a, b), a === b);
      assert.equal(sameSecret(a, a), true);
    }),
    fuzzParams(1000),
  );
});

test('time: 1 MB wire lines (base64 or almost) decrypt or are refused in linear time', () => {
  const k = new Uint8Array(16).fill(7);
  const c = new MpCipher(k);
  const mb = 1024 * 1024;
  for (const line of ['A'.repeat(mb), 'A'.repeat(mb) + '!', 'A'.repeat(mb - 1) + '=', '='.repeat(mb), 'A'.repeat(mb) + '===', '+/'.repeat(mb / 2) + '\n']) {
    const r = timed('decrypt', line, () => c.decrypt(line));
    assert.equal(r === null, !isBase64Line(line));
  }
  timed('verifyDigest', 'A'.repeat(mb), () => assert.equal(verifyDigest('k', 'm', 'A'.repeat(mb)), false));
});
