/**
 * The standard v3 metric catalog (src/core/metrics/catalog.ts) against docs/protocol/mqtt-v3.md §10: every
 * metric of §10.1–§10.5 once, the ★ ones with their type, units as the console labels them,
 * persistence (the P column), staleness classes and fixed decimals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METRIC_CATALOG, METRICS, newMetricSet } from '../../src/core/metrics/catalog.js';
import { STALE, type MetricType } from '../../src/core/metrics/metric.js';

/** The ★ metrics of §10 (a ★ row lists several: each counts). */
const STARRED: Record<string, MetricType> = {
  'm.version': 'S',
  'm.monotonic': 'I',
  'm.time.utc': 'I64',
  'm.net.sq': 'I',
  's.v3.connected': 'B',
  's.v3.peers': 'I',
  'v.type': 'S',
  'v.vin': 'S',
  'v.b.soc': 'F',
  'v.b.soh': 'F',
  'v.b.voltage': 'F',
  'v.b.current': 'F',
  'v.b.power': 'F',
  'v.b.range.ideal': 'F',
  'v.b.range.est': 'F',
  'v.b.temp': 'F',
  'v.b.12v.voltage': 'F',
  'v.c.charging': 'B',
  'v.c.state': 'S',
  'v.c.mode': 'S',
  'v.c.voltage': 'F',
  'v.c.current': 'F',
  'v.c.power': 'F',
  'v.c.kwh': 'F',
  'v.c.duration.full': 'I',
  'v.c.duration.soc': 'I',
  'v.c.duration.range': 'I',
  'v.d.fl': 'B',
  'v.d.fr': 'B',
  'v.d.rl': 'B',
  'v.d.rr': 'B',
  'v.d.cp': 'B',
  'v.e.on': 'B',
  'v.e.awake': 'B',
  'v.e.locked': 'B',
  'v.e.hvac': 'B',
  'v.e.parktime': 'I',
  'v.e.drivetime': 'I',
  'v.e.temp': 'F',
  'v.p.latitude': 'F',
  'v.p.longitude': 'F',
  'v.p.altitude': 'F',
  'v.p.direction': 'F',
  'v.p.speed': 'F',
  'v.p.odometer': 'F',
  'v.p.trip': 'F',
  'v.p.gpslock': 'B',
  'v.t.pressure': 'V',
};

/** Every metric name of §10.1–§10.5, rows with several metrics expanded. */
const ALL = `
m.version m.hardware m.serial m.tasks m.freeram m.monotonic m.time.utc m.net.type m.net.sq
m.net.provider m.net.connected m.net.ip m.net.good.sq m.net.wifi.network m.net.wifi.sq
m.net.mdm.network m.net.mdm.sq m.net.mdm.iccid m.net.mdm.model m.net.mdm.mode m.net.mdm.netreg
s.v2.connected s.v2.peers s.v3.connected s.v3.peers
v.type v.vin v.b.soc v.b.soh v.b.cac v.b.capacity v.b.health v.b.voltage v.b.current v.b.power
v.b.consumption v.b.energy.used v.b.energy.recd v.b.energy.used.total v.b.energy.recd.total
v.b.coulomb.used v.b.coulomb.recd v.b.coulomb.used.total v.b.coulomb.recd.total v.b.range.ideal
v.b.range.est v.b.range.full v.b.range.speed v.b.temp v.b.12v.voltage v.b.12v.current
v.b.12v.voltage.ref v.b.12v.voltage.alert v.b.p.voltage.min v.b.p.voltage.max v.b.p.voltage.avg
v.b.p.voltage.stddev v.b.p.temp.min v.b.p.temp.max v.b.p.temp.avg v.b.c.voltage v.b.c.temp
v.c.charging v.c.state v.c.substate v.c.mode v.c.type v.c.pilot v.c.voltage v.c.current v.c.power
v.c.efficiency v.c.climit v.c.time v.c.kwh v.c.kwh.grid v.c.kwh.grid.total v.c.timermode
v.c.timerstart v.c.limit.soc v.c.limit.range v.c.duration.full v.c.duration.soc v.c.duration.range
v.c.temp v.c.timestamp v.c.12v.voltage v.c.12v.current v.c.12v.power v.c.12v.temp
v.i.temp v.i.power v.i.efficiency v.m.rpm v.m.temp v.d.fl v.d.fr v.d.rl v.d.rr v.d.cp v.d.hood
v.d.trunk v.e.on v.e.awake v.e.aux12v v.e.charging12v v.e.locked v.e.valet v.e.headlights
v.e.alarm v.e.handbrake v.e.regenbrake v.e.cooling v.e.heating v.e.hvac v.e.gear v.e.drivemode
v.e.throttle v.e.footbrake v.e.parktime v.e.drivetime v.e.temp v.e.cabintemp v.e.cabinsetpoint
v.e.cabinfan v.e.cabinintake v.e.cabinvent v.e.serv.range v.e.serv.time v.e.c.login v.e.c.config
v.p.latitude v.p.longitude v.p.altitude v.p.direction v.p.speed v.p.gpsspeed v.p.acceleration
v.p.odometer v.p.trip v.p.gpslock v.p.gpsmode v.p.satcount v.p.gpshdop v.p.gpssq v.p.gpstime
v.p.location v.p.valet.latitude v.p.valet.longitude v.p.valet.distance
v.t.pressure v.t.temp v.t.health v.t.alert
`
  .trim()
  .split(/\s+/);

/** The unit labels of docs/protocol/module-console.md §1 that native units use, plus '' (none), bytes and date. */
const UNITS = new Set(['', 'bytes', 'date', '%', 'km', 'km/h', 'm', '°', '°C', 'kPa', 'V', 'A', 'Ah', 'kW', 'kWh', 'W', 'Wh/km', 'Sec', 'Min', 'dBm', 'm/s²']);

const def = (name: string) => {
  const d = METRIC_CATALOG.get(name);
  assert.ok(d, `${name} is in the catalog`);
  return d;
};

test('every ★ metric of §10 is present with its type', () => {
  for (const [name, type] of Object.entries(STARRED)) assert.equal(def(name).type, type, name);
});

test('exactly the metrics of §10.1–§10.5, each once, named as the map keys', () => {
  assert.equal(new Set(METRICS.map((d) => d.name)).size, METRICS.length, 'no duplicate names');
  assert.equal(METRIC_CATALOG.size, METRICS.length);
  assert.deepEqual([...METRICS.map((d) => d.name)].sort(), [...ALL].sort());
  for (const [name, d] of METRIC_CATALOG) assert.equal(d.name, name);
});

test('types: vectors, vector of short, 64-bit dates, the bools and ints of multi-metric rows', () => {
  for (const n of ['v.b.c.voltage', 'v.b.c.temp', 'v.t.pressure', 'v.t.temp', 'v.t.health']) assert.equal(def(n).type, 'V', n);
  assert.equal(def('v.t.alert').type, 'VS');
  for (const n of ['m.time.utc', 'v.c.timestamp', 'v.e.serv.time', 'v.p.gpstime']) {
    assert.equal(def(n).type, 'I64', n);
    assert.equal(def(n).unit, 'date', n);
  }
  for (const n of ['m.net.connected', 'm.net.ip', 'm.net.good.sq', 's.v2.connected', 'v.c.timermode', 'v.b.12v.voltage.alert']) {
    assert.equal(def(n).type, 'B', n);
  }
  for (const n of ['s.v2.peers', 'v.c.timerstart', 'v.m.rpm', 'v.e.gear', 'v.e.cabinfan', 'v.e.serv.range', 'v.p.satcount', 'v.p.gpssq']) {
    assert.equal(def(n).type, 'I', n);
  }
  assert.equal(def('m.net.wifi.sq').type, 'F');
  assert.equal(def('m.net.mdm.sq').type, 'F');
  assert.equal(def('v.e.cabinintake').type, 'S');
});

test('native units as the console labels them', () => {
  const expected: Record<string, string> = {
    'm.freeram': 'bytes',
    'm.monotonic': 'Sec',
    'm.net.sq': 'dBm',
    'm.net.wifi.sq': 'dBm',
    'v.b.soc': '%',
    'v.b.cac': 'Ah',
    'v.b.capacity': 'kWh',
    'v.b.voltage': 'V',
    'v.b.current': 'A',
    'v.b.power': 'kW',
    'v.b.consumption': 'Wh/km',
    'v.b.range.ideal': 'km',
    'v.b.range.speed': 'km/h',
    'v.b.temp': '°C',
    'v.b.c.voltage': 'V',
    'v.b.c.temp': '°C',
    'v.c.time': 'Sec',
    'v.c.duration.soc': 'Min',
    'v.c.limit.soc': '%',
    'v.c.limit.range': 'km',
    'v.c.12v.power': 'W',
    'v.c.12v.temp': '°C',
    'v.i.power': 'kW',
    'v.i.efficiency': '%',
    'v.e.cabinfan': '%',
    'v.e.serv.range': 'km',
    'v.p.latitude': '',
    'v.p.altitude': 'm',
    'v.p.direction': '°',
    'v.p.speed': 'km/h',
    'v.p.acceleration': 'm/s²',
    'v.p.odometer': 'km',
    'v.p.gpssq': '%',
    'v.p.valet.distance': 'm',
    'v.t.pressure': 'kPa',
    'v.t.temp': '°C',
    'v.t.health': '%',
    'v.t.alert': '',
    'v.vin': '',
    'v.d.fl': '',
  };
  for (const [name, unit] of Object.entries(expected)) assert.equal(def(name).unit, unit, name);
  for (const d of METRICS) assert.ok(UNITS.has(d.unit), `${d.name}: unit ${d.unit}`);
});

test('persistence follows the P column', () => {
  const persistent = [
    'v.b.soc', 'v.b.soh', 'v.b.cac', 'v.b.voltage', 'v.b.energy.used', 'v.b.energy.recd', 'v.b.energy.used.total',
    'v.b.energy.recd.total', 'v.b.coulomb.used', 'v.b.coulomb.recd', 'v.b.coulomb.used.total', 'v.b.coulomb.recd.total',
    'v.b.range.ideal', 'v.b.range.est', 'v.b.temp', 'v.b.12v.voltage', 'v.b.12v.voltage.ref',
    'v.c.charging', 'v.c.climit', 'v.c.time', 'v.c.kwh', 'v.c.kwh.grid', 'v.c.kwh.grid.total', 'v.c.timermode',
    'v.c.timerstart', 'v.c.limit.soc', 'v.c.limit.range', 'v.c.temp', 'v.i.temp', 'v.m.temp', 'v.d.cp', 'v.e.on',
    'v.e.awake', 'v.e.aux12v', 'v.e.charging12v', 'v.e.locked', 'v.e.valet', 'v.e.drivemode', 'v.e.parktime',
    'v.e.drivetime', 'v.e.temp', 'v.e.cabintemp', 'v.p.latitude', 'v.p.longitude', 'v.p.altitude', 'v.p.odometer',
    'v.p.trip', 'v.p.valet.latitude', 'v.p.valet.longitude', 'v.p.valet.distance', 'v.t.pressure', 'v.t.temp',
    'v.t.health', 'v.t.alert',
  ];
  assert.deepEqual(METRICS.filter((d) => d.persistent).map((d) => d.name).sort(), [...persistent].sort());
  for (const d of METRICS) assert.ok(d.persistent === undefined || d.persistent === true, d.name);
});

test('staleness classes: MIN for GPS and time, HIGH for SOC, ranges, cells, tyres, MAX for the network', () => {
  for (const n of ['m.time.utc', 'v.p.latitude', 'v.p.longitude', 'v.p.gpslock', 'v.p.gpstime', 'v.p.gpsspeed', 'v.p.satcount']) {
    assert.equal(def(n).stale, STALE.MIN, n);
  }
  for (const n of ['v.b.soc', 'v.b.range.ideal', 'v.b.range.est', 'v.b.range.full', 'v.b.c.voltage', 'v.b.c.temp', 'v.b.p.voltage.min']) {
    assert.equal(def(n).stale, STALE.HIGH, n);
  }
  for (const n of ['v.t.pressure', 'v.t.temp', 'v.t.health', 'v.t.alert']) assert.equal(def(n).stale, STALE.HIGH, n);
  for (const d of METRICS.filter((x) => x.name.startsWith('m.net.'))) assert.equal(d.stale, STALE.MAX, d.name);
  for (const n of ['v.b.voltage', 'v.c.state', 'v.e.locked', 'v.e.temp', 'v.i.temp', 'v.p.odometer', 'm.version', 'v.vin']) {
    assert.equal(def(n).stale, STALE.MID, n);
  }
  const classes = new Set<number>(Object.values(STALE));
  for (const d of METRICS) assert.ok(classes.has(d.stale), d.name);
});

test('fixed decimals: latitude, longitude and the valet anchor print 6; no other metric fixes them', () => {
  const fixed = METRICS.filter((d) => d.decimals !== undefined);
  assert.deepEqual(fixed.map((d) => [d.name, d.decimals]), [
    ['v.p.latitude', 6],
    ['v.p.longitude', 6],
    ['v.p.valet.latitude', 6],
    ['v.p.valet.longitude', 6],
    ['v.p.valet.distance', 6],
  ]);
});

test('the catalog is immutable', () => {
  assert.ok(Object.isFrozen(METRICS));
  assert.ok(METRICS.every((d) => Object.isFrozen(d)));
});

test('newMetricSet: an empty set over the catalog, staleness by class', () => {
  const m = newMetricSet();
  assert.deepEqual(m.names(), []);
  assert.equal(m.catalog, METRIC_CATALOG);
  assert.equal(m.def('v.b.soc'), METRIC_CATALOG.get('v.b.soc'));
  m.set('v.b.soc', 80, 1000);
  m.set('v.p.latitude', 48.1, 1000);
  assert.equal(m.isStale('v.b.soc', 1000 + STALE.HIGH), false);
  assert.equal(m.isStale('v.b.soc', 1000 + STALE.HIGH + 1), true);
  assert.equal(m.isStale('v.p.latitude', 1000 + STALE.MIN + 1), true);
  assert.notEqual(newMetricSet(), m, 'a new set each call');
  assert.deepEqual(newMetricSet().names(), []);
});
