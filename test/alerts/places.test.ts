/** place-arrive and place-leave with one of the owner's places: the first position fires nothing; the margin outside the circle holds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, events, json, lRecord, sendSpaced, sleep } from './helpers.js';

const WORK = { lat: 52.52, lon: 13.41 };
/** Degrees of latitude per metre. */
const M = 1 / 111_195;

test('arrive and leave: once each crossing; the first position and the margin fire nothing', async (t) => {
  const h = await alertHarness(t);
  const made = await h.asDemo('/api/places', json('POST', { name: 'Work', lat: WORK.lat, lon: WORK.lon, radius: 150 }));
  assert.equal(made.status, 201, made.body);
  const place = JSON.parse(made.body) as { id: number };
  const arrive = await h.addRule({ kind: 'place-arrive', place: place.id });
  const leave = await h.addRule({ kind: 'place-leave', place: place.id });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['L', lRecord(WORK.lat, WORK.lon + 0.01)], // ~680 m east: outside, decided silently
    ['L', lRecord(WORK.lat + 100 * M, WORK.lon)], // inside
    ['L', lRecord(WORK.lat + 160 * M, WORK.lon)], // in the margin (150 + 25 m): still there
    ['L', lRecord(WORK.lat + 20 * M, WORK.lon)],
    ['L', lRecord(WORK.lat + 400 * M, WORK.lon)], // left
    ['L', lRecord(WORK.lat + 500 * M, WORK.lon)],
  ]);
  const hooks = await h.waitHooks(2);
  await sleep(1000);
  assert.deepEqual(events(h), ['place-arrive', 'place-leave']);
  assert.deepEqual(hooks.map((x) => [x.rule, x.text]), [
    [arrive.id, 'TESTCAR arrived at Work'],
    [leave.id, 'TESTCAR left Work'],
  ]);
});

test('a place moved while the car is connected: the rule follows the place at once', async (t) => {
  const h = await alertHarness(t);
  const made = await h.asDemo('/api/places', json('POST', { name: 'Home', lat: WORK.lat, lon: WORK.lon, radius: 100 }));
  const place = JSON.parse(made.body) as { id: number };
  await h.addRule({ kind: 'place-arrive', place: place.id });
  await sleep(500);
  const car = await h.car();
  const moved = { lat: WORK.lat + 0.05, lon: WORK.lon };
  await sendSpaced(car, [['L', lRecord(WORK.lat + 0.02, WORK.lon)]]);
  const changed = await h.asDemo(`/api/places/${place.id}`, json('PUT', { name: 'New home', lat: moved.lat, lon: moved.lon, radius: 100 }));
  assert.equal(changed.status, 200, changed.body);
  await sendSpaced(car, [
    ['L', lRecord(WORK.lat, WORK.lon)], // where the place was: nothing
    ['L', lRecord(moved.lat + 0.01, moved.lon)],
    ['L', lRecord(moved.lat, moved.lon)], // where it is now
  ]);
  const [hook] = await h.waitHooks(1);
  assert.equal(hook!.text, 'TESTCAR arrived at New home');
  await sleep(1000);
  assert.deepEqual(events(h), ['place-arrive']);
});
