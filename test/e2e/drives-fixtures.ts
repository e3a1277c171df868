/**
 * A scripted day for the dashboard's drives, charges, battery, stats and places pages
 * (dashboard-drives.test.ts): two places (Home with a night tariff, a fast charger on the road),
 * three drives with their routes and an AC and a DC charge with their samples, as the tracker
 * would store them. Times relative to `now` (epoch s), all within the last two days.
 */
import type { ChargeSession, DriveSession, PathPoint, PlaceInput } from '../../src/core/drives/types.js';

export const HOME: PlaceInput = {
  name: 'Home',
  lat: 48.1372,
  lon: 11.5756,
  radius: 150,
  timezone: 'Europe/Berlin',
  currency: 'EUR',
  pricePerKwh: 0.32,
  pricePerMinute: 0,
  sessionFee: 0,
  timeOfUse: [{ from: '22:00', to: '06:00', pricePerKwh: 0.19 }],
};

export const CHARGER: PlaceInput = {
  name: 'Autohof fast charger',
  lat: 48.3521,
  lon: 11.7383,
  radius: 80,
  timezone: 'Europe/Berlin',
  currency: 'EUR',
  pricePerKwh: 0.59,
  pricePerMinute: 0,
  sessionFee: 1,
  timeOfUse: [],
};

/** A route from one point to another: a point every 20 s, speed rising, cruising and falling, SOC dropping. */
function route(from: { lat: number; lon: number }, to: { lat: number; lon: number }, start: number, seconds: number, soc0: number, soc1: number, top: number): PathPoint[] {
  const n = Math.floor(seconds / 20);
  const out: PathPoint[] = [];
  for (let i = 0; i <= n; i++) {
    const f = i / n;
    // a bend, so that the line is a route and not a ruler
    const bend = Math.sin(f * Math.PI) * 0.012;
    const speed = Math.round(Math.min(1, f * 6, (1 - f) * 6) * top * (0.85 + 0.15 * Math.sin(i / 3)));
    out.push({ t: start + i * 20, lat: from.lat + (to.lat - from.lat) * f + bend, lon: from.lon + (to.lon - from.lon) * f - bend, speed, soc: Math.round((soc0 + (soc1 - soc0) * f) * 10) / 10 });
  }
  return out;
}

function drive(key: string, path: PathPoint[], odo: number, km: number, kwh: number, fromPlace: number | null, toPlace: number | null): DriveSession {
  const first = path[0]!;
  const last = path[path.length - 1]!;
  return {
    session: 'drive',
    key,
    start: first.t,
    end: last.t,
    soh: 94,
    units: 'K',
    startOdometer: odo,
    endOdometer: odo + km,
    distance: km,
    socStart: first.soc,
    socEnd: last.soc,
    energyUsed: kwh,
    energyRecovered: Math.round(kwh * 12) / 100,
    maxSpeed: Math.max(...path.map((p) => p.speed ?? 0)),
    from: { lat: first.lat, lon: first.lon },
    to: { lat: last.lat, lon: last.lon },
    fromPlace,
    toPlace,
    source: 'live',
    path,
  };
}

function charge(key: string, start: number, minutes: number, soc0: number, soc1: number, kw: number, kind: 'ac' | 'dc', at: { lat: number; lon: number }, place: number | null, cost: number | null, capacity: number): ChargeSession {
  const samples = [];
  const steps = Math.max(2, Math.floor(minutes / 2));
  for (let i = 0; i <= steps; i++) {
    const f = i / steps;
    // DC tapers off above 60 %, AC stays flat
    const soc = soc0 + (soc1 - soc0) * f;
    const power = kind === 'dc' ? Math.round(kw * Math.min(1, (100 - soc) / 40) * 10) / 10 : kw;
    samples.push({ t: start + Math.round(f * minutes * 60), soc: Math.round(soc * 10) / 10, power, energy: Math.round(((soc - soc0) / 100) * capacity * 100) / 100, grid: null });
  }
  const added = Math.round(((soc1 - soc0) / 100) * capacity * 100) / 100;
  return {
    session: 'charge',
    key,
    start,
    end: start + minutes * 60,
    soh: 94,
    socStart: soc0,
    socEnd: soc1,
    energyAdded: added,
    energyFromGrid: Math.round(added * (kind === 'ac' ? 1.1 : 1.04) * 100) / 100,
    maxPower: Math.max(...samples.map((s) => s.power)),
    chargeKind: kind,
    at,
    place,
    cost,
    currency: cost === null ? null : 'EUR',
    source: kind === 'ac' ? 'log' : 'live',
    samples,
  };
}

const WORK = { lat: 48.1771, lon: 11.5562 };

/** The day's sessions; `home` and `charger`: the ids of the places as the store gave them. */
export function scriptedDay(now: number, home: number, charger: number): (DriveSession | ChargeSession)[] {
  const day = now - 30 * 3600; // yesterday morning, roughly
  const d1 = route(HOME, WORK, day, 25 * 60, 82, 77, 70);
  const d2 = route(WORK, CHARGER, day + 9 * 3600, 35 * 60, 76, 58, 130);
  const d3 = route(CHARGER, HOME, day + 11 * 3600, 40 * 60, 80, 67, 120);
  return [
    drive('live:d1', d1, 12_400, 8.4, 1.42, home, null),
    drive('live:d2', d2, 12_408.4, 31.7, 6.61, null, charger),
    charge('live:c1', day + 9 * 3600 + 36 * 60, 32, 58, 80, 75, 'dc', CHARGER, charger, 11.14, 64),
    drive('live:d3', d3, 12_440.1, 29.9, 5.02, charger, home),
    charge('log:c2', day + 14 * 3600, 300, 67, 90, 3.6, 'ac', HOME, home, 3.08, 63),
  ];
}
