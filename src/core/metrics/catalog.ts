/**
 * The standard OVMS v3 metrics (docs/protocol/mqtt-v3.md §10.1–§10.5): name, type, native unit as the console
 * labels it (docs/protocol/module-console.md §1), persistence (the P column) and staleness class (§10: MIN for
 * GPS and time, HIGH for SOC, ranges, cells and tyres, MAX for network information, MID for the
 * rest). Latitude and longitude (and the valet anchor, §3.1 `v.p.valet.*`) print with 6 fixed
 * decimals; date metrics (unit `date`) travel as epoch seconds. Pure data.
 */
import { MetricSet } from './metric-set.js';
import { STALE, type MetricDef, type MetricType } from './metric.js';

const { MIN, MID, HIGH, MAX } = STALE;

/** [name, type, unit, stale, persistent?, decimals?] */
type Row = readonly [string, MetricType, string, number, boolean?, number?];

const P = true;

const ROWS: readonly Row[] = [
  // §10.1 Module, network, server
  ['m.version', 'S', '', MID],
  ['m.hardware', 'S', '', MID],
  ['m.serial', 'S', '', MID],
  ['m.tasks', 'I', '', MID],
  ['m.freeram', 'I', 'bytes', MID],
  ['m.monotonic', 'I', 'Sec', MIN],
  ['m.time.utc', 'I64', 'date', MIN],
  ['m.net.type', 'S', '', MAX],
  ['m.net.sq', 'I', 'dBm', MAX],
  ['m.net.provider', 'S', '', MAX],
  ['m.net.connected', 'B', '', MAX],
  ['m.net.ip', 'B', '', MAX],
  ['m.net.good.sq', 'B', '', MAX],
  ['m.net.wifi.network', 'S', '', MAX],
  ['m.net.wifi.sq', 'F', 'dBm', MAX],
  ['m.net.mdm.network', 'S', '', MAX],
  ['m.net.mdm.sq', 'F', 'dBm', MAX],
  ['m.net.mdm.iccid', 'S', '', MAX],
  ['m.net.mdm.model', 'S', '', MAX],
  ['m.net.mdm.mode', 'S', '', MAX],
  ['m.net.mdm.netreg', 'S', '', MAX],
  ['s.v2.connected', 'B', '', MID],
  ['s.v2.peers', 'I', '', MID],
  ['s.v3.connected', 'B', '', MID],
  ['s.v3.peers', 'I', '', MID],

  // §10.2 Vehicle identity and main battery
  ['v.type', 'S', '', MID],
  ['v.vin', 'S', '', MID],
  ['v.b.soc', 'F', '%', HIGH, P],
  ['v.b.soh', 'F', '%', MID, P],
  ['v.b.cac', 'F', 'Ah', MID, P],
  ['v.b.capacity', 'F', 'kWh', MID],
  ['v.b.health', 'S', '', MID],
  ['v.b.voltage', 'F', 'V', MID, P],
  ['v.b.current', 'F', 'A', MID],
  ['v.b.power', 'F', 'kW', MID],
  ['v.b.consumption', 'F', 'Wh/km', MID],
  ['v.b.energy.used', 'F', 'kWh', MID, P],
  ['v.b.energy.recd', 'F', 'kWh', MID, P],
  ['v.b.energy.used.total', 'F', 'kWh', MID, P],
  ['v.b.energy.recd.total', 'F', 'kWh', MID, P],
  ['v.b.coulomb.used', 'F', 'Ah', MID, P],
  ['v.b.coulomb.recd', 'F', 'Ah', MID, P],
  ['v.b.coulomb.used.total', 'F', 'Ah', MID, P],
  ['v.b.coulomb.recd.total', 'F', 'Ah', MID, P],
  ['v.b.range.ideal', 'F', 'km', HIGH, P],
  ['v.b.range.est', 'F', 'km', HIGH, P],
  ['v.b.range.full', 'F', 'km', HIGH],
  ['v.b.range.speed', 'F', 'km/h', HIGH],
  ['v.b.temp', 'F', '°C', MID, P],
  ['v.b.12v.voltage', 'F', 'V', MID, P],
  ['v.b.12v.current', 'F', 'A', MID],
  ['v.b.12v.voltage.ref', 'F', 'V', MID, P],
  ['v.b.12v.voltage.alert', 'B', '', MID],
  ['v.b.p.voltage.min', 'F', 'V', HIGH],
  ['v.b.p.voltage.max', 'F', 'V', HIGH],
  ['v.b.p.voltage.avg', 'F', 'V', HIGH],
  ['v.b.p.voltage.stddev', 'F', 'V', HIGH],
  ['v.b.p.temp.min', 'F', '°C', HIGH],
  ['v.b.p.temp.max', 'F', '°C', HIGH],
  ['v.b.p.temp.avg', 'F', '°C', HIGH],
  ['v.b.c.voltage', 'V', 'V', HIGH],
  ['v.b.c.temp', 'V', '°C', HIGH],

  // §10.3 Charging
  ['v.c.charging', 'B', '', MID, P],
  ['v.c.state', 'S', '', MID],
  ['v.c.substate', 'S', '', MID],
  ['v.c.mode', 'S', '', MID],
  ['v.c.type', 'S', '', MID],
  ['v.c.pilot', 'B', '', MID],
  ['v.c.voltage', 'F', 'V', MID],
  ['v.c.current', 'F', 'A', MID],
  ['v.c.power', 'F', 'kW', MID],
  ['v.c.efficiency', 'F', '%', MID],
  ['v.c.climit', 'F', 'A', MID, P],
  ['v.c.time', 'I', 'Sec', MID, P],
  ['v.c.kwh', 'F', 'kWh', MID, P],
  ['v.c.kwh.grid', 'F', 'kWh', MID, P],
  ['v.c.kwh.grid.total', 'F', 'kWh', MID, P],
  ['v.c.timermode', 'B', '', MID, P],
  ['v.c.timerstart', 'I', '', MID, P], // seconds of the day, a raw integer (§3.1)
  ['v.c.limit.soc', 'F', '%', MID, P],
  ['v.c.limit.range', 'F', 'km', MID, P],
  ['v.c.duration.full', 'I', 'Min', MID],
  ['v.c.duration.soc', 'I', 'Min', MID],
  ['v.c.duration.range', 'I', 'Min', MID],
  ['v.c.temp', 'F', '°C', MID, P],
  ['v.c.timestamp', 'I64', 'date', MID],
  ['v.c.12v.voltage', 'F', 'V', MID],
  ['v.c.12v.current', 'F', 'A', MID],
  ['v.c.12v.power', 'F', 'W', MID],
  ['v.c.12v.temp', 'F', '°C', MID],

  // §10.4 Drive train, doors, environment
  ['v.i.temp', 'F', '°C', MID, P],
  ['v.i.power', 'F', 'kW', MID],
  ['v.i.efficiency', 'F', '%', MID],
  ['v.m.rpm', 'I', '', MID],
  ['v.m.temp', 'F', '°C', MID, P],
  ['v.d.fl', 'B', '', MID],
  ['v.d.fr', 'B', '', MID],
  ['v.d.rl', 'B', '', MID],
  ['v.d.rr', 'B', '', MID],
  ['v.d.cp', 'B', '', MID, P],
  ['v.d.hood', 'B', '', MID],
  ['v.d.trunk', 'B', '', MID],
  ['v.e.on', 'B', '', MID, P],
  ['v.e.awake', 'B', '', MID, P],
  ['v.e.aux12v', 'B', '', MID, P],
  ['v.e.charging12v', 'B', '', MID, P],
  ['v.e.locked', 'B', '', MID, P],
  ['v.e.valet', 'B', '', MID, P],
  ['v.e.headlights', 'B', '', MID],
  ['v.e.alarm', 'B', '', MID],
  ['v.e.handbrake', 'B', '', MID],
  ['v.e.regenbrake', 'B', '', MID],
  ['v.e.cooling', 'B', '', MID],
  ['v.e.heating', 'B', '', MID],
  ['v.e.hvac', 'B', '', MID],
  ['v.e.gear', 'I', '', MID],
  ['v.e.drivemode', 'I', '', MID, P],
  ['v.e.throttle', 'F', '%', MID],
  ['v.e.footbrake', 'F', '%', MID],
  ['v.e.parktime', 'I', 'Sec', MID, P],
  ['v.e.drivetime', 'I', 'Sec', MID, P],
  ['v.e.temp', 'F', '°C', MID, P],
  ['v.e.cabintemp', 'F', '°C', MID, P],
  ['v.e.cabinsetpoint', 'F', '°C', MID],
  ['v.e.cabinfan', 'I', '%', MID],
  ['v.e.cabinintake', 'S', '', MID],
  ['v.e.cabinvent', 'S', '', MID],
  ['v.e.serv.range', 'I', 'km', MID],
  ['v.e.serv.time', 'I64', 'date', MID],
  ['v.e.c.login', 'B', '', MID],
  ['v.e.c.config', 'B', '', MID],

  // §10.5 Position and tyres
  ['v.p.latitude', 'F', '', MIN, P, 6],
  ['v.p.longitude', 'F', '', MIN, P, 6],
  ['v.p.altitude', 'F', 'm', MIN, P],
  ['v.p.direction', 'F', '°', MIN],
  ['v.p.speed', 'F', 'km/h', MID],
  ['v.p.gpsspeed', 'F', 'km/h', MIN],
  ['v.p.acceleration', 'F', 'm/s²', MID],
  ['v.p.odometer', 'F', 'km', MID, P],
  ['v.p.trip', 'F', 'km', MID, P],
  ['v.p.gpslock', 'B', '', MIN],
  ['v.p.gpsmode', 'S', '', MIN],
  ['v.p.satcount', 'I', '', MIN],
  ['v.p.gpshdop', 'F', '', MIN],
  ['v.p.gpssq', 'I', '%', MIN],
  ['v.p.gpstime', 'I64', 'date', MIN],
  ['v.p.location', 'S', '', MID],
  ['v.p.valet.latitude', 'F', '', MID, P, 6],
  ['v.p.valet.longitude', 'F', '', MID, P, 6],
  ['v.p.valet.distance', 'F', 'm', MID, P, 6],
  ['v.t.pressure', 'V', 'kPa', HIGH, P],
  ['v.t.temp', 'V', '°C', HIGH, P],
  ['v.t.health', 'V', '%', HIGH, P],
  ['v.t.alert', 'VS', '', HIGH, P],
];

function def([name, type, unit, stale, persistent, decimals]: Row): MetricDef {
  const d: MetricDef = { name, type, unit, stale };
  if (persistent) d.persistent = true;
  if (decimals !== undefined) d.decimals = decimals;
  return Object.freeze(d);
}

/** Every standard metric of docs/protocol/mqtt-v3.md §10, in the order of its tables. */
export const METRICS: readonly MetricDef[] = Object.freeze(ROWS.map(def));

/** The standard metrics by name. */
export const METRIC_CATALOG: ReadonlyMap<string, MetricDef> = new Map(METRICS.map((d) => [d.name, d]));

/** An empty MetricSet over the standard catalog. */
export function newMetricSet(): MetricSet {
  return new MetricSet(METRIC_CATALOG);
}
