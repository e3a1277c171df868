/**
 * The session tracker across a restart: the state saved (toJSON), passed through JSON and given to
 * a new tracker, which is fed the records since the checkpoint again (some already seen), loses
 * and doubles nothing, in the middle of a drive, of a charge, or anywhere in a random day.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SessionTracker, type SessionInput } from '../../../src/core/drives/tracker.js';
import { ScriptedCar, SessionMap, feedLive } from '../../support/drive-records.js';
import { fuzzParams } from '../../support/fuzz.js';
import { day, play } from '../../support/drive-days.js';

const start = 1_700_000_000;

/** Feeds `records`, restarting the tracker before each index of `cuts`; returns the sessions. */
function withRestarts(records: readonly SessionInput[], cuts: readonly number[], now: number): SessionMap {
  const map = new SessionMap();
  let tracker = new SessionTracker();
  let from = 0;
  for (const p of cuts) {
    feedPart(tracker, records.slice(from, p), map);
    const saved = JSON.parse(JSON.stringify(tracker.toJSON())) as unknown;
    tracker = new SessionTracker(saved);
    // what the recorder feeds again: the records from the checkpoint's time on (some already seen)
    const since = tracker.lastTime;
    feedPart(tracker, records.slice(0, p).filter((r) => r.time >= since - 60), map);
    from = p;
  }
  feedPart(tracker, records.slice(from), map);
  map.apply(tracker.tick(now));
  return map;
}

test('a restart in the middle of a drive and of a charge continues them: one drive, one charge', () => {
  const car = new ScriptedCar({ start, logs: true });
  car.park(1200).drive(1800, 50).park(600).charge(3600, 7).park(1200);
  const records = car.arrivalOrder();
  const midDrive = records.findIndex((r) => r.time > start + 1200 + 900);
  const midCharge = records.findIndex((r) => r.time > start + 1200 + 1805 + 600 + 1800);
  const map = withRestarts(records, [midDrive, midCharge], car.t);
  assert.equal(map.list('drive').length, 1);
  assert.equal(map.list('charge').length, 1);
  assert.equal(map.list('drive')[0]?.distance, 25);
  assert.equal(map.list('charge')[0]?.energyAdded, 7);
  assert.deepEqual(map.all(), feedLive(new SessionTracker(), records, car.t).all());
});

test('a state that is not a checkpoint starts afresh', () => {
  for (const junk of [null, 42, 'x', { v: 2 }, []]) {
    const t = new SessionTracker(junk);
    assert.equal(t.lastTime, 0);
    assert.equal(t.busy, false);
  }
});

test('a save and restore at any point loses and doubles nothing', () => {
  fc.assert(
    fc.property(day, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }), (d, cuts) => {
      const car = play(d);
      const now = car.t + 3600;
      const records = car.arrivalOrder();
      const whole = feedLive(new SessionTracker(), records, now).all();
      const points = cuts.map((c) => Math.floor(c * records.length)).sort((a, b) => a - b);
      assert.deepEqual(withRestarts(records, points, now).all(), whole);
    }),
    fuzzParams(150),
  );
});

function feedPart(tracker: SessionTracker, records: readonly SessionInput[], map: SessionMap): void {
  let clock = 0;
  for (const r of records) {
    if (clock === 0) clock = r.time;
    while (tracker.busy && clock + 60 < r.time) {
      clock += 60;
      map.apply(tracker.tick(clock));
    }
    clock = Math.max(clock, r.time);
    map.apply(tracker.feed(r));
  }
}
