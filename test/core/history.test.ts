/** Chart series from historical records (src/core/records/history.ts); trips: trips.test.ts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHistory, type HistoryRecord } from '../../src/core/records/history.js';

const D = (time: number, odo: number): HistoryRecord => ({ code: 'D', time, data: `0,0,4,,,,0,${odo}` });
const S = (time: number, soc: string, units = 'K'): HistoryRecord => ({ code: 'S', time, data: `${soc},${units},0,0,stopped,standard,300,280` });
const L = (time: number, lat: number, lon: number): HistoryRecord => ({ code: 'L', time, data: `${lat},${lon}` });

test('series from S, D and L; unsorted input; empty fields left out', () => {
  const h = buildHistory([S(160, '85.0'), D(0, 10000), L(150, 48.5, 11.5), S(0, '90.0')]);
  // empty temperature fields are left out of the series
  assert.deepEqual(h.series.tempBattery, []);
  assert.deepEqual(h.series.soc, [
    [0, 90],
    [160, 85],
  ]);
  assert.deepEqual(h.series.range, [
    [0, 280],
    [160, 280],
  ]);
  assert.equal(h.units, 'K');
});

test('units from S; junk fields ignored', () => {
  const h = buildHistory([S(0, '50', 'M'), D(0, 500), D(600, 500), S(700, 'x'), L(10, 0, 0)]);
  assert.equal(h.units, 'M');
  assert.deepEqual(h.series.soc, [[0, 50]]);
  assert.deepEqual(buildHistory([]).series.soc, []);
});
