/**
 * Drives and charges as the web API shows them (JSON in the documented key order), as CSV and a
 * drive as GPX 1.1 (docs/web-api.md "Drives and charges").
 *
 * (Contract stub: implemented by the battery-and-stats change.)
 */
import type { ChargeSession, DriveSession, GeoPoint, PathPoint, Place } from './types.js';

export interface PlaceRef extends GeoPoint {
  /** The place's name, null outside every place. */
  place: string | null;
}

export interface DriveJson {
  id: number;
  start: number;
  end: number | null;
  duration: number;
  units: 'K' | 'M';
  distance: number | null;
  startOdometer: number | null;
  endOdometer: number | null;
  socStart: number | null;
  socEnd: number | null;
  energyUsed: number | null;
  energyRecovered: number | null;
  efficiency: number | null;
  maxSpeed: number | null;
  from: PlaceRef | null;
  to: PlaceRef | null;
  source: 'live' | 'log';
  path?: PathPoint[];
}

export interface ChargeJson {
  id: number;
  start: number;
  end: number | null;
  duration: number;
  socStart: number | null;
  socEnd: number | null;
  energyAdded: number | null;
  energyFromGrid: number | null;
  maxPower: number | null;
  kind: 'ac' | 'dc' | null;
  at: PlaceRef | null;
  cost: number | null;
  currency: string | null;
  source: 'live' | 'log' | 'inferred';
}

/** `now` gives an open session's duration so far. */
export function driveJson(d: DriveSession & { id: number }, places: readonly Place[], capacity: number | null, now: number): DriveJson {
  void d;
  void places;
  void capacity;
  void now;
  throw new Error('not implemented');
}

export function chargeJson(c: ChargeSession & { id: number }, places: readonly Place[], now: number): ChargeJson {
  void c;
  void places;
  void now;
  throw new Error('not implemented');
}

/** A header row and one row per drive (RFC 4180). */
export function drivesCsv(rows: readonly DriveJson[]): string {
  void rows;
  return '';
}

export function chargesCsv(rows: readonly ChargeJson[]): string {
  void rows;
  return '';
}

/** GPX 1.1: one track of the drive's path. */
export function driveGpx(d: DriveJson, vehicleId: string): string {
  void d;
  void vehicleId;
  return '';
}
