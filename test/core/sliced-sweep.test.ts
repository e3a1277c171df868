/**
 * SlicedSweep: a periodic sweep spread over its period, a slice a step, over a live Set or Map.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SlicedSweep, slicesFor } from '../../src/core/sliced-sweep.js';

const sweepOf = (members: Set<number>, slices: number) => new SlicedSweep(() => members.values(), () => members.size, slices);

test('a steady set: every member once in each round of `slices` steps, a slice a step', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 4 }), (n, slices, rounds) => {
      const members = new Set(Array.from({ length: n }, (_, k) => k));
      const sweep = sweepOf(members, slices);
      for (let r = 0; r < rounds; r++) {
        const seen: number[] = [];
        for (let s = 0; s < slices; s++) {
          const visited = sweep.step((m) => seen.push(m));
          assert.ok(visited <= Math.ceil(n / slices), `a step visits at most a slice (${visited} of ${n} in ${slices})`);
        }
        assert.deepEqual(seen.sort((a, b) => a - b), [...members], `round ${r}: everyone once`);
      }
    }),
  );
});

test('members come and go between steps: nobody is visited twice in a step, nor after leaving, and who stays is visited every two rounds', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 0, max: 400 }) }),
    fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 400 }) }),
    fc.record({ kind: fc.constant('step' as const) }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 20 }), fc.array(op, { maxLength: 400 }), (n, slices, ops) => {
      const members = new Set(Array.from({ length: n }, (_, k) => k));
      const stayers = new Set(members); // members from the start that never leave
      const sweep = sweepOf(members, slices);
      const lastVisit = new Map<number, number>();
      let steps = 0;
      const check = () => {
        for (const id of stayers) {
          assert.ok(steps - (lastVisit.get(id) ?? 0) <= 2 * slices + 1, `member ${id} waited ${steps - (lastVisit.get(id) ?? 0)} steps (${slices} slices)`);
        }
      };
      for (const o of [...ops, ...Array.from({ length: 2 * slices + 2 }, () => ({ kind: 'step' as const }))]) {
        if (o.kind === 'add') members.add(o.id);
        else if (o.kind === 'delete') {
          members.delete(o.id);
          stayers.delete(o.id);
        } else {
          steps++;
          const inStep = new Set<number>();
          sweep.step((m) => {
            assert.ok(members.has(m), `${m} is visited only while a member`);
            assert.ok(!inStep.has(m), `${m} twice in one step`);
            inStep.add(m);
            lastVisit.set(m, steps);
          });
          check();
        }
      }
    }),
  );
});

test('a generator works as the live iterator; reset begins a new round; slicesFor', () => {
  const lists = [[1, 2], [3], [4, 5, 6]];
  const sweep = new SlicedSweep(
    function* () {
      for (const l of lists) yield* l;
    },
    () => 3,
    3,
  );
  const seen: number[] = [];
  sweep.step((m) => seen.push(m));
  assert.deepEqual(seen, [1], 'a third of the size hint at first');
  for (let k = 0; k < 5; k++) sweep.step((m) => seen.push(m));
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6], 'the round runs past the hint, a slice of the hint a step');
  sweep.step((m) => seen.push(m));
  assert.deepEqual(seen.slice(6), [1, 2], 'the next round: slices of what the last round held (6 in 3)');
  sweep.reset();
  sweep.step((m) => seen.push(m));
  assert.deepEqual(seen.slice(8), [1, 2], 'reset: from the start');
  assert.throws(() => new SlicedSweep(() => [].values(), () => 0, 0), RangeError);
  assert.equal(slicesFor(60_000, 60), 60);
  assert.equal(slicesFor(10_000, 60), 10);
  assert.equal(slicesFor(50, 10), 1, 'short periods (tests) sweep at once');
});

test('a member removed and added again mid-round comes at the tail of the round: visited once in that step, the next round in the next', () => {
  const members = new Set([0, 1]);
  const sweep = sweepOf(members, 1);
  const steps: number[][] = [];
  const step = () => {
    const seen: number[] = [];
    sweep.step((m) => seen.push(m));
    steps.push(seen);
  };
  step();
  members.delete(0);
  members.add(0);
  step();
  step();
  assert.deepEqual(steps, [[0, 1], [0], [1, 0]]);
});
