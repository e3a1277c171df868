/** Builders of sessions and places for the drives tests: every field set, overrides on top. */
import type { ChargeSession, DriveSession, Place } from '../../../src/core/drives/types.js';

/** Epoch seconds of a UTC date-time. */
export const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

export function drive(over: Partial<DriveSession> = {}): DriveSession {
  return {
    session: 'drive',
    key: `live:${over.start ?? 1_700_000_000}`,
    start: 1_700_000_000,
    end: 1_700_001_800,
    soh: null,
    units: 'K',
    startOdometer: 1000,
    endOdometer: 1020,
    distance: 20,
    socStart: 80,
    socEnd: 76,
    energyUsed: null,
    energyRecovered: null,
    maxSpeed: 90,
    from: null,
    to: null,
    fromPlace: null,
    toPlace: null,
    source: 'live',
    path: [],
    ...over,
  };
}

export function charge(over: Partial<ChargeSession> = {}): ChargeSession {
  return {
    session: 'charge',
    key: `live:${over.start ?? 1_700_000_000}`,
    start: 1_700_000_000,
    end: 1_700_003_600,
    soh: null,
    socStart: 40,
    socEnd: 60,
    energyAdded: 15,
    energyFromGrid: null,
    maxPower: 11,
    chargeKind: 'ac',
    at: null,
    place: null,
    cost: null,
    currency: null,
    source: 'live',
    samples: [],
    ...over,
  };
}

export function place(over: Partial<Place> = {}): Place {
  return {
    id: 1,
    name: 'Home',
    lat: 52.52,
    lon: 13.405,
    radius: 100,
    timezone: 'UTC',
    currency: 'EUR',
    pricePerKwh: 0,
    pricePerMinute: 0,
    sessionFee: 0,
    timeOfUse: [],
    ...over,
  };
}
