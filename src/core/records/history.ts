/**
 * Chart series from a vehicle's historical car messages (docs/web-api.md "History"; the trips are
 * in trips.ts). Pure: fed the `S`, `D` and `L` records (code, epoch seconds, data), oldest first
 * or not: SOC, estimated and ideal range from `S` (fields 1, 8, 7); battery power from `L`
 * (field 10, kW, output positive); temperatures from `D` (PEM 4, motor 5, battery 6, ambient 11,
 * cabin 21). Empty or non-numeric fields are left out; the distance unit comes from `S` field 2.
 */
import { numberAt, splitFields } from './fields.js';

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

export interface History {
  units: 'K' | 'M';
  series: HistorySeries;
}

function push(series: Point[], time: number, value: number | null): void {
  if (value !== null) series.push([time, value]);
}

export function buildHistory(records: readonly HistoryRecord[]): History {
  const sorted = [...records].sort((a, b) => a.time - b.time);
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
  for (const r of sorted) {
    const f = splitFields(r.data);
    switch (r.code) {
      case 'S': {
        push(series.soc, r.time, numberAt(f, 0));
        if (f[1] === 'M') units = 'M';
        push(series.range, r.time, numberAt(f, 7));
        push(series.idealRange, r.time, numberAt(f, 6));
        break;
      }
      case 'L': {
        push(series.power, r.time, numberAt(f, 9));
        break;
      }
      case 'D': {
        push(series.tempPem, r.time, numberAt(f, 3));
        push(series.tempMotor, r.time, numberAt(f, 4));
        push(series.tempBattery, r.time, numberAt(f, 5));
        push(series.tempAmbient, r.time, numberAt(f, 10));
        push(series.tempCabin, r.time, numberAt(f, 20));
        break;
      }
    }
  }
  return { units, series };
}
