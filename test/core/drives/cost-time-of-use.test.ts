/**
 * Time-of-use pricing (src/core/drives/cost.ts, tariff.ts): windows across midnight, energy split
 * by the samples or evenly, and windows that follow the wall clock across Europe/Berlin's DST
 * changes (a 23-hour night in spring, a 25-hour one in autumn).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chargeCost, energyCost } from '../../../src/core/drives/cost.js';
import type { ChargeSample, TariffWindow } from '../../../src/core/drives/types.js';
import { charge, place, utc } from './make.js';

const night: TariffWindow[] = [{ from: '22:00', to: '06:00', pricePerKwh: 0.12 }];
const sample = (t: number, energy: number | null, grid: number | null = null): ChargeSample => ({ t, soc: null, power: null, energy, grid });

test('even spread across midnight: 20:00–02:00 UTC, 12 kWh → 4 at 0.30 and 8 at 0.12', () => {
  const c = charge({ start: utc(2024, 5, 1, 20), end: utc(2024, 5, 2, 2), energyAdded: 12 });
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.3, timeOfUse: night })), 2.16);
});

test('the window is in the place\'s zone: the same UTC span in Berlin (UTC+2) is 22:00–04:00 local', () => {
  const c = charge({ start: utc(2024, 5, 1, 20), end: utc(2024, 5, 2, 2), energyAdded: 12 });
  assert.equal(chargeCost(c, place({ timezone: 'Europe/Berlin', pricePerKwh: 0.3, timeOfUse: night })), 1.44);
});

test('the samples divide the energy: most of it before the window opens', () => {
  const start = utc(2024, 5, 1, 20);
  const c = charge({
    start,
    end: start + 6 * 3600,
    energyAdded: 10,
    samples: [sample(start + 3600, 4), sample(start + 2 * 3600, 8), sample(start + 6 * 3600, 10)],
  });
  // 8 kWh 20:00–22:00 at 0.30, 2 kWh 22:00–02:00 at 0.12
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.3, timeOfUse: night })), 2.64);
});

test('an interval that straddles a window edge is split in proportion to its time', () => {
  const start = utc(2024, 5, 1, 21);
  const c = charge({ start, end: start + 7200, energyAdded: 6, samples: [sample(start + 3600 * 1.5, 6), sample(start + 7200, 6)] });
  // 6 kWh over 21:00–22:30: 4 at 0.30, 2 at 0.12
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.3, timeOfUse: night })), 1.44);
});

test('the grid series divides the grid energy when the samples carry it', () => {
  const start = utc(2024, 5, 1, 21);
  const c = charge({
    start,
    end: start + 2 * 3600,
    energyAdded: 9,
    energyFromGrid: 10,
    samples: [sample(start + 3600, 1, 5), sample(start + 7200, 9, 10)],
  });
  // grid: 5 kWh before 22:00, 5 after
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.3, timeOfUse: night })), 2.1);
  // without grid samples the battery series gives the shape of the 10 kWh: 1/9 before, 8/9 after
  const battery = { ...c, samples: c.samples.map((s) => ({ ...s, grid: null })) };
  assert.equal(chargeCost(battery, place({ pricePerKwh: 0.3, timeOfUse: night })), 1.4);
});

test('the first window listed wins where windows overlap; a window from = to is the whole day', () => {
  const c = charge({ start: utc(2024, 5, 1, 23), end: utc(2024, 5, 2, 1), energyAdded: 2 });
  const p = place({ pricePerKwh: 0.3, timeOfUse: [{ from: '00:00', to: '01:00', pricePerKwh: 0.05 }, ...night] });
  assert.equal(chargeCost(c, p), 0.17); // 23–24 at 0.12, 0–1 at 0.05
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.3, timeOfUse: [{ from: '07:00', to: '07:00', pricePerKwh: 0.2 }] })), 0.4);
});

const BERLIN = 'Europe/Berlin';
const cheapNight: TariffWindow[] = [{ from: '00:00', to: '06:00', pricePerKwh: 0.1 }];

test('spring DST in Berlin: the 00:00–06:00 window lasts 5 real hours', () => {
  // 2024-03-30 22:00 CET → 2024-03-31 08:00 CEST is 9 hours; 9 kWh evenly
  const c = charge({ start: utc(2024, 3, 30, 21), end: utc(2024, 3, 31, 6), energyAdded: 9 });
  // 2 h + 2 h at 0.30, 5 h in the window at 0.10
  assert.equal(chargeCost(c, place({ timezone: BERLIN, pricePerKwh: 0.3, timeOfUse: cheapNight })), 1.7);
  // a window inside the skipped hour never applies
  const gap = place({ timezone: BERLIN, pricePerKwh: 0.3, timeOfUse: [{ from: '02:00', to: '03:00', pricePerKwh: 0 }] });
  assert.equal(chargeCost(c, gap), 2.7);
});

test('autumn DST in Berlin: the 00:00–06:00 window lasts 7 real hours', () => {
  // 2024-10-26 22:00 CEST → 2024-10-27 08:00 CET is 11 hours; 11 kWh evenly
  const c = charge({ start: utc(2024, 10, 26, 20), end: utc(2024, 10, 27, 7), energyAdded: 11 });
  assert.equal(chargeCost(c, place({ timezone: BERLIN, pricePerKwh: 0.3, timeOfUse: cheapNight })), 1.9);
  // the repeated hour 02:00–03:00 is in a 02:00–03:00 window both times: 2 real hours
  const twice = place({ timezone: BERLIN, pricePerKwh: 0.3, timeOfUse: [{ from: '02:00', to: '03:00', pricePerKwh: 0 }] });
  assert.equal(chargeCost(c, twice), 2.7);
});

test('across the DST change the samples still divide the energy by wall-clock windows', () => {
  // spring: 01:00 CET = 00:00 UTC; 04:00 CEST = 02:00 UTC; window 03:00–06:00 local
  const start = utc(2024, 3, 31, 0);
  const c = charge({ start, end: utc(2024, 3, 31, 3), energyAdded: 6, samples: [sample(utc(2024, 3, 31, 1), 2), sample(utc(2024, 3, 31, 2), 4), sample(utc(2024, 3, 31, 3), 6)] });
  // 00:00–01:00 UTC is 01:00–02:00 CET (base); the rest is 03:00–05:00 CEST (window)
  const p = place({ timezone: BERLIN, pricePerKwh: 0.3, timeOfUse: [{ from: '03:00', to: '06:00', pricePerKwh: 0.1 }] });
  assert.equal(chargeCost(c, p), 1);
});

test('property: the energy cost is additive over a split of the samples', () => {
  const tz = fc.constantFrom('UTC', BERLIN, 'America/New_York');
  const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
  const windows = fc.array(fc.record({ from: hhmm, to: hhmm, pricePerKwh: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 3 });
  const steps = fc.array(fc.tuple(fc.integer({ min: 1, max: 4 * 3600 }), fc.double({ min: 0, max: 20, noNaN: true })), { minLength: 2, maxLength: 10 });
  // starts spread over 2024, DST days included
  const start = fc.integer({ min: utc(2024, 1, 1), max: utc(2025, 1, 1) });
  fc.assert(
    fc.property(tz, windows, steps, start, fc.integer({ min: 1, max: 9 }), (zone, tou, st, t0, cut) => {
      const p = place({ timezone: zone, pricePerKwh: 0.3, timeOfUse: tou });
      const samples: ChargeSample[] = [];
      let t = t0;
      let e = 0;
      for (const [dt, de] of st) {
        t += dt;
        e += de;
        samples.push(sample(t, e));
      }
      const k = Math.min(cut, samples.length - 1);
      const mid = samples[k - 1]!;
      const whole = energyCost(charge({ start: t0, end: t, energyAdded: e, samples }), p)!;
      const first = energyCost(charge({ start: t0, end: mid.t, energyAdded: mid.energy, samples: samples.slice(0, k) }), p)!;
      const rest = samples.slice(k).map((s) => ({ ...s, energy: s.energy! - mid.energy! }));
      const second = energyCost(charge({ start: mid.t, end: t, energyAdded: e - mid.energy!, samples: rest }), p)!;
      assert.ok(Math.abs(whole - (first + second)) < 1e-6 * Math.max(1, whole), `${whole} vs ${first} + ${second}`);
    }),
    { numRuns: 200 },
  );
});
