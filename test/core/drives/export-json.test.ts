/** Drives and charges as API objects (src/core/drives/export.ts driveJson, chargeJson): keys in the documented order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargeJson, driveJson } from '../../../src/core/drives/export.js';
import { charge, drive, place } from './make.js';

const home = place({ id: 4, name: 'Home' });
const T = 1_700_000_000;

test('driveJson: the documented keys in order, places by name, efficiency computed', () => {
  const d = { ...drive({ start: T, end: T + 1800, distance: 20, energyUsed: 3, energyRecovered: 0.5, from: { lat: 52.52, lon: 13.405 }, fromPlace: 4, to: { lat: 1, lon: 2 } }), id: 17 };
  const j = driveJson(d, [home], 75, T + 99_999);
  assert.deepEqual(Object.keys(j), [
    'id', 'start', 'end', 'duration', 'units', 'distance', 'startOdometer', 'endOdometer', 'socStart', 'socEnd',
    'energyUsed', 'energyRecovered', 'efficiency', 'maxSpeed', 'from', 'to', 'source',
  ]);
  assert.equal(j.id, 17);
  assert.equal(j.duration, 1800);
  assert.equal(j.efficiency, 125);
  assert.deepEqual(j.from, { lat: 52.52, lon: 13.405, place: 'Home' });
  assert.deepEqual(Object.keys(j.from!), ['lat', 'lon', 'place']);
  assert.deepEqual(j.to, { lat: 1, lon: 2, place: null });
  assert.equal(driveJson({ ...d, from: null }, [home], 75, 0).from, null);
});

test('driveJson: an open drive lasts until now; the path only when asked, last, in time order', () => {
  const path = [
    { t: T + 60, lat: 52.5, lon: 13.4, speed: 50, soc: 79 },
    { t: T, lat: 52.52, lon: 13.405, speed: null, soc: 80 },
  ];
  const d = { ...drive({ start: T, end: null, path }), id: 1 };
  const j = driveJson(d, [], null, T + 300);
  assert.equal(j.end, null);
  assert.equal(j.duration, 300);
  assert.equal('path' in j, false);
  const full = driveJson(d, [], null, T + 300, true);
  assert.equal(Object.keys(full).at(-1), 'path');
  assert.deepEqual(full.path!.map((p) => p.t), [T, T + 60]);
  assert.deepEqual(Object.keys(full.path![0]!), ['t', 'lat', 'lon', 'speed', 'soc']);
  assert.equal(driveJson({ ...d, path: [] }, [], null, T, true).path!.length, 0);
});

test('chargeJson: the documented keys in order, kind from the charge kind, place by name', () => {
  const c = { ...charge({ start: T, end: T + 3600, at: { lat: 52.52, lon: 13.405 }, place: 4, cost: 4.2, currency: 'EUR', chargeKind: 'dc', source: 'log' }), id: 9 };
  const j = chargeJson(c, [home], T + 5);
  assert.deepEqual(Object.keys(j), [
    'id', 'start', 'end', 'duration', 'socStart', 'socEnd', 'energyAdded', 'energyFromGrid', 'maxPower', 'kind', 'at', 'cost', 'currency', 'source',
  ]);
  assert.equal(j.kind, 'dc');
  assert.equal(j.duration, 3600);
  assert.deepEqual(j.at, { lat: 52.52, lon: 13.405, place: 'Home' });
  assert.equal(j.source, 'log');
  // a place since deleted: no name
  assert.deepEqual(chargeJson(c, [], T).at, { lat: 52.52, lon: 13.405, place: null });
  assert.equal(chargeJson({ ...c, end: null }, [home], T + 42).duration, 42);
});
