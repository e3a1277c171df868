/** The MQTT packet-size guard (src/core/mqtt/packet-size.ts): framing across chunks, limits. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PacketSizeGuard } from '../../src/core/mqtt/packet-size.js';

/** A packet of type byte 0x30 (PUBLISH) with `n` body bytes, its length as MQTT's varint. */
function packet(n: number): Buffer {
  const len: number[] = [];
  let x = n;
  do {
    let b = x % 128;
    x = Math.floor(x / 128);
    if (x > 0) b |= 0x80;
    len.push(b);
  } while (x > 0);
  return Buffer.concat([Buffer.from([0x30, ...len]), Buffer.alloc(n, 0x61)]);
}

test('packets up to the limit pass, in any chunking; empty bodies (PINGREQ) too', () => {
  const stream = Buffer.concat([packet(10), Buffer.from([0xc0, 0x00]), packet(200), packet(1000)]);
  for (const size of [1, 2, 3, 7, 64, stream.length]) {
    const g = new PacketSizeGuard(1000);
    for (let i = 0; i < stream.length; i += size) assert.equal(g.feed(stream.subarray(i, i + size)), true, `chunks of ${size}`);
  }
});

test('a packet over the limit is refused as soon as its length is read; a 5-byte length is malformed', () => {
  const g = new PacketSizeGuard(1000);
  assert.equal(g.feed(packet(10)), true);
  assert.equal(g.feed(packet(1001).subarray(0, 3)), false, 'refused from the header alone');
  assert.equal(new PacketSizeGuard(1 << 30).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x01])), false);
  assert.equal(new PacketSizeGuard(268_435_455).feed(Buffer.from([0x30, 0xff, 0xff, 0xff, 0x7f])), true, 'the largest legal length');
});
