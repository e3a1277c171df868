/** The session tracker's drives from live data (src/core/drives/tracker.ts, live.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionTracker } from '../../../src/core/drives/tracker.js';
import { D, L, S, ScriptedCar, feedLive, rebuild, SessionMap } from '../../support/drive-records.js';

const day = 1_700_000_000;

test('ignition drives: from ignition on to off, distance from the odometer, route, top speed, SOC, energy', () => {
  const car = new ScriptedCar({ start: day, odometer: 1000 });
  car.park(3600).drive(1200, 60).park(7200).drive(600, 30).park(3600);
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  const drives = map.list('drive');
  assert.equal(drives.length, 2);
  const [a, b] = drives;
  assert.ok(a && b);
  assert.equal(a.start, day + 3600);
  assert.equal(a.end, day + 3600 + 1205);
  assert.equal(a.distance, 20);
  assert.equal(a.startOdometer, 1000);
  assert.equal(a.endOdometer, 1020);
  assert.equal(a.maxSpeed, 60);
  assert.equal(a.source, 'live');
  assert.equal(a.units, 'K');
  assert.equal(a.socStart, 60);
  assert.equal(a.socEnd, 55);
  assert.equal(a.energyUsed, 3.2);
  assert.equal(a.energyRecovered, 0.4);
  assert.deepEqual(a.from, { lat: 48.1, lon: 11.5 });
  assert.equal(a.path.length, 40); // the report at ignition on repeats the parked one of the same second (ignored)
  assert.equal(a.soh, 95);
  assert.equal(b.distance, 5);
  assert.equal(b.startOdometer, 1020);
  // few puts per drive: start, about one a minute, end
  assert.ok(map.puts <= 2 * 2 + 20 + 10 + 4, `puts ${map.puts}`);
  assert.deepEqual(rebuild(car.live, car.t).all(), map.all());
});

test('an open drive is listed with end null and updated; it ends at ignition off', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(D(day, { ignition: false, odometer: 500 })));
  map.apply(t.feed(D(day + 60, { ignition: true, odometer: 500 })));
  assert.equal(map.list('drive').length, 0, 'not a drive before 0.1 km');
  assert.equal(t.busy, true);
  map.apply(t.feed(D(day + 120, { ignition: true, odometer: 501 })));
  let [d] = map.list('drive');
  assert.equal(d?.end, null);
  assert.equal(d?.distance, 1);
  map.apply(t.feed(D(day + 150, { ignition: true, odometer: 501.5 })));
  map.apply(t.tick(day + 170));
  [d] = map.list('drive');
  assert.equal(d?.distance, 1.5);
  map.apply(t.feed(D(day + 200, { ignition: false, odometer: 502 })));
  [d] = map.list('drive');
  assert.equal(d?.end, day + 200);
  assert.equal(d?.distance, 2);
  assert.equal(t.busy, false);
});

test('an ignition cycle without moving 0.1 unit is not a drive', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(D(day, { ignition: true, odometer: 500 })));
  map.apply(t.feed(D(day + 300, { ignition: true, odometer: 500.04 })));
  map.apply(t.feed(D(day + 600, { ignition: false, odometer: 500.04 })));
  map.apply(t.tick(day + 2000));
  assert.equal(map.sessions.size, 0);
});

test('a car without ignition: drives are the odometer growing at a driving pace; a parked car reporting every 10 minutes is one drive', () => {
  const car = new ScriptedCar({ start: day, odometer: 2000, ignition: false });
  // a long drive reported every 10 minutes (no app watching), then parked
  car.park(3600).drive(3000, 80, 600).park(7200).drive(900, 40, 30).park(3600);
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  const drives = map.list('drive');
  assert.equal(drives.length, 2);
  assert.equal(drives[0]?.start, day + 3600);
  assert.equal(drives[0]?.distance, 66.7);
  assert.equal(drives[0]?.end, day + 3600 + 3000, "at the last growth");
  assert.equal(drives[1]?.distance, 10);
  assert.deepEqual(rebuild(car.live, car.t).all(), map.all());
});

test('an odometer jump (module replaced) is not a drive', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(D(day, { odometer: 1000 })));
  map.apply(t.feed(D(day + 600, { odometer: 9000 })));
  map.apply(t.feed(D(day + 1200, { odometer: 9000 })));
  map.apply(t.tick(day + 5000));
  assert.equal(map.sessions.size, 0);
});

test('a drive silent 15 minutes (lost connection) ends at its last movement, by tick or by the next record alike', () => {
  const car = new ScriptedCar({ start: day, odometer: 3000 });
  car.park(1200).drive(600, 60);
  // cut the ignition-off report and what follows: the car vanished mid-drive
  const records = car.live.filter((r) => r.time <= day + 1200 + 600);
  const tracker = new SessionTracker();
  const map = new SessionMap();
  for (const r of records) map.apply(tracker.feed(r));
  map.apply(tracker.tick(day + 1800 + 800));
  assert.equal(map.list('drive')[0]?.end, null, 'not yet 15 minutes');
  map.apply(tracker.tick(day + 1800 + 901));
  const [d] = map.list('drive');
  assert.equal(d?.end, day + 1800);
  assert.equal(d?.distance, 10);
  assert.equal(tracker.busy, false);
  // the next record decides the same without ticks
  const t2 = new SessionTracker();
  const m2 = new SessionMap();
  for (const r of [...records, S(day + 5000, { soc: 50 })]) m2.apply(t2.feed(r));
  assert.deepEqual(m2.all(), map.all());
});

test('path points skip positions 0,0 and missing ones; replayed records are ignored', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  const recs = [
    D(day, { ignition: true, odometer: 100 }),
    L(day + 10, { lat: 0, lon: 0, speed: 20 }),
    L(day + 20, { speed: 30 }),
    L(day + 30, { lat: 48.2, lon: 11.6, speed: 40 }),
    D(day + 40, { ignition: true, odometer: 101 }),
    D(day + 50, { ignition: false, odometer: 101 }),
  ];
  for (const r of [...recs, ...recs]) map.apply(t.feed(r));
  const [d] = map.list('drive');
  assert.deepEqual(d?.path, [{ t: day + 30, lat: 48.2, lon: 11.6, speed: 40, soc: null }]);
  assert.equal(d?.maxSpeed, 40);
  assert.equal(d?.distance, 1);
});
