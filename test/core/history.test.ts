/** Chart series and trips from historical records (src/core/records/history.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHistory, TRIP_GAP, type HistoryRecord } from '../../src/core/records/history.js';

const D = (time: number, odo: number): HistoryRecord => ({ code: 'D', time, data: `0,0,4,,,,0,${odo}` });
const S = (time: number, soc: string, units = 'K'): HistoryRecord => ({ code: 'S', time, data: `${soc},${units},0,0,stopped,standard,300,280` });
const L = (time: number, lat: number, lon: number): HistoryRecord => ({ code: 'L', time, data: `${lat},${lon}` });

test('two trips split by a pause longer than TRIP_GAP; unsorted input; positions and SOC at the ends', () => {
  const h = buildHistory([
    D(1000 + TRIP_GAP + 500, 10300),
    S(0, '90.0'),
    L(0, 48, 11),
    D(0, 10000),
    D(100, 10100),
    L(150, 48.5, 11.5),
    S(160, '85.0'),
    D(200, 10200),
    D(1000 + TRIP_GAP, 10200),
    L(1000 + TRIP_GAP + 400, 49, 12),
  ]);
  assert.deepEqual(h.trips, [
    { start: 0, end: 200, distance: 20, from: { lat: 48, lon: 11 }, to: { lat: 48.5, lon: 11.5 }, socStart: 90, socEnd: 85 },
    { start: 1000 + TRIP_GAP, end: 1000 + TRIP_GAP + 500, distance: 10, from: { lat: 48.5, lon: 11.5 }, to: { lat: 49, lon: 12 }, socStart: 85, socEnd: 85 },
  ]);
  // empty temperature fields are left out of the series
  assert.deepEqual(h.series.tempBattery, []);
  assert.deepEqual(h.series.soc, [
    [0, 90],
    [160, 85],
  ]);
});

test('no movement, no trip; units from S; junk fields ignored; 0,0 positions are not positions', () => {
  const h = buildHistory([S(0, '50', 'M'), D(0, 500), D(600, 500), S(700, 'x'), L(10, 0, 0)]);
  assert.deepEqual(h.trips, []);
  assert.equal(h.units, 'M');
  assert.deepEqual(h.series.soc, [[0, 50]]);
  assert.deepEqual(buildHistory([]).trips, []);
});
