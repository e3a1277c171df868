/** The scheme-0 line cipher (src/core/crypto/mp-cipher.ts, docs/protocol/mp.md §4.4–§4.5). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpCipher, rc4Once } from '../../src/core/crypto/mp-cipher.js';
import { sessionKey } from '../../src/core/crypto/digest.js';
import { Rc4 } from '../../src/core/crypto/rc4.js';

const key = sessionKey('NETPASS', 'abcdefghijklmnopqrstuv', '0123456789ABCDEFGHIJKL');

test('two ciphers with the same key talk to each other in both directions', () => {
  const server = new MpCipher(key);
  const car = new MpCipher(key);
  const lines = ['MP-0 Z0', 'MP-0 S80,K,220,70,charging,standard,280,270', 'MP-0 T0', 'MP-0 c7,0,line1\rline2'];
  for (const l of lines) assert.equal(car.decrypt(server.encrypt(l)), l);
  for (const l of lines) assert.equal(server.decrypt(car.encrypt(l)), l);
});

test('the state is continuous: the same plaintext encrypts differently each time', () => {
  const c = new MpCipher(key);
  assert.notEqual(c.encrypt('MP-0 A'), c.encrypt('MP-0 A'));
});

test('tx and rx are independent states (both start at the same keystream position)', () => {
  const c = new MpCipher(key);
  const wire = c.encrypt('MP-0 A');
  // rx has not moved: decrypting our own first line gives it back.
  assert.equal(c.decrypt(wire), 'MP-0 A');
});

test('wire lines are standard padded base64 without line breaks', () => {
  const c = new MpCipher(key);
  const wire = c.encrypt('MP-0 ' + 'x'.repeat(300));
  assert.match(wire, /^[A-Za-z0-9+/]+={0,2}$/);
  assert.equal(wire.length % 4, 0);
});

test('UTF-8 text survives the round trip', () => {
  const a = new MpCipher(key);
  const b = new MpCipher(key);
  assert.equal(b.decrypt(a.encrypt('MP-0 PIZürich → 東京')), 'MP-0 PIZürich → 東京');
});

test('decrypt accepts unpadded base64', () => {
  const a = new MpCipher(key);
  const b = new MpCipher(key);
  const wire = a.encrypt('MP-0 Z0'); // 7 bytes → "…=="
  assert.ok(wire.endsWith('='));
  assert.equal(b.decrypt(wire.replace(/=+$/, '')), 'MP-0 Z0');
});

test('decrypt returns null for lines that are not base64, without advancing the state', () => {
  const a = new MpCipher(key);
  const b = new MpCipher(key);
  for (const bad of ['', 'A', 'ABCDE', 'not base64!', 'MP-0 A', 'abc=d', '====', 'ab\r\ncd']) {
    assert.equal(b.decrypt(bad), null, JSON.stringify(bad));
  }
  assert.equal(b.decrypt(a.encrypt('MP-0 A')), 'MP-0 A');
});

test('rc4Once does not modify its key and works on empty data', () => {
  const k = Buffer.from(key);
  assert.equal(rc4Once(k, new Uint8Array(0)).length, 0);
  assert.deepEqual(k, key);
});

test('payloads are UTF-8: valid UTF-8 relays unchanged, invalid bytes become U+FFFD (docs/compatibility.md)', () => {
  const relay = (original: Buffer): Buffer => {
    const wireIn = Buffer.from(new Rc4(key).apply(Buffer.from(original))).toString('base64');
    const plaintext = new MpCipher(key).decrypt(wireIn)!;
    const appKey = sessionKey('NETPASS', 'another-server-token00', 'another-client-token00');
    const wireOut = new MpCipher(appKey).encrypt(plaintext);
    return Buffer.from(new Rc4(appKey).apply(Buffer.from(wireOut, 'base64')));
  };
  const utf8 = Buffer.from('MP-0 PAZürich ⚡', 'utf8');
  assert.deepEqual(relay(utf8), utf8);
  const latin1 = Buffer.concat([Buffer.from('MP-0 PA', 'latin1'), Buffer.from([0xfc])]);
  assert.deepEqual(relay(latin1), Buffer.concat([Buffer.from('MP-0 PA'), Buffer.from([0xef, 0xbf, 0xbd])]));
});

test('ciphers side by side in the shared state slabs keep their own streams', () => {
  const pairs = Array.from({ length: 300 }, (_, k) => {
    const kk = sessionKey(`PASS${k}`, 'abcdefghijklmnopqrstuv', '0123456789ABCDEFGHIJKL');
    return { server: new MpCipher(kk), car: new MpCipher(kk), alone: new Rc4(kk) };
  });
  for (let round = 0; round < 3; round++) {
    for (const [k, p] of pairs.entries()) {
      const line = `MP-0 S${k},K,${round}`;
      const wire = p.server.encrypt(line);
      // the server's tx stream is the classic keystream of the key, untouched by its neighbours
      assert.equal(wire, Buffer.from(p.alone.apply(Buffer.from(line))).toString('base64'));
      assert.equal(p.car.decrypt(wire), line);
      assert.equal(p.server.decrypt(p.car.encrypt(`MP-0 a${k}`)), `MP-0 a${k}`);
    }
  }
});
