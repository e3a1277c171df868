/**
 * The firmware's trip and charge logs (`*-LOG-Trip`, record 1, at every ignition change;
 * `*-LOG-Grid`, record 2, at every charge state change) as the data of a historical record
 * (docs/protocol/messages.md §3.11): the fields after the lifetime, every one present and in the
 * firmware's order, read from the car's metrics. Pure.
 */
import { encodeText } from '../../core/mp/command.js';
import { formatFixed, formatInt } from '../../core/metrics/format.js';
import type { MetricSet } from '../../core/metrics/metric-set.js';

export const TRIP_LOG_TYPE = '*-LOG-Trip';
export const GRID_LOG_TYPE = '*-LOG-Grid';
export const TRIP_LOG_RECORD = 1;
export const GRID_LOG_RECORD = 2;
export const TRIP_LOG_FIELDS = 36;
export const GRID_LOG_FIELDS = 45;

function reader(m: MetricSet) {
  const num = (name: string): number => m.num(name) ?? 0;
  return {
    num,
    f: (name: string, decimals: number): string => formatFixed(num(name), decimals),
    i: (name: string): string => formatInt(num(name)),
    text: (name: string): string => encodeText(m.str(name) ?? ''),
    /** Minimum and maximum of a per-wheel vector. */
    minMax: (name: string, decimals: number): string[] => {
      const v = m.vec(name) ?? [];
      if (v.length === 0) return ['', ''];
      return [formatFixed(Math.min(...v), decimals), formatFixed(Math.max(...v), decimals)];
    },
  };
}

/** The position part both logs start with: GPS lock, latitude, longitude, altitude, location name. */
function position(m: MetricSet, location: string): string[] {
  const r = reader(m);
  return [m.bool('v.p.gpslock') ? '1' : '0', r.f('v.p.latitude', 6), r.f('v.p.longitude', 6), r.i('v.p.altitude'), encodeText(location)];
}

/** The battery condition both logs carry: SOH, health text, CAC. */
function health(m: MetricSet): string[] {
  const r = reader(m);
  return [r.f('v.b.soh', 1), r.text('v.b.health'), r.f('v.b.cac', 2)];
}

/** Lifetime energy and coulomb totals: used, recovered (kWh), then used, recovered (Ah). */
function totals(m: MetricSet): string[] {
  const r = reader(m);
  return [r.f('v.b.energy.used.total', 3), r.f('v.b.energy.recd.total', 3), r.f('v.b.coulomb.used.total', 3), r.f('v.b.coulomb.recd.total', 3)];
}

/** `*-LOG-Trip` fields 1–36. */
export function tripLogData(m: MetricSet, location: string): string {
  const r = reader(m);
  return [
    ...position(m, location), // 1–5
    r.f('v.p.odometer', 1), // 6
    r.f('v.p.trip', 1), // 7
    r.i('v.e.drivetime'), // 8
    r.i('v.e.drivemode'), // 9
    r.f('v.b.soc', 1), // 10
    r.i('v.b.range.est'), // 11
    r.i('v.b.range.ideal'), // 12
    r.i('v.b.range.full'), // 13
    r.f('v.b.energy.used', 3), // 14
    r.f('v.b.energy.recd', 3), // 15
    r.f('v.b.coulomb.used', 3), // 16
    r.f('v.b.coulomb.recd', 3), // 17
    ...health(m), // 18–20
    ...totals(m), // 21–24
    r.f('v.e.temp', 1), // 25
    r.f('v.e.cabintemp', 1), // 26
    r.f('v.b.temp', 1), // 27
    r.f('v.i.temp', 1), // 28
    r.f('v.m.temp', 1), // 29
    r.f('v.b.12v.temp', 1), // 30
    ...r.minMax('v.t.pressure', 1), // 31–32
    ...r.minMax('v.t.temp', 1), // 33–34
    ...r.minMax('v.t.health', 1), // 35–36
  ].join(',');
}

/** `*-LOG-Grid` fields 1–45 (the car has no generator: its fields are zero). */
export function gridLogData(m: MetricSet, location: string): string {
  const r = reader(m);
  return [
    ...position(m, location), // 1–5
    r.text('v.c.type'), // 6
    r.text('v.c.state'), // 7
    r.text('v.c.substate'), // 8
    r.text('v.c.mode'), // 9
    r.i('v.c.climit'), // 10
    r.i('v.c.limit.range'), // 11
    r.i('v.c.limit.soc'), // 12
    '', // 13: generator type
    '', // 14: generator state
    '', // 15: generator sub-state
    '', // 16: generator mode
    '0', // 17: generator current limit
    '0', // 18: generator range limit
    '0', // 19: generator SOC limit
    r.i('v.c.time'), // 20
    r.f('v.c.kwh', 3), // 21
    r.f('v.c.kwh.grid', 3), // 22
    r.f('v.c.kwh.grid.total', 3), // 23
    '0.000', // 24: generator energy
    '0.000', // 25: generator energy to the grid
    '0.000', // 26: generator lifetime energy
    '0.000', // 27: generator lifetime energy to the grid
    r.f('v.b.soc', 1), // 28
    r.i('v.b.range.est'), // 29
    r.i('v.b.range.ideal'), // 30
    r.i('v.b.range.full'), // 31
    r.f('v.b.voltage', 1), // 32
    r.f('v.b.temp', 1), // 33
    r.f('v.c.temp', 1), // 34
    r.f('v.b.12v.temp', 1), // 35
    r.f('v.e.temp', 1), // 36
    r.f('v.e.cabintemp', 1), // 37
    ...health(m), // 38–40
    ...totals(m), // 41–44
    r.f('v.p.odometer', 1), // 45
  ].join(',');
}
