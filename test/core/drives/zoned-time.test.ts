/** Wall time in an IANA zone (src/core/drives/zoned-time.ts), across Europe/Berlin's DST changes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalZone, offsetAt, offsetChanges, startOfDay, wallTime, zonedToEpoch } from '../../../src/core/drives/zoned-time.js';
import { utc } from './make.js';

const BERLIN = 'Europe/Berlin';
const at = (year: number, month: number, day: number, hour = 0, minute = 0) => ({ year, month, day, hour, minute, second: 0 });

test('canonicalZone: IANA names (canonical spelling), UTC; not offsets, not nonsense', () => {
  assert.equal(canonicalZone('Europe/Berlin'), 'Europe/Berlin');
  assert.equal(canonicalZone('europe/berlin'), 'Europe/Berlin');
  assert.equal(canonicalZone('UTC'), 'UTC');
  assert.equal(canonicalZone('Asia/Kolkata'), 'Asia/Kolkata');
  assert.equal(canonicalZone('America/Argentina/Buenos_Aires'), 'America/Argentina/Buenos_Aires');
  for (const bad of ['', 'Mars/Olympus', '+01:00', 'Europe/Berlin ', '../etc', 'x'.repeat(80)]) assert.equal(canonicalZone(bad), null, bad);
});

test('wallTime and offsetAt: winter and summer in Berlin', () => {
  assert.deepEqual(wallTime(utc(2024, 1, 15, 12), BERLIN), at(2024, 1, 15, 13));
  assert.deepEqual(wallTime(utc(2024, 7, 15, 22, 30), BERLIN), at(2024, 7, 16, 0, 30));
  assert.equal(offsetAt(utc(2024, 1, 15), BERLIN), 3600);
  assert.equal(offsetAt(utc(2024, 7, 15), BERLIN), 7200);
  assert.equal(offsetAt(utc(2024, 7, 15), 'UTC'), 0);
});

test('the spring day in Berlin lasts 23 hours; the wall time in the gap maps to its end', () => {
  const day = startOfDay(utc(2024, 3, 31, 12), BERLIN);
  const next = startOfDay(utc(2024, 4, 1, 12), BERLIN);
  assert.equal(day, utc(2024, 3, 30, 23));
  assert.equal(next - day, 23 * 3600);
  assert.equal(zonedToEpoch(at(2024, 3, 31, 2, 30), BERLIN), utc(2024, 3, 31, 1));
  assert.equal(zonedToEpoch(at(2024, 3, 31, 3, 0), BERLIN), utc(2024, 3, 31, 1));
  assert.deepEqual(offsetChanges(utc(2024, 3, 30), utc(2024, 4, 2), BERLIN), [utc(2024, 3, 31, 1)]);
});

test('the autumn day in Berlin lasts 25 hours; a wall time shown twice maps to the first', () => {
  const day = startOfDay(utc(2024, 10, 27, 12), BERLIN);
  const next = startOfDay(utc(2024, 10, 28, 12), BERLIN);
  assert.equal(day, utc(2024, 10, 26, 22));
  assert.equal(next - day, 25 * 3600);
  assert.equal(zonedToEpoch(at(2024, 10, 27, 2, 30), BERLIN), utc(2024, 10, 27, 0, 30));
  assert.deepEqual(wallTime(utc(2024, 10, 27, 1, 30), BERLIN), at(2024, 10, 27, 2, 30));
  assert.deepEqual(offsetChanges(utc(2024, 10, 25), utc(2024, 10, 29), BERLIN), [utc(2024, 10, 27, 1)]);
});

test('property: zonedToEpoch inverts wallTime (whole minutes, earliest of a fold)', () => {
  fc.assert(
    fc.property(fc.integer({ min: utc(2000, 1, 1) / 60, max: utc(2040, 1, 1) / 60 }), fc.constantFrom(BERLIN, 'America/New_York', 'Australia/Sydney', 'UTC', 'Asia/Kolkata'), (minute, tz) => {
      const t = minute * 60;
      const back = zonedToEpoch(wallTime(t, tz), tz);
      // in a fold the earlier instant comes back, an hour (or the change's size) before
      assert.ok(back === t || (back < t && t - back <= 7200 && offsetAt(back, tz) !== offsetAt(t, tz)), `${tz} ${t} ${back}`);
    }),
  );
});
