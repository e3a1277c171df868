/**
 * The simulated day of `vts module --simulate day` (src/module/vehicle/simulated-day.ts), pure:
 * the records have the live messages' field counts, the odometer only grows, the SOC follows the
 * energy used and charged, the ignition bit is on exactly while driving, a trip log at each
 * ignition change and a grid log at each charge state change, the DC charge is above 22 kW, and
 * the same seed gives the same day.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAPACITY_KWH } from '../../src/module/vehicle/initial-metrics.js';
import { DAY_SECONDS, simulateDay, type DayRecord } from '../../src/module/vehicle/simulated-day.js';

const END = Date.UTC(2026, 10, 27, 18, 0, 0) / 1000;
const day = simulateDay({ id: 'EMU0001', seed: 3, end: END });
const fields = (r: DayRecord): string[] => r.data.split(',');
const of = (type: string): DayRecord[] => day.records.filter((r) => r.type === type);

test('the records are oldest first, within the 24 hours, with the live messages’ field counts', () => {
  const ages = day.records.map((r) => r.ageSeconds);
  assert.ok(ages.every((a, i) => a >= 0 && a <= DAY_SECONDS && (i === 0 || a <= ages[i - 1]!)));
  assert.ok(of('S').every((r) => fields(r).length === 42 && r.recordNumber === 0));
  assert.ok(of('D').every((r) => fields(r).length === 21 && r.recordNumber === 0));
  assert.ok(of('L').every((r) => fields(r).length === 19 && r.recordNumber === 0));
  assert.ok(of('*-LOG-Trip').every((r) => fields(r).length === 36 && r.recordNumber === 1 && r.lifetime === 604_800));
  assert.ok(of('*-LOG-Grid').every((r) => fields(r).length === 45 && r.recordNumber === 2 && r.lifetime === 604_800));
  assert.equal(day.records.length, of('S').length + of('D').length + of('L').length + of('*-LOG-Trip').length + of('*-LOG-Grid').length);
});

test('the day: parked, AC charge at home, to work, to the fast charger, DC charge, home', () => {
  const active = day.parts.filter((p) => p.kind !== 'parked').map((p) => `${p.kind} ${p.place}`);
  assert.deepEqual(active, ['charging home', 'driving work', 'driving motorway fast charger', 'charging motorway fast charger', 'driving home']);
  const drives = day.parts.filter((p) => p.kind === 'driving');
  const km = drives.map((p) => Number(/([\d.]+) km/.exec(p.detail)![1]));
  assert.ok(km[0]! > 20 && km[0]! < 30, `to work ${km[0]} km`);
  assert.ok(km[1]! > 45 && km[1]! < 70, `to the charger ${km[1]} km`);
  const minutes = (drives[0]!.startAge - drives[0]!.endAge) / 60;
  assert.ok(minutes > 20 && minutes < 45, `to work in ${minutes} min`);
});

test('the odometer only grows, by the distance driven, and SOC follows the energy', () => {
  const odo = of('D').map((r) => Number(fields(r)[7]));
  assert.ok(odo.every((v, i) => i === 0 || v >= odo[i - 1]!), 'monotonic odometer');
  const driven = (odo.at(-1)! - odo[0]!) / 10;
  assert.ok(driven > 130 && driven < 190, `${driven} km`);
  // each drive: the L energy counters (reset at ignition on) against the SOC lost
  const trips = of('*-LOG-Trip');
  for (let i = 0; i < trips.length; i += 2) {
    const on = fields(trips[i]!);
    const off = fields(trips[i + 1]!);
    assert.equal(on[13], '0.000', 'energy used reset at ignition on');
    const net = Number(off[13]) - Number(off[14]);
    const socLost = Number(on[9]) - Number(off[9]);
    assert.ok(Math.abs((net / CAPACITY_KWH) * 100 - socLost) < 0.3, `drive ${i / 2}: ${net} kWh vs ${socLost} %`);
    const whPerKm = (net * 1000) / Number(off[6]);
    assert.ok(whPerKm > 140 && whPerKm < 240, `drive ${i / 2}: ${whPerKm} Wh/km`);
    assert.ok(Math.abs(Number(off[5]) - Number(on[5]) - Number(off[6])) < 0.15, 'trip = odometer gained');
  }
  // each charge: the charged kWh (S field 12, tenths) against the SOC gained
  const grids = of('*-LOG-Grid');
  for (let i = 0; i < grids.length; i += 2) {
    const start = fields(grids[i]!);
    const end = fields(grids[i + 1]!);
    const gained = Number(end[27]) - Number(start[27]);
    assert.ok(Math.abs((Number(end[20]) / CAPACITY_KWH) * 100 - gained) < 0.3, `charge ${i / 2}`);
    assert.ok(Number(end[21]) > Number(end[20]), 'more from the grid than into the battery');
  }
  const lastL = fields(of('L').at(-1)!);
  assert.ok(Number(lastL[10]) > 0, 'the last drive’s energy used stays on L field 11');
});

test('the ignition bit is on exactly while driving, with trip logs at each change', () => {
  const changes: { age: number; on: boolean }[] = [];
  let on = false;
  for (const r of of('D')) {
    const now = (Number(fields(r)[0]) & 0x80) !== 0;
    if (now !== on) changes.push({ age: r.ageSeconds, on: now });
    on = now;
  }
  assert.equal(changes.length, 6);
  assert.deepEqual(changes.map((c) => c.on), [true, false, true, false, true, false]);
  const trips = of('*-LOG-Trip');
  assert.deepEqual(trips.map((r) => r.ageSeconds), changes.map((c) => c.age));
  // while driving L and D every 10 s, S every minute
  const drive = day.parts.find((p) => p.kind === 'driving')!;
  const during = (type: string) => of(type).filter((r) => r.ageSeconds < drive.startAge && r.ageSeconds > drive.endAge).length;
  const seconds = drive.startAge - drive.endAge;
  assert.ok(Math.abs(during('L') - seconds / 10) <= 2 && Math.abs(during('D') - seconds / 10) <= 2);
  assert.ok(Math.abs(during('S') - seconds / 60) <= 2);
  // parked: every 10 minutes
  const parked = day.parts.filter((p) => p.kind === 'parked').at(-1)!;
  const parkedS = of('S').filter((r) => r.ageSeconds < parked.startAge && r.ageSeconds >= parked.endAge).length;
  assert.ok(Math.abs(parkedS - (parked.startAge - parked.endAge) / 600) <= 2);
});

test('grid logs at each charge state change; the DC charge is above 22 kW, the AC one about 7 kW', () => {
  const states: { age: number; state: string }[] = [];
  let last = '';
  for (const r of of('S')) {
    const state = fields(r)[4]!;
    if (state !== last && last !== '') states.push({ age: r.ageSeconds, state });
    last = state;
  }
  assert.deepEqual(states.map((s) => s.state), ['charging', 'done', 'charging', 'done']);
  const grids = of('*-LOG-Grid');
  assert.deepEqual(grids.map((r) => r.ageSeconds), states.map((s) => s.age));
  assert.deepEqual(grids.map((r) => fields(r)[5]), ['type2', 'type2', 'ccs', 'ccs']);
  const charging = of('S').map(fields).filter((f) => f[4] === 'charging');
  const power = charging.map((f) => Number(f[34])); // S field 35: kW from the grid
  const ac = power.filter((p) => p > 0 && p < 22);
  const dc = power.filter((p) => p > 22);
  assert.ok(ac.length > 100 && ac.every((p) => p > 6.5 && p < 8), 'AC at about 7 kW');
  assert.ok(dc.length > 10 && Math.max(...dc) > 50 && Math.max(...dc) <= 120, 'DC from 50 to 120 kW');
  // S field 32: power into the battery while charging (all but the S sent as each charge begins)
  assert.ok(charging.filter((f) => Number(f[31]) > 0).length >= charging.length - 2);
  const kwh = charging.map((f) => Number(f[11]));
  assert.ok(kwh.every((v, i) => i === 0 || v >= kwh[i - 1]! || v < 10), 'S field 12 grows within a charge');
  const grid = charging.map((f) => Number(f[38]));
  assert.ok(grid.some((v) => v > 20), 'S field 39: grid kWh');
});

test('the same seed gives the same day, another seed another', () => {
  assert.deepEqual(simulateDay({ id: 'EMU0001', seed: 3, end: END }).records, day.records);
  const other = simulateDay({ id: 'EMU0001', seed: 4, end: END });
  assert.notDeepEqual(other.records, day.records);
  assert.equal(day.metrics.num('v.e.on'), 0, 'the day ends parked');
  assert.equal(day.metrics.str('v.c.state'), 'done');
});
