/**
 * The v2 records rendered from v3 metrics (src/core/metrics/v2-records.ts, docs/protocol/mqtt-v3.md §11):
 * golden S, D, L, Y, W and F strings worked out by hand field by field from a known MetricSet, the
 * documented defaults of an empty set, miles, staleness, the D bits one by one, and a consistency
 * check through the server's own record decoders (src/core/records/) into the HTTP values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newMetricSet } from '../../src/core/metrics/catalog.js';
import type { MetricValue } from '../../src/core/metrics/metric.js';
import type { MetricSet } from '../../src/core/metrics/metric-set.js';
import {
  dbmToSq,
  renderD,
  renderF,
  renderL,
  renderRecords,
  renderS,
  renderW,
  renderY,
  type V2RecordOptions,
} from '../../src/core/metrics/v2-records.js';
import { chargeBody } from '../../src/core/records/charge.js';
import type { RecordBody, RecordResult, StoredRecord } from '../../src/core/records/fields.js';
import { locationBody } from '../../src/core/records/location.js';
import { statusBody } from '../../src/core/records/status.js';
import { KPA_TO_PSI, tpmsBody } from '../../src/core/records/tpms.js';

const T0 = 1767225600; // 2026-01-01 00:00:00 UTC: when every metric below was set
const NOW = T0 + 5; // nothing stale yet (the shortest class is 10 s)
const K: V2RecordOptions = { distanceUnit: 'K', now: NOW };
const M: V2RecordOptions = { distanceUnit: 'M', now: NOW };

const FULL: Record<string, MetricValue> = {
  // S
  'v.b.soc': 81.3,
  'v.c.voltage': 230.7,
  'v.c.current': 15.996,
  'v.c.state': 'charging',
  'v.c.substate': 'onrequest',
  'v.c.mode': 'range',
  'v.b.range.ideal': 312.9,
  'v.b.range.est': 287.4,
  'v.c.climit': 16,
  'v.c.time': 3725,
  'v.c.kwh': 12.34,
  'v.c.timermode': true,
  'v.c.timerstart': 79200,
  'v.b.cac': 160.5,
  'v.c.duration.full': 95,
  'v.c.duration.range': 40,
  'v.c.duration.soc': 60,
  'v.c.limit.range': 400,
  'v.c.limit.soc': 90,
  'v.e.cooling': false,
  'v.b.range.full': 420.5,
  'v.c.charging': true,
  'v.b.power': -7.2,
  'v.b.voltage': 396.4,
  'v.b.soh': 97,
  'v.c.power': 7.4,
  'v.c.efficiency': 92.5,
  'v.b.current': -18.25,
  'v.b.range.speed': 35.5,
  'v.c.kwh.grid': 13.7,
  'v.c.kwh.grid.total': 1234.56,
  'v.b.capacity': 64,
  'v.c.timestamp': 1767200000,
  // D
  'v.d.fl': true,
  'v.d.fr': false,
  'v.d.cp': true,
  'v.c.pilot': true,
  'v.e.handbrake': true,
  'v.e.on': false,
  'v.e.locked': true,
  'v.e.valet': false,
  'v.e.headlights': true,
  'v.d.hood': false,
  'v.d.trunk': true,
  'v.i.temp': 35.5,
  'v.m.temp': 42,
  'v.b.temp': 21.25,
  'v.p.trip': 123.45,
  'v.p.odometer': 48211.4,
  'v.p.speed': 52.3,
  'v.e.parktime': 3600,
  'v.e.temp': 18.5,
  'v.e.awake': true,
  'v.e.c.login': false,
  'v.e.c.config': true,
  'v.b.12v.voltage': 12.61,
  'v.e.alarm': true,
  'v.b.12v.voltage.ref': 12.7,
  'v.d.rl': false,
  'v.d.rr': true,
  'v.e.charging12v': true,
  'v.e.aux12v': true,
  'v.e.hvac': true,
  'v.c.temp': 30,
  'v.b.12v.current': 1.234567,
  'v.e.cabintemp': 22.75,
  // L
  'v.p.latitude': 51.507351,
  'v.p.longitude': -0.127758,
  'v.p.direction': 275.5,
  'v.p.altitude': 35,
  'v.p.gpslock': true,
  'v.p.gpstime': T0,
  'v.e.drivemode': 26,
  'v.b.energy.used': 3.4567,
  'v.b.energy.recd': 0.8,
  'v.i.power': 12.5,
  'v.i.efficiency': 94,
  'v.p.gpsmode': 'AA',
  'v.p.satcount': 9,
  'v.p.gpshdop': 0.93,
  'v.p.gpsspeed': 51.96,
  'v.p.gpssq': 85,
  // Y, W
  'v.t.pressure': [206.8, 210.3, NaN, 241.3],
  'v.t.temp': [21, 22.5, 20, 19],
  'v.t.alert': [0, 0, 1, 2],
  // F
  'm.version': '3.3.006-12-gabcdef/ota_0/main (build idf v5.1, Jan  1 2026)',
  'v.vin': 'WVWZZZ1KZAW000001',
  'm.net.sq': -71,
  'v.type': 'DEMO',
  'm.net.provider': 'Home, sweet\r\nhome\n',
  'v.e.serv.range': 15000,
  'v.e.serv.time': 1780000000,
  'm.hardware': 'OVMS WIFI BLE BT cores=2 rev=ESP32/3; MODEM SIM7600',
  'm.net.mdm.mode': 'LTE,Online',
};

function set(values: Record<string, MetricValue>, time = T0): MetricSet {
  const m = newMetricSet();
  for (const [name, v] of Object.entries(values)) m.set(name, v, time);
  return m;
}
const full = (): MetricSet => set(FULL);

const fields = (data: string): string[] => data.split(',');

// --- golden vectors (worked out by hand from §11, field by field) ---

// 81.3 f1 | K | int(230.7) | 15.996 f2 | state | mode | int(312.9) | int(287.4) | int(16) | 3725 s | 0 |
// int(123.4) | onrequest 3 | charging 1 | range 3 | timer 1 | 79200 | 0 | 160.5 f2 | 95 |
// min(40 (≥0, <60), 60) | int(400) | int(90) | not cooling -1 | 0,0,0 | 40 | 60 | int(420.5) | 0 |
// -(-7.2) f2 | 396.4 f2 | 97 f2 | 7.4 f2 | 92.5 f2 | -18.25 f2 | 35.5 f1 | 13.7 f1 | 1234.56 f1 |
// 64 f1 | 1767200000
const S_K =
  '81.3,K,230,16.00,charging,range,312,287,16,3725,0,123,3,1,3,1,79200,0,160.50,95,40,400,90,-1,0,0,0,40,60,420,0,' +
  '7.20,396.40,97.00,7.40,92.50,-18.25,35.5,13.7,1234.6,64.0,1767200000';
// (dist) fields × 0.62137: ideal 194.43 → 194, est 178.58 → 178, limit 248.55 → 248, full 261.29 → 261,
// range speed 22.058635 → 22.1
const S_M =
  '81.3,M,230,16.00,charging,range,194,178,16,3725,0,123,3,1,3,1,79200,0,160.50,95,40,248,90,-1,0,0,0,40,60,261,0,' +
  '7.20,396.40,97.00,7.40,92.50,-18.25,22.1,13.7,1234.6,64.0,1767200000';

// doors1 fl 0x01 + cp 0x04 + pilot 0x08 + charging 0x10 + handbrake 0x40 = 93; doors2 locked 0x08 +
// headlights 0x20 + trunk 0x80 = 168; locked 4; temps dflt; int(1234.5); int(482114); 52.3 native;
// 3600; 18.5; doors3 awake 0x01 + config 0x80 = 129; temps fresh 1; ambient fresh 1; 12.61; doors4
// alarm 0x02; 12.7; doors5 rr 0x02 + 12v charging 0x10 + aux 0x20 + hvac 0x80 = 178; 30; 1.23457; 22.75
const D_K = '93,168,4,35.5,42,21.25,1234,482114,52.3,3600,18.5,129,1,1,12.61,2,12.7,178,30,1.23457,22.75';
// trip 123.45 × 0.62137 × 10 = 767.08 → 767; odometer 48211.4 × 0.62137 × 10 = 299571.18 → 299571;
// speed stays km/h
const D_M = '93,168,4,35.5,42,21.25,767,299571,52.3,3600,18.5,129,1,1,12.61,2,12.7,178,30,1.23457,22.75';

// f6, f6, 275.5, 35, lock 1, gpstime fresh 1, 52.3 f1, int(1234.5), 26 = 1a, -7.2 f3, 3.4567 f3,
// 0.8 f3, 12.5, 94, AA, 9, 0.93 f1, 51.96 f1, 85
const L_K = '51.507351,-0.127758,275.5,35,1,1,52.3,1234,1a,-7.200,3.457,0.800,12.5,94,AA,9,0.9,52.0,85';
// speed 32.497651 → 32.5; trip 767; GPS speed 32.2863852 → 32.3
const L_M = '51.507351,-0.127758,275.5,35,1,1,32.5,767,1a,-7.200,3.457,0.800,12.5,94,AA,9,0.9,32.3,85';

// layout; pressure f1 with the NaN empty, valid; temperature f1, valid; health undefined 0,-1;
// alert integers, valid; no mapping 0,-1
const Y = '4,FL,FR,RL,RR,4,206.8,210.3,,241.3,1,4,21.0,22.5,20.0,19.0,1,0,-1,4,0,0,1,2,1,0,-1';

// FR 210.3 kPa = 30.5014 psi, 22.5 °C; RR 241.3 = 34.9976, 19; FL 206.8 = 29.9938, 21; RL NaN → 0, 20; ok
const W = '30.5014,22.5,34.9976,19,29.9938,21,0,20,1';

// version (`,` → `;`), VIN, (−71 + 113) / 2 = 21 sq, canwrite 0, type, provider (CR LF → CR, LF → CR,
// `,` → `;`), 15000 km, 1780000000, hardware, `LTE;Online`
const F =
  '3.3.006-12-gabcdef/ota_0/main (build idf v5.1; Jan  1 2026),WVWZZZ1KZAW000001,21,0,DEMO,Home; sweet\rhome\r,' +
  '15000,1780000000,OVMS WIFI BLE BT cores=2 rev=ESP32/3; MODEM SIM7600,LTE;Online';

test('golden S (42 fields), km and miles', () => {
  assert.equal(renderS(full(), K), S_K);
  assert.equal(fields(S_K).length, 42);
  assert.equal(renderS(full(), M), S_M);
});

test('golden D (21 fields), km and miles', () => {
  assert.equal(renderD(full(), K), D_K);
  assert.equal(fields(D_K).length, 21);
  assert.equal(renderD(full(), M), D_M);
});

test('golden L (19 fields), km and miles', () => {
  assert.equal(renderL(full(), K), L_K);
  assert.equal(fields(L_K).length, 19);
  assert.equal(renderL(full(), M), L_M);
});

test('golden Y and W (not converted to miles)', () => {
  assert.equal(renderY(full(), K), Y);
  assert.equal(renderY(full(), M), Y);
  assert.equal(renderW(full(), K), W);
  assert.equal(renderW(full(), M), W);
});

test('golden F (10 fields, text MP-encoded)', () => {
  assert.equal(renderF(full(), K), F);
  assert.equal(fields(F).length, 10);
  assert.equal(renderF(full(), { ...K, canWrite: true }).split(',')[3], '1');
});

test('renderRecords: F, S, D, L, Y, then W', () => {
  const records = renderRecords(full(), K);
  assert.deepEqual(records, [
    { code: 'F', data: F },
    { code: 'S', data: S_K },
    { code: 'D', data: D_K },
    { code: 'L', data: L_K },
    { code: 'Y', data: Y },
    { code: 'W', data: W },
  ]);
  assert.deepEqual(
    renderRecords(full(), M).map((r) => r.code + r.data),
    ['F' + F, 'S' + S_M, 'D' + D_M, 'L' + L_M, 'Y' + Y, 'W' + W],
  );
});

// --- an empty set: the documented defaults ---

test('empty set: S defaults (SOC 0, stopped, standard, no cooldown, last charge end -1)', () => {
  assert.equal(
    renderS(newMetricSet(), K),
    '0,K,0,0.00,stopped,standard,0,0,0,0,0,0,0,21,0,0,0,0,0.00,0,0,0,0,-1,0,0,0,0,0,0,0,' +
      '0.00,0.00,0.00,0.00,0.00,0.00,0.0,0.0,0.0,0.0,-1',
  );
  assert.equal(fields(renderS(newMetricSet(), M))[1], 'M');
});

test('empty set: D defaults (unlocked 5, all temperatures stale 0, ambient stale 0)', () => {
  assert.equal(renderD(newMetricSet(), K), '0,0,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0');
});

test('empty set: L defaults (GPS stale 0, empty GPS mode)', () => {
  assert.equal(renderL(newMetricSet(), K), '0.000000,0.000000,0,0,0,0,0.0,0,0,0.000,0.000,0.000,0,0,,0,0.0,0.0,0');
});

test('empty set: Y has the layout and every section undefined; W none defined (-1)', () => {
  assert.equal(renderY(newMetricSet(), K), '4,FL,FR,RL,RR,0,-1,0,-1,0,-1,0,-1,0,-1');
  assert.equal(renderW(newMetricSet(), K), '0,1,0,1,0,1,0,1,-1', 'temperatures 0 → 1 (iOS workaround)');
  assert.equal(renderW(newMetricSet(), { ...K, iosTpmsWorkaround: false }), '0,0,0,0,0,0,0,0,-1');
});

test('empty set: F (empty texts, sq 0, canwrite 0, service range and time -1)', () => {
  assert.equal(renderF(newMetricSet(), K), ',,0,0,,,-1,-1,,');
});

// --- S details ---

test('S charge state, sub-state and mode keys (fields 5/14, 13, 6/15)', () => {
  const states: [string, string][] = [
    ['charging', '1'],
    ['topoff', '2'],
    ['done', '4'],
    ['prepare', '13'],
    ['timerwait', '14'],
    ['heating', '15'],
    ['stopped', '21'],
    ['something', '0'],
    ['toString', '0'],
  ];
  for (const [state, key] of states) {
    const f = fields(renderS(set({ 'v.c.state': state }), K));
    assert.equal(f[4], state);
    assert.equal(f[13], key, state);
  }
  const substates: [string, string][] = [
    ['scheduledstop', '1'],
    ['scheduledstart', '2'],
    ['onrequest', '3'],
    ['timerwait', '5'],
    ['powerwait', '7'],
    ['stopped', '13'],
    ['interrupted', '14'],
    ['other', '0'],
  ];
  for (const [sub, key] of substates) assert.equal(fields(renderS(set({ 'v.c.substate': sub }), K))[12], key, sub);
  const modes: [string, string][] = [
    ['standard', '0'],
    ['storage', '1'],
    ['range', '3'],
    ['performance', '4'],
    ['eco', '-1'],
  ];
  for (const [mode, key] of modes) {
    const f = fields(renderS(set({ 'v.c.mode': mode }), K));
    assert.equal(f[5], mode);
    assert.equal(f[14], key, mode);
  }
});

test('S field 21: the range ETR when it is ≥ 0 and below the SOC ETR, else the SOC ETR', () => {
  const limit = (range: number, soc: number): string =>
    fields(renderS(set({ 'v.c.duration.range': range, 'v.c.duration.soc': soc }), K))[20] as string;
  assert.equal(limit(40, 60), '40');
  assert.equal(limit(80, 60), '60');
  assert.equal(limit(60, 60), '60');
  assert.equal(limit(-1, 60), '60');
  assert.equal(limit(-1, -1), '-1');
  assert.equal(limit(0, 60), '0');
});

test('S: cooldown 0 while cooling; charge power −v.b.power only while charging; int() truncates', () => {
  assert.equal(fields(renderS(set({ 'v.e.cooling': true }), K))[23], '0');
  assert.equal(fields(renderS(set({ 'v.b.power': -11.5 }), K))[31], '0.00', 'not charging');
  assert.equal(fields(renderS(set({ 'v.b.power': -11.5, 'v.c.charging': true }), K))[31], '11.50');
  assert.equal(fields(renderS(set({ 'v.b.power': 0, 'v.c.charging': true }), K))[31], '-0.00', 'C prints −0.0 so');
  const f = fields(renderS(set({ 'v.c.voltage': 239.99, 'v.c.kwh': 0.09, 'v.c.limit.soc': 79.9, 'v.b.range.ideal': -3.7 }), K));
  assert.equal(f[2], '239');
  assert.equal(f[11], '0');
  assert.equal(f[22], '79');
  assert.equal(f[6], '-3');
  assert.equal(fields(renderS(set({ 'v.b.soc': 0 }), K))[0], '0.0', 'a defined SOC is f1');
  assert.equal(fields(renderS(set({ 'v.b.soc': 81.25 }), K))[0], '81.2', 'f1 rounds an exact tie to even');
});

// --- D details ---

test('D bits, one metric at a time: doors1–doors5 masks', () => {
  const bits: [string, number, number][] = [
    ['v.d.fl', 1, 0x01],
    ['v.d.fr', 1, 0x02],
    ['v.d.cp', 1, 0x04],
    ['v.c.pilot', 1, 0x08],
    ['v.c.charging', 1, 0x10],
    ['v.e.handbrake', 1, 0x40],
    ['v.e.on', 1, 0x80],
    ['v.e.locked', 2, 0x08],
    ['v.e.valet', 2, 0x10],
    ['v.e.headlights', 2, 0x20],
    ['v.d.hood', 2, 0x40],
    ['v.d.trunk', 2, 0x80],
    ['v.e.awake', 12, 0x01],
    ['v.e.cooling', 12, 0x02],
    ['v.e.c.login', 12, 0x40],
    ['v.e.c.config', 12, 0x80],
    ['v.e.alarm', 16, 0x02],
    ['v.d.rl', 18, 0x01],
    ['v.d.rr', 18, 0x02],
    ['v.e.charging12v', 18, 0x10],
    ['v.e.aux12v', 18, 0x20],
    ['v.e.hvac', 18, 0x80],
  ];
  for (const [name, field, mask] of bits) {
    const f = fields(renderD(set({ [name]: true }), K));
    for (const n of [1, 2, 12, 16, 18]) assert.equal(f[n - 1], n === field ? String(mask) : '0', `${name} in field ${n}`);
    const off = fields(renderD(set({ [name]: false }), K));
    assert.equal(off[field - 1], '0', `${name} false`);
  }
});

test('D: v.e.alarm is 0x02 of doors4, v.e.awake 0x01 of doors3', () => {
  assert.equal(renderD(set({ 'v.e.alarm': true }), K), '0,0,5,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0');
  assert.equal(renderD(set({ 'v.e.awake': true }), K), '0,0,5,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0');
});

test('D: lock state 4 locked, 5 unlocked', () => {
  assert.equal(fields(renderD(set({ 'v.e.locked': true }), K))[2], '4');
  assert.equal(fields(renderD(set({ 'v.e.locked': false }), K))[2], '5');
});

test('D stale fields: temperatures 0 only when all six are stale; ambient its own', () => {
  const temps = { 'v.i.temp': 30, 'v.m.temp': 31, 'v.b.temp': 20, 'v.c.temp': 25, 'v.e.temp': 10, 'v.e.cabintemp': 19 };
  const stale = (m: MetricSet, now: number): [string, string] => {
    const f = fields(renderD(m, { distanceUnit: 'K', now }));
    return [f[12] as string, f[13] as string];
  };
  const m = set(temps);
  assert.deepEqual(stale(m, T0 + 120), ['1', '1'], 'MID class: 120 s is still fresh');
  assert.deepEqual(stale(m, T0 + 121), ['0', '0']);
  m.set('v.b.temp', 20, T0 + 100); // refreshed (same value)
  assert.deepEqual(stale(m, T0 + 121), ['1', '0'], 'one fresh temperature is enough');
  assert.deepEqual(stale(set({ 'v.e.cabintemp': 19 }), NOW), ['1', '0'], 'only the cabin defined');
  assert.deepEqual(stale(set({ 'v.e.temp': 10 }), NOW), ['1', '1']);
  // The values themselves stay as set
  assert.equal(fields(renderD(m, { distanceUnit: 'K', now: T0 + 5000 }))[10], '10');
});

// --- L details ---

test('L: GPS stale follows v.p.gpstime (MIN class, 10 s), not the position', () => {
  const m = set({ 'v.p.gpstime': T0, 'v.p.latitude': 1, 'v.p.longitude': 2 });
  assert.equal(fields(renderL(m, { distanceUnit: 'K', now: T0 + 10 }))[5], '1');
  assert.equal(fields(renderL(m, { distanceUnit: 'K', now: T0 + 11 }))[5], '0');
  assert.equal(fields(renderL(set({ 'v.p.latitude': 1 }), K))[5], '0', 'no GPS time');
});

test('L: drive mode as lower-case hex (C %x), negative as 32-bit two’s complement', () => {
  const mode = (v: number): string => fields(renderL(set({ 'v.e.drivemode': v }), K))[8] as string;
  assert.equal(mode(0), '0');
  assert.equal(mode(10), 'a');
  assert.equal(mode(255), 'ff');
  assert.equal(mode(-1), 'ffffffff');
});

// --- Y, W details ---

test('Y: stale sections, a custom layout, vectors longer or shorter than the layout', () => {
  const m = set({ 'v.t.pressure': [200, 201], 'v.t.health': [99.5, 98, 97, 96, 95] });
  m.set('v.t.alert', [0, 1], T0 + 3000);
  assert.equal(renderY(m, { distanceUnit: 'K', now: T0 + 3601 }), '4,FL,FR,RL,RR,2,200.0,201.0,0,0,-1,5,99.5,98.0,97.0,96.0,95.0,0,2,0,1,1,0,-1');
  assert.equal(
    renderY(set({ 'v.t.temp': [NaN, NaN] }), { ...K, tpmsLayout: ['L', 'R'] }),
    '2,L,R,0,-1,2,,,1,0,-1,0,-1,0,-1',
  );
});

test('W: psi conversion, FR/RR/FL/RL order, missing wheels 0, the iOS temperature workaround, stale', () => {
  const m = set({ 'v.t.pressure': [100, 200], 'v.t.temp': [0.5, -3] });
  // FR 200 kPa = 29.0075 psi, temp -3 → 1; RR missing → 0, 0 → 1; FL 14.5038, 0.5 → 1; RL 0, 1
  assert.equal(renderW(m, K), '29.0075,1,0,1,14.5038,1,0,1,1');
  assert.equal(renderW(m, { ...K, iosTpmsWorkaround: false }), '29.0075,-3,0,0,14.5038,0.5,0,0,1');
  assert.equal(renderW(m, { distanceUnit: 'K', now: T0 + 3601 }), '29.0075,1,0,1,14.5038,1,0,1,0');
  const pressureOnly = set({ 'v.t.pressure': [220, 220, 230, 230] });
  assert.equal(renderW(pressureOnly, K), '31.9083,1,33.3587,1,31.9083,1,33.3587,1,1', 'an undefined temperature is not stale');
  const tempStale = set({ 'v.t.pressure': [220, 220, 230, 230] });
  tempStale.set('v.t.temp', [20, 20, 20, 20], T0 - 4000);
  assert.equal(fields(renderW(tempStale, K))[8], '0', 'any defined TPMS metric stale');
});

// --- F details ---

test('F: signal quality in sq units', () => {
  assert.equal(dbmToSq(-71), 21);
  assert.equal(dbmToSq(-51), 31);
  assert.equal(dbmToSq(-50), 0);
  assert.equal(dbmToSq(-113), 0);
  assert.equal(dbmToSq(-120), -3);
  assert.equal(dbmToSq(0), 0);
  assert.equal(fields(renderF(set({ 'm.net.sq': -52 }), K))[2], '30');
});

test('F: only text fields are MP-encoded; service range stays km', () => {
  const f = fields(renderF(set({ 'v.type': 'X\nY', 'v.e.serv.range': 1000.9, 'v.e.serv.time': 0 }), M));
  assert.equal(f[4], 'X\rY');
  assert.equal(f[6], '1000');
  assert.equal(f[7], '0');
});

// --- consistency with the server's decoders ---

const stored = (data: string, time = NOW): StoredRecord => ({ data, time, paranoid: false });

function body(r: RecordResult): RecordBody {
  assert.notEqual(r, 'paranoid');
  return r as RecordBody;
}

test('S and D decode into the expected /api/status and /api/charge values', () => {
  const status = body(statusBody(stored(S_K), stored(D_K), NOW + 10));
  assert.equal(status.soc, '81.3');
  assert.equal(status.units, 'K');
  assert.equal(status.chargestate, 'charging');
  assert.equal(status.mode, 'range');
  assert.equal(status.idealrange, '312');
  assert.equal(status.estimatedrange, '287');
  assert.equal(status.cac100, '160.50');
  assert.equal(status.cooldown_active, '-1');
  assert.equal(status.idealrange_max, '420');
  assert.equal(status.soh, '97.00');
  assert.equal(status.odometer, '482114');
  assert.equal(status.tripmeter, '1234');
  assert.equal(status.speed, '52.3');
  assert.equal(status.carlocked, 8);
  assert.equal(status.valetmode, 0);
  assert.equal(status.fl_dooropen, 1);
  assert.equal(status.fr_dooropen, 0);
  assert.equal(status.cp_dooropen, 4);
  assert.equal(status.pilotpresent, 8);
  assert.equal(status.charging, 16);
  assert.equal(status.handbrake, 64);
  assert.equal(status.caron, 0);
  assert.equal(status.tr_open, 128);
  assert.equal(status.bt_open, 0);
  assert.equal(status.carawake, 1);
  assert.equal(status.alarmsounding, 2);
  assert.equal(status.charging_12v, 16);
  assert.equal(status.temperature_battery, '21.25');
  assert.equal(status.temperature_ambient, '18.5');
  assert.equal(status.temperature_cabin, '22.75');
  assert.equal(status.staletemps, '1');
  assert.equal(status.staleambient, '1');
  assert.equal(status.vehicle12v, '12.61');
  assert.equal(status.vehicle12v_current, '1.23457');
  assert.equal(status.m_msgage_s, 10);

  const charge = body(chargeBody(stored(S_K), stored(D_K), NOW));
  assert.equal(charge.linevoltage, '230');
  assert.equal(charge.chargecurrent, '16.00');
  assert.equal(charge.chargelimit, '16');
  assert.equal(charge.chargeduration, '3725');
  assert.equal(charge.chargekwh, '123');
  assert.equal(charge.chargesubstate, '3');
  assert.equal(charge.chargetimermode, '1');
  assert.equal(charge.chargestarttime, '79200');
  assert.equal(charge.chargetimerstale, '0');
  assert.equal(charge.charge_etr_full, '95');
  assert.equal(charge.charge_etr_limit, '40');
  assert.equal(charge.charge_limit_range, '400');
  assert.equal(charge.charge_limit_soc, '90');
  assert.equal(charge.charge_etr_range, '40');
  assert.equal(charge.charge_etr_soc, '60');
  assert.equal(charge.chargepower, '7.20');
  assert.equal(charge.battvoltage, '396.40');
  assert.equal(charge.chargepowerinput, '7.40');
  assert.equal(charge.chargerefficiency, '92.50');
  assert.equal(charge.batt_current, '-18.25');
  assert.equal(charge.batt_range_speed, '35.5');
  assert.equal(charge.charge_kwh_grid, '13.7');
  assert.equal(charge.charge_kwh_grid_total, '1234.6');
  assert.equal(charge.batt_capacity, '64.0');
  assert.equal(charge.temperature_charger, '30');
  assert.equal(charge.temperature_pem, '35.5');
  assert.equal(charge.temperature_motor, '42');
  assert.equal(charge.vehicle12v_ref, '12.7');

  const miles = body(statusBody(stored(S_M), stored(D_M), NOW));
  assert.equal(miles.units, 'M');
  assert.equal(miles.idealrange, '194');
  assert.equal(miles.odometer, '299571');
});

test('an empty set decodes into the default status values', () => {
  const status = body(statusBody(stored(renderS(newMetricSet(), K)), stored(renderD(newMetricSet(), K)), NOW));
  assert.equal(status.soc, '0');
  assert.equal(status.chargestate, 'stopped');
  assert.equal(status.mode, 'standard');
  assert.equal(status.carlocked, 0);
  assert.equal(status.staletemps, '0');
  assert.equal(status.staleambient, '0');
  assert.equal(status.temperature_cabin, '0');
});

test('L decodes into the expected /api/location values', () => {
  const loc = body(locationBody(stored(L_K), NOW));
  assert.equal(loc.latitude, '51.507351');
  assert.equal(loc.longitude, '-0.127758');
  assert.equal(loc.direction, '275.5');
  assert.equal(loc.altitude, '35');
  assert.equal(loc.gpslock, '1');
  assert.equal(loc.stalegps, '1');
  assert.equal(loc.speed, '52.3');
  assert.equal(loc.tripmeter, '1234');
  assert.equal(loc.drivemode, '1a');
  assert.equal(loc.power, '-7.200');
  assert.equal(loc.energyused, '3.457');
  assert.equal(loc.energyrecd, '0.800');
  assert.equal(loc.invpower, '12.5');
  assert.equal(loc.invefficiency, '94');
});

test('Y and W decode into the expected /api/tpms values', () => {
  const y = body(tpmsBody(stored(Y), stored(W), NOW));
  assert.equal(y.fl_pressure_kpa, '206.8');
  assert.equal(y.fl_pressure, 206.8 * KPA_TO_PSI);
  assert.equal(y.fr_pressure_kpa, '210.3');
  assert.equal(y.rl_pressure_kpa, '', 'NaN is an empty field');
  assert.equal(y.rr_pressure_kpa, '241.3');
  assert.equal(y.fr_temperature, '22.5');
  assert.equal(y.rr_alert, '2');
  assert.equal(y.rl_alert, '1');
  assert.equal(y.fl_health, undefined, 'no health section values');
  assert.equal(y.stale_pressure, '1');
  assert.equal(y.stale_temperature, '1');
  assert.equal(y.stale_health, '-1');
  assert.equal(y.stale_alert, '1');
  assert.equal(y.staletpms, 1);

  const w = body(tpmsBody(undefined, stored(W), NOW));
  assert.equal(w.fr_pressure, '30.5014');
  assert.equal(w.fr_temperature, '22.5');
  assert.equal(w.rr_pressure, '34.9976');
  assert.equal(w.fl_pressure, '29.9938');
  assert.equal(w.rl_pressure, '0');
  assert.equal(w.rl_temperature, '20');
  assert.equal(w.staletpms, '1');
  // W pressures are Y's, converted
  assert.equal(Number(w.fr_pressure).toFixed(3), (210.3 * KPA_TO_PSI).toFixed(3));
});
