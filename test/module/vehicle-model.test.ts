/**
 * The emulated vehicle (src/module/vehicle/model.ts): deterministic for a seed, drives, parks and
 * charges on its own with consistent metrics, and the console actions change it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricSet } from '../../src/core/metrics/metric-set.js';
import { distanceKm, Route } from '../../src/module/vehicle/route.js';
import { Random } from '../../src/module/vehicle/random.js';
import { STEP_SECONDS, VehicleModel } from '../../src/module/vehicle/model.js';

const T0 = Date.UTC(2026, 10, 22, 8, 0, 0) / 1000;

function vehicle(seed = 7): VehicleModel {
  return new VehicleModel(new MetricSet(new Map()), { id: 'EMU0001', seed, startTime: T0 });
}

function snapshot(v: VehicleModel): Record<string, unknown> {
  return Object.fromEntries(v.metrics.names().map((n) => [n, v.metrics.get(n)]));
}

test('the same seed gives the same history, however the clock is advanced', () => {
  const a = vehicle(42);
  const b = vehicle(42);
  a.advance(T0 + 6 * 3600);
  for (let t = T0; t <= T0 + 6 * 3600; t += 7) b.advance(t);
  b.advance(T0 + 6 * 3600);
  assert.deepEqual(snapshot(a), snapshot(b));
  const c = vehicle(43);
  c.advance(T0 + 6 * 3600);
  assert.notDeepEqual(snapshot(a), snapshot(c), 'another seed, another history');
});

test('over a day the car drives, parks and charges; odometer and SOC move consistently', () => {
  const v = vehicle(1);
  const m = v.metrics;
  const odo0 = m.num('v.p.odometer')!;
  const seen = new Set<string>();
  let maxSpeed = 0;
  let lastOdo = odo0;
  for (let t = T0; t <= T0 + 48 * 3600; t += 60) {
    v.advance(t);
    if (m.bool('v.e.on')) seen.add('driving');
    if (m.bool('v.c.charging')) seen.add('charging');
    if (!m.bool('v.e.on') && !m.bool('v.c.charging')) seen.add('parked');
    maxSpeed = Math.max(maxSpeed, m.num('v.p.speed')!);
    assert.ok(m.num('v.p.odometer')! >= lastOdo, 'the odometer never goes back');
    lastOdo = m.num('v.p.odometer')!;
    const soc = m.num('v.b.soc')!;
    assert.ok(soc >= 0 && soc <= 100, `soc ${soc}`);
    assert.equal(m.num('v.b.range.ideal'), Number(((soc / 100) * 400).toFixed(1)));
    if (m.bool('v.c.charging')) assert.ok(m.bool('v.d.cp') && m.bool('v.c.pilot'), 'charging means plugged in');
  }
  assert.deepEqual([...seen].sort(), ['charging', 'driving', 'parked']);
  assert.ok(lastOdo > odo0 + 10, 'it drove somewhere');
  assert.ok(maxSpeed > 20 && maxSpeed <= 120);
  assert.equal(v.now() % STEP_SECONDS, T0 % STEP_SECONDS);
});

test('charge start and stop, lock, valet, climate and wakeup act on the metrics', () => {
  const v = vehicle(3);
  const m = v.metrics;
  assert.equal(v.chargeStart(), 'ok');
  assert.equal(m.bool('v.c.charging'), true);
  assert.equal(m.str('v.c.state'), 'charging');
  const soc = m.num('v.b.soc')!;
  v.advance(v.now() + 600);
  assert.ok(m.num('v.b.soc')! > soc, 'SOC rises while charging');
  assert.ok(m.num('v.c.kwh')! > 0);
  assert.ok(m.num('v.b.power')! < 0, 'battery power is negative while charging');
  assert.equal(v.chargeStop(), 'ok');
  assert.equal(m.bool('v.c.charging'), false);
  assert.equal(m.str('v.c.state'), 'stopped');

  assert.equal(v.unlock('1234'), 'ok');
  assert.equal(m.bool('v.e.locked'), false);
  assert.equal(v.lock('1234'), 'ok');
  assert.equal(m.bool('v.e.locked'), true);
  assert.equal(v.valet('1234'), 'ok');
  assert.equal(m.bool('v.e.valet'), true);
  assert.equal(v.unvalet('1234'), 'ok');
  assert.equal(m.bool('v.e.valet'), false);
  assert.equal(v.chargeCurrent(16), 'ok');
  assert.equal(m.num('v.c.climit'), 16);
  assert.equal(v.chargeCurrent(0), 'failed');
  assert.equal(v.chargeMode('range'), 'ok');
  assert.equal(m.str('v.c.mode'), 'range');
  assert.equal(v.chargeCooldown(), 'unsupported');
  assert.equal(v.climate(true), 'ok');
  assert.equal(m.bool('v.e.hvac'), true);
  assert.equal(v.wakeup(), 'ok');
  assert.equal(m.bool('v.e.awake'), true);
});

test('a car stopped charging by command keeps its cable and port; it never drives off plugged in', () => {
  for (const seed of [3, 5, 8, 13]) {
    const v = vehicle(seed);
    const m = v.metrics;
    assert.equal(v.chargeStart(), 'ok');
    assert.equal(m.bool('v.c.pilot'), true, 'the cable is in');
    assert.equal(m.bool('v.d.cp'), true, 'the port is open');
    v.advance(v.now() + 300);
    assert.equal(v.chargeStop(), 'ok');
    assert.equal(m.str('v.c.state'), 'stopped');
    assert.equal(m.bool('v.c.pilot'), true, 'stopping keeps the cable in');
    assert.equal(m.bool('v.d.cp'), true, 'and the port open');
    // the day goes on: whenever the car moves, the cable is out and the port closed
    let drove = false;
    const end = v.now() + 12 * 3600;
    for (let t = v.now(); t < end; t += STEP_SECONDS) {
      v.advance(t);
      if ((m.num('v.p.speed') ?? 0) > 0 || m.bool('v.e.on')) {
        drove = true;
        assert.equal(m.bool('v.d.cp'), false, `seed ${seed}: driving with the charge port open at ${t}`);
        assert.equal(m.bool('v.c.pilot'), false, `seed ${seed}: driving with the cable in at ${t}`);
      }
    }
    assert.ok(drove, `seed ${seed}: the car drove after the stop`);
  }
});

test('the route is a closed loop around home; positions follow it', () => {
  const home = { lat: 48.137154, lon: 11.576124 };
  const r = Route.around(home, new Random(5));
  assert.ok(r.lengthKm > 20 && r.lengthKm < 200);
  assert.deepEqual(r.at(0).point, home);
  const p = r.at(r.lengthKm / 2).point;
  assert.ok(distanceKm(home, p) < 20);
  assert.deepEqual(r.at(r.lengthKm).point, r.at(0).point, 'wraps around');
});
