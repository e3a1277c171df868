/**
 * The v3 metrics of a v2 record (src/core/metrics/v3-metrics.ts): golden S, D, L, F, W and Y records (the
 * FW3 records of test/core/v2-records.test.ts and the reference server's own S and L) mapped to exact
 * [metric, payload] lists, the source rules (D authoritative over S, Y over W, D field 3 as the lock
 * fallback), the "unknown" values that give nothing, and the catalog/duplicate invariants. The
 * round trips and garbage properties are in v3-metrics-roundtrip.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METRIC_CATALOG } from '../../../src/core/metrics/catalog.js';
import { distanceUnitOf, metricsOfRecord, type V3MetricsContext } from '../../../src/core/metrics/v3-metrics.js';

const K: V3MetricsContext = { distanceUnit: 'K' };
const M: V3MetricsContext = { distanceUnit: 'M' };

// FW3 records (test/core/v2-records.test.ts, worked out from §11)
const S_K =
  '81.3,K,230,16.00,charging,range,312,287,16,3725,0,123,3,1,3,1,79200,0,160.50,95,40,400,90,-1,0,0,0,40,60,420,0,' +
  '7.20,396.40,97.00,7.40,92.50,-18.25,35.5,13.7,1234.6,64.0,1767200000';
const S_M =
  '81.3,M,230,16.00,charging,range,194,178,16,3725,0,123,3,1,3,1,79200,0,160.50,95,40,248,90,-1,0,0,0,40,60,261,0,' +
  '7.20,396.40,97.00,7.40,92.50,-18.25,22.1,13.7,1234.6,64.0,1767200000';
const D_K = '93,168,4,35.5,42,21.25,1234,482114,52.3,3600,18.5,129,1,1,12.61,2,12.7,178,30,1.23457,22.75';
const D_M = '93,168,4,35.5,42,21.25,767,299571,52.3,3600,18.5,129,1,1,12.61,2,12.7,178,30,1.23457,22.75';
const L_K = '51.507351,-0.127758,275.5,35,1,1,52.3,1234,1a,-7.200,3.457,0.800,12.5,94,AA,9,0.9,52.0,85';
const L_M = '51.507351,-0.127758,275.5,35,1,1,32.5,767,1a,-7.200,3.457,0.800,12.5,94,AA,9,0.9,32.3,85';
const Y = '4,FL,FR,RL,RR,4,206.8,210.3,,241.3,1,4,21.0,22.5,20.0,19.0,1,0,-1,4,0,0,1,2,1,0,-1';
const W = '30.5014,22.5,34.9976,19,29.9938,21,0,20,1';
const F =
  '3.3.006-12-gabcdef/ota_0/main (build idf v5.1; Jan  1 2026),WVWZZZ1KZAW000001,21,0,DEMO,Home; sweet\rhome\r,' +
  '15000,1780000000,OVMS WIFI BLE BT cores=2 rev=ESP32/3; MODEM SIM7600,LTE;Online';

type Pairs = Array<[string, string]>;

// S_K field by field: 1 soc; 3 int voltage; 4 16.00 → 16; 5, 6 texts; 7, 8 km; 9; 10 seconds; 12 123/10;
// 13 key 3 = onrequest; 16 timer 1 = yes; 17; 19 160.50; 20; 22; 23; 5 charging → v.c.charging; 24 -1 → not
// cooling; 28; 29; 30; 33–41; 42 epoch. Skipped: 2, 11, 14/15 (5/6 are there), 18, 21, 25–27, 31, 32.
const S_K_METRICS: Pairs = [
  ['v.b.soc', '81.3'],
  ['v.c.voltage', '230'],
  ['v.c.current', '16'],
  ['v.c.state', 'charging'],
  ['v.c.mode', 'range'],
  ['v.b.range.ideal', '312'],
  ['v.b.range.est', '287'],
  ['v.c.climit', '16'],
  ['v.c.time', '3725'],
  ['v.c.kwh', '12.3'],
  ['v.c.substate', 'onrequest'],
  ['v.c.timermode', 'yes'],
  ['v.c.timerstart', '79200'],
  ['v.b.cac', '160.5'],
  ['v.c.duration.full', '95'],
  ['v.c.limit.range', '400'],
  ['v.c.limit.soc', '90'],
  ['v.c.charging', 'yes'],
  ['v.e.cooling', 'no'],
  ['v.c.duration.range', '40'],
  ['v.c.duration.soc', '60'],
  ['v.b.range.full', '420'],
  ['v.b.voltage', '396.4'],
  ['v.b.soh', '97'],
  ['v.c.power', '7.4'],
  ['v.c.efficiency', '92.5'],
  ['v.b.current', '-18.25'],
  ['v.b.range.speed', '35.5'],
  ['v.c.kwh.grid', '13.7'],
  ['v.c.kwh.grid.total', '1234.6'],
  ['v.b.capacity', '64'],
  ['v.c.timestamp', '1767200000'],
];

// doors1 93 = fl cp pilot charging handbrake; doors2 168 = locked headlights trunk; 7, 8 ÷ 10; doors3 129 =
// awake config; doors4 2 = alarm; doors5 178 = rr 12v-charging aux hvac. Skipped: 3 (doors2 has the lock), 13, 14.
const D_K_METRICS: Pairs = [
  ['v.d.fl', 'yes'],
  ['v.d.fr', 'no'],
  ['v.d.cp', 'yes'],
  ['v.c.pilot', 'yes'],
  ['v.c.charging', 'yes'],
  ['v.e.handbrake', 'yes'],
  ['v.e.on', 'no'],
  ['v.e.locked', 'yes'],
  ['v.e.valet', 'no'],
  ['v.e.headlights', 'yes'],
  ['v.d.hood', 'no'],
  ['v.d.trunk', 'yes'],
  ['v.i.temp', '35.5'],
  ['v.m.temp', '42'],
  ['v.b.temp', '21.25'],
  ['v.p.trip', '123.4'],
  ['v.p.odometer', '48211.4'],
  ['v.p.speed', '52.3'],
  ['v.e.parktime', '3600'],
  ['v.e.temp', '18.5'],
  ['v.e.awake', 'yes'],
  ['v.e.cooling', 'no'],
  ['v.e.c.login', 'no'],
  ['v.e.c.config', 'yes'],
  ['v.b.12v.voltage', '12.61'],
  ['v.e.alarm', 'yes'],
  ['v.b.12v.voltage.ref', '12.7'],
  ['v.d.rl', 'no'],
  ['v.d.rr', 'yes'],
  ['v.e.charging12v', 'yes'],
  ['v.e.aux12v', 'yes'],
  ['v.e.hvac', 'yes'],
  ['v.c.temp', '30'],
  ['v.b.12v.current', '1.23457'],
  ['v.e.cabintemp', '22.75'],
];

// lat, lon f6; 1a = 26; energies kWh. Skipped: 6 (GPS staleness).
const L_K_METRICS: Pairs = [
  ['v.p.latitude', '51.507351'],
  ['v.p.longitude', '-0.127758'],
  ['v.p.direction', '275.5'],
  ['v.p.altitude', '35'],
  ['v.p.gpslock', 'yes'],
  ['v.p.speed', '52.3'],
  ['v.p.trip', '123.4'],
  ['v.e.drivemode', '26'],
  ['v.b.power', '-7.2'],
  ['v.b.energy.used', '3.457'],
  ['v.b.energy.recd', '0.8'],
  ['v.i.power', '12.5'],
  ['v.i.efficiency', '94'],
  ['v.p.gpsmode', 'AA'],
  ['v.p.satcount', '9'],
  ['v.p.gpshdop', '0.9'],
  ['v.p.gpsspeed', '52'],
  ['v.p.gpssq', '85'],
];

const sub = (pairs: Pairs, changes: Record<string, string>): Pairs => pairs.map(([n, v]) => [n, changes[n] ?? v]);

test('golden S, km: every field but the constants and derived ones', () => {
  assert.deepEqual(metricsOfRecord('S', S_K, K), S_K_METRICS);
});

test('golden S, miles: its own field 2 converts ranges and the range speed back to km (the context does not)', () => {
  // 194 mi / 0.62137 = 312.213 → 312; 178 → 286.464 → 286; 248 → 399.118 → 399; 261 → 420.040 → 420;
  // 22.1 mi/h → 35.5666 → 35.6 (to the field's decimals)
  const expected = sub(S_K_METRICS, {
    'v.b.range.ideal': '312',
    'v.b.range.est': '286',
    'v.c.limit.range': '399',
    'v.b.range.full': '420',
    'v.b.range.speed': '35.6',
  });
  assert.deepEqual(metricsOfRecord('S', S_M, K), expected);
  assert.deepEqual(metricsOfRecord('S', S_M, M), expected);
  assert.deepEqual(metricsOfRecord('S', S_K, M), S_K_METRICS);
});

test('golden S of the reference server (8 fields, old firmware): only those fields', () => {
  assert.deepEqual(metricsOfRecord('S', '80,K,220,70,charging,standard,280,270', K), [
    ['v.b.soc', '80'],
    ['v.c.voltage', '220'],
    ['v.c.current', '70'],
    ['v.c.state', 'charging'],
    ['v.c.mode', 'standard'],
    ['v.b.range.ideal', '280'],
    ['v.b.range.est', '270'],
    ['v.c.charging', 'yes'],
  ]);
});

test('golden D, km and miles (field 9 speed stays km/h, trip and odometer come back from tenths of a mile)', () => {
  assert.deepEqual(metricsOfRecord('D', D_K, K), D_K_METRICS);
  // 76.7 mi = 123.437 → 123.4 km; 29957.1 mi = 48211.372 → 48211.4 km
  assert.deepEqual(metricsOfRecord('D', D_M, M), D_K_METRICS);
  // the context's unit, not the record's: the same D read as km
  assert.deepEqual(metricsOfRecord('D', D_M, K), sub(D_K_METRICS, { 'v.p.trip': '76.7', 'v.p.odometer': '29957.1' }));
});

test('golden L, km and miles, and the reference server\'s two-field L', () => {
  assert.deepEqual(metricsOfRecord('L', L_K, K), L_K_METRICS);
  // 32.5 mi/h → 52.3; 76.7 mi → 123.4; 32.3 mi/h → 51.98 → 52.0
  assert.deepEqual(metricsOfRecord('L', L_M, M), L_K_METRICS);
  assert.deepEqual(metricsOfRecord('L', '22.274165,114.185715', K), [
    ['v.p.latitude', '22.274165'],
    ['v.p.longitude', '114.185715'],
  ]);
});

test('golden F: texts MP-decoded (CR → LF; a `;` stays), sq → dBm, canwrite skipped', () => {
  assert.deepEqual(metricsOfRecord('F', F, K), [
    ['m.version', '3.3.006-12-gabcdef/ota_0/main (build idf v5.1; Jan  1 2026)'],
    ['v.vin', 'WVWZZZ1KZAW000001'],
    ['m.net.sq', '-71'],
    ['v.type', 'DEMO'],
    ['m.net.provider', 'Home; sweet\nhome\n'],
    ['v.e.serv.range', '15000'],
    ['v.e.serv.time', '1780000000'],
    ['m.hardware', 'OVMS WIFI BLE BT cores=2 rev=ESP32/3; MODEM SIM7600'],
    ['m.net.mdm.mode', 'LTE;Online'],
  ]);
  // FW2's 6-field F; sq 99 is "unknown", 0 "none", -1 service fields "none"
  assert.deepEqual(metricsOfRecord('F', '2.6.5/TR2.6.5/V2,SFZRE8B15B3000001,99,1,TR,Vodafone', K), [
    ['m.version', '2.6.5/TR2.6.5/V2'],
    ['v.vin', 'SFZRE8B15B3000001'],
    ['v.type', 'TR'],
    ['m.net.provider', 'Vodafone'],
  ]);
  assert.deepEqual(metricsOfRecord('F', ',,0,0,,,-1,-1,,', K), []);
  assert.deepEqual(metricsOfRecord('F', ',,1,0', K), [['m.net.sq', '-111']]);
});

test('golden Y: sections in the layout order; a NaN (empty) element or an undefined section gives nothing', () => {
  assert.deepEqual(metricsOfRecord('Y', Y, K), [
    ['v.t.temp', '21,22.5,20,19'],
    ['v.t.alert', '0,0,1,2'],
  ]);
  const well = '4,FL,FR,RL,RR,4,200.0,200.0,276.0,276.0,1,4,22.0,22.0,26.0,26.0,0,4,100.0,100.0,100.0,100.0,1,4,0,0,0,0,1,0,-1';
  assert.deepEqual(metricsOfRecord('Y', well, K), [
    ['v.t.pressure', '200,200,276,276'],
    ['v.t.temp', '22,22,26,26'], // stale (0) is still the last value
    ['v.t.health', '100,100,100,100'],
    ['v.t.alert', '0,0,0,0'],
  ]);
  // DEMO's Y without the validity fields: the pressures, then the positions are lost
  assert.deepEqual(metricsOfRecord('Y', '4,FL,FR,RL,RR,4,200.0,200.0,276.0,276.0,4,22.0,22.0,26.0,26.0', K), [
    ['v.t.pressure', '200,200,276,276'],
  ]);
});

test('golden W: psi → kPa in the vector order FL, FR, RL, RR; -1 validity or a Y vehicle gives nothing', () => {
  assert.deepEqual(metricsOfRecord('W', W, K), [
    ['v.t.pressure', '206.8,210.3,0,241.3'],
    ['v.t.temp', '21,22.5,20,19'],
  ]);
  assert.deepEqual(metricsOfRecord('W', W, { distanceUnit: 'K', hasY: true }), []);
  assert.deepEqual(metricsOfRecord('W', '0,0,0,0,0,0,0,0,-1', K), []);
  // no validity field: still the values (FL 29 psi = 199.948 kPa, FR 30, RL 32, RR 31)
  assert.deepEqual(metricsOfRecord('W', '30,20,31,20,29,21,32,19', K), [
    ['v.t.pressure', '199.948,206.843,220.632,213.737'],
    ['v.t.temp', '21,20,19,20'],
  ]);
  // a wheel missing: no vector (a v3 vector has no "missing" element but NaN)
  assert.deepEqual(metricsOfRecord('W', '30,20,31,20,29,21', K), []);
});

test('D is authoritative for v.c.charging and v.e.cooling: S derives them only for a vehicle without D', () => {
  const withD = metricsOfRecord('S', S_K, { distanceUnit: 'K', hasD: true });
  assert.deepEqual(withD, S_K_METRICS.filter(([n]) => n !== 'v.c.charging' && n !== 'v.e.cooling'));
  const state = (s: string, cooldown: string): Pairs =>
    metricsOfRecord('S', `50,K,0,0,${s},standard,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,${cooldown}`, K).filter(
      ([n]) => n === 'v.c.charging' || n === 'v.e.cooling',
    );
  assert.deepEqual(state('topoff', '0'), [['v.c.charging', 'yes'], ['v.e.cooling', 'yes']]);
  assert.deepEqual(state('done', '-1'), [['v.c.charging', 'no'], ['v.e.cooling', 'no']]);
  assert.deepEqual(state('stopped', '3'), [['v.c.charging', 'no'], ['v.e.cooling', 'yes']]); // FW2: 3 cycles
});

test('S fields 14/15 stand in for an empty state or mode text; unknown keys and field 13 "other" give nothing', () => {
  const s = (f5: string, f6: string, f13: string, f14: string, f15: string): Pairs =>
    metricsOfRecord('S', `50,K,0,0,${f5},${f6},0,0,0,0,0,0,${f13},${f14},${f15}`, { distanceUnit: 'K', hasD: true }).filter(
      ([n]) => n === 'v.c.state' || n === 'v.c.mode' || n === 'v.c.substate',
    );
  assert.deepEqual(s('', '', '7', '15', '4'), [['v.c.state', 'heating'], ['v.c.mode', 'performance'], ['v.c.substate', 'powerwait']]);
  assert.deepEqual(s('', '', '0', '0', '-1'), []);
  assert.deepEqual(s('prepare', 'eco', '99', '1', '0'), [['v.c.state', 'prepare'], ['v.c.mode', 'eco']]);
});

test('S field 42 -1 (no charge ended yet) gives no v.c.timestamp', () => {
  const f = S_K.split(',');
  f[41] = '-1';
  assert.equal(metricsOfRecord('S', f.join(','), K).find(([n]) => n === 'v.c.timestamp'), undefined);
});

test('D field 3 gives v.e.locked only when doors2 is not a number; 4 locked, 5 unlocked, else nothing', () => {
  const locked = (f2: string, f3: string): string | undefined =>
    metricsOfRecord('D', `0,${f2},${f3}`, K).find(([n]) => n === 'v.e.locked')?.[1];
  assert.equal(locked('0', '4'), 'no'); // doors2 wins
  assert.equal(locked('8', '5'), 'yes');
  assert.equal(locked('', '4'), 'yes');
  assert.equal(locked('x', '5'), 'no');
  assert.equal(locked('', '2'), undefined);
  assert.equal(locked('', ''), undefined);
});

test('L: 0,0 (no position) gives no latitude or longitude; the drive mode is C\'s %x of a signed int', () => {
  const names = (data: string): string[] => metricsOfRecord('L', data, K).map(([n]) => n);
  assert.deepEqual(names('0.000000,0.000000,0,0,0,0'), ['v.p.direction', 'v.p.altitude', 'v.p.gpslock']);
  assert.deepEqual(metricsOfRecord('L', '0.000000,8.5', K), [['v.p.latitude', '0.000000'], ['v.p.longitude', '8.500000']]);
  const mode = (hex: string): string | undefined => metricsOfRecord('L', `1,1,0,0,0,0,0,0,${hex}`, K).find(([n]) => n === 'v.e.drivemode')?.[1];
  assert.equal(mode('ffffffff'), '-1');
  assert.equal(mode('0'), '0');
  assert.equal(mode('1g'), undefined);
  assert.equal(mode('100000000'), undefined);
});

test('unknown codes and an empty record give nothing; distanceUnitOf reads S field 2', () => {
  for (const code of ['X', 'V', 'P', 'Z', 's', '', 'SS']) assert.deepEqual(metricsOfRecord(code, S_K, K), []);
  for (const code of ['S', 'D', 'L', 'W', 'Y', 'F']) assert.deepEqual(metricsOfRecord(code, '', K), [], code);
  assert.equal(distanceUnitOf(S_M), 'M');
  assert.equal(distanceUnitOf(S_K), 'K');
  assert.equal(distanceUnitOf('80'), 'K');
  assert.equal(distanceUnitOf('80,m'), 'K');
  assert.equal(distanceUnitOf(''), 'K');
});

test('every produced name is a catalog metric, once per record, and its payload parses as its type', () => {
  const cases: Array<[string, string, V3MetricsContext]> = [
    ['S', S_K, K],
    ['S', S_M, M],
    ['D', D_K, K],
    ['D', D_M, M],
    ['L', L_K, K],
    ['L', L_M, M],
    ['F', F, K],
    ['W', W, K],
    ['Y', Y, K],
  ];
  for (const [code, data, ctx] of cases) {
    const pairs = metricsOfRecord(code, data, ctx);
    const names = pairs.map(([n]) => n);
    assert.ok(pairs.length > 0, code);
    assert.equal(new Set(names).size, names.length, `${code}: duplicate names`);
    for (const [name, payload] of pairs) {
      const def = METRIC_CATALOG.get(name);
      assert.ok(def, `${code}: ${name} is not in METRIC_CATALOG`);
      assert.doesNotMatch(payload, /nan|inf/i, `${code}: ${name}`);
      if (def.type === 'B') assert.match(payload, /^(yes|no)$/);
      if (def.type === 'I' || def.type === 'I64') assert.match(payload, /^-?\d+$/, name);
    }
  }
});
