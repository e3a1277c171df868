/**
 * Properties of the session tracker over random days (fast-check): the sessions are the same
 * whether the records are fed as they arrive (logs late, ticks every minute) or by time (a
 * rebuild), and feeding everything twice changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SessionTracker } from '../../../src/core/drives/tracker.js';
import { feedLive, rebuild } from '../../support/drive-records.js';
import { day, play } from '../../support/drive-days.js';
import { fuzzParams } from '../../support/fuzz.js';

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
