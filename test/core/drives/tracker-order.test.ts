/**
 * Properties of the session tracker over random days (fast-check): the sessions are the same
 * whether the records are fed as they arrive (logs late, ticks every minute) or by time (a
 * rebuild), feeding everything twice changes nothing, and a save and restore at any point
 * (the state through JSON, the records since the checkpoint fed again) loses and doubles nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SessionTracker, type SessionInput } from '../../../src/core/drives/tracker.js';
import { ScriptedCar, SessionMap, feedLive, rebuild } from '../../support/drive-records.js';
import { fuzzParams } from '../../support/fuzz.js';

type Step =
  | { k: 'park'; s: number; every: number }
  | { k: 'drive'; s: number; speed: number; every: number; lost: number | null }
  | { k: 'charge'; s: number; power: number; every: number; type: string }
  | { k: 'offline' }
  | { k: 'reconnect' }
  | { k: 'soc'; soc: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant('park' as const), s: fc.integer({ min: 60, max: 6 * 3600 }), every: fc.constantFrom(60, 600) }),
  fc.record({
    k: fc.constant('drive' as const),
    s: fc.integer({ min: 30, max: 5400 }),
    speed: fc.integer({ min: 1, max: 130 }),
    every: fc.constantFrom(10, 30, 600),
    lost: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
  }),
  fc.record({
    k: fc.constant('charge' as const),
    s: fc.integer({ min: 60, max: 4 * 3600 }),
    power: fc.constantFrom(3.7, 7, 11, 50, 150),
    every: fc.constantFrom(60, 600),
    type: fc.constantFrom('type2', 'ccs'),
  }),
  fc.constant({ k: 'offline' as const }),
  fc.constant({ k: 'reconnect' as const }),
  fc.record({ k: fc.constant('soc' as const), soc: fc.integer({ min: 5, max: 100 }) }),
);

const day = fc.record({
  ignition: fc.boolean(),
  logs: fc.boolean(),
  steps: fc.array(step, { minLength: 1, maxLength: 14 }),
});

function play(d: { ignition: boolean; logs: boolean; steps: Step[] }): ScriptedCar {
  const car = new ScriptedCar({ start: 1_700_000_000, ignition: d.ignition, logs: d.logs });
  car.park(1200);
  for (const s of d.steps) {
    if (s.k === 'park') car.park(s.s, s.every);
    else if (s.k === 'drive') car.drive(s.s, s.speed, s.every, s.lost ?? undefined);
    else if (s.k === 'charge') car.charge(s.s, s.power, s.every, s.type);
    else if (s.k === 'offline') car.offline();
    else if (s.k === 'reconnect') car.reconnect();
    else car.setSoc(s.soc);
  }
  car.park(3600).reconnect().park(1200);
  return car;
}

test('arrival order (logs late, ticks) and time order (rebuild) give the same sessions; feeding twice changes nothing', () => {
  fc.assert(
    fc.property(day, (d) => {
      const car = play(d);
      const now = car.t + 3600;
      const live = feedLive(new SessionTracker(), car.arrivalOrder(), now).all();
      const all = car.records.map((r) => r.input);
      assert.deepEqual(rebuild(all, now).all(), live);
      assert.deepEqual(rebuild([...all, ...all], now).all(), live);
    }),
    fuzzParams(150),
  );
});

test('a save and restore at any point loses and doubles nothing', () => {
  fc.assert(
    fc.property(day, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }), (d, cuts) => {
      const car = play(d);
      const now = car.t + 3600;
      const records = car.arrivalOrder();
      const whole = feedLive(new SessionTracker(), records, now).all();
      const points = cuts.map((c) => Math.floor(c * records.length)).sort((a, b) => a - b);
      const map = new SessionMap();
      let tracker = new SessionTracker();
      let from = 0;
      for (const p of points) {
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
      assert.deepEqual(map.all(), whole);
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
