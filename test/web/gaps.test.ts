/** Chart lines broken at gaps (web/src/gaps.ts), and the place field a server error names (web/src/place-fields.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gapThreshold, MAX_GAP, MIN_GAP, segments, thin, withBreaks, type Value } from '../../web/src/gaps.js';
import { fieldOf } from '../../web/src/place-fields.js';

const series = (start: number, step: number, n: number, v = 50): Value[] => Array.from({ length: n }, (_, i) => [start + i * step, v + i]);

test('a car reporting every minute, then silent for 3 hours: two segments, one break', () => {
  const pts = [...series(0, 60, 30), ...series(30 * 60 + 3 * 3600, 60, 30)];
  assert.equal(segments(pts).length, 2);
  const { data, alone } = withBreaks(pts);
  assert.equal(data.filter((p) => p.y === null).length, 1);
  assert.equal(data.length, 61);
  assert.equal(alone.size, 0);
});

test('the threshold: 3× the median spacing, at least 11 minutes, at most 30 minutes', () => {
  assert.equal(gapThreshold(series(0, 10, 50).map((p) => p[0])), MIN_GAP);
  assert.equal(gapThreshold(series(0, 300, 50).map((p) => p[0])), 900);
  assert.equal(gapThreshold(series(0, 3600, 50).map((p) => p[0])), MAX_GAP);
  // a daily series (SOH) with no upper limit: 3 days apart is a gap, 1 day is not
  assert.equal(gapThreshold(series(0, 86400, 10).map((p) => p[0]), Number.POSITIVE_INFINITY), 3 * 86400);
});

test('a parked car reporting every 10 minutes is one line; an hour without data breaks it', () => {
  assert.equal(segments(series(0, 600, 40)).length, 1);
  const pts = [...series(0, 600, 10), ...series(6000 + 3600, 600, 10)];
  assert.equal(segments(pts).length, 2);
});

test('values out of order or not finite: sorted, dropped; a lone value is marked', () => {
  const pts: Value[] = [[7200, 3], [0, 1], [60, Number.NaN], [120, 2], [99_999, 9]];
  const segs = segments(pts);
  assert.deepEqual(segs.map((s) => s.map((p) => p[0])), [[0, 120], [7200], [99_999]]);
  const { data, alone } = withBreaks(pts);
  assert.deepEqual([...alone].map((i) => data[i]!.x), [7200_000, 99_999_000]);
  assert.deepEqual(withBreaks([]), { data: [], alone: new Set() });
});

test('a long segment is thinned to about the limit, keeping its lowest and highest values in time order', () => {
  const seg: Value[] = Array.from({ length: 10_000 }, (_, i) => [i, i === 5000 ? 1000 : i === 7000 ? -1000 : Math.sin(i / 100)]);
  const out = thin(seg, 1000);
  assert.ok(out.length <= 1000 && out.length >= 500, `${out.length} values`);
  assert.ok(out.some((p) => p[1] === 1000) && out.some((p) => p[1] === -1000));
  for (let i = 1; i < out.length; i++) assert.ok(out[i]![0] > out[i - 1]![0]);
});

test('the field a 400 message names', () => {
  assert.equal(fieldOf('radius must be between 10 and 5000 m'), 'radius');
  assert.equal(fieldOf('timeOfUse[1].pricePerKwh must be a number ≥ 0'), 'timeOfUse');
  assert.equal(fieldOf('pricePerKwh must be a number ≥ 0'), 'pricePerKwh');
  assert.equal(fieldOf('"timezone": unknown time zone Mars/Base'), 'timezone');
  assert.equal(fieldOf('lat must be between -90 and 90'), 'lat');
  assert.equal(fieldOf('something else went wrong'), null);
});
