/**
 * `vts module --simulate day`: the past 24 hours of an emulated car, ending now, as the historical
 * records a module would have sent (docs/protocol/messages.md §3.11). The day, deterministic for a
 * seed: parked at home, an overnight AC charge at home (about 7 kW, to 70 %), the morning drive to
 * work (about 25 km through town and a stretch of motorway), parked at work (a slow drain), an
 * afternoon drive to a motorway fast charger (about 60 km), a DC charge there (up to about 95 kW,
 * to 80 %), the evening drive home, parked.
 *
 * The car's state lives in v3 metrics, as in the live vehicle model (model.ts); the records are
 * rendered from them with the module's own v2 renderers, so each `S`, `D`, `L` is exactly the live
 * message it would have been, at the rates a module sends them (driving: `L` and `D` every 10 s,
 * `S` every minute; charging: `S` and `D` every minute; parked: all three every 10 minutes; and at
 * once on an ignition or charge state change). The firmware logs come with them: a `*-LOG-Trip`
 * at every ignition change and a `*-LOG-Grid` at every charge state change (day-logs.ts). Pure.
 */
import type { MetricSet } from '../../core/metrics/metric-set.js';
import { dayGeography, ROAD_SPEED, type Place, type Road } from './day-routes.js';
import { CHARGING, Day, DRIVING, PARKED, STEP, type DayOptions, type DayPart, type DayRecord } from './day-state.js';
import { CAPACITY_KWH, round } from './initial-metrics.js';

export { DAY_SECONDS, LOG_LIFETIME, MESSAGE_LIFETIME, type DayOptions, type DayPart, type DayRecord } from './day-state.js';

const AC_VOLTAGE = 230;
const AC_AMPS = 32;
const AC_EFFICIENCY = 0.92;
const DC_EFFICIENCY = 0.95;
const CAR_MASS_KG = 1850;
const PACK_VOLTS_NOMINAL = 380;

export interface SimulatedDay {
  /** Oldest first. */
  records: DayRecord[];
  /** The car at the day's end: the live module goes on from here. */
  metrics: MetricSet;
  parts: DayPart[];
}

/** Parked at `place` until `until` (epoch s); the battery loses `drainPerHour` SOC points an hour. */
function park(day: Day, place: Place, until: number, drainPerHour: number): void {
  const start = day.t;
  while (day.t + STEP <= until) {
    day.tick();
    day.soc -= (drainPerHour * STEP) / 3600;
    day.add('v.e.parktime', STEP, 0);
    day.warm(['v.b.temp', 'v.i.temp', 'v.m.temp', 'v.c.temp', 'v.e.cabintemp', 'v.b.12v.temp'], day.num('v.e.temp'), 0.01);
    day.derived();
    day.emit(PARKED);
  }
  day.parts.push({ kind: 'parked', place: place.name, startAge: day.opts.end - start, endAge: day.opts.end - day.t, detail: '' });
}

/** Charge power (kW from the grid) at a SOC: AC flat; DC ramps up, then tapers above 50 %. */
function dcPower(soc: number, elapsed: number): number {
  const ramp = Math.min(1, (elapsed + STEP) / 60);
  const curve = soc < 50 ? 95 : Math.max(38, 95 - (soc - 50) * 2.1);
  return curve * ramp;
}

function charge(day: Day, place: Place, kind: 'ac' | 'dc', target: number): void {
  const start = day.t;
  const socStart = day.soc;
  day.setAll([
    ['v.c.type', kind === 'dc' ? 'ccs' : 'type2'],
    ['v.c.mode', kind === 'dc' ? 'range' : 'standard'],
    ['v.c.pilot', true],
    ['v.d.cp', true],
    ['v.c.charging', true],
    ['v.c.state', 'charging'],
    ['v.c.substate', kind === 'dc' ? 'onrequest' : 'scheduledstart'],
    ['v.c.kwh', 0],
    ['v.c.kwh.grid', 0],
    ['v.c.time', 0],
    ['v.c.limit.soc', target],
    ['v.c.climit', kind === 'dc' ? 200 : AC_AMPS],
    ['v.e.awake', true],
    ['v.e.charging12v', true],
    ['v.b.12v.voltage', 14.2],
    ['v.b.12v.current', 12.5],
  ]);
  day.derived();
  day.gridLog(place.name);
  day.emit(CHARGING, true);
  while (day.soc < target) {
    const elapsed = day.t - start;
    day.tick();
    const input = kind === 'ac' ? (AC_VOLTAGE * AC_AMPS) / 1000 : dcPower(day.soc, elapsed);
    const efficiency = kind === 'ac' ? AC_EFFICIENCY : DC_EFFICIENCY;
    const output = input * efficiency;
    const kwh = (output * STEP) / 3600;
    day.soc = Math.min(target, day.soc + (kwh / CAPACITY_KWH) * 100);
    day.add('v.c.kwh', kwh);
    day.add('v.c.kwh.grid', kwh / efficiency);
    day.add('v.c.kwh.grid.total', kwh / efficiency);
    day.add('v.c.time', STEP, 0);
    const volts = kind === 'ac' ? AC_VOLTAGE : round(day.num('v.b.voltage'), 0);
    day.setAll([
      ['v.c.voltage', volts],
      ['v.c.current', round((input * 1000) / volts, 2)],
      ['v.c.power', round(input, 2)],
      ['v.c.efficiency', efficiency * 100],
      ['v.b.power', round(-output, 3)],
      ['v.b.current', round((-output * 1000) / PACK_VOLTS_NOMINAL, 2)],
    ]);
    const minutes = (to: number): number => (day.soc >= to ? 0 : Math.ceil((((to - day.soc) / 100) * CAPACITY_KWH * 60) / output));
    day.setAll([
      ['v.c.duration.full', minutes(100)],
      ['v.c.duration.soc', minutes(target)],
      ['v.c.duration.range', -1],
    ]);
    day.add('v.e.parktime', STEP, 0);
    day.warm(['v.c.temp', 'v.b.temp'], kind === 'dc' ? 38 : 28, kind === 'dc' ? 0.05 : 0.02);
    day.derived();
    if (day.soc < target) day.emit(CHARGING);
  }
  const kwhAdded = day.num('v.c.kwh');
  day.setAll([
    ['v.c.charging', false],
    ['v.c.state', 'done'],
    ['v.c.substate', 'scheduledstop'],
    ['v.c.voltage', 0],
    ['v.c.current', 0],
    ['v.c.power', 0],
    ['v.c.efficiency', 0],
    ['v.b.power', 0],
    ['v.b.current', 0],
    ['v.c.duration.full', -1],
    ['v.c.duration.soc', -1],
    ['v.c.timestamp', day.t],
    ['v.e.charging12v', false],
    ['v.b.12v.voltage', 12.6],
    ['v.b.12v.current', 0.4],
  ]);
  day.derived();
  day.gridLog(place.name);
  day.emit(CHARGING, true);
  const detail = `${kind.toUpperCase()}, SOC ${socStart.toFixed(1)} → ${day.soc.toFixed(1)} %, ${kwhAdded.toFixed(1)} kWh`;
  day.parts.push({ kind: 'charging', place: place.name, startAge: day.opts.end - start, endAge: day.opts.end - day.t, detail });
}

/** Unplugs (a charge before it), gets in, drives `road`, switches off at its end. */
function drive(day: Day, road: Road): void {
  day.setAll([
    ['v.c.pilot', false],
    ['v.d.cp', false],
    ['v.e.on', true],
    ['v.e.awake', true],
    ['v.e.locked', false],
    ['v.e.handbrake', false],
    ['v.e.gear', 1],
    ['v.e.parktime', 0],
    ['v.e.drivetime', 0],
    ['v.p.trip', 0],
    ['v.b.energy.used', 0],
    ['v.b.energy.recd', 0],
    ['v.b.coulomb.used', 0],
    ['v.b.coulomb.recd', 0],
    ['v.e.aux12v', true],
    ['v.e.charging12v', true],
    ['v.b.12v.voltage', 14.2],
    ['v.b.12v.current', 12.5],
  ]);
  day.derived();
  const start = day.t;
  const odoStart = day.odometer;
  day.tripLog(road.from.name);
  day.emit(DRIVING, true);
  let km = 0;
  let speed = 0;
  let stopped = 0; // seconds left standing at a light or in a queue
  let trip = 0;
  while (km < road.lengthKm) {
    day.tick();
    const here = road.at(km);
    const left = road.lengthKm - km;
    let target = ROAD_SPEED[here.road] + day.rng.range(-8, 8);
    if (stopped > 0) {
      stopped -= STEP;
      target = 0;
    } else if (here.road !== 'motorway' && day.rng.next() < (here.road === 'city' ? 0.08 : 0.03)) {
      stopped = day.rng.int(2, 6) * STEP; // a red light, a junction, a queue
      target = 0;
    }
    if (left < 0.3) target = Math.min(target, 20); // parking
    const next = Math.max(0, Math.min(speed + 22, target)); // km/h per 10 s up; braking as hard as needed
    const stepKm = Math.min(left, ((speed + next) / 2) * (STEP / 3600));
    const v0 = speed / 3.6;
    const v1 = next / 3.6;
    const kinetic = (0.5 * CAR_MASS_KG * (v1 * v1 - v0 * v0)) / 3.6e6; // kWh
    const cruise = stepKm * (0.115 + 0.0000062 * ((speed + next) / 2) ** 2); // rolling, air, auxiliaries
    const used = cruise + Math.max(0, kinetic) / 0.9;
    const recd = Math.max(0, -kinetic) * 0.6;
    speed = next;
    km += stepKm;
    trip += stepKm;
    day.odometer += stepKm;
    day.soc -= ((used - recd) / CAPACITY_KWH) * 100;
    const power = ((used - recd) * 3600) / STEP;
    const at = road.at(km);
    day.add('v.b.energy.used', used);
    day.add('v.b.energy.recd', recd);
    day.add('v.b.energy.used.total', used);
    day.add('v.b.energy.recd.total', recd);
    day.add('v.b.coulomb.used', (used * 1000) / PACK_VOLTS_NOMINAL);
    day.add('v.b.coulomb.recd', (recd * 1000) / PACK_VOLTS_NOMINAL);
    day.add('v.b.coulomb.used.total', (used * 1000) / PACK_VOLTS_NOMINAL);
    day.add('v.b.coulomb.recd.total', (recd * 1000) / PACK_VOLTS_NOMINAL);
    day.add('v.e.drivetime', STEP, 0);
    day.setAll([
      ['v.p.speed', round(speed, 1)],
      ['v.p.gpsspeed', round(Math.max(0, speed + day.rng.range(-1, 1)), 1)],
      ['v.p.latitude', round(at.point.lat, 6)],
      ['v.p.longitude', round(at.point.lon, 6)],
      ['v.p.direction', Math.round(at.heading)],
      ['v.p.altitude', Math.round(520 + 25 * Math.sin(day.odometer / 4))],
      ['v.p.trip', round(trip, 1)],
      ['v.b.power', round(power, 3)],
      ['v.b.current', round((power * 1000) / PACK_VOLTS_NOMINAL, 2)],
      ['v.i.power', round(power * 1.05, 2)],
      ['v.i.efficiency', 94],
      ['v.m.rpm', Math.round(speed * 95)],
    ]);
    day.warm(['v.b.temp', 'v.i.temp', 'v.m.temp'], 35, 0.03);
    day.warm(['v.e.cabintemp'], 21, 0.1);
    day.derived();
    if (km < road.lengthKm) day.emit(DRIVING);
  }
  day.setAll([
    ['v.e.on', false],
    ['v.e.gear', 0],
    ['v.e.handbrake', true],
    ['v.e.locked', true],
    ['v.p.speed', 0],
    ['v.p.gpsspeed', 0],
    ['v.b.power', 0],
    ['v.b.current', 0],
    ['v.i.power', 0],
    ['v.m.rpm', 0],
    ['v.e.aux12v', false],
    ['v.e.charging12v', false],
    ['v.b.12v.voltage', 12.6],
    ['v.b.12v.current', 0.4],
    ['v.p.latitude', round(road.to.point.lat, 6)],
    ['v.p.longitude', round(road.to.point.lon, 6)],
  ]);
  day.derived();
  day.tripLog(road.to.name);
  day.emit(DRIVING, true);
  const detail = `${road.from.name} → ${road.to.name}, ${(day.odometer - odoStart).toFixed(1)} km`;
  day.parts.push({ kind: 'driving', place: road.to.name, startAge: day.opts.end - start, endAge: day.opts.end - day.t, detail });
}

/** The day (see the file's comment): its records oldest first, the car at its end, and its parts. */
export function simulateDay(opts: DayOptions): SimulatedDay {
  const home = opts.home ?? { lat: 48.137154, lon: 11.576124 };
  const g = dayGeography(home);
  const day = new Day(opts, home);
  const start = day.t;
  const at = (hours: number, jitterMinutes: number): number => start + Math.round(hours * 3600 + day.rng.range(-jitterMinutes, jitterMinutes) * 60);
  day.emit(PARKED, true);
  park(day, g.home, at(3, 10), 0.05);
  charge(day, g.home, 'ac', 70);
  park(day, g.home, at(11.7, 10), 0.05);
  drive(day, g.toWork);
  park(day, g.work, at(19.5, 10), 0.08);
  drive(day, g.toCharger);
  park(day, g.charger, day.t + 120, 0);
  charge(day, g.charger, 'dc', 80);
  park(day, g.charger, day.t + 180, 0);
  drive(day, g.chargerHome);
  park(day, g.home, opts.end, 0.05);
  return { records: day.records, metrics: day.m, parts: day.parts };
}
