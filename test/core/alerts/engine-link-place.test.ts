/** Alert engine: offline and online, place arrive and leave (GPS jitter at the border), v12-low, drive-report. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextWake, placeMargin } from '../../../src/core/alerts/engine.js';
import { car, D, L, link, Run, S, T0, tick, WORK } from './make.js';
import { drive } from '../drives/make.js';

test('offline for less than after: nothing; for after: once; online once when it comes back', () => {
  const r = new Run([{ id: 5, kind: 'offline', after: 3600 }]);
  r.at(T0, link(true));
  r.at(T0 + 10, link(false));
  r.at(T0 + 3000, tick);
  r.at(T0 + 3500, link(true)); // back before the hour
  assert.deepEqual(r.fired, []);
  r.at(T0 + 4000, link(false));
  assert.equal(nextWake(r.state, r.rules, T0 + 4000), T0 + 7600);
  assert.deepEqual(r.at(T0 + 7599, tick), []);
  assert.deepEqual(r.at(T0 + 7600, tick).map((a) => [a.kind, a.text]), [['offline', 'DEMO1 has been offline for 1 h']]);
  assert.deepEqual(r.at(T0 + 20_000, tick), []);
  // a record is a link too
  assert.deepEqual(r.at(T0 + 11_200, S(50, 'stopped')).map((a) => [a.kind, a.rule, a.text]), [['online', 5, 'DEMO1 is online again after 2 h']]);
  r.at(T0 + 11_300, link(true));
  assert.deepEqual(r.kinds(), ['offline', 'online']);
});

test('online never fires without offline first; a link up at first sight is quiet', () => {
  const r = new Run([{ id: 5, kind: 'offline', after: 60 }]);
  r.at(T0, link(false));
  r.at(T0 + 30, link(true));
  r.at(T0 + 40, link(true));
  assert.deepEqual(r.fired, []);
});

test('offline: a restart in the middle of the wait (state through JSON at every step) fires once', () => {
  const r = new Run([{ id: 5, kind: 'offline', after: 600 }], car, true);
  r.at(T0, link(true));
  r.at(T0 + 10, link(false));
  r.at(T0 + 300, tick);
  r.at(T0 + 610, tick);
  r.at(T0 + 900, tick);
  assert.deepEqual(r.kinds(), ['offline']);
});

// metres north of WORK's centre as a latitude
const north = (m: number): number => WORK.lat + m / 111_195;

test('place-arrive and place-leave: on crossing, with a margin against GPS jitter', () => {
  const r = new Run([
    { id: 8, kind: 'place-arrive', place: 7 },
    { id: 9, kind: 'place-leave', place: 7 },
  ]);
  const margin = placeMargin(WORK.radius);
  assert.equal(margin, 25);
  assert.deepEqual(r.at(T0, L(north(1000), WORK.lon)), []); // the first position: no alert
  assert.deepEqual(r.at(T0 + 10, L(north(210), WORK.lon)), []);
  assert.deepEqual(r.at(T0 + 20, L(north(150), WORK.lon)).map((a) => a.text), ['DEMO1 arrived at Work']);
  // jitter across the border (190–220 m): nothing
  for (let i = 0; i < 10; i++) assert.deepEqual(r.at(T0 + 30 + i, L(north(i % 2 === 0 ? 190 : 220), WORK.lon)), []);
  assert.deepEqual(r.at(T0 + 100, L(north(230), WORK.lon)).map((a) => a.text), ['DEMO1 left Work']);
  assert.deepEqual(r.at(T0 + 110, L(north(5000), WORK.lon)), []);
  // a fix of 0,0 (no GPS) is no position
  assert.deepEqual(r.at(T0 + 120, L(0, 0)), []);
  assert.deepEqual(r.kinds(), ['place-arrive', 'place-leave']);
});

test('place: starting inside does not fire arrive; an unknown place fires nothing', () => {
  const r = new Run([
    { id: 8, kind: 'place-arrive', place: 7 },
    { id: 9, kind: 'place-leave', place: 99 },
  ]);
  r.at(T0, L(WORK.lat, WORK.lon));
  r.at(T0 + 10, L(north(1000), WORK.lon));
  r.at(T0 + 20, L(WORK.lat, WORK.lon));
  assert.deepEqual(r.kinds(), ['place-arrive']);
});

test('v12-low: below for after seconds fires once; re-armed at threshold + 0.2 V', () => {
  const r = new Run([{ id: 4, kind: 'v12-low', threshold: 12, after: 600 }]);
  r.at(T0, D(12.6));
  r.at(T0 + 10, D(11.9));
  r.at(T0 + 300, D(12.1)); // recovered before after: the wait starts again
  r.at(T0 + 310, D(11.8));
  assert.deepEqual(r.at(T0 + 909, tick), []);
  assert.deepEqual(r.at(T0 + 910, tick).map((a) => a.text), ['DEMO1: 12 V battery at 11.8 V']);
  r.at(T0 + 1000, D(12.1)); // above the threshold but within the hysteresis
  r.at(T0 + 1010, D(11.7));
  assert.deepEqual(r.at(T0 + 5000, tick), []);
  r.at(T0 + 6000, D(12.2));
  r.at(T0 + 6010, D(11.5));
  assert.equal(r.at(T0 + 6610, D(11.5)).length, 1);
  assert.equal(r.fired.length, 2);
  // a D without the 12 V reading (0) changes nothing
  assert.deepEqual(r.at(T0 + 9000, D(0)), []);
});

test('drive-report: each finished drive once, with distance, duration, energy, efficiency', () => {
  const r = new Run([{ id: 6, kind: 'drive-report' }]);
  const d = drive({ key: 'live:1', start: T0, end: T0 + 31 * 60, distance: 23.4, energyUsed: 3.9 });
  assert.deepEqual(r.at(T0 + 2000, { type: 'drive', drive: d }).map((a) => a.text), ['DEMO1 drove 23.4 km in 31 min, 3.9 kWh (167 Wh/km)']);
  assert.deepEqual(r.at(T0 + 2100, { type: 'drive', drive: d }), []); // delivered again (e.g. after a restart)
  assert.deepEqual(r.at(T0 + 2200, { type: 'drive', drive: { ...d, key: 'live:2', end: null } }), []); // still open
  const miles = new Run([{ id: 6, kind: 'drive-report' }], { ...car, units: 'M' });
  const m = miles.at(T0, { type: 'drive', drive: drive({ key: 'live:3', start: T0, end: T0 + 600, distance: 16.1, energyUsed: null }) });
  assert.deepEqual(m.map((a) => a.text), ['DEMO1 drove 10.0 mi in 10 min']);
});

test('place: a first position in the margin counts as outside: the next one inside is an arrival', () => {
  const r = new Run([
    { id: 8, kind: 'place-arrive', place: 7 },
    { id: 9, kind: 'place-leave', place: 7 },
  ]);
  assert.deepEqual(r.at(T0, L(north(210), WORK.lon)), []); // 10 m outside the circle, in the margin
  assert.deepEqual(r.at(T0 + 10, L(north(150), WORK.lon)).map((a) => a.kind), ['place-arrive']);
  // once inside, the margin is the margin again: jitter into it leaves nothing
  assert.deepEqual(r.at(T0 + 20, L(north(215), WORK.lon)), []);
  assert.deepEqual(r.kinds(), ['place-arrive']);
});
