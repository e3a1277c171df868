/**
 * The values vts computes for a vehicle's `vts/…` topics (src/core/ha/discovery.ts VTS_TOPICS)
 * from its v2 records, whichever link they came over. Pure.
 */
import { splitFields } from '../records/fields.js';

const bit = (fields: readonly string[], n: number, mask: number): boolean => {
  const v = Number(fields[n - 1]);
  return Number.isInteger(v) && (v & mask) !== 0;
};

/** Whether a door, the trunk or the hood is open, from a `D` record (null when it has no door fields). */
export function doorsOpen(dData: string): boolean | null {
  const f = splitFields(dData);
  if (f.length < 2 || f[0] === '' || Number.isNaN(Number(f[0]))) return null;
  // doors1: FL 0x01, FR 0x02; doors2: hood 0x40, trunk 0x80; doors5 (field 18): RL 0x01, RR 0x02
  return bit(f, 1, 0x03) || bit(f, 2, 0xc0) || bit(f, 18, 0x03);
}

/** Whether the car charges, from an `S` record's charge state (field 5); null when absent. */
export function chargingOf(sData: string): boolean | null {
  const state = splitFields(sData)[4];
  if (state === undefined || state === '') return null;
  return state === 'charging' || state === 'topoff';
}

export interface HaLocation {
  latitude: number;
  longitude: number;
  /** Metres (HDOP × 5, 0 when the record has none). */
  gps_accuracy: number;
}

/** The position of an `L` record; null without one (both coordinates 0 or not numbers). */
export function locationOf(lData: string): HaLocation | null {
  const f = splitFields(lData);
  const latitude = Number(f[0]);
  const longitude = Number(f[1]);
  if (f[0] === '' || f[1] === '' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
  if (latitude === 0 && longitude === 0) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  const hdop = Number(f[16]);
  return { latitude, longitude, gps_accuracy: Number.isFinite(hdop) && hdop > 0 ? Math.round(hdop * 5) : 0 };
}

/** The F fields the discovery's device shows: firmware (1), VIN (2), vehicle type (5). */
export function identityOf(fData: string): { firmware?: string; vin?: string; vehicleType?: string } {
  const f = splitFields(fData);
  const at = (n: number): string | undefined => {
    const v = f[n - 1];
    return v === undefined || v.trim() === '' ? undefined : v.replace(/\r/g, ' ').trim();
  };
  const out: { firmware?: string; vin?: string; vehicleType?: string } = {};
  const firmware = at(1);
  const vin = at(2);
  const vehicleType = at(5);
  if (firmware) out.firmware = firmware;
  if (vin) out.vin = vin;
  if (vehicleType) out.vehicleType = vehicleType;
  return out;
}
