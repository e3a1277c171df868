/** Trips from historical records (src/core/records/trips.ts): plausible odometer growth only. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findTrips, maxStep, MAX_SPEED, TRIP_GAP, type TripRecord } from '../../src/core/records/trips.js';

/** A D record with the odometer in tenths. */
const D = (time: number, odo: number | string): TripRecord => ({ code: 'D', time, data: `0,0,4,,,,0,${odo}` });
const S = (time: number, soc: string): TripRecord => ({ code: 'S', time, data: `${soc},K,0,0,stopped,standard,300,280` });
const L = (time: number, lat: number, lon: number): TripRecord => ({ code: 'L', time, data: `${lat},${lon}` });

test('two trips split by a pause longer than TRIP_GAP; unsorted input; positions and SOC at the ends', () => {
  const later = 1000 + TRIP_GAP;
  const trips = findTrips([
    D(later + 500, 10300),
    S(0, '90.0'),
    L(0, 48, 11),
    D(0, 10000),
    D(200, 10100),
    L(250, 48.5, 11.5),
    S(260, '85.0'),
    D(400, 10200),
    D(later, 10200),
    L(later + 400, 49, 12),
  ]);
  assert.deepEqual(trips, [
    { start: 0, end: 400, distance: 20, from: { lat: 48, lon: 11 }, to: { lat: 48.5, lon: 11.5 }, socStart: 90, socEnd: 85 },
    { start: later, end: later + 500, distance: 10, from: { lat: 48.5, lon: 11.5 }, to: { lat: 49, lon: 12 }, socStart: 85, socEnd: 85 },
  ]);
});

test('the odometer going back (an emulator restarted with another seed) ends the trip; later growth counts from the new value', () => {
  // 15 km in 10 minutes, then the odometer reads 9,059.8 km less, then 2 km more in 2 minutes
  const trips = findTrips([D(0, 100_000), D(300, 100_075), D(600, 100_150), D(660, 9_502), D(720, 9_512), D(780, 9_522)]);
  assert.deepEqual(
    trips.map((t) => [t.start, t.end, t.distance]),
    [
      [0, 600, 15],
      [660, 780, 2],
    ],
  );
  for (const t of trips) assert.ok(t.distance >= 0);
});

test('a jump forward the elapsed time does not allow is not driving; growth after it is', () => {
  const trips = findTrips([D(0, 50_000), D(60, 50_010), D(120, 350_000), D(180, 350_012), D(240, 350_024)]);
  assert.deepEqual(
    trips.map((t) => [t.start, t.end, t.distance]),
    [
      [0, 60, 1],
      [120, 240, 2.4],
    ],
  );
  // every trip within the speed limit of its duration (plus the slack of its steps)
  for (const t of trips) assert.ok(t.distance * 10 <= maxStep(t.end - t.start, 'K') * 2);
});

test('the speed limit: just under it is driving, just over it is a jump; miles have their own', () => {
  // 250 km/h for 360 s is 25 km (250 tenths) plus the slack
  assert.equal(maxStep(360, 'K'), 250 + 5);
  assert.deepEqual(
    findTrips([D(0, 10_000), D(360, 10_255)]).map((t) => t.distance),
    [25.5],
  );
  assert.deepEqual(findTrips([D(0, 10_000), D(360, 10_256)]), []);
  assert.equal(maxStep(360, 'M'), (MAX_SPEED.M * 360) / 360 + 5);
  assert.deepEqual(findTrips([D(0, 10_000), D(360, 10_200)], 'M'), []);
  assert.deepEqual(
    findTrips([D(0, 10_000), D(360, 10_150)], 'M').map((t) => t.distance),
    [15],
  );
  // two readings in the same second: only the rounding slack
  assert.deepEqual(
    findTrips([D(0, 10_000), D(0, 10_001)]).map((t) => t.distance),
    [0.1],
  );
  assert.deepEqual(findTrips([D(0, 10_000), D(0, 10_010)]), []);
});

test('no movement, no trip; empty, junk and zero odometers are not readings', () => {
  assert.deepEqual(findTrips([D(0, 500), D(600, 500)]), []);
  assert.deepEqual(findTrips([]), []);
  // a car that sends 0 (no odometer) between real readings: no jump, the trip goes on
  const trips = findTrips([D(0, 1000), D(60, 0), D(120, ''), D(180, 'x'), D(240, 1020)]);
  assert.deepEqual(
    trips.map((t) => [t.start, t.end, t.distance]),
    [[0, 240, 2]],
  );
});

test('a long stream of restarts never yields a negative or absurd trip', () => {
  // pseudo-random odometer values every 30 s: plausible steps and wild jumps mixed
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const records: TripRecord[] = [];
  let odo = 100_000;
  for (let i = 0; i < 2000; i++) {
    odo = rnd() < 0.05 ? Math.floor(rnd() * 600_000) + 1 : odo + Math.floor(rnd() * 15);
    records.push(D(i * 30, odo));
  }
  const trips = findTrips(records);
  assert.ok(trips.length > 0);
  for (const t of trips) {
    assert.ok(t.distance >= 0, `negative trip ${JSON.stringify(t)}`);
    assert.ok(t.end >= t.start);
    const steps = (t.end - t.start) / 30;
    assert.ok(t.distance * 10 <= maxStep(t.end - t.start, 'K') + steps * 5, `absurd trip ${JSON.stringify(t)}`);
  }
});
