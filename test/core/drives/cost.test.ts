/** Charge cost (src/core/drives/cost.ts): energy × price + minutes × price + fee; open charges; rounding. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargeCost, roundCents } from '../../../src/core/drives/cost.js';
import { charge, place } from './make.js';

const T = 1_700_000_000;

test('grid energy × price + minutes × price per minute + session fee', () => {
  const p = place({ pricePerKwh: 0.3, pricePerMinute: 0.05, sessionFee: 1.5 });
  const c = charge({ start: T, end: T + 3600, energyAdded: 20, energyFromGrid: 22 });
  assert.equal(chargeCost(c, p), 22 * 0.3 + 60 * 0.05 + 1.5);
});

test('battery energy when the grid energy is unknown', () => {
  const c = charge({ start: T, end: T + 1800, energyAdded: 20, energyFromGrid: null });
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.25 })), 5);
});

test('a place with only a fee and a per-minute price prices a charge of unknown energy; one with a kWh price does not', () => {
  const c = charge({ start: T, end: T + 600, energyAdded: null, energyFromGrid: null });
  assert.equal(chargeCost(c, place({ pricePerMinute: 0.1, sessionFee: 2 })), 3);
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.3 })), null);
  assert.equal(chargeCost(c, place({ timeOfUse: [{ from: '00:00', to: '06:00', pricePerKwh: 0.1 }] })), null);
  assert.equal(chargeCost(c, place()), 0, 'a free place');
});

test('an open charge is priced up to its last sample (time and energy so far)', () => {
  const c = charge({
    start: T,
    end: null,
    energyAdded: null,
    energyFromGrid: null,
    samples: [
      { t: T + 600, soc: 41, power: 11, energy: 1.8, grid: 2 },
      { t: T + 1200, soc: 43, power: 11, energy: 3.6, grid: 4 },
    ],
  });
  // 4 kWh from the grid × 0.5 + 20 minutes × 0.1
  assert.equal(chargeCost(c, place({ pricePerKwh: 0.5, pricePerMinute: 0.1 })), 4);
  // the figures of the session win when the tracker set them
  assert.equal(chargeCost({ ...c, energyAdded: 5 }, place({ pricePerKwh: 0.5 })), 2.5);
  // no samples yet: nothing so far
  assert.equal(chargeCost({ ...c, samples: [] }, place({ pricePerKwh: 0.5, pricePerMinute: 0.1, sessionFee: 1 })), null);
  assert.equal(chargeCost({ ...c, samples: [] }, place({ pricePerMinute: 0.1, sessionFee: 1 })), 1);
});

test('roundCents: half away from zero without binary surprises', () => {
  assert.equal(roundCents(1.005), 1.01);
  assert.equal(roundCents(2.675), 2.68);
  assert.equal(roundCents(0.1 + 0.2), 0.3);
  assert.equal(roundCents(1e-9), 0);
  assert.equal(roundCents(12345.6789), 12345.68);
});
