/** The session tracker's charges from live data: energy, power, kind, flaps, inferred charges. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionTracker } from '../../../src/core/drives/tracker.js';
import { L, S, ScriptedCar, SessionMap, feedLive, rebuild } from '../../support/drive-records.js';

const day = 1_700_000_000;

test('an AC charge: energy into the battery and from the grid, peak power, SOC, position, samples', () => {
  const car = new ScriptedCar({ start: day, soc: 40 });
  car.park(3600).charge(3600, 7).park(3600);
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  const [c, ...more] = map.list('charge');
  assert.equal(more.length, 0);
  assert.ok(c);
  assert.equal(c.start, day + 3600);
  assert.equal(c.end, day + 7205);
  assert.equal(c.energyAdded, 7);
  assert.equal(c.energyFromGrid, 7.7);
  assert.equal(c.maxPower, 7);
  assert.equal(c.chargeKind, 'ac');
  assert.equal(c.socStart, 40);
  assert.equal(c.socEnd, 51.7);
  assert.equal(c.source, 'live');
  assert.deepEqual(c.at, { lat: 48.1, lon: 11.5 });
  assert.equal(c.samples.length, 61);
  assert.deepEqual(rebuild(car.live, car.t).all(), map.all());
});

test('a DC charge: above 22 kW, or a DC charge mode', () => {
  const car = new ScriptedCar({ start: day, soc: 20 });
  car.park(600).charge(1200, 50, 60, 'ccs').park(600);
  assert.equal(feedLive(new SessionTracker(), car.live, car.t).list('charge')[0]?.chargeKind, 'dc');
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(S(day, { soc: 50, chargeState: 'charging', chargeMode: 'dc', powerIn: 11, chargedKwh: 0 })));
  map.apply(t.feed(S(day + 600, { soc: 52, chargeState: 'charging', chargeMode: 'dc', powerIn: 11, chargedKwh: 1.8 })));
  map.apply(t.feed(S(day + 700, { soc: 53, chargeState: 'done', chargedKwh: 2 })));
  map.apply(t.tick(day + 1000));
  assert.equal(map.list('charge')[0]?.chargeKind, 'dc');
  assert.equal(map.list('charge')[0]?.energyAdded, 2);
  assert.equal(map.list('charge')[0]?.energyFromGrid, null, 'no grid figure: null');
});

test('a flapping charge (stopped, resumed within 2 minutes at the same place) is one charge and emits nothing for the flap', () => {
  const car = new ScriptedCar({ start: day, soc: 30 });
  car.park(600).charge(1800, 7);
  // rewrite: charge, flap, charge on
  const c2 = new ScriptedCar({ start: day, soc: 30 });
  c2.park(600);
  c2.charge(600, 7);
  const t = new SessionTracker();
  const map = new SessionMap();
  const recs = [
    S(day, { soc: 30, chargeState: 'charging', chargedKwh: 0, powerIn: 7 }),
    S(day + 600, { soc: 32, chargeState: 'charging', chargedKwh: 1.2, powerIn: 7 }),
    S(day + 610, { soc: 32, chargeState: 'stopped', chargedKwh: 1.2 }),
    S(day + 650, { soc: 32, chargeState: 'charging', chargedKwh: 1.2, powerIn: 7 }),
    S(day + 1200, { soc: 34, chargeState: 'charging', chargedKwh: 2.3, powerIn: 7 }),
    S(day + 1210, { soc: 34, chargeState: 'done', chargedKwh: 2.3 }),
  ];
  const opsAt: number[] = [];
  for (const r of recs) {
    const ops = t.feed(r);
    if (ops.length) opsAt.push(r.time);
    map.apply(ops);
    if (r.time === day + 610) {
      const ticked = t.tick(day + 640);
      assert.deepEqual(ticked, [], 'nothing during the flap');
    }
  }
  assert.ok(!opsAt.includes(day + 610) && !opsAt.includes(day + 650), `ops at ${opsAt.map((x) => x - day).join(',')}`);
  map.apply(t.tick(day + 1400));
  const charges = map.list('charge');
  assert.equal(charges.length, 1);
  assert.equal(charges[0]?.start, day);
  assert.equal(charges[0]?.end, day + 1210);
  assert.equal(charges[0]?.energyAdded, 2.3);
  assert.equal(t.busy, false);
});

test('a stop that resumes after more than 2 minutes, or elsewhere, makes two charges', () => {
  const late = new SessionTracker();
  const m1 = new SessionMap();
  for (const r of [
    S(day, { soc: 30, chargeState: 'charging', chargedKwh: 0.5 }),
    S(day + 60, { soc: 31, chargeState: 'stopped', chargedKwh: 0.5 }),
    S(day + 200, { soc: 31, chargeState: 'charging', chargedKwh: 0 }),
    S(day + 800, { soc: 33, chargeState: 'done', chargedKwh: 1 }),
  ])
    m1.apply(late.feed(r));
  m1.apply(late.tick(day + 2000));
  assert.deepEqual(
    m1.list('charge').map((c) => [c.start - day, c.end === null ? null : c.end - day, c.energyAdded]),
    [
      [0, 60, 0.5],
      [200, 800, 1],
    ],
  );
  const moved = new SessionTracker();
  const m2 = new SessionMap();
  for (const r of [
    L(day, { lat: 48, lon: 11 }),
    S(day, { soc: 30, chargeState: 'charging', chargedKwh: 0.5 }),
    S(day + 60, { soc: 31, chargeState: 'stopped', chargedKwh: 0.5 }),
    L(day + 70, { lat: 48.01, lon: 11 }),
    S(day + 90, { soc: 31, chargeState: 'charging', chargedKwh: 0 }),
    S(day + 800, { soc: 33, chargeState: 'done', chargedKwh: 1 }),
  ])
    m2.apply(moved.feed(r));
  m2.apply(moved.tick(day + 2000));
  assert.equal(m2.list('charge').length, 2);
});

test('a charge that added nothing is not a charge', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(S(day, { soc: 50, chargeState: 'charging', chargedKwh: 0 })));
  assert.equal(map.list('charge')[0]?.end, null, 'shown while in progress');
  map.apply(t.feed(S(day + 30, { soc: 50, chargeState: 'stopped', chargedKwh: 0 })));
  map.apply(t.tick(day + 600));
  assert.equal(map.sessions.size, 0);
});

test('inferred: a SOC gain of 3 points across an offline gap without a drive is a charge; a smaller gain or a drive is not', () => {
  const car = new ScriptedCar({ start: day, soc: 40 });
  car.park(3600).offline().park(4 * 3600).setSoc(75).reconnect().park(3600);
  // a second gap with 2 points only, a third with a drive
  car.offline().park(3600).setSoc(77).reconnect().park(1200);
  car.offline().drive(600, 40).setSoc(85).park(3600).reconnect().park(600);
  const map = feedLive(new SessionTracker(), car.arrivalOrder(), car.t);
  // the car never reported its ignition while online, so the odometer's growth across the last gap
  // reads as a drive spanning it (the ignition-less rule)
  assert.deepEqual(
    map.list('drive').map((d) => d.distance),
    [6.7],
  );
  const charges = map.list('charge');
  assert.equal(charges.length, 1);
  const [c] = charges;
  assert.equal(c?.source, 'inferred');
  assert.equal(c?.start, day + 3600);
  assert.equal(c?.end, day + 5 * 3600);
  assert.equal(c?.socStart, 40);
  assert.equal(c?.socEnd, 75);
  assert.equal(c?.energyAdded, null);
  assert.equal(c?.chargeKind, null);
  assert.deepEqual(rebuild(car.live, car.t).all(), map.all());
});

test('no inferred charge when a charge was running as the car went offline: the live charge spans the gap', () => {
  const t = new SessionTracker();
  const map = new SessionMap();
  map.apply(t.feed(S(day, { soc: 40, chargeState: 'charging', chargedKwh: 0.1 })));
  map.apply(t.feed(S(day + 7200, { soc: 80, chargeState: 'done', chargedKwh: 25 })));
  map.apply(t.tick(day + 9000));
  const charges = map.list('charge');
  assert.equal(charges.length, 1);
  assert.equal(charges[0]?.source, 'live');
  assert.equal(charges[0]?.energyAdded, 25);
  assert.equal(charges[0]?.end, day + 7200);
});
