/** Alert texts (src/core/alerts/alert.ts): durations, units, the drive report's parts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDistance, driveText, formatDuration, socText, texts } from '../../../src/core/alerts/alert.js';

const km = { name: 'DEMO1', units: 'K' as const };
const mi = { name: 'DEMO1', units: 'M' as const };

test('durations as a person says them', () => {
  assert.deepEqual(
    [0, 45, 60, 89, 1860, 3600, 3660, 7500, 47 * 3600, 48 * 3600, 3 * 86400 + 4 * 3600].map(formatDuration),
    ['0 s', '45 s', '1 min', '1 min', '31 min', '1 h', '1 h 1 min', '2 h 5 min', '47 h', '2 d', '3 d 4 h'],
  );
});

test('SOC and range, converted to the shown unit', () => {
  assert.equal(socText(80, 62, 'K', km), '80 % (62 km)');
  assert.equal(socText(80, 100, 'K', mi), '80 % (62 mi)');
  assert.equal(socText(79.6, null, 'K', km), '80 %');
  assert.equal(Math.round(convertDistance(10, 'M', 'K') * 1000) / 1000, 16.093);
  assert.equal(texts.v12Low(km, 11.84), 'DEMO1: 12 V battery at 11.8 V');
  assert.equal(texts.chargeStopped(km, null), 'DEMO1: charging stopped and did not resume');
});

test('drive report: parts unknown are left out', () => {
  assert.equal(driveText(km, { distance: 23.4, units: 'K', duration: 1860, energy: 3.9 }), 'DEMO1 drove 23.4 km in 31 min, 3.9 kWh (167 Wh/km)');
  assert.equal(driveText(km, { distance: null, units: 'K', duration: 600, energy: 2 }), 'DEMO1 drove in 10 min, 2.0 kWh');
  assert.equal(driveText(mi, { distance: 16.09344, units: 'K', duration: null, energy: 2.5 }), 'DEMO1 drove 10.0 mi, 2.5 kWh (250 Wh/mi)');
});
