/**
 * Chart series and trips from a vehicle's historical car messages (docs/web-api.md "History").
 * Pure: fed the `S`, `D` and `L` records (code, epoch seconds, data), oldest first or not.
 * - series: SOC, estimated and ideal range from `S` (fields 1, 8, 7); battery power from `L`
 *   (field 10, kW, output positive); temperatures from `D` (PEM 4, motor 5, battery 6, ambient 11,
 *   cabin 21). Empty or non-numeric fields are left out.
 * - trips: the odometer (`D` field 8, ×10) grows; a trip ends when it has not grown for
 *   `TRIP_GAP` seconds. A trip starts at the last `D` before the growth, with the position and SOC
 *   known then; it ends at the last growth, with the last position and SOC seen by then.
 */
import { splitFields } from './fields.js';

export interface HistoryRecord {
  code: string;
  time: number;
  data: string;
}

export type Point = [number, number];

export interface HistorySeries {
  soc: Point[];
  range: Point[];
  idealRange: Point[];
  power: Point[];
  tempBattery: Point[];
  tempAmbient: Point[];
  tempMotor: Point[];
  tempPem: Point[];
  tempCabin: Point[];
}

export interface Position {
  lat: number;
  lon: number;
}

export interface Trip {
  start: number;
  end: number;
  /** In the vehicle's distance unit. */
  distance: number;
  from: Position | null;
  to: Position | null;
  socStart: number | null;
  socEnd: number | null;
}

export interface History {
  units: 'K' | 'M';
  series: HistorySeries;
  trips: Trip[];
}

/** Seconds without odometer growth that end a trip. */
export const TRIP_GAP = 300;

function num(fields: readonly string[], index: number): number | null {
  const t = fields[index];
  if (t === undefined || t.trim() === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

function push(series: Point[], time: number, value: number | null): void {
  if (value !== null) series.push([time, value]);
}

export function buildHistory(records: readonly HistoryRecord[]): History {
  // at the same second, positions and SOC count as known before the odometer reading
  const rank = (code: string): number => (code === 'D' ? 1 : 0);
  const sorted = [...records].sort((a, b) => a.time - b.time || rank(a.code) - rank(b.code));
  const series: HistorySeries = {
    soc: [],
    range: [],
    idealRange: [],
    power: [],
    tempBattery: [],
    tempAmbient: [],
    tempMotor: [],
    tempPem: [],
    tempCabin: [],
  };
  let units: 'K' | 'M' = 'K';
  const trips: Trip[] = [];
  let soc: number | null = null;
  let position: Position | null = null;
  let odometer: number | null = null;
  let odometerTime = 0;
  /** Position and SOC when the odometer last stood still (a trip's start). */
  let restPosition: Position | null = null;
  let restSoc: number | null = null;
  let trip: (Trip & { odoStart: number; lastGrowth: number }) | null = null;

  const close = (): void => {
    if (!trip) return;
    const { odoStart: _s, lastGrowth: _g, ...done } = trip;
    trips.push(done);
    trip = null;
  };

  for (const r of sorted) {
    const f = splitFields(r.data);
    switch (r.code) {
      case 'S': {
        const s = num(f, 0);
        push(series.soc, r.time, s);
        if (s !== null) soc = s;
        if (f[1] === 'M') units = 'M';
        push(series.range, r.time, num(f, 7));
        push(series.idealRange, r.time, num(f, 6));
        if (trip && r.time - trip.lastGrowth <= TRIP_GAP) trip.socEnd = soc;
        break;
      }
      case 'L': {
        const lat = num(f, 0);
        const lon = num(f, 1);
        if (lat !== null && lon !== null && !(lat === 0 && lon === 0)) {
          position = { lat, lon };
          if (trip && r.time - trip.lastGrowth <= TRIP_GAP) trip.to = position;
        }
        push(series.power, r.time, num(f, 9));
        break;
      }
      case 'D': {
        push(series.tempPem, r.time, num(f, 3));
        push(series.tempMotor, r.time, num(f, 4));
        push(series.tempBattery, r.time, num(f, 5));
        push(series.tempAmbient, r.time, num(f, 10));
        push(series.tempCabin, r.time, num(f, 20));
        const odo = num(f, 7);
        if (odo === null) break;
        if (trip && r.time - trip.lastGrowth > TRIP_GAP) close();
        if (odometer !== null && odo > odometer) {
          if (!trip) {
            trip = {
              start: odometerTime,
              end: r.time,
              distance: 0,
              from: restPosition,
              to: position,
              socStart: restSoc,
              socEnd: soc,
              odoStart: odometer,
              lastGrowth: r.time,
            };
          }
          trip.end = r.time;
          trip.lastGrowth = r.time;
          trip.distance = Math.round(odo - trip.odoStart) / 10;
          trip.to = position;
          trip.socEnd = soc;
        }
        odometer = odo;
        odometerTime = r.time;
        if (!trip) {
          restPosition = position;
          restSoc = soc;
        }
        break;
      }
    }
  }
  close();
  return { units, series, trips };
}
