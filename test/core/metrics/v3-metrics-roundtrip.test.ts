/**
 * Properties of src/core/metrics/v3-metrics.ts (fast-check): metrics → v2 record (v2-records.ts, km and
 * miles) → metrics gives every value back within the record's precision (ints truncated, fixed
 * decimals, ×10 fields, the mile round trip, the payload's 6 significant digits); a record cut after
 * N fields gives exactly the metrics of those fields; a non-numeric field loses only its own metrics;
 * arbitrary text never throws and gives only catalog names, once, with well-formed payloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { METRIC_CATALOG, newMetricSet } from '../../../src/core/metrics/catalog.js';
import type { MetricValue } from '../../../src/core/metrics/metric.js';
import type { MetricSet } from '../../../src/core/metrics/metric-set.js';
import { parseMetricPayload } from '../../../src/core/metrics/payload.js';
import {
  CHARGE_MODE,
  CHARGE_STATE,
  CHARGE_SUBSTATE,
  KM_TO_MI,
  renderD,
  renderF,
  renderL,
  renderS,
  renderW,
  renderY,
  type V2RecordOptions,
} from '../../../src/core/metrics/v2-records.js';
import { metricsOfRecord, type V3MetricsContext } from '../../../src/core/metrics/v3-metrics.js';
import { fuzzParams } from '../../support/fuzz.js';

const T0 = 1767225600;

/** One metric a record carries: its field, a plausible value, the record's precision. */
interface Spec {
  field: number;
  name: string;
  arb: fc.Arbitrary<MetricValue>;
  /** Absolute error the field allows (int 1, f1 0.05, ×10 0.1, dflt 0); omitted for exact values. */
  abs?: number;
  /** A distance or speed in the user unit. */
  dist?: boolean;
  /** The value expected back when it is not the one set (undefined: no metric). */
  expect?: (v: MetricValue) => MetricValue | undefined;
}

const real = (min: number, max: number): fc.Arbitrary<MetricValue> => fc.double({ min, max, noNaN: true });
const int = (min: number, max: number): fc.Arbitrary<MetricValue> => fc.integer({ min, max });
const bool = fc.boolean();
const num = (field: number, name: string, min: number, max: number, abs: number, dist = false): Spec => ({
  field,
  name,
  arb: real(min, max),
  abs,
  dist,
});
const whole = (field: number, name: string, min: number, max: number): Spec => ({ field, name, arb: int(min, max), abs: 0 });
const bits = (field: number, names: string[]): Spec[] => names.map((name) => ({ field, name, arb: bool }));

const S_SPECS: Spec[] = [
  num(1, 'v.b.soc', 0, 100, 0.05),
  num(3, 'v.c.voltage', 0, 500, 1),
  num(4, 'v.c.current', 0, 200, 0.005),
  { field: 5, name: 'v.c.state', arb: fc.constantFrom(...Object.keys(CHARGE_STATE), 'unplugged') },
  { field: 6, name: 'v.c.mode', arb: fc.constantFrom(...Object.keys(CHARGE_MODE), 'eco') },
  num(7, 'v.b.range.ideal', 0, 1000, 1, true),
  num(8, 'v.b.range.est', 0, 1000, 1, true),
  num(9, 'v.c.climit', 0, 100, 1),
  whole(10, 'v.c.time', 0, 1_000_000),
  num(12, 'v.c.kwh', 0, 200, 0.1),
  {
    field: 13,
    name: 'v.c.substate',
    arb: fc.constantFrom(...Object.keys(CHARGE_SUBSTATE), 'other'),
    expect: (v) => (v === 'other' ? undefined : v),
  },
  { field: 16, name: 'v.c.timermode', arb: bool },
  whole(17, 'v.c.timerstart', 0, 86399),
  num(19, 'v.b.cac', 0, 500, 0.005),
  whole(20, 'v.c.duration.full', -1, 2000),
  num(22, 'v.c.limit.range', 0, 1000, 1, true),
  num(23, 'v.c.limit.soc', 0, 100, 1),
  { field: 24, name: 'v.e.cooling', arb: bool },
  whole(28, 'v.c.duration.range', -1, 2000),
  whole(29, 'v.c.duration.soc', -1, 2000),
  num(30, 'v.b.range.full', 0, 1000, 1, true),
  num(33, 'v.b.voltage', 0, 1000, 0.005),
  num(34, 'v.b.soh', 0, 100, 0.005),
  num(35, 'v.c.power', 0, 350, 0.005),
  num(36, 'v.c.efficiency', 0, 100, 0.005),
  num(37, 'v.b.current', -1000, 1000, 0.005),
  num(38, 'v.b.range.speed', -200, 200, 0.05, true),
  num(39, 'v.c.kwh.grid', 0, 200, 0.05),
  num(40, 'v.c.kwh.grid.total', 0, 1_000_000, 0.05),
  num(41, 'v.b.capacity', 0, 200, 0.05),
  whole(42, 'v.c.timestamp', 0, 2_000_000_000),
];

const D_SPECS: Spec[] = [
  ...bits(1, ['v.d.fl', 'v.d.fr', 'v.d.cp', 'v.c.pilot', 'v.c.charging', 'v.e.handbrake', 'v.e.on']),
  ...bits(2, ['v.e.locked', 'v.e.valet', 'v.e.headlights', 'v.d.hood', 'v.d.trunk']),
  num(4, 'v.i.temp', -40, 150, 0),
  num(5, 'v.m.temp', -40, 150, 0),
  num(6, 'v.b.temp', -40, 80, 0),
  num(7, 'v.p.trip', 0, 10_000, 0.1, true),
  num(8, 'v.p.odometer', 0, 1_000_000, 0.1, true),
  num(9, 'v.p.speed', 0, 250, 0), // native km/h in D
  whole(10, 'v.e.parktime', 0, 10_000_000),
  num(11, 'v.e.temp', -40, 60, 0),
  ...bits(12, ['v.e.awake', 'v.e.cooling', 'v.e.c.login', 'v.e.c.config']),
  num(15, 'v.b.12v.voltage', 0, 16, 0),
  ...bits(16, ['v.e.alarm']),
  num(17, 'v.b.12v.voltage.ref', 0, 16, 0),
  ...bits(18, ['v.d.rl', 'v.d.rr', 'v.e.charging12v', 'v.e.aux12v', 'v.e.hvac']),
  num(19, 'v.c.temp', -40, 150, 0),
  num(20, 'v.b.12v.current', -100, 100, 0),
  num(21, 'v.e.cabintemp', -40, 80, 0),
];

const nonZero = (max: number): fc.Arbitrary<MetricValue> => fc.oneof(real(-max, -0.001), real(0.001, max));

const L_SPECS: Spec[] = [
  { field: 1, name: 'v.p.latitude', arb: nonZero(90), abs: 5e-7 },
  { field: 2, name: 'v.p.longitude', arb: nonZero(180), abs: 5e-7 },
  num(3, 'v.p.direction', 0, 359.9, 0),
  num(4, 'v.p.altitude', -500, 9000, 0),
  { field: 5, name: 'v.p.gpslock', arb: bool },
  num(7, 'v.p.speed', 0, 250, 0.05, true),
  num(8, 'v.p.trip', 0, 10_000, 0.1, true),
  whole(9, 'v.e.drivemode', -(2 ** 31), 2 ** 31 - 1),
  num(10, 'v.b.power', -500, 500, 0.0005),
  num(11, 'v.b.energy.used', 0, 1000, 0.0005),
  num(12, 'v.b.energy.recd', 0, 1000, 0.0005),
  num(13, 'v.i.power', -500, 500, 0),
  num(14, 'v.i.efficiency', 0, 100, 0),
  { field: 15, name: 'v.p.gpsmode', arb: fc.constantFrom('A', 'AA', 'N', 'DA', 'AAN') },
  whole(16, 'v.p.satcount', 0, 40),
  num(17, 'v.p.gpshdop', 0, 50, 0.05),
  num(18, 'v.p.gpsspeed', 0, 250, 0.05, true),
  whole(19, 'v.p.gpssq', 0, 100),
];

type Render = (m: MetricSet, o: V2RecordOptions) => string;
interface RecordSpec {
  code: 'S' | 'D' | 'L';
  render: Render;
  specs: Spec[];
  /** Metrics derived from other fields: [name, field, expected value]. */
  derived?: Array<[string, number, (v: Record<string, MetricValue>) => MetricValue]>;
}

const RECORDS: RecordSpec[] = [
  {
    code: 'S',
    render: renderS,
    specs: S_SPECS,
    derived: [['v.c.charging', 5, (v) => v['v.c.state'] === 'charging' || v['v.c.state'] === 'topoff']],
  },
  { code: 'D', render: renderD, specs: D_SPECS },
  { code: 'L', render: renderL, specs: L_SPECS },
];

const valuesOf = (r: RecordSpec): fc.Arbitrary<Record<string, MetricValue>> =>
  fc.record(Object.fromEntries(r.specs.map((s) => [s.name, s.arb])) as Record<string, fc.Arbitrary<MetricValue>>);

function render(r: RecordSpec, values: Record<string, MetricValue>, unit: 'K' | 'M'): string {
  const m = newMetricSet();
  for (const [name, v] of Object.entries(values)) m.set(name, v, T0);
  return r.render(m, { distanceUnit: unit, now: T0 });
}

/** The source field of each metric of a record. */
function fieldOf(r: RecordSpec): Map<string, number> {
  return new Map([...r.specs.map((s): [string, number] => [s.name, s.field]), ...(r.derived ?? []).map(([n, f]): [string, number] => [n, f])]);
}

function assertWellFormed(pairs: Array<[string, string]>, what: string): void {
  const names = pairs.map(([n]) => n);
  assert.equal(new Set(names).size, names.length, `${what}: duplicate names ${names.join(' ')}`);
  for (const [name, payload] of pairs) {
    const def = METRIC_CATALOG.get(name);
    assert.ok(def, `${what}: ${name} is not in METRIC_CATALOG`);
    if (def.type !== 'S') assert.doesNotMatch(payload, /nan|inf/i, `${what}: ${name} = ${payload}`);
    const value = parseMetricPayload(def, payload);
    assert.notEqual(value, undefined, `${what}: ${name} = ${JSON.stringify(payload)} does not parse as ${def.type}`);
  }
}

function assertClose(spec: Spec, got: string, want: MetricValue, unit: 'K' | 'M'): void {
  const def = METRIC_CATALOG.get(spec.name)!;
  const value = parseMetricPayload(def, got);
  if (typeof want !== 'number') {
    assert.deepEqual(value, want, `${spec.name}: ${got}`);
    return;
  }
  assert.equal(typeof value, 'number', `${spec.name}: ${got}`);
  const abs = spec.abs ?? 0;
  const bound = (spec.dist && unit === 'M' ? abs / KM_TO_MI + abs : abs) + Math.abs(want) * 1e-5 + 1e-9;
  const err = Math.abs((value as number) - want);
  assert.ok(err <= bound, `${spec.name}: ${got} for ${want} (${unit}): off by ${err} > ${bound}`);
}

for (const r of RECORDS) {
  test(`${r.code}: metrics → record → metrics within the record's precision, km and miles`, () => {
    fc.assert(
      fc.property(valuesOf(r), fc.constantFrom<'K' | 'M'>('K', 'M'), (values, unit) => {
        const data = render(r, values, unit);
        const ctx: V3MetricsContext = { distanceUnit: unit };
        const got = metricsOfRecord(r.code, data, ctx);
        assertWellFormed(got, `${r.code} ${data}`);
        const map = new Map(got);
        const fields = fieldOf(r);
        for (const [name] of got) assert.ok(fields.has(name), `${r.code}: unexpected ${name}`);
        for (const spec of r.specs) {
          const v = values[spec.name]!;
          const want = spec.expect ? spec.expect(v) : v;
          const payload = map.get(spec.name);
          if (want === undefined) {
            assert.equal(payload, undefined, spec.name);
            continue;
          }
          assert.notEqual(payload, undefined, `${r.code}: no ${spec.name} in ${data}`);
          assertClose(spec, payload!, want, unit);
        }
        for (const [name, , expect] of r.derived ?? []) {
          assert.equal(map.get(name), expect(values) ? 'yes' : 'no', name);
        }
      }),
      fuzzParams(300),
    );
  });

  test(`${r.code}: a record cut after N fields gives exactly the metrics of those N fields`, () => {
    const fields = fieldOf(r);
    fc.assert(
      fc.property(valuesOf(r), fc.constantFrom<'K' | 'M'>('K', 'M'), fc.nat(45), (values, unit, n) => {
        const data = render(r, values, unit);
        const ctx: V3MetricsContext = { distanceUnit: unit };
        const full = metricsOfRecord(r.code, data, ctx);
        const cut = metricsOfRecord(r.code, data.split(',').slice(0, n).join(','), ctx);
        assert.deepEqual(cut, full.filter(([name]) => (fields.get(name) ?? Infinity) <= n));
      }),
      fuzzParams(200),
    );
  });

  test(`${r.code}: a non-numeric field gives no metric for that field and leaves the others`, () => {
    const fields = fieldOf(r);
    const numeric = [...new Set(r.specs.filter((s) => s.abs !== undefined || s.arb === bool).map((s) => s.field))];
    const garbage = fc.oneof(
      fc.constantFrom('', 'x', 'nan', 'inf', '-inf', 'Infinity', 'NaN', ' 5', '5 ', '--1', '1e+', '+', '.', 'yes', '1.2.3', '0x10', '１２'),
      fc.string({ unit: fc.constantFrom('g', 'z', ' ', '-', '.', '"', '\n', 'é'), minLength: 1, maxLength: 6 }),
    );
    fc.assert(
      fc.property(valuesOf(r), fc.constantFrom(...numeric), garbage, (values, k, junk) => {
        const data = render(r, values, 'K').split(',');
        const ctx: V3MetricsContext = { distanceUnit: 'K' };
        const full = metricsOfRecord(r.code, data.join(','), ctx);
        data[k - 1] = junk;
        const broken = metricsOfRecord(r.code, data.join(','), ctx);
        // D: doors2 not a number → the lock comes from field 3 (4/5), the same value
        const lost = (name: string): boolean => fields.get(name) === k && !(r.code === 'D' && name === 'v.e.locked');
        assert.deepEqual(broken, full.filter(([name]) => !lost(name)));
      }),
      fuzzParams(300),
    );
  });
}

test('W and Y: tyre vectors come back (W in psi, Y f1)', () => {
  const vec = (min: number, max: number): fc.Arbitrary<number[]> =>
    fc.array(fc.double({ min, max, noNaN: true }), { minLength: 4, maxLength: 4 });
  fc.assert(
    fc.property(vec(100, 400), vec(-40, 120), vec(0, 100), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }), (p, t, h, a) => {
      const m = newMetricSet();
      m.set('v.t.pressure', p, T0);
      m.set('v.t.temp', t, T0);
      m.set('v.t.health', h, T0);
      m.set('v.t.alert', a, T0);
      const opts: V2RecordOptions = { distanceUnit: 'K', now: T0, iosTpmsWorkaround: false };
      const close = (name: string, got: string | undefined, want: number[], abs: number): void => {
        const v = parseMetricPayload(METRIC_CATALOG.get(name), got ?? '') as number[];
        assert.equal(v.length, want.length, name);
        want.forEach((x, i) => assert.ok(Math.abs(v[i]! - x) <= abs + Math.abs(x) * 2e-5, `${name}[${i}] ${v[i]} for ${x}`));
      };
      const w = new Map(metricsOfRecord('W', renderW(m, opts), { distanceUnit: 'K' }));
      assert.deepEqual([...w.keys()], ['v.t.pressure', 'v.t.temp']);
      close('v.t.pressure', w.get('v.t.pressure'), p, 0);
      close('v.t.temp', w.get('v.t.temp'), t, 0);
      const y = new Map(metricsOfRecord('Y', renderY(m, opts), { distanceUnit: 'K' }));
      close('v.t.pressure', y.get('v.t.pressure'), p, 0.05);
      close('v.t.temp', y.get('v.t.temp'), t, 0.05);
      close('v.t.health', y.get('v.t.health'), h, 0.05);
      assert.equal(y.get('v.t.alert'), a.join(','));
    }),
    fuzzParams(200),
  );
});

test('F: texts (without `,` and CR, which mp_encode cannot give back), dBm within the sq step, service fields', () => {
  const text = fc
    .oneof(fc.string({ unit: fc.constantFrom('a', 'Z', '9', ' ', ';', '/', '\n', 'é', '-'), maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }))
    .filter((s) => !/[,\r]/.test(s));
  fc.assert(
    fc.property(
      fc.record({ 'm.version': text, 'v.vin': text, 'v.type': text, 'm.net.provider': text, 'm.hardware': text, 'm.net.mdm.mode': text }),
      fc.integer({ min: -120, max: -40 }),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 0, max: 4_000_000_000 }),
      (texts, dbm, range, time) => {
        const m = newMetricSet();
        for (const [name, v] of Object.entries(texts)) m.set(name, v, T0);
        m.set('m.net.sq', dbm, T0);
        m.set('v.e.serv.range', range, T0);
        m.set('v.e.serv.time', time, T0);
        const got = metricsOfRecord('F', renderF(m, { distanceUnit: 'K', now: T0 }), { distanceUnit: 'K' });
        assertWellFormed(got, 'F');
        const map = new Map(got);
        for (const [name, v] of Object.entries(texts)) assert.equal(map.get(name), v === '' ? undefined : v, name);
        if (dbm > -51 || dbm < -111) assert.equal(map.get('m.net.sq'), undefined);
        else assert.ok(Math.abs(Number(map.get('m.net.sq')) - dbm) <= 1, `${map.get('m.net.sq')} for ${dbm}`);
        assert.equal(map.get('v.e.serv.range'), String(range));
        assert.equal(map.get('v.e.serv.time'), String(time));
      },
    ),
    fuzzParams(200),
  );
});

test('arbitrary records never throw and give only catalog names, once, with well-formed payloads', () => {
  const field = fc.oneof(
    fc.integer({ min: -1000, max: 100_000 }).map(String),
    fc.double().map(String),
    fc.constantFrom('', '-1', '0', '4', '5', '99', 'K', 'M', 'charging', 'ffffffff', '1e400', '-1e400', 'NaN', '0x10', '9'.repeat(40), '4294967295'),
    fc.string({ maxLength: 8 }),
  );
  fc.assert(
    fc.property(
      fc.constantFrom('S', 'D', 'L', 'W', 'Y', 'F', 'X', 's'),
      fc.array(field, { maxLength: 50 }),
      fc.record({ distanceUnit: fc.constantFrom<'K' | 'M'>('K', 'M'), hasD: fc.boolean(), hasY: fc.boolean() }),
      (code, fields, ctx) => {
        assertWellFormed(metricsOfRecord(code, fields.join(','), ctx), `${code} ${fields.join(',')}`);
      },
    ),
    fuzzParams(2000),
  );
});
