/**
 * A resting session tracker (SessionTracker.rest: its state kept as JSON while it is not busy, as
 * the recorder does with a parked car's): it gives the very same session changes, record by
 * record and tick by tick, as one that never rests, and the same checkpoint; a busy tracker does
 * not rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SessionTracker, type SessionInput } from '../../../src/core/drives/tracker.js';
import type { SessionOp } from '../../../src/core/drives/types.js';
import { ScriptedCar } from '../../support/drive-records.js';
import { fuzzParams } from '../../support/fuzz.js';
import { day, play } from '../../support/drive-days.js';

/** Every operation in order (each feed's and tick's), resting the tracker whenever it may when `resting`. */
function trace(records: readonly SessionInput[], now: number, resting: boolean): { ops: SessionOp[][]; checkpoint: string; rested: number } {
  const tracker = new SessionTracker();
  const ops: SessionOp[][] = [];
  let clock = 0;
  let rested = 0;
  const settle = (): void => {
    if (!resting) return;
    tracker.rest();
    if (tracker.isResting) rested++;
  };
  for (const r of records) {
    if (clock === 0) clock = r.time;
    while (tracker.busy && clock + 60 < r.time) {
      clock += 60;
      ops.push(tracker.tick(clock));
      settle();
    }
    clock = Math.max(clock, r.time);
    ops.push(tracker.feed(r));
    settle();
  }
  ops.push(tracker.tick(now));
  return { ops, checkpoint: JSON.stringify(tracker.toJSON()), rested };
}

test('a tracker that rests between its records gives the same changes and checkpoint as one that does not', () => {
  const start = 1_700_000_000;
  const car = new ScriptedCar({ start, logs: true });
  car.park(1200).drive(1800, 50).park(3600).charge(3600, 7).park(7200);
  const records = car.arrivalOrder();
  const a = trace(records, car.t + 3600, false);
  const b = trace(records, car.t + 3600, true);
  assert.ok(b.rested > 0, 'it rested while parked');
  assert.deepEqual(b.ops, a.ops);
  assert.equal(b.checkpoint, a.checkpoint);
});

test('a busy tracker does not rest', () => {
  const start = 1_700_000_000;
  const car = new ScriptedCar({ start });
  car.park(600).drive(1800, 30);
  const tracker = new SessionTracker();
  // the records until the middle of the drive
  for (const r of car.arrivalOrder().filter((x) => x.time < start + 600 + 900)) tracker.feed(r);
  assert.equal(tracker.busy, true, 'a drive is open');
  tracker.rest();
  assert.equal(tracker.isResting, false);
});

test('resting changes nothing on any day', () => {
  fc.assert(
    fc.property(day, (d) => {
      const car = play(d);
      const records = car.arrivalOrder();
      const a = trace(records, car.t + 3600, false);
      const b = trace(records, car.t + 3600, true);
      assert.deepEqual(b.ops, a.ops);
      assert.equal(b.checkpoint, a.checkpoint);
    }),
    fuzzParams(150),
  );
});
