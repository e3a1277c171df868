/** The RC4 state slab (src/core/crypto/state-slab.ts): distinct slots, and a slot free again once its owner is collected. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SLOT_BYTES, slotCounts, takeSlot } from '../../src/core/crypto/state-slab.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('slots do not overlap, within a slab and across slabs', () => {
  const owners = Array.from({ length: 300 }, () => ({}));
  const slots = owners.map((o) => takeSlot(o));
  const seen = new Map<Uint8Array, number[]>();
  for (const s of slots) {
    assert.equal(s.at % SLOT_BYTES, 0);
    assert.ok(s.at + SLOT_BYTES <= s.buf.length);
    const list = seen.get(s.buf) ?? [];
    assert.ok(!list.includes(s.at), `slot ${s.at} given twice`);
    seen.set(s.buf, [...list, s.at]);
  }
  assert.ok(seen.size >= 3, '300 slots take several slabs');
  assert.ok(owners.length === 300); // the owners live until here
});

test("a slot is free again after its owner is garbage collected, and is given out again", async () => {
  const before = slotCounts();
  (() => {
    for (let k = 0; k < 50; k++) takeSlot({});
  })();
  const taken = slotCounts();
  assert.equal(taken.free, Math.max(0, before.free - 50) + (taken.total - before.total));
  let now = slotCounts();
  for (let round = 0; round < 100 && now.free < taken.free + 50; round++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
    now = slotCounts();
  }
  assert.ok(now.free >= taken.free + 50, `the 50 slots came back (${now.free - taken.free})`);
  assert.equal(now.total, taken.total, 'no slab was added meanwhile');
  const again = slotCounts().total;
  const keep = Array.from({ length: 50 }, () => ({}));
  for (const o of keep) takeSlot(o);
  assert.equal(slotCounts().total, again, 'the freed slots are given out before a new slab is cut');
});
