/** Statistics (src/core/drives/stats.ts): periods in a time zone (DST days too), sums, empty periods. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { periodStart, periodStarts, statsReport } from '../../../src/core/drives/stats.js';
import { charge, drive, utc } from './make.js';

const BERLIN = 'Europe/Berlin';
const H = 3600;

test('periodStart: day, ISO week from Monday, month, year in the zone', () => {
  const t = utc(2024, 5, 15, 22, 30); // Thursday 16 May 00:30 in Berlin
  assert.equal(periodStart(t, 'day', 'UTC'), utc(2024, 5, 15));
  assert.equal(periodStart(t, 'day', BERLIN), utc(2024, 5, 15, 22));
  assert.equal(periodStart(t, 'week', BERLIN), utc(2024, 5, 12, 22)); // Monday 13 May 00:00 CEST
  assert.equal(periodStart(t, 'week', 'UTC'), utc(2024, 5, 13));
  assert.equal(periodStart(utc(2024, 5, 12, 12), 'week', 'UTC'), utc(2024, 5, 6), 'a Sunday belongs to the week before');
  assert.equal(periodStart(t, 'month', BERLIN), utc(2024, 4, 30, 22));
  assert.equal(periodStart(t, 'year', BERLIN), utc(2023, 12, 31, 23));
  assert.equal(periodStart(utc(2024, 12, 31, 23, 30), 'year', BERLIN), utc(2024, 12, 31, 23), 'New Year in Berlin');
});

test('days across the DST changes last 23 and 25 hours', () => {
  const spring = periodStarts(utc(2024, 3, 30, 12), utc(2024, 4, 1, 12), 'day', BERLIN);
  assert.deepEqual(spring, [utc(2024, 3, 29, 23), utc(2024, 3, 30, 23), utc(2024, 3, 31, 22)]);
  const autumn = periodStarts(utc(2024, 10, 26, 12), utc(2024, 10, 28, 12), 'day', BERLIN);
  assert.deepEqual(autumn, [utc(2024, 10, 25, 22), utc(2024, 10, 26, 22), utc(2024, 10, 27, 23)]);
  // weeks and months across them start at local midnight too
  assert.deepEqual(periodStarts(utc(2024, 3, 1), utc(2024, 4, 15), 'month', BERLIN), [utc(2024, 2, 29, 23), utc(2024, 3, 31, 22)]);
  assert.deepEqual(periodStarts(utc(2024, 10, 21, 12), utc(2024, 10, 29), 'week', BERLIN), [utc(2024, 10, 20, 22), utc(2024, 10, 27, 23)]);
});

test('a session at 23:30 on the autumn DST day counts in that day (its 25th hour)', () => {
  const late = drive({ start: utc(2024, 10, 27, 22, 30), end: utc(2024, 10, 27, 22, 50), distance: 5 }); // 23:30 CET
  const rows = statsReport([late], [], 'day', BERLIN, utc(2024, 10, 27, 12), utc(2024, 10, 28, 12), null);
  assert.deepEqual(rows.map((r) => [r.start, r.drives]), [
    [utc(2024, 10, 26, 22), 1],
    [utc(2024, 10, 27, 23), 0],
  ]);
});

test('per day: sums, counts, efficiency and empty days', () => {
  const day1 = utc(2024, 5, 1);
  const drives = [
    drive({ start: day1 + 8 * H, end: day1 + 9 * H, distance: 20.04, energyUsed: 3, energyRecovered: 0 }),
    drive({ start: day1 + 17 * H, end: day1 + 18 * H, distance: 10, energyUsed: null, socStart: 76, socEnd: 72 }), // 4 % of 75 kWh = 3 kWh
    drive({ start: day1 + 2 * 86400 + H, end: day1 + 2 * 86400 + 2 * H, distance: 7, energyUsed: null, socStart: null }),
  ];
  const charges = [
    charge({ start: day1 + 20 * H, end: day1 + 22 * H, energyAdded: 10, energyFromGrid: 11, cost: 3.3, currency: 'EUR' }),
    charge({ start: day1 + 22 * H, end: day1 + 23 * H, energyAdded: 5, energyFromGrid: null, cost: 1.5, currency: 'EUR' }),
  ];
  const rows = statsReport(drives, charges, 'day', 'UTC', day1 + 5 * H, day1 + 2 * 86400 + 5 * H, 75);
  assert.equal(rows.length, 3);
  assert.deepEqual(rows[0], {
    start: day1,
    distance: 30,
    drives: 2,
    energyUsed: 3,
    charges: 2,
    energyAdded: 15,
    energyFromGrid: 11,
    cost: 4.8,
    currency: 'EUR',
    efficiency: 199.7, // 6 kWh over 30.04
    vampireDrain: null,
  });
  assert.deepEqual(rows[1], {
    start: day1 + 86400,
    distance: 0,
    drives: 0,
    energyUsed: null,
    charges: 0,
    energyAdded: null,
    energyFromGrid: null,
    cost: null,
    currency: null,
    efficiency: null,
    vampireDrain: null,
  });
  assert.equal(rows[2]!.distance, 7);
  assert.equal(rows[2]!.efficiency, null, 'no energy known for the drive');
  assert.equal(rows[2]!.energyUsed, null);
});

test('sessions outside the periods are left out; the last period is whole', () => {
  const day1 = utc(2024, 5, 1);
  const drives = [drive({ start: day1 - H, distance: 1 }), drive({ start: day1 + H, distance: 2 }), drive({ start: day1 + 20 * H, distance: 4 }), drive({ start: day1 + 86400, distance: 8 })];
  const rows = statsReport(drives, [], 'day', 'UTC', day1 + 12 * H, day1 + 12 * H, null);
  assert.deepEqual(rows.map((r) => [r.start, r.distance]), [[day1, 6]]);
  assert.deepEqual(statsReport(drives, [], 'day', 'UTC', day1 + 12 * H, day1 - 86400, null), [], 'to before from');
});

test('several currencies: the most frequent one is summed and named', () => {
  const t = utc(2024, 5, 1, 10);
  const charges = [
    charge({ start: t, cost: 5, currency: 'CHF' }),
    charge({ start: t + H, cost: 2, currency: 'EUR' }),
    charge({ start: t + 2 * H, cost: 3.1, currency: 'EUR' }),
    charge({ start: t + 3 * H, cost: null, currency: null }),
  ];
  const [row] = statsReport([], charges, 'month', 'UTC', t, t, null);
  assert.equal(row!.cost, 5.1);
  assert.equal(row!.currency, 'EUR');
  assert.equal(row!.charges, 4);
});

test('per week, month and year: empty periods included, sessions by their start', () => {
  const drives = [drive({ start: utc(2024, 1, 3, 9), distance: 10 }), drive({ start: utc(2024, 3, 20, 9), distance: 5 }), drive({ start: utc(2025, 2, 1, 9), distance: 1 })];
  const months = statsReport(drives, [], 'month', 'UTC', utc(2024, 1, 15), utc(2024, 4, 1), null);
  assert.deepEqual(months.map((r) => [r.start, r.distance, r.drives]), [
    [utc(2024, 1, 1), 10, 1],
    [utc(2024, 2, 1), 0, 0],
    [utc(2024, 3, 1), 5, 1],
    [utc(2024, 4, 1), 0, 0],
  ]);
  const years = statsReport(drives, [], 'year', 'UTC', utc(2023, 6, 1), utc(2025, 6, 1), null);
  assert.deepEqual(years.map((r) => [r.start, r.distance]), [
    [utc(2023, 1, 1), 0],
    [utc(2024, 1, 1), 15],
    [utc(2025, 1, 1), 1],
  ]);
  const weeks = statsReport(drives, [], 'week', 'UTC', utc(2024, 1, 1), utc(2024, 1, 14), null);
  assert.deepEqual(weeks.map((r) => [r.start, r.distance]), [
    [utc(2024, 1, 1), 10],
    [utc(2024, 1, 8), 0],
  ]);
});

test('vampire drain: the mean per-day loss of the parked gaps that start in the period', () => {
  const d = utc(2024, 5, 1);
  const drives = [
    drive({ start: d, end: d + H, socStart: 90, socEnd: 80 }),
    drive({ start: d + H + 86400, end: d + 2 * H + 86400, socStart: 78, socEnd: 70 }), // 2 per day, starts day 1
    drive({ start: d + 2 * H + 86400 + 12 * H, end: d + 2 * 86400, socStart: 68, socEnd: 60 }), // 2 in 12 h = 4 per day, starts day 2
    drive({ start: d + 2 * 86400 + 8 * H, end: d + 2 * 86400 + 9 * H, socStart: 59, socEnd: 50 }), // 1 in 8 h = 3 per day, starts day 3
  ];
  const rows = statsReport(drives, [], 'day', 'UTC', d, d + 2 * 86400, null);
  assert.deepEqual(rows.map((r) => r.vampireDrain), [2, 4, 3]);
  const month = statsReport(drives, [], 'month', 'UTC', d, d, null);
  assert.equal(month[0]!.vampireDrain, 3);
});

test('property: the days and the months of a year hold the same drives and distance as the year', () => {
  const y0 = utc(2024, 1, 1);
  const y1 = utc(2025, 1, 1);
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: y0 - 86400, max: y1 + 86400 }), fc.integer({ min: 0, max: 500 })), { maxLength: 30 }),
      fc.constantFrom('UTC', BERLIN, 'America/New_York'),
      (list, tz) => {
        const drives = list.map(([start, km]) => drive({ start, end: start + 600, distance: km / 10 }));
        const year = periodStart(utc(2024, 7, 1), 'year', tz);
        const yearEnd = periodStart(utc(2025, 7, 1), 'year', tz);
        const total = (period: 'day' | 'month' | 'year') => statsReport(drives, [], period, tz, year, yearEnd - 1, null);
        const inYear = drives.filter((d) => d.start >= year && d.start < yearEnd);
        const sum = (rows: { drives: number; distance: number }[]) => [rows.reduce((a, r) => a + r.drives, 0), Math.round(rows.reduce((a, r) => a + r.distance, 0) * 10)];
        const expected = [inYear.length, Math.round(inYear.reduce((a, d) => a + d.distance!, 0) * 10)];
        assert.deepEqual(sum(total('year')), expected);
        assert.deepEqual(sum(total('month')), expected);
        assert.deepEqual(sum(total('day')), expected);
      },
    ),
    { numRuns: 30 },
  );
});
