/**
 * The state of the simulated day (simulated-day.ts) as it is played: the car's metrics at the
 * current time, the records sent so far and the parts of the day; `emit` renders the live message
 * types with the module's own v2 renderers, `tripLog`/`gridLog` the firmware logs. Pure.
 */
import { newMetricSet } from '../../core/metrics/catalog.js';
import type { MetricValue } from '../../core/metrics/metric.js';
import { renderD, renderL, renderS, type V2RecordOptions } from '../../core/metrics/v2-records.js';
import { GRID_LOG_RECORD, GRID_LOG_TYPE, gridLogData, TRIP_LOG_RECORD, TRIP_LOG_TYPE, tripLogData } from './day-logs.js';
import { FULL_RANGE_KM, initialMetrics, round } from './initial-metrics.js';
import { Random } from './random.js';
import type { Point } from './route.js';

export const DAY_SECONDS = 86_400;
/** Lifetime of the live message types sent as history (30 days, the server's raw history) and of the logs (7 days). */
export const MESSAGE_LIFETIME = 30 * DAY_SECONDS;
export const LOG_LIFETIME = 7 * DAY_SECONDS;

/** Simulation step (s), as the live model's. */
export const STEP = 10;

/** One historical record of the day: `ageSeconds` before the day's end (≥ 0). */
export interface DayRecord {
  ageSeconds: number;
  type: string;
  recordNumber: number;
  lifetime: number;
  data: string;
}

/** A part of the day, for the docs and the tests: seconds before the day's end. */
export interface DayPart {
  kind: 'parked' | 'driving' | 'charging';
  place: string;
  startAge: number;
  endAge: number;
  /** Driving: from → to and km; charging: AC/DC, SOC from → to and kWh. */
  detail: string;
}

export interface DayOptions {
  id: string;
  seed: number;
  /** The day's end (epoch seconds): now. */
  end: number;
  /** The car's home (default Munich, as the live model's). */
  home?: Point;
  /** Distance unit of the records (default K). */
  distanceUnit?: 'K' | 'M';
}

export type Code = 'S' | 'D' | 'L';

export class Day {
  readonly m = newMetricSet();
  readonly records: DayRecord[] = [];
  readonly parts: DayPart[] = [];
  readonly rng: Random;
  t: number;
  /** Full-precision counters (shown rounded in the metrics). */
  soc: number;
  odometer: number;
  private readonly lastSent: Record<Code, number> = { S: -Infinity, D: -Infinity, L: -Infinity };
  private readonly unit: 'K' | 'M';

  constructor(
    readonly opts: DayOptions,
    home: Point,
  ) {
    this.rng = new Random(opts.seed);
    this.t = opts.end - DAY_SECONDS;
    this.unit = opts.distanceUnit ?? 'K';
    for (const [name, value] of initialMetrics({ id: opts.id, seed: opts.seed }, home, this.rng, 'DEMO')) this.set(name, value);
    this.soc = round(this.rng.range(30, 34), 1);
    this.odometer = this.m.num('v.p.odometer') ?? 0;
    this.set('v.c.limit.soc', 80);
    this.set('v.b.12v.temp', 14);
    this.set('v.e.parktime', 3 * 3600);
    this.derived();
  }

  set(name: string, value: MetricValue): void {
    this.m.set(name, value, this.t);
  }

  setAll(values: readonly (readonly [string, MetricValue])[]): void {
    for (const [n, v] of values) this.set(n, v);
  }

  num(name: string): number {
    return this.m.num(name) ?? 0;
  }

  /** Full-precision values of the counters, shown rounded in the metrics. */
  private readonly exact = new Map<string, number>();

  /** Adds to a counter metric kept at full precision and shown to `decimals` places (a set from outside restarts it). */
  add(name: string, delta: number, decimals = 3): void {
    const shown = this.num(name);
    const before = this.exact.get(name);
    const value = (before !== undefined && round(before, decimals) === shown ? before : shown) + delta;
    this.exact.set(name, value);
    this.set(name, round(value, decimals));
  }

  /** Values that follow from the others, and the ones a module refreshes all the time (clock, GPS fix, temperatures). */
  derived(): void {
    this.set('v.b.soc', round(this.soc, 1));
    this.set('v.p.odometer', round(this.odometer, 1));
    this.set('v.b.range.ideal', round((this.soc / 100) * FULL_RANGE_KM, 1));
    this.set('v.b.range.est', round((this.soc / 100) * FULL_RANGE_KM * 0.82, 1));
    this.set('v.b.voltage', round(340 + this.soc * 0.6, 1));
    this.set('m.time.utc', this.t);
    this.set('v.p.gpstime', this.t);
    const hour = ((this.t % DAY_SECONDS) + DAY_SECONDS) % DAY_SECONDS / 3600;
    const ambient = round(9 + 6 * Math.sin(((hour - 9) / 24) * 2 * Math.PI), 1);
    this.set('v.e.temp', ambient);
    for (const n of ['v.b.temp', 'v.i.temp', 'v.m.temp', 'v.c.temp', 'v.e.cabintemp', 'v.b.12v.temp']) this.set(n, this.num(n));
  }

  /** Moves temperatures a fraction of the way towards a target. */
  warm(names: readonly string[], target: number, rate: number): void {
    for (const n of names) this.set(n, round(this.num(n) + (target - this.num(n)) * rate, 1));
  }

  private record(type: string, recordNumber: number, lifetime: number, data: string): void {
    this.records.push({ ageSeconds: this.opts.end - this.t, type, recordNumber, lifetime, data });
  }

  /** Sends the codes due: each whose interval has passed, or all of them when `now`. */
  emit(intervals: Readonly<Record<Code, number>>, now = false): void {
    const opts: V2RecordOptions = { distanceUnit: this.unit, now: this.t };
    for (const code of ['S', 'D', 'L'] as const) {
      if (!now && this.t - this.lastSent[code] < intervals[code]) continue;
      this.lastSent[code] = this.t;
      const data = code === 'S' ? renderS(this.m, opts) : code === 'D' ? renderD(this.m, opts) : renderL(this.m, opts);
      this.record(code, 0, MESSAGE_LIFETIME, data);
    }
  }

  tripLog(place: string): void {
    this.record(TRIP_LOG_TYPE, TRIP_LOG_RECORD, LOG_LIFETIME, tripLogData(this.m, place));
  }

  gridLog(place: string): void {
    this.record(GRID_LOG_TYPE, GRID_LOG_RECORD, LOG_LIFETIME, gridLogData(this.m, place));
  }

  /** One step of time. */
  tick(): void {
    this.t += STEP;
  }
}

export const PARKED: Record<Code, number> = { S: 600, D: 600, L: 600 };
export const CHARGING: Record<Code, number> = { S: 60, D: 60, L: 600 };
export const DRIVING: Record<Code, number> = { S: 60, D: 10, L: 10 };
