/** Sessions and places for the drives store tests (drives-store.test.ts, places.test.ts). */
import type { ChargeSession, DriveSession, PlaceInput } from '../../src/core/drives/types.js';

export function drive(key: string, start: number, end: number | null, more: Partial<DriveSession> = {}): DriveSession {
  return {
    session: 'drive',
    key,
    start,
    end,
    soh: 97.5,
    units: 'K',
    startOdometer: 12345.6,
    endOdometer: end === null ? null : 12367.9,
    distance: end === null ? null : 22.3,
    socStart: 80,
    socEnd: end === null ? null : 74.5,
    energyUsed: 3.21,
    energyRecovered: 0.4,
    maxSpeed: 97,
    from: { lat: 52.520008, lon: 13.404954 },
    to: end === null ? null : { lat: -33.8688, lon: 151.2093 },
    fromPlace: null,
    toPlace: null,
    source: 'live',
    path: [
      { t: start, lat: 52.520008, lon: 13.404954, speed: 0, soc: 80 },
      { t: start + 60, lat: 52.53, lon: 13.41, speed: 48.5, soc: null },
    ],
    ...more,
  };
}

export function charge(key: string, start: number, end: number | null, more: Partial<ChargeSession> = {}): ChargeSession {
  return {
    session: 'charge',
    key,
    start,
    end,
    soh: null,
    socStart: 20,
    socEnd: end === null ? null : 80,
    energyAdded: 38.25,
    energyFromGrid: 41.1,
    maxPower: 11,
    chargeKind: 'ac',
    at: { lat: 48.1351, lon: 11.582 },
    place: null,
    cost: null,
    currency: null,
    source: 'live',
    samples: [
      { t: start, soc: 20, power: 10.9, energy: 0, grid: 0 },
      { t: start + 600, soc: 24, power: 11, energy: 1.8, grid: null },
    ],
    ...more,
  };
}

export function place(name: string, more: Partial<PlaceInput> = {}): PlaceInput {
  return {
    name,
    lat: 52.52,
    lon: 13.405,
    radius: 150,
    timezone: 'Europe/Berlin',
    currency: 'EUR',
    pricePerKwh: 0.32,
    pricePerMinute: 0,
    sessionFee: 0.5,
    timeOfUse: [{ from: '22:00', to: '06:00', pricePerKwh: 0.12 }],
    ...more,
  };
}

/** A stored session without its store-given fields, to compare with what was put. */
export function bare<T extends { id: number; vehicleId: string }>(s: T): Omit<T, 'id' | 'vehicleId'> {
  const { id: _id, vehicleId: _vid, ...rest } = s;
  return rest;
}
