/**
 * The fields the session tracker reads, from live `S`, `D`, `L` data (docs/protocol/messages.md
 * §3.1–3.3) and from the firmware's trip and grid logs (§3.11; field order in issue 28). Pure
 * parsing: a missing, empty or non-numeric field reads as null.
 */
import { numberAt } from '../records/fields.js';
import type { DistanceUnits, GeoPoint } from './types.js';

export interface SFields {
  soc: number | null;
  units: DistanceUnits | null;
  /** Field 5, lower case; null when absent. */
  chargeState: string | null;
  chargeMode: string | null;
  /** kWh into the battery this charge (field 12 is in tenths). */
  chargedKwh: number | null;
  /** kWh from the grid this charge (field 39). */
  gridKwh: number | null;
  /** kW: the input power (field 35) when positive, else the output power (field 32). */
  power: number | null;
  soh: number | null;
}

export interface DFields {
  /** doors1 bit 0x80; null when doors1 is missing. */
  ignition: boolean | null;
  /** Tenths of the unit; null when missing, zero or negative. */
  odometer: number | null;
}

export interface LFields {
  position: GeoPoint | null;
  speed: number | null;
  /** Cumulative kWh counters the car resets at ignition. */
  used: number | null;
  recovered: number | null;
}

export interface TripLog {
  t: number;
  position: GeoPoint | null;
  /** In the unit (not tenths). */
  odometer: number | null;
  trip: number | null;
  driveTime: number | null;
  soc: number | null;
  used: number | null;
  recovered: number | null;
  soh: number | null;
}

export interface GridLog {
  t: number;
  position: GeoPoint | null;
  chargeType: string;
  chargeState: string;
  chargeTime: number | null;
  kwh: number | null;
  grid: number | null;
  soc: number | null;
  soh: number | null;
}

/** The charge states that mean "charging" (docs/protocol/messages.md §6.1). */
export const CHARGING_STATES: ReadonlySet<string> = new Set(['charging', 'topoff']);

const num = (f: readonly string[], n: number): number | null => numberAt(f, n - 1);
const text = (f: readonly (string | undefined)[], n: number): string | null => {
  const t = f[n - 1];
  return t === undefined || t.trim() === '' ? null : t.trim().toLowerCase();
};

/** A usable position: both numbers present and not the 0,0 of a module without a fix. */
export function position(lat: number | null, lon: number | null): GeoPoint | null {
  if (lat === null || lon === null || (lat === 0 && lon === 0)) return null;
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { lat, lon };
}

/**
 * The 1-based fields `wanted` (ascending) of a comma-separated line, in that order, without
 * splitting the rest (a live record is read at every arrival; `S` has some forty fields).
 */
export function pickFields(data: string, wanted: readonly number[]): (string | undefined)[] {
  const out: (string | undefined)[] = new Array<string | undefined>(wanted.length).fill(undefined);
  let start = 0;
  let n = 1;
  for (let i = 0; i < wanted.length && start <= data.length; i++) {
    const w = wanted[i] as number;
    for (; n < w; n++) {
      const comma = data.indexOf(',', start);
      if (comma < 0) return out;
      start = comma + 1;
    }
    const comma = data.indexOf(',', start);
    out[i] = data.slice(start, comma < 0 ? data.length : comma);
  }
  return out;
}

const S_FIELDS = [1, 2, 5, 6, 12, 32, 34, 35, 39] as const;
const D_FIELDS = [1, 8] as const;
const L_FIELDS = [1, 2, 7, 11, 12] as const;

export function parseS(data: string): SFields {
  const f = pickFields(data, S_FIELDS);
  const u = text(f, 2);
  const tenths = numberAt(f, 4);
  const input = numberAt(f, 7);
  const output = numberAt(f, 5);
  return {
    soc: numberAt(f, 0),
    units: u === 'k' ? 'K' : u === 'm' ? 'M' : null,
    chargeState: text(f, 3),
    chargeMode: text(f, 4),
    chargedKwh: tenths === null ? null : tenths / 10,
    gridKwh: numberAt(f, 8),
    power: input !== null && input > 0 ? input : output === null ? null : Math.abs(output),
    soh: positive(numberAt(f, 6)),
  };
}

export function parseD(data: string): DFields {
  const f = pickFields(data, D_FIELDS);
  const doors1 = numberAt(f, 0);
  const odo = numberAt(f, 1);
  return { ignition: doors1 === null ? null : (doors1 & 0x80) !== 0, odometer: odo !== null && odo > 0 ? odo : null };
}

export function parseL(data: string): LFields {
  const f = pickFields(data, L_FIELDS);
  return { position: position(numberAt(f, 0), numberAt(f, 1)), speed: numberAt(f, 2), used: numberAt(f, 3), recovered: numberAt(f, 4) };
}

/** How many fields the logs have after the lifetime: more means the location name (field 5) held commas. */
const TRIP_FIELDS = 36;
const GRID_FIELDS = 45;

/** The fields with a location name that contained commas joined back into field 5. */
function withName(data: string, expected: number): string[] {
  const f = data.split(',');
  const extra = f.length - expected;
  if (extra > 0) f.splice(4, extra + 1, f.slice(4, 5 + extra).join(','));
  return f;
}

function positive(n: number | null): number | null {
  return n !== null && n > 0 ? n : null;
}

export function parseTripLog(t: number, data: string): TripLog {
  const f = withName(data, TRIP_FIELDS);
  return {
    t,
    position: position(num(f, 2), num(f, 3)),
    odometer: positive(num(f, 6)),
    trip: num(f, 7),
    driveTime: num(f, 8),
    soc: num(f, 10),
    used: num(f, 14),
    recovered: num(f, 15),
    soh: positive(num(f, 18)),
  };
}

export function parseGridLog(t: number, data: string): GridLog {
  const f = withName(data, GRID_FIELDS);
  return {
    t,
    position: position(num(f, 2), num(f, 3)),
    chargeType: text(f, 6) ?? '',
    chargeState: text(f, 7) ?? '',
    chargeTime: num(f, 20),
    kwh: num(f, 21),
    grid: num(f, 22),
    soc: num(f, 28),
    soh: positive(num(f, 38)),
  };
}

/** Metres between two points (haversine). */
export function metres(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Whether a charge type or mode text names a DC charge. */
export function isDcText(s: string | null): boolean {
  return s !== null && /dc|ccs|chademo|gb\/?t/i.test(s);
}

/** Adds the positive growth of a cumulative counter, a decrease meaning the counter restarted. */
export function counterStep(previous: number | null, value: number): number {
  if (previous === null) return 0;
  return value >= previous ? value - previous : value;
}

/** Keeps a growing series under `cap` points by dropping every other one (the first and last stay). */
export function thin<T>(points: T[], cap: number): T[] {
  if (points.length <= cap) return points;
  return points.filter((_, i) => i % 2 === 0 || i === points.length - 1);
}

/** One decimal. */
export const round1 = (n: number): number => Math.round(n * 10) / 10;
/** Three decimals (kWh). */
export const round3 = (n: number): number => Math.round(n * 1000) / 1000;
