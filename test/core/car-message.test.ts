/** Stored car messages (src/core/mp/car-message.ts, docs/protocol/mp.md §8.1, §9.1). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repairStatus, replayOrder } from '../../src/core/mp/car-message.js';

test('repairStatus replaces the first ,performance,, in a plain S (§9.1 kludge)', () => {
  assert.equal(repairStatus('S', '80,K,220,70,charging,performance,,280,270'), '80,K,220,70,charging,performance,280,270');
  assert.equal(
    repairStatus('S', '1,performance,,2,performance,,3'),
    '1,performance,2,performance,,3',
  );
});

test('repairStatus leaves other S messages and other codes alone', () => {
  assert.equal(repairStatus('S', '80,K,220,70,charging,standard,280,270'), '80,K,220,70,charging,standard,280,270');
  assert.equal(repairStatus('S', '80,K,performance,1'), '80,K,performance,1');
  assert.equal(repairStatus('D', 'x,performance,,y'), 'x,performance,,y');
  assert.equal(repairStatus('E', 'MS,performance,,y'), 'MS,performance,,y');
  assert.equal(repairStatus('S', ''), '');
});

test('replayOrder: F, then S, then the other codes ascending (§8.1, transcripts §8)', () => {
  assert.deepEqual(['W', 'L', 'S', 'D', 'F', 'Y', 'V', 'X'].sort(replayOrder), ['F', 'S', 'D', 'L', 'V', 'W', 'X', 'Y']);
  assert.deepEqual(['L', 'S'].sort(replayOrder), ['S', 'L']);
  assert.deepEqual(['S', 'F'].sort(replayOrder), ['F', 'S']);
});

test('replayOrder is a consistent comparator', () => {
  assert.equal(replayOrder('S', 'S'), 0);
  assert.equal(replayOrder('D', 'D'), 0);
  assert.ok(replayOrder('F', 'S') < 0 && replayOrder('S', 'F') > 0);
  assert.ok(replayOrder('S', 'A') < 0 && replayOrder('A', 'S') > 0);
  assert.ok(replayOrder('D', 'L') < 0 && replayOrder('L', 'D') > 0);
});
