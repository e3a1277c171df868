/**
 * TOTP (src/core/auth/totp.ts): the test vectors of RFC 6238 appendix B (SHA-1, taken to the six
 * digits vts uses, and the eight of the RFC), RFC 4226's HOTP vectors, the window and the replay
 * rule, the otpauth URI, and the base32 codec (RFC 4648 vectors, then a property: every byte
 * string comes back from its encoding, and the decoder never throws).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode, totpStep } from '../../../src/core/auth/totp.js';
import { fuzzParams } from '../../support/fuzz.js';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

// RFC 6238 appendix B, SHA1 column: time (s) → 8-digit TOTP
const RFC_6238: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

test('RFC 6238 appendix B vectors (SHA-1), eight digits and the six vts uses', () => {
  for (const [seconds, code] of RFC_6238) {
    assert.equal(totpCode(RFC_SECRET, seconds * 1000, 8), code, `T = ${seconds}`);
    assert.equal(totpCode(RFC_SECRET, seconds * 1000), code.slice(2), `T = ${seconds}, 6 digits`);
  }
});

test('RFC 4226 appendix D HOTP vectors', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => assert.equal(hotp(RFC_SECRET, counter), code));
});

test('a code matches in its step and one step either side, only after the last step used', () => {
  const at = 1111111111 * 1000;
  const step = totpStep(at);
  const code = totpCode(RFC_SECRET, at);
  assert.equal(matchTotp(RFC_SECRET, code, at, 0), step);
  assert.equal(matchTotp(RFC_SECRET, code, at + 30_000, 0), step, 'the next step still takes it');
  assert.equal(matchTotp(RFC_SECRET, code, at - 30_000, 0), step, 'the step before too (a clock ahead)');
  assert.equal(matchTotp(RFC_SECRET, code, at + 60_000, 0), null, 'two steps later: too old');
  assert.equal(matchTotp(RFC_SECRET, code, at, step), null, 'its step was used: a replay');
  assert.equal(matchTotp(RFC_SECRET, code, at, step - 1), step);
  assert.equal(matchTotp(RFC_SECRET, '000000', at, 0), totpCode(RFC_SECRET, at) === '000000' ? step : null);
  assert.equal(matchTotp(RFC_SECRET, `${code.slice(0, 3)} ${code.slice(3)}`, at, 0), step, 'a blank in the middle is allowed');
  assert.equal(matchTotp(RFC_SECRET, '', at, 0), null);
  assert.equal(matchTotp(RFC_SECRET, `${code}0`, at, 0), null);
});

test('the otpauth URI names the issuer, the user and the secret', () => {
  assert.equal(
    otpauthUri('anna', 'JBSWY3DPEHPK3PXP'),
    'otpauth://totp/vts:anna?secret=JBSWY3DPEHPK3PXP&issuer=vts&algorithm=SHA1&digits=6&period=30',
  );
  assert.match(otpauthUri('a b', 'X'), /^otpauth:\/\/totp\/vts:a%20b\?/);
});

test('base32: RFC 4648 §10 vectors (padding dropped), either case, blanks ignored', () => {
  const vectors: [string, string][] = [['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI']];
  for (const [plain, encoded] of vectors) {
    assert.equal(base32Encode(Buffer.from(plain)), encoded);
    assert.equal(Buffer.from(base32Decode(encoded)!).toString(), plain);
  }
  assert.equal(Buffer.from(base32Decode('mzxw 6ytb-oi======')!).toString(), 'foobar');
  assert.equal(base32Decode('MZXW1'), null, '1 is not in the alphabet');
  assert.equal(base32Decode('M'), null, 'one character is no whole byte');
  assert.equal(base32Decode('MZ'), null, 'leftover bits must be zero (MY is f)');
});

test('base32 property: decode(encode(bytes)) is bytes; the encoding is the alphabet only; decoding never throws', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
      const text = base32Encode(bytes);
      assert.match(text, /^[A-Z2-7]*$/);
      assert.equal(text.length, Math.ceil((bytes.length * 8) / 5));
      assert.deepEqual(base32Decode(text), bytes);
      assert.deepEqual(base32Decode(text.toLowerCase()), bytes);
    }),
    fuzzParams(2000),
  );
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(...'ABCXYZ234567=-  a1!é'), maxLength: 40 }), (text) => {
      const bytes = base32Decode(text);
      // whatever decodes encodes back to the same letters (modulo case, blanks and padding)
      if (bytes !== null) assert.equal(base32Encode(bytes), text.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase());
    }),
    fuzzParams(2000),
  );
});
