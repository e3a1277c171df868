/** The session tracker with the firmware's trip and grid logs: pairs, joining live sessions, late arrival. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionTracker } from '../../../src/core/drives/tracker.js';
import { S, ScriptedCar, SessionMap, feedLive, gridLog, rebuild, tripLog } from '../../support/drive-records.js';

const day = 1_700_000_000;

test('a drive both the live data and the logs describe is one drive with the log figures and the live route; its key stays', () => {
  const car = new ScriptedCar({ start: day, odometer: 1000, logs: true });
  car.park(3600).drive(1200, 60).park(3600);
  const tracker = new SessionTracker();
  const map = new SessionMap();
  const keys = new Set<string>();
  for (const r of car.arrivalOrder()) {
    const ops = tracker.feed(r);
    for (const op of ops) keys.add(op.op === 'put' ? op.session.key : op.key);
    map.apply(ops);
  }
  map.apply(tracker.tick(car.t));
  const [d, ...more] = map.list('drive');
  assert.equal(more.length, 0);
  assert.ok(d);
  assert.equal(d.source, 'log');
  assert.equal(d.key, `live:${day + 3600}`);
  assert.deepEqual([...keys], [d.key], 'one key all along');
  assert.equal(d.distance, 20);
  assert.equal(d.end, day + 3600 + 1205);
  assert.equal(d.energyUsed, 3.2);
  assert.equal(d.path.length, 40);
  assert.equal(d.maxSpeed, 60);
  assert.deepEqual(rebuild(car.records.map((r) => r.input), car.t).all(), map.all());
});

test('a connection lost mid-drive: the logs, arriving at reconnection, make the two live parts one drive', () => {
  const car = new ScriptedCar({ start: day, odometer: 1000, logs: true });
  car.park(3600).drive(3600, 60, 30, 900).park(1800).reconnect().park(3600);
  const live = feedLive(new SessionTracker(), car.live, car.t);
  assert.deepEqual(
    live.list('drive').map((d) => d.distance),
    [15],
    'live data alone: the part before the loss',
  );
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  const drives = map.list('drive');
  assert.equal(drives.length, 1);
  assert.equal(drives[0]?.source, 'log');
  assert.equal(drives[0]?.distance, 60);
  assert.equal(drives[0]?.startOdometer, 1000);
  assert.equal(drives[0]?.endOdometer, 1060);
  assert.equal(drives[0]?.end, day + 3600 + 3605);
  assert.equal(drives[0]?.key, `live:${day + 3600}`);
  assert.deepEqual(rebuild(car.records.map((r) => r.input), car.t).all(), map.all());
});

test('logs arriving hours late after an outage: the drives and the charge the server never saw', () => {
  const car = new ScriptedCar({ start: day, odometer: 500, logs: true, soc: 50 });
  car.park(3600).offline().park(600).drive(1800, 50).park(3600).charge(3600, 11).park(1800).drive(600, 40).park(7200).reconnect().park(3600);
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  const drives = map.list('drive');
  assert.deepEqual(
    drives.map((d) => [d.source, d.distance]),
    [
      ['log', 25],
      ['log', 6.7],
    ],
  );
  const charges = map.list('charge');
  assert.equal(charges.length, 1, JSON.stringify(charges.map((c) => [c.source, c.key])));
  assert.equal(charges[0]?.source, 'log');
  assert.equal(charges[0]?.energyAdded, 11);
  assert.equal(charges[0]?.energyFromGrid, 12.1);
  assert.equal(charges[0]?.chargeKind, 'ac');
  assert.equal(charges[0]?.key.startsWith('log:'), true, 'no inferred charge: the car drove during the gap');
  assert.deepEqual(rebuild(car.records.map((r) => r.input), car.t).all(), map.all());
});

test('a grid log pair joins the live charge: the log figures, the live samples and peak power', () => {
  const car = new ScriptedCar({ start: day, soc: 20, logs: true });
  car.park(600).charge(1800, 50, 60, 'ccs').park(600);
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  const [c, ...more] = map.list('charge');
  assert.equal(more.length, 0);
  assert.equal(c?.source, 'log');
  assert.equal(c?.chargeKind, 'dc');
  assert.equal(c?.maxPower, 50);
  assert.equal(c?.samples.length, 31);
  assert.equal(c?.energyAdded, 25);
  assert.equal(c?.key, `live:${day + 600}`);
});

test('trip logs whose "on" record still shows the previous trip pair by the odometer', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  const logs = [
    tripLog(day, { odometer: 100, tripDistance: 7, driveTime: 900, soc: 80, lat: 48, lon: 11 }),
    tripLog(day + 1200, { odometer: 112.5, tripDistance: 12.5, driveTime: 1150, soc: 75, used: 2, lat: 48.1, lon: 11 }),
    tripLog(day + 5000, { odometer: 112.5, tripDistance: 12.5, driveTime: 1150, soc: 75 }),
    tripLog(day + 5600, { odometer: 120.5, tripDistance: 8, driveTime: 590, soc: 71 }),
  ];
  for (const r of logs.reverse()) map.apply(t.feed(r));
  assert.deepEqual(
    map.list('drive').map((d) => [d.start - day, d.end === null ? null : d.end - day, d.distance, d.socStart, d.socEnd]),
    [
      [0, 1200, 12.5, 80, 75],
      [5000, 5600, 8, 75, 71],
    ],
  );
});

test('a location name with commas does not shift the fields', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(tripLog(day, { odometer: 100, location: 'Home, sweet, home', soc: 80 })));
  map.apply(t.feed(tripLog(day + 600, { odometer: 105, tripDistance: 5, driveTime: 590, soc: 78, location: 'Work, Inc' })));
  const [d] = map.list('drive');
  assert.equal(d?.distance, 5);
  assert.equal(d?.socEnd, 78);
});

test('a grid log pair with a flap in between is one charge; a repeated log counts once', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  const logs = [
    gridLog(day, { chargeState: 'charging', kwh: 0, soc: 30 }),
    gridLog(day + 600, { chargeState: 'stopped', kwh: 1, soc: 32 }),
    gridLog(day + 660, { chargeState: 'charging', kwh: 1, soc: 32 }),
    gridLog(day + 3600, { chargeState: 'done', kwh: 6.5, grid: 7, soc: 45 }),
  ];
  for (const r of [...logs, ...logs]) map.apply(t.feed(r));
  map.apply(t.feed(S(day + 4000, { soc: 45 })));
  const charges = map.list('charge');
  assert.equal(charges.length, 1);
  assert.equal(charges[0]?.energyAdded, 6.5);
  assert.equal(charges[0]?.energyFromGrid, 7);
  assert.equal(charges[0]?.end, day + 3600);
});

test('a grid log pair arriving late replaces the inferred charge over the same gap', () => {
  const car = new ScriptedCar({ start: day, soc: 40, logs: true });
  car.park(3600).offline().park(3600).charge(7200, 7).park(3600).reconnect().park(3600);
  const tracker = new SessionTracker();
  const map = new SessionMap();
  const seen: string[] = [];
  // the live data first, the logs a day later
  const logs = car.records.map((r) => r.input).filter((r) => r.code.length > 1);
  for (const r of [...car.live, ...logs]) {
    const ops = tracker.feed(r);
    for (const op of ops) if (op.op === 'put') seen.push(op.session.session === 'charge' ? op.session.source : 'drive');
    map.apply(ops);
  }
  assert.deepEqual(seen, ['inferred', 'log']);
  const [c, ...more] = map.list('charge');
  assert.equal(more.length, 0);
  assert.equal(c?.source, 'log');
  assert.equal(c?.start, day + 7200);
  assert.equal(c?.energyAdded, 14);
  assert.equal(c?.key, `inferred:${day + 3600}`);
  assert.deepEqual(rebuild(car.records.map((r) => r.input), car.t).all(), map.all());
});
