/** RC4 (src/core/crypto/rc4.ts): classic vectors, priming, continuity. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rc4 } from '../../src/core/crypto/rc4.js';

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('classic RC4 vectors without priming', () => {
  assert.equal(hex(new Rc4(ascii('Key'), 0).apply(ascii('Plaintext'))), 'bbf316e8d940af0ad3');
  assert.equal(hex(new Rc4(ascii('Wiki'), 0).apply(ascii('pedia'))), '1021bf0420');
  assert.equal(hex(new Rc4(ascii('Secret'), 0).apply(ascii('Attack at dawn'))), '45a01f645fc35b383552544b9bf5');
});

test('the default drop is 1024 (the MP priming)', () => {
  const key = ascii('NETPASS');
  assert.equal(hex(new Rc4(key).apply(new Uint8Array(8))), hex(new Rc4(key, 1024).apply(new Uint8Array(8))));
});

test('skip(n) is the same as encrypting n bytes and discarding them', () => {
  const key = ascii('some key');
  const a = new Rc4(key, 0);
  a.skip(1024);
  const b = new Rc4(key, 0);
  b.apply(new Uint8Array(1024));
  const c = new Rc4(key, 1024);
  const out = [a, b, c].map((r) => hex(r.apply(new Uint8Array(32))));
  assert.equal(out[0], out[1]);
  assert.equal(out[0], out[2]);
});

test('the keystream is continuous across apply() calls', () => {
  const key = ascii('continuous');
  const whole = new Rc4(key).apply(ascii('hello, world and more'));
  const split = new Rc4(key);
  const parts = [split.apply(ascii('hello')), split.apply(ascii(', world')), split.apply(ascii(' and more'))];
  assert.equal(hex(whole), parts.map(hex).join(''));
});

test('apply() works in place and returns its argument; applying twice decrypts', () => {
  const buf = ascii('round trip');
  const out = new Rc4(ascii('k')).apply(buf);
  assert.equal(out, buf);
  assert.notEqual(buf.toString('latin1'), 'round trip');
  new Rc4(ascii('k')).apply(buf);
  assert.equal(buf.toString('latin1'), 'round trip');
});

test('apply() of an empty buffer does not advance the stream', () => {
  const a = new Rc4(ascii('k'));
  a.apply(new Uint8Array(0));
  assert.equal(hex(a.apply(new Uint8Array(4))), hex(new Rc4(ascii('k')).apply(new Uint8Array(4))));
});

test('key length must be 1..256 bytes', () => {
  assert.throws(() => new Rc4(new Uint8Array(0)), RangeError);
  assert.throws(() => new Rc4(new Uint8Array(257)), RangeError);
  assert.doesNotThrow(() => new Rc4(new Uint8Array(1)));
  assert.doesNotThrow(() => new Rc4(new Uint8Array(256)));
});

test('a state kept at an offset of a shared buffer gives the same keystream, and its neighbours keep theirs', () => {
  const shared = new Uint8Array(1024).fill(0xee);
  const a = new Rc4(ascii('first'), 1024, shared, 256);
  const b = new Rc4(ascii('second'), 1024, shared, 512);
  const own = [new Rc4(ascii('first')), new Rc4(ascii('second'))];
  for (let round = 0; round < 3; round++) {
    assert.equal(hex(a.apply(new Uint8Array(40))), hex(own[0]!.apply(new Uint8Array(40))));
    assert.equal(hex(b.apply(new Uint8Array(40))), hex(own[1]!.apply(new Uint8Array(40))));
  }
  assert.ok(shared.subarray(0, 256).every((x) => x === 0xee), 'the bytes before the states are untouched');
  assert.ok(shared.subarray(768).every((x) => x === 0xee), 'the bytes after them too');
  assert.throws(() => new Rc4(ascii('k'), 0, shared, 769), RangeError);
});
