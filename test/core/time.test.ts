/** UTC time helpers (src/core/time.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatUtc, parseSince, startOfUtcDay, utcDay } from '../../src/core/time.js';

const T = Date.UTC(2026, 10, 22, 2, 13, 38) / 1000; // 2026-11-22 02:13:38 UTC

test('formatUtc: YYYY-MM-DD HH:MM:SS in UTC', () => {
  assert.equal(formatUtc(T), '2026-11-22 02:13:38');
  assert.equal(formatUtc(0), '1970-01-01 00:00:00');
  assert.equal(formatUtc(951782400), '2000-02-29 00:00:00');
});

test('formatUtc truncates fractional seconds', () => {
  assert.equal(formatUtc(T + 0.999), '2026-11-22 02:13:38');
});

test('utcDay and startOfUtcDay', () => {
  assert.equal(utcDay(T), '2026-11-22');
  assert.equal(startOfUtcDay(T), Date.UTC(2026, 10, 22) / 1000);
  assert.equal(formatUtc(startOfUtcDay(T)), '2026-11-22 00:00:00');
  assert.equal(startOfUtcDay(startOfUtcDay(T)), startOfUtcDay(T));
});

test("parseSince: REF's default 0000-00-00 means everything (a bound before any stored time)", () => {
  for (const s of ['0000-00-00', '0000-00-00 00:00:00']) {
    const since = parseSince(s);
    assert.equal(typeof since, 'number', s);
    assert.ok((since as number) < 0, s); // every stored time (epoch seconds ≥ 0) is > since
  }
});

test('parseSince: dates and date-times (UTC)', () => {
  assert.equal(parseSince('2026-11-22'), Date.UTC(2026, 10, 22) / 1000);
  assert.equal(parseSince('2026-11-22 02:13:38'), T);
  assert.equal(parseSince('2026-11-22 02:13'), T - 38);
  assert.equal(parseSince('2026-11-22T02:13:38'), T);
  assert.equal(parseSince(' 2026-11-22 02:13:38 '), T);
  assert.equal(parseSince('2100-01-01'), Date.UTC(2100, 0, 1) / 1000);
  assert.equal(parseSince('1970-01-01'), 0);
});

test('parseSince round-trips formatUtc', () => {
  assert.equal(parseSince(formatUtc(T)), T);
});

test('parseSince: malformed text is null', () => {
  for (const s of ['', 'yesterday', '2026-11', '2026/11/22', '26-11-22', '2026-11-22 2:13', '2026-11-22Z', '2026-11-22 02:13:38.5']) {
    assert.equal(parseSince(s), null, JSON.stringify(s));
  }
});

test(
  'parseSince: out-of-range fields are malformed, not rolled over',
  () => {
    assert.equal(parseSince('2026-13-01'), null);
    assert.equal(parseSince('2026-02-30'), null);
    assert.equal(parseSince('2026-11-22 25:00'), null);
  },
);

test('parseSince: years 1–99 are those years, not 1901–1999', () => {
  const d = new Date(0);
  d.setUTCFullYear(50, 5, 1);
  assert.equal(parseSince('0050-06-01'), d.getTime() / 1000);
  assert.equal(parseSince('0001-02-29'), null, 'no leap day in year 1');
  assert.equal(parseSince('1950-06-01'), Date.UTC(1950, 5, 1) / 1000);
});

test('formatUtc gives the text of Date.toISOString for any time, whole or not, in range or not', () => {
  const iso = (t: number): string => {
    const s = new Date(t * 1000).toISOString();
    return `${s.slice(0, 10)} ${s.slice(11, 19)}`;
  };
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: 0, max: 253402300799 }), fc.integer({ min: -62135596800, max: 0 }), fc.double({ min: -1e10, max: 2.5e11, noNaN: true })),
      (t) => assert.equal(formatUtc(t), iso(t)),
    ),
    { numRuns: 5000 },
  );
  for (const t of [0, 59, 60, 3599, 3600, 86399, 86400, 951868799, 253402300799]) assert.equal(formatUtc(t), iso(t), String(t));
});
