/**
 * The plain text form of metric values (src/core/metrics/payload.ts, docs/protocol/mqtt-v3.md §3.1) and its
 * inverse for the MQTT bridge, with the C number formatting underneath (format.ts): `%g` with 6
 * significant digits, fixed decimals, ties to even on the exact binary value, int() truncation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METRIC_CATALOG, METRICS } from '../../src/core/metrics/catalog.js';
import { formatFixed, formatFloat, formatInt } from '../../src/core/metrics/format.js';
import type { MetricDef, MetricValue } from '../../src/core/metrics/metric.js';
import { metricPayload, parseMetricPayload } from '../../src/core/metrics/payload.js';

const def = (name: string): MetricDef => {
  const d = METRIC_CATALOG.get(name);
  assert.ok(d, name);
  return d;
};
const payload = (name: string, value: MetricValue): string => metricPayload(def(name), value);
const parse = (name: string, text: string): MetricValue | undefined => parseMetricPayload(def(name), text);

test('formatFloat: the C++ stream default (6 significant digits, no trailing zeros, exponent form)', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [-0, '-0'],
    [3, '3'],
    [81.3, '81.3'],
    [12.46, '12.46'],
    [4.012, '4.012'],
    [100000, '100000'],
    [999999, '999999'],
    [999999.5, '1e+06'],
    [1234567.8, '1.23457e+06'],
    [1e6, '1e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [-3.25, '-3.25'],
    [1.234567, '1.23457'],
    [29.00754754604185, '29.0075'],
    [1e21, '1e+21'],
    [1e-300, '1e-300'],
    [NaN, 'nan'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
  ];
  for (const [x, s] of cases) assert.equal(formatFloat(x), s, String(x));
});

test('formatFixed: %.Nf with ties to even on the exact value, the sign of zero kept', () => {
  const cases: [number, number, string][] = [
    [81.3, 1, '81.3'],
    [81.25, 1, '81.2'], // exact tie: to even
    [81.35, 1, '81.3'], // 81.3499999… in binary
    [0.125, 2, '0.12'],
    [0.375, 2, '0.38'],
    [2.5, 0, '2'],
    [3.5, 0, '4'],
    [15.996, 2, '16.00'],
    [9.995, 2, '9.99'], // 9.99499…
    [0.0004, 3, '0.000'],
    [0.0005, 3, '0.001'], // 0.000500000000000000010…
    [-0.001, 2, '-0.00'],
    [-0, 2, '-0.00'],
    [0, 6, '0.000000'],
    [48.137154, 6, '48.137154'],
    [-0.127758, 6, '-0.127758'],
    [999.96, 1, '1000.0'],
    [1e21, 1, '1000000000000000000000.0'],
    [12, 0, '12'],
    [NaN, 2, 'nan'],
    [-Infinity, 1, '-inf'],
  ];
  for (const [x, d, s] of cases) assert.equal(formatFixed(x, d), s, `${x} f${d}`);
});

test('formatInt: truncation toward zero, no negative zero, NaN as 0', () => {
  assert.equal(formatInt(230.7), '230');
  assert.equal(formatInt(-230.7), '-230');
  assert.equal(formatInt(-0.5), '0');
  assert.equal(formatInt(1767225600), '1767225600');
  assert.equal(formatInt(NaN), '0');
  assert.equal(formatInt(2 ** 70), '1180591620717411303424');
});

test('bools are yes/no', () => {
  assert.equal(payload('v.e.locked', true), 'yes');
  assert.equal(payload('v.e.locked', false), 'no');
  assert.equal(payload('s.v3.connected', 1), 'yes', 'a number as a bool');
  assert.equal(parse('v.e.locked', 'yes'), true);
  assert.equal(parse('v.e.locked', 'no'), false);
  for (const t of ['true', '1', 'on', 'YES']) assert.equal(parse('v.e.locked', t), true, t);
  for (const t of ['false', '0', 'off']) assert.equal(parse('v.e.locked', t), false, t);
  assert.equal(parse('v.e.locked', 'maybe'), undefined);
});

test('ints are decimal integers; dates are epoch seconds; seconds of the day stay raw', () => {
  assert.equal(payload('s.v3.peers', 3), '3');
  assert.equal(payload('m.net.sq', -71), '-71');
  assert.equal(payload('v.c.duration.full', -1), '-1');
  assert.equal(payload('m.time.utc', 1767225600), '1767225600');
  assert.equal(payload('v.p.gpstime', 1767225600.9), '1767225600', 'truncated');
  assert.equal(payload('v.c.timerstart', 79200), '79200');
  assert.equal(parse('m.time.utc', '1767225600'), 1767225600);
  assert.equal(parse('m.net.sq', '-71'), -71);
  assert.equal(parse('s.v3.peers', '+2'), 2);
  for (const t of ['3.5', '1e3', 'x', '2026-01-01 00:00:00 UTC']) assert.equal(parse('s.v3.peers', t), undefined, t);
});

test('floats: the default format, or 6 fixed decimals for positions and the valet anchor', () => {
  assert.equal(payload('v.b.soc', 81.3), '81.3');
  assert.equal(payload('v.b.12v.voltage', 12.46), '12.46');
  assert.equal(payload('v.b.soc', 0), '0');
  assert.equal(payload('v.p.odometer', 1234567.8), '1.23457e+06');
  assert.equal(payload('v.p.latitude', 48.137154), '48.137154');
  assert.equal(payload('v.p.longitude', -0.1277583), '-0.127758');
  assert.equal(payload('v.p.longitude', 11), '11.000000');
  assert.equal(payload('v.p.valet.latitude', 1.5), '1.500000');
  assert.equal(parse('v.b.soc', '81.3'), 81.3);
  assert.equal(parse('v.p.odometer', '1.23457e+06'), 1234570);
  assert.equal(parse('v.b.current', '-.5'), -0.5);
  assert.ok(Number.isNaN(parse('v.b.soc', 'nan') as number));
  assert.equal(parse('v.b.soc', '-inf'), -Infinity);
  for (const t of ['81,3', '81.3%', 'abc', '.', '1e', '0x10']) assert.equal(parse('v.b.soc', t), undefined, t);
});

test('strings are as they are, commas, spaces and line breaks included', () => {
  assert.equal(payload('v.c.state', 'charging'), 'charging');
  assert.equal(payload('m.net.mdm.mode', 'LTE,Online'), 'LTE,Online');
  assert.equal(payload('m.version', '3.3.006-1-g1/ota_0/main (build a, b)\n'), '3.3.006-1-g1/ota_0/main (build a, b)\n');
  assert.equal(parse('m.net.mdm.mode', 'LTE,Online'), 'LTE,Online');
  assert.equal(parse('v.p.gpsmode', ' A '), ' A ');
});

test('vectors are comma lists in the default float format; vectors of short as integers', () => {
  assert.equal(payload('v.b.c.voltage', [4.012, 4.015, 4.011]), '4.012,4.015,4.011');
  assert.equal(payload('v.t.pressure', [248.2, 251, 239.9, 241.3]), '248.2,251,239.9,241.3');
  assert.equal(payload('v.t.pressure', [206.8, NaN]), '206.8,nan');
  assert.equal(payload('v.t.alert', [0, 1, 2, 0]), '0,1,2,0');
  assert.equal(payload('v.t.pressure', []), '');
  assert.equal(payload('v.t.pressure', 200), '200', 'a scalar is a vector of one');
  assert.deepEqual(parse('v.b.c.voltage', '4.012,4.015,4.011'), [4.012, 4.015, 4.011]);
  assert.deepEqual(parse('v.t.alert', '0,1,2,0'), [0, 1, 2, 0]);
  const withNaN = parse('v.t.pressure', '206.8,nan') as number[];
  assert.equal(withNaN[0], 206.8);
  assert.ok(Number.isNaN(withNaN[1]));
  assert.equal(parse('v.t.alert', '0,1.5'), undefined);
  assert.equal(parse('v.t.pressure', '206.8,,200'), undefined);
  assert.equal(parse('v.t.pressure', '206.8;200'), undefined);
});

test('an empty payload is an undefined metric, whatever the type', () => {
  for (const d of METRICS) assert.equal(parseMetricPayload(d, ''), undefined, d.name);
  assert.equal(parseMetricPayload(undefined, ''), undefined);
});

test('custom metrics (no definition): typed by the value, parsed back as text', () => {
  assert.equal(metricPayload(undefined, true), 'yes');
  assert.equal(metricPayload(undefined, 42), '42');
  assert.equal(metricPayload(undefined, 2.5), '2.5');
  assert.equal(metricPayload(undefined, 'x,y'), 'x,y');
  assert.equal(metricPayload(undefined, [1, 2.25]), '1,2.25');
  assert.equal(parseMetricPayload(undefined, '42'), '42');
});

/** A sample value of the metric's type. */
function sample(d: MetricDef): MetricValue {
  switch (d.type) {
    case 'B':
      return true;
    case 'I':
      return -42;
    case 'I64':
      return 1767225600;
    case 'F':
      return d.decimals !== undefined ? -12.345678 : 1234.56;
    case 'S':
      return 'a, b c';
    case 'V':
      return [1.5, -2, 3.25];
    case 'VS':
      return [0, 2, 1];
  }
}

test('round trip for every catalog metric: payload → value → the same payload', () => {
  for (const d of METRICS) {
    const v = sample(d);
    const text = metricPayload(d, v);
    const back = parseMetricPayload(d, text);
    assert.notEqual(back, undefined, `${d.name}: ${text}`);
    assert.deepEqual(back, v, `${d.name}: ${text}`);
    assert.equal(metricPayload(d, back as MetricValue), text, d.name);
  }
});

test('round trip of module payloads: text → value → text', () => {
  const texts: [string, string][] = [
    ['v.b.soc', '81.3'],
    ['v.b.soc', '1e-05'],
    ['v.p.odometer', '1.23457e+06'],
    ['v.p.latitude', '-33.868820'],
    ['v.b.c.voltage', '4.012,4.015,4.011'],
    ['v.t.pressure', '206.8,nan,241.3'],
    ['v.e.on', 'no'],
    ['m.net.sq', '-113'],
    ['v.c.state', 'timerwait'],
    ['v.b.power', '-0'],
  ];
  for (const [name, text] of texts) assert.equal(payload(name, parse(name, text) as MetricValue), text, `${name} ${text}`);
});
