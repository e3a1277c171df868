/** Battery report (src/core/drives/battery.ts): capacity samples and median, degradation, SOH series, vampire drain. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batteryReport, drainSamples } from '../../../src/core/drives/battery.js';
import { charge, drive } from './make.js';

const H = 3600;
const DAY = 86400;
const T = 1_700_000_000;

/** A finished charge that ends at `end`, gained `gain` points and put `kwh` into the battery. */
const gained = (end: number, gain: number, kwh: number | null) => charge({ start: end - 2 * H, end, socStart: 20, socEnd: 20 + gain, energyAdded: kwh });

test('capacity samples: finished charges of 10 points or more with energy known', () => {
  const r = batteryReport([], [
    gained(T, 50, 37.5), // 75 kWh
    gained(T + DAY, 9, 7), // too small a gain
    gained(T + 2 * DAY, 20, null), // no energy
    charge({ start: T + 3 * DAY, end: null, socStart: 10, socEnd: 60, energyAdded: 30 }), // open
    gained(T + 4 * DAY, 10, 7.2), // 72 kWh, exactly 10 points
  ]);
  assert.deepEqual(
    r.samples.map((s) => [s.t, s.capacity, s.socGain, s.energy]),
    [
      [T, 75, 50, 37.5],
      [T + 4 * DAY, 72, 10, 7.2],
    ],
  );
});

test('estimate = median of the 5 newest, max = the highest ever, degradation against it', () => {
  const caps = [80, 70, 74, 76, 71, 73, 75]; // oldest first; the 5 newest: 74 76 71 73 75 → 74
  const charges = caps.map((c, i) => gained(T + i * DAY, 50, c / 2));
  const r = batteryReport([], [...charges].reverse()); // any order
  assert.deepEqual(r.capacity, { estimate: 74, max: 80, degradation: 7.5 });
  // an even number of samples: the mean of the middle two
  const four = batteryReport([], charges.slice(3));
  assert.equal(four.capacity.estimate, 74); // 71 73 | 75 76
  assert.equal(four.capacity.max, 76);
  assert.equal(four.capacity.degradation, 2.6);
});

test('no samples: all null; one sample: no degradation', () => {
  assert.deepEqual(batteryReport([], []).capacity, { estimate: null, max: null, degradation: null });
  assert.deepEqual(batteryReport([], [gained(T, 40, 30)]).capacity, { estimate: 75, max: 75, degradation: 0 });
});

test('SOH series: by end time, nulls skipped, repeats dropped, open sessions left out', () => {
  const r = batteryReport(
    [drive({ start: T, end: T + H, soh: 98 }), drive({ start: T + 2 * DAY, end: T + 2 * DAY + H, soh: 97.5 }), drive({ start: T + 3 * DAY, end: null, soh: 90 })],
    [charge({ start: T + DAY, end: T + DAY + H, soh: 98 }), charge({ start: T + DAY * 1.5, end: T + DAY * 1.5 + H, soh: null }), charge({ start: T + 4 * DAY, end: T + 4 * DAY + H, soh: 98 })],
  );
  assert.deepEqual(r.soh, [
    [T + H, 98],
    [T + 2 * DAY + H, 97.5],
    [T + 4 * DAY + H, 98],
  ]);
});

test('vampire drain: SOC lost over parked gaps of 6 h or more; perDay the median of the newest', () => {
  const d1 = drive({ start: T, end: T + H, socStart: 80, socEnd: 70 });
  const d2 = drive({ start: T + H + 2 * DAY, end: T + 3 * H + 2 * DAY, socStart: 66, socEnd: 60 }); // 4 points over 2 days
  const d3 = drive({ start: T + 3 * H + 2 * DAY + 5 * H, end: T + 3 * DAY, socStart: 59, socEnd: 50 }); // 5 h gap: too short
  const c1 = charge({ start: T + 3 * DAY + 12 * H, end: T + 4 * DAY, socStart: 49, socEnd: 90 }); // 1 point in 12 h
  const d4 = drive({ start: T + 5 * DAY, end: T + 5 * DAY + H, socStart: 90, socEnd: 80 }); // SOC did not fall over the day
  const d5 = drive({ start: T + 6 * DAY + H, end: T + 6 * DAY + 2 * H, socStart: null, socEnd: 70 }); // unknown SOC
  const r = batteryReport([d5, d3, d1, d4, d2], [c1]);
  assert.deepEqual(r.vampireDrain.samples, [
    { start: T + H, end: T + H + 2 * DAY, socLost: 4, perDay: 2 },
    { start: T + 3 * DAY, end: T + 3 * DAY + 12 * H, socLost: 1, perDay: 2 },
  ]);
  assert.equal(r.vampireDrain.perDay, 2);
  assert.equal(batteryReport([d1], []).vampireDrain.perDay, null);
});

test('vampire drain: a gap holding a charge is no gap, nor is one during a session still open', () => {
  const d1 = drive({ start: T, end: T + H, socEnd: 70 });
  const long = charge({ start: T + 2 * H, end: T + DAY * 2, socStart: 69, socEnd: 90 });
  const inside = drive({ start: T + 3 * H, end: T + 4 * H, socStart: 70, socEnd: 69 }); // overlaps the charge
  const d2 = drive({ start: T + DAY * 2 + 7 * H, socStart: 88, end: T + DAY * 3, socEnd: 80 });
  // the gap after `inside` ends at d2 but the long charge ran through it: measured from the charge's end
  assert.deepEqual(drainSamples([d1, long, inside, d2]), [{ start: T + DAY * 2, end: T + DAY * 2 + 7 * H, socLost: 2, perDay: 6.86 }]);
  const open = charge({ start: T + 2 * H, end: null, socStart: 69, socEnd: 80 });
  assert.deepEqual(drainSamples([d1, open, d2]), []);
});
