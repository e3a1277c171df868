/**
 * Drives, charges and places as vts computes them from a vehicle's data (docs/web-api.md
 * "Drives and charges"). Plain values, JSON-serialisable: the tracker (tracker.ts) keeps them in
 * its state, the store keeps them in its rows, the web API shapes them for the owner.
 *
 * Times are epoch seconds; energy kWh; power kW; distance and speed in the vehicle's distance unit
 * (`units`: K = km, M = miles); SOC and SOH in %.
 */

export type DistanceUnits = 'K' | 'M';

/** Where a session's figures come from: the live data, the firmware's own logs, or a SOC gain across a gap. */
export type SessionSource = 'live' | 'log' | 'inferred';

export interface GeoPoint {
  lat: number;
  lon: number;
}

/** One point of a drive's route. */
export interface PathPoint {
  t: number;
  lat: number;
  lon: number;
  speed: number | null;
  soc: number | null;
}

/** One moment of a charge: SOC, power (kW), energy into the battery and from the grid so far (kWh). */
export interface ChargeSample {
  t: number;
  soc: number | null;
  power: number | null;
  energy: number | null;
  grid: number | null;
}

interface SessionBase {
  /**
   * The session's identity within its vehicle and kind, stable while the session is recorded and
   * the same on every rebuild from the same data (derived from what was seen first, e.g.
   * `live:<start>`): the store upserts by it.
   */
  key: string;
  start: number;
  /** null while in progress. */
  end: number | null;
  /** SOH at the end (or the last seen), null when the car gives none. */
  soh: number | null;
}

export interface DriveSession extends SessionBase {
  session: 'drive';
  units: DistanceUnits;
  startOdometer: number | null;
  endOdometer: number | null;
  distance: number | null;
  socStart: number | null;
  socEnd: number | null;
  energyUsed: number | null;
  energyRecovered: number | null;
  maxSpeed: number | null;
  from: GeoPoint | null;
  to: GeoPoint | null;
  /** Place ids, set by tagging (places.ts), null when outside every place. */
  fromPlace: number | null;
  toPlace: number | null;
  source: 'live' | 'log';
  /** The route; kept with the drive (not only as long as the raw history). */
  path: PathPoint[];
}

export interface ChargeSession extends SessionBase {
  session: 'charge';
  socStart: number | null;
  socEnd: number | null;
  /** Into the battery. */
  energyAdded: number | null;
  energyFromGrid: number | null;
  maxPower: number | null;
  chargeKind: 'ac' | 'dc' | null;
  at: GeoPoint | null;
  /** Set by tagging and pricing (places.ts, cost.ts). */
  place: number | null;
  cost: number | null;
  currency: string | null;
  source: SessionSource;
  samples: ChargeSample[];
}

export type Session = DriveSession | ChargeSession;
export type SessionKind = Session['session'];

/** What the tracker asks the store to do: upsert a session by (kind, key), or remove one. */
export type SessionOp = { op: 'put'; session: Session } | { op: 'remove'; session: SessionKind; key: string };

/** A time-of-use window in the place's time zone; `to` before `from` spans midnight. */
export interface TariffWindow {
  /** `HH:MM` */
  from: string;
  /** `HH:MM` */
  to: string;
  pricePerKwh: number;
}

/** A place as its owner sets it. */
export interface PlaceInput {
  name: string;
  lat: number;
  lon: number;
  /** Metres, 10–5,000. */
  radius: number;
  /** IANA time zone of its tariff windows. */
  timezone: string;
  /** ISO 4217 code, e.g. EUR. */
  currency: string;
  pricePerKwh: number;
  pricePerMinute: number;
  sessionFee: number;
  timeOfUse: TariffWindow[];
}

export interface Place extends PlaceInput {
  id: number;
}
