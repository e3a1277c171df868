/**
 * Metric values as the console prints them (src/module/console/metric-text.ts, units.ts;
 * docs/protocol/module-console.md §1): 6 significant digits without trailing zeros (exponent form for big
 * numbers), fixed decimals, integers, vectors, dates, labels glued to numbers, conversions to
 * metric, imperial, explicit and user-chosen units, unit names by unique prefix, and parsing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricSet } from '../../src/core/metrics/metric-set.js';
import { STALE, type MetricDef, type MetricType } from '../../src/core/metrics/metric.js';
import { MetricText } from '../../src/module/console/metric-text.js';
import { unitByCode, unitByPrefix } from '../../src/module/console/units.js';

function make(user: Record<string, string> = {}): { set: MetricSet; text: MetricText } {
  const rows: [string, MetricType, string, number?][] = [
    ['f', 'F', ''],
    ['temp', 'F', '°C'],
    ['press', 'V', 'kPa'],
    ['speed', 'F', 'km/h'],
    ['sig', 'I', 'dBm'],
    ['odo', 'F', 'km'],
    ['count', 'I', ''],
    ['lat', 'F', '', 6],
    ['when', 'I64', 'date'],
    ['ram', 'I', 'bytes'],
    ['flag', 'B', ''],
  ];
  const catalog = new Map(
    rows.map(([name, type, unit, decimals]): [string, MetricDef] => [
      name,
      decimals === undefined ? { name, type, unit, stale: STALE.MID } : { name, type, unit, stale: STALE.MID, decimals },
    ]),
  );
  const set = new MetricSet(catalog);
  return { set, text: new MetricText(set, (group) => user[group]) };
}

test('floats: 6 significant digits, no trailing zeros, exponent form from 1e6', () => {
  const { set, text } = make();
  const show = (v: number): string | undefined => (set.set('f', v, 0), text.text('f'));
  assert.equal(show(12.46), '12.46');
  assert.equal(show(100000), '100000');
  assert.equal(show(1234567), '1.23457e+06');
  assert.equal(show(0.1 + 0.2), '0.3');
  assert.equal(show(0.00001234), '1.234e-05');
  assert.equal(show(-3.5), '-3.5');
});

test('fixed decimals from the definition or the caller; integers; booleans; undefined', () => {
  const { set, text } = make();
  set.set('lat', 48.1, 0);
  assert.equal(text.text('lat'), '48.100000');
  set.set('temp', 21.25, 0);
  assert.equal(text.text('temp', { decimals: 1 }), '21.2°C', 'ties to even, as printf');
  set.set('count', 7, 0);
  assert.equal(text.text('count'), '7');
  set.set('flag', true, 0);
  assert.equal(text.text('flag'), 'yes');
  assert.equal(text.text('odo'), undefined);
});

test('labels: glued to numbers and to the last vector element; none for bytes', () => {
  const { set, text } = make();
  set.set('press', [248.2, 251, 239.9], 0);
  assert.equal(text.text('press'), '248.2,251,239.9kPa');
  assert.equal(text.text('press', { label: false }), '248.2,251,239.9');
  set.set('ram', 3215664, 0);
  assert.equal(text.text('ram'), '3215664');
});

test('dates: YYYY-MM-DD HH:MM:SS UTC; plain() gives the epoch seconds', () => {
  const { set, text } = make();
  set.set('when', Date.UTC(2026, 0, 15, 9, 12, 44) / 1000, 0);
  assert.equal(text.text('when'), '2026-01-15 09:12:44 UTC');
  assert.equal(text.plain('when'), String(Date.UTC(2026, 0, 15, 9, 12, 44) / 1000));
});

test('conversions: imperial, metric, explicit units of the same group; others keep the native unit', () => {
  const { set, text } = make();
  set.set('temp', 20, 0);
  set.set('speed', 100, 0);
  set.set('sig', -73, 0);
  set.set('odo', 1000, 0);
  assert.equal(text.text('temp', { unit: 'imperial' }), '68°F');
  assert.equal(text.text('speed', { unit: 'imperial' }), '62.137Mph');
  assert.equal(text.text('sig', { unit: 'imperial' }), '20sq');
  assert.equal(text.text('odo', { unit: unitByCode('meters') }), '1000km', 'distance short is another group');
  assert.equal(text.text('odo', { unit: unitByCode('miles') }), '621.37M');
  assert.equal(text.text('temp', { unit: 'metric' }), '20°C');
});

test('user units from the vehicle config, with the old distance values M and K', () => {
  assert.equal(make({ temp: 'fahrenheit' }).text.userUnitOf('celcius').label, '°F');
  assert.equal(make({ distance: 'M' }).text.userUnitOf('km').label, 'M');
  assert.equal(make({ distance: 'K' }).text.userUnitOf('km').label, 'km');
  assert.equal(make({ distance: 'psi' }).text.userUnitOf('km').label, 'km', 'a unit of another group is ignored');
  const { set, text } = make({ pressure: 'psi' });
  set.set('press', [206.843], 0);
  assert.equal(text.text('press', { unit: 'user' }), '30psi');
});

test('unit names: exact or unique prefix, pseudo units included', () => {
  assert.equal((unitByPrefix('miles') as { label: string }).label, 'M');
  assert.equal((unitByPrefix('fahr') as { label: string }).label, '°F');
  assert.equal(unitByPrefix('imp'), 'imperial');
  assert.equal(unitByPrefix('m'), undefined, 'ambiguous');
  assert.equal(unitByPrefix('parsecs'), undefined);
});

test('parse: by type, with conversion from a given unit', () => {
  const { text } = make();
  assert.equal(text.parse('flag', 'true'), true);
  assert.equal(text.parse('flag', 'on'), false);
  assert.equal(text.parse('count', '12abc'), 12);
  assert.equal(text.parse('f', 'x'), 0);
  assert.deepEqual(text.parse('press', '1,2.5'), [1, 2.5]);
  assert.equal(text.parse('temp', '212', unitByCode('fahrenheit')), 100);
  assert.equal(text.parse('unknown', '1'), undefined);
});
