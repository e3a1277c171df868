/**
 * Trips from a vehicle's historical car messages (docs/web-api.md "History", "Trips"). Pure: fed
 * the `S`, `D` and `L` records (code, epoch seconds, data), oldest first or not.
 *
 * - An odometer reading is field 8 of a `D` record, in tenths of the vehicle's distance unit;
 *   empty, non-numeric, zero and negative values are not readings.
 * - Driving is the odometer growing by what the time since the previous reading allows: at most
 *   `MAX_SPEED` (250 km/h, 155 mph) times that time, plus `STEP_SLACK` for rounding.
 * - A reading below the previous one (the odometer went back: a module replaced or reset, an
 *   emulator restarted with another seed) or above what the elapsed time allows (a jump forward)
 *   is not driving: it ends the trip in progress, and later growth counts from it.
 * - A trip ends when the odometer has not grown for `TRIP_GAP` seconds. It starts at the last
 *   reading before the growth, with the position and SOC known then, and ends at the last growth,
 *   with the last position and SOC seen within `TRIP_GAP` of it.
 *
 * So a trip's distance is a sum of plausible steps: never negative, and never more than
 * `MAX_SPEED` times its duration (plus the slack of its steps).
 */
import { numberAt, splitFields } from './fields.js';
import type { HistoryRecord } from './history.js';

/** A car message as trips need it: the same as the chart series'. */
export type TripRecord = HistoryRecord;

export interface TripPosition {
  lat: number;
  lon: number;
}

export interface TripSummary {
  start: number;
  end: number;
  /** In the vehicle's distance unit, to a tenth. */
  distance: number;
  from: TripPosition | null;
  to: TripPosition | null;
  socStart: number | null;
  socEnd: number | null;
}

export type DistanceUnits = 'K' | 'M';

/** Seconds without odometer growth that end a trip. */
export const TRIP_GAP = 300;

/** The fastest a car is believed to go, per hour, in its distance unit. */
export const MAX_SPEED: Readonly<Record<DistanceUnits, number>> = { K: 250, M: 155 };

/** Growth allowed beyond MAX_SPEED × time, in units: odometers step by a tenth and are rounded. */
export const STEP_SLACK = 0.5;

/** The most an odometer (in tenths) may grow in `seconds` while driving. */
export function maxStep(seconds: number, units: DistanceUnits): number {
  return (MAX_SPEED[units] * Math.max(0, seconds)) / 360 + STEP_SLACK * 10;
}

interface OpenTrip extends TripSummary {
  /** odometer growth so far, tenths */
  tenths: number;
  lastGrowth: number;
}

export function findTrips(records: readonly TripRecord[], units: DistanceUnits = 'K'): TripSummary[] {
  // at the same second, positions and SOC count as known before the odometer reading
  const rank = (code: string): number => (code === 'D' ? 1 : 0);
  const sorted = [...records].sort((a, b) => a.time - b.time || rank(a.code) - rank(b.code));
  const trips: TripSummary[] = [];
  let soc: number | null = null;
  let position: TripPosition | null = null;
  /** the last reading and its time */
  let odometer: number | null = null;
  let odometerTime = 0;
  /** position and SOC when the odometer last stood still (a trip's start) */
  let restPosition: TripPosition | null = null;
  let restSoc: number | null = null;
  let trip: OpenTrip | null = null;

  const close = (): void => {
    if (!trip) return;
    const { tenths: _t, lastGrowth: _g, ...done } = trip;
    trips.push(done);
    trip = null;
  };
  /** still within the trip (an S or L record right after its last growth belongs to it) */
  const within = (time: number): boolean => trip !== null && time - trip.lastGrowth <= TRIP_GAP;

  for (const r of sorted) {
    const f = splitFields(r.data);
    if (r.code === 'S') {
      const s = numberAt(f, 0);
      if (s !== null) soc = s;
      if (trip && within(r.time)) trip.socEnd = soc;
    } else if (r.code === 'L') {
      const lat = numberAt(f, 0);
      const lon = numberAt(f, 1);
      if (lat !== null && lon !== null && !(lat === 0 && lon === 0)) {
        position = { lat, lon };
        if (trip && within(r.time)) trip.to = position;
      }
    } else if (r.code === 'D') {
      const odo = numberAt(f, 7);
      if (odo === null || odo <= 0) continue;
      if (trip && !within(r.time)) close();
      const step = odometer === null ? 0 : odo - odometer;
      if (odometer !== null && step > 0 && step <= maxStep(r.time - odometerTime, units)) {
        trip ??= {
          start: odometerTime,
          end: r.time,
          distance: 0,
          from: restPosition,
          to: position,
          socStart: restSoc,
          socEnd: soc,
          tenths: 0,
          lastGrowth: r.time,
        };
        trip.tenths += step;
        trip.distance = Math.round(trip.tenths) / 10;
        trip.end = r.time;
        trip.lastGrowth = r.time;
        trip.to = position;
        trip.socEnd = soc;
      } else if (step !== 0) {
        // the odometer went back, or jumped further than the car can drive: not driving
        close();
      }
      odometer = odo;
      odometerTime = r.time;
      if (!trip) {
        restPosition = position;
        restSoc = soc;
      }
    }
  }
  close();
  return trips;
}
