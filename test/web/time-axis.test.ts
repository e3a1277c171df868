/** The history charts' time axis (web/src/time-axis.ts): fitting the period to the data, ticks that fit. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extent, fitSpan, MIN_SPAN, tickStep, ticksThatFit, timeTicks } from '../../web/src/time-axis.js';

const DAY = 86400;

test('the last 24 hours with three hours of data: the axis spans the data, not the whole day', () => {
  const period = { from: 1_000_000, to: 1_000_000 + DAY };
  const first = period.to - 3 * 3600;
  const last = period.to - 60;
  assert.deepEqual(fitSpan(period, first, last), { from: first, to: last });
  // no data: the whole period
  assert.deepEqual(fitSpan(period, null, null), period);
  // a few minutes of data are widened to MIN_SPAN, inside the period
  const near = fitSpan(period, period.to - 120, period.to - 60);
  assert.equal(near.to - near.from, MIN_SPAN);
  assert.equal(near.to, period.to);
  const mid = fitSpan(period, period.from + 40_000, period.from + 40_060);
  assert.equal(mid.to - mid.from, MIN_SPAN);
  assert.ok(mid.from <= period.from + 40_000 && mid.to >= period.from + 40_060);
  // a period shorter than MIN_SPAN stays as it is
  assert.deepEqual(fitSpan({ from: 0, to: 600 }, 100, 200), { from: 0, to: 600 });
});

test('extent: the first and last time over all series', () => {
  assert.deepEqual(extent([[[5, 1], [9, 2]], undefined, [[3, 0]], []]), { first: 3, last: 9 });
  assert.deepEqual(extent([undefined, []]), { first: null, last: null });
});

test('ticks: as many as fit, at round local times, evenly spaced', () => {
  // "09:00 AM" is about 50 px wide: 300 px fit 4 labels with their gaps, 1000 px 13
  assert.equal(ticksThatFit(300, 50), 4);
  assert.equal(ticksThatFit(1000, 50), 13);
  assert.equal(ticksThatFit(40, 50), 2);
  assert.equal(tickStep(DAY, 8), 180);
  assert.equal(tickStep(DAY, 4), 360);
  assert.equal(tickStep(3 * 3600, 8), 30);
  // two ticks at least: 3 hours in steps of 2 hours might show one (10:00 of 08:21–11:21)
  assert.equal(tickStep(3 * 3600, 2), 60);
  assert.equal(tickStep(100 * 60, 2), 30);
  assert.equal(tickStep(100 * 60, 1), 30);
  assert.equal(tickStep(31 * DAY, 8), 10080);
  const from = Date.UTC(2026, 0, 10, 7, 13) / 1000;
  for (const max of [2, 4, 8]) {
    const ticks = timeTicks(from, from + DAY, max);
    assert.ok(ticks.length <= max + 1 && ticks.length >= 2, `${ticks.length} ticks for at most ${max}`);
    for (const t of ticks) {
      assert.ok(t >= from * 1000 && t <= (from + DAY) * 1000);
      assert.equal(new Date(t).getMinutes(), 0, 'whole hours');
    }
  }
  // any start: two ticks at least in a short span
  for (let start = from; start < from + 3600; start += 420) {
    assert.ok(timeTicks(start, start + 3 * 3600, 2).length >= 2);
    assert.ok(timeTicks(start, start + 40 * 60, 2).length >= 2);
  }
});
