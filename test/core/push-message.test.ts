/** The text of push notifications (src/core/push/message.ts, docs/protocol/mp.md §12.1). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pushText, vehicleErrorText, vehicleLabel } from '../../src/core/push/message.js';

test('alerts and info notifications keep their text', () => {
  assert.deepEqual(pushText('A', 'Charging stopped'), { text: 'Charging stopped', push: true });
  assert.deepEqual(pushText('I', 'a;b'), { text: 'a;b', push: true });
});

test('E alerts are rendered as the reference does without its code tables', () => {
  assert.equal(vehicleErrorText('TR,30,1234'), 'Vehicle Alert Code: TR/30 (000004d2)');
  assert.deepEqual(pushText('E', 'RT,1,255'), { text: 'Vehicle Alert Code: RT/1 (000000ff)', push: true });
});

test("E alerts: Perl's numbers (leading digits, fractions truncated, junk is 0, negatives in 64 bits)", () => {
  assert.equal(vehicleErrorText('NL,12ab,4294967295'), 'Vehicle Alert Code: NL/12 (ffffffff)');
  assert.equal(vehicleErrorText('NL,-3.7,2.9'), 'Vehicle Alert Code: NL/-3 (00000002)');
  assert.equal(vehicleErrorText('NL,x,y'), 'Vehicle Alert Code: NL/0 (00000000)');
  assert.equal(vehicleErrorText('NL,1,-1'), 'Vehicle Alert Code: NL/1 (ffffffffffffffff)');
  assert.equal(vehicleErrorText('NL'), 'Vehicle Alert Code: NL/0 (00000000)');
});

test('E alerts of any input render to one line of the fixed form', () => {
  fc.assert(
    fc.property(fc.string(), (raw) => {
      const t = vehicleErrorText(raw);
      assert.match(t, /^Vehicle Alert Code: [^,]*\/-?\d+ \([0-9a-f]{8,16}\)$/s);
    }),
  );
});

test('the vehicle is named by its id, or its name and id', () => {
  assert.equal(vehicleLabel('DEMO1', ''), 'DEMO1');
  assert.equal(vehicleLabel('DEMO1', 'demo1'), 'DEMO1');
  assert.equal(vehicleLabel('DEMO1', ' Blue Leaf '), 'Blue Leaf (DEMO1)');
});
