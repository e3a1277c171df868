/**
 * Statistics per day, week (from Monday), month or year in a time zone (docs/web-api.md "Stats").
 */
import type { ChargeSession, DriveSession } from './types.js';
import { driveEnergy, drainSamples, type DrainSample } from './battery.js';
import { roundCents } from './cost.js';
import { addToDate, wallTime, zonedToEpoch, type WallTime } from './zoned-time.js';

export type StatsPeriod = 'day' | 'week' | 'month' | 'year';

export const STATS_PERIODS: readonly StatsPeriod[] = ['day', 'week', 'month', 'year'];

export interface StatsRow {
  start: number;
  distance: number;
  drives: number;
  energyUsed: number | null;
  charges: number;
  energyAdded: number | null;
  energyFromGrid: number | null;
  cost: number | null;
  currency: string | null;
  /** Wh per distance unit. */
  efficiency: number | null;
  /** SOC points lost per parked day. */
  vampireDrain: number | null;
}

/** The local date at which the period holding `w` starts. */
function periodDate(w: WallTime, period: StatsPeriod): WallTime {
  const day = { ...w, hour: 0, minute: 0, second: 0 };
  switch (period) {
    case 'day':
      return day;
    case 'week': {
      // 0 = Monday … 6 = Sunday
      const weekday = (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7;
      return addToDate(day, -weekday);
    }
    case 'month':
      return { ...day, day: 1 };
    case 'year':
      return { ...day, month: 1, day: 1 };
  }
}

function nextDate(d: WallTime, period: StatsPeriod): WallTime {
  switch (period) {
    case 'day':
      return addToDate(d, 1);
    case 'week':
      return addToDate(d, 7);
    case 'month':
      return addToDate(d, 0, 1);
    case 'year':
      return addToDate(d, 0, 0, 1);
  }
}

/** The start (epoch seconds) of the day, ISO week (Monday 00:00), month or year holding `t` in `tz`. */
export function periodStart(t: number, period: StatsPeriod, tz: string): number {
  return zonedToEpoch(periodDate(wallTime(t, tz), period), tz);
}

/** The period starts from the one holding `from` through `to`, oldest first. */
export function periodStarts(from: number, to: number, period: StatsPeriod, tz: string): number[] {
  const out: number[] = [];
  let d = periodDate(wallTime(from, tz), period);
  for (let t = zonedToEpoch(d, tz); t <= to; ) {
    out.push(t);
    d = nextDate(d, period);
    t = zonedToEpoch(d, tz);
  }
  return out;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

function sumOrNull(values: readonly (number | null)[]): number | null {
  let sum: number | null = null;
  for (const v of values) if (v !== null) sum = (sum ?? 0) + v;
  return sum;
}

/** The sum of the charges' costs in their most frequent currency (the first seen on a tie). */
function costIn(charges: readonly ChargeSession[]): { cost: number | null; currency: string | null } {
  const counts = new Map<string, number>();
  for (const c of charges) if (c.cost !== null && c.currency !== null) counts.set(c.currency, (counts.get(c.currency) ?? 0) + 1);
  let currency: string | null = null;
  for (const [k, n] of counts) if (currency === null || n > counts.get(currency)!) currency = k;
  if (currency === null) return { cost: null, currency: null };
  return { cost: roundCents(sumOrNull(charges.map((c) => (c.currency === currency ? c.cost : null)))!), currency };
}

function row(start: number, drives: DriveSession[], charges: ChargeSession[], drain: DrainSample[], capacity: number | null): StatsRow {
  let wh = 0;
  let whDistance = 0;
  for (const d of drives) {
    const kwh = driveEnergy(d, capacity);
    if (kwh !== null && d.distance !== null && d.distance > 0) {
      wh += kwh * 1000;
      whDistance += d.distance;
    }
  }
  const used = sumOrNull(drives.map((d) => d.energyUsed));
  const added = sumOrNull(charges.map((c) => c.energyAdded));
  const grid = sumOrNull(charges.map((c) => c.energyFromGrid));
  const drainSum = drain.reduce((a, s) => a + s.perDay, 0);
  return {
    start,
    distance: round1(drives.reduce((a, d) => a + (d.distance ?? 0), 0)),
    drives: drives.length,
    energyUsed: used === null ? null : Math.round(used * 100) / 100,
    charges: charges.length,
    energyAdded: added === null ? null : Math.round(added * 100) / 100,
    energyFromGrid: grid === null ? null : Math.round(grid * 100) / 100,
    ...costIn(charges),
    efficiency: whDistance > 0 ? round1(wh / whDistance) : null,
    vampireDrain: drain.length === 0 ? null : Math.round((drainSum / drain.length) * 100) / 100,
  };
}

/** The index of the last start at or before `t` (-1 before the first). */
function slot(starts: readonly number[], t: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * One row per period that starts within [periodStart(from), to] (empty periods included), oldest
 * first. A session counts in the period of its start; a drain sample in that of its start. Sums
 * are null when no session has the figure; efficiency is the Wh of the drives with a known energy
 * over their distance.
 */
export function statsReport(
  drives: readonly DriveSession[],
  charges: readonly ChargeSession[],
  period: StatsPeriod,
  timezone: string,
  from: number,
  to: number,
  capacity: number | null,
): StatsRow[] {
  const starts = periodStarts(from, to, period, timezone);
  if (starts.length === 0) return [];
  // the last period runs to its own end, past `to`
  const end = nextStart(starts[starts.length - 1]!, period, timezone);
  const buckets = starts.map(() => ({ drives: [] as DriveSession[], charges: [] as ChargeSession[], drain: [] as DrainSample[] }));
  const place = (t: number): number => (t < starts[0]! || t >= end ? -1 : slot(starts, t));
  for (const d of drives) {
    const i = place(d.start);
    if (i >= 0) buckets[i]!.drives.push(d);
  }
  for (const c of charges) {
    const i = place(c.start);
    if (i >= 0) buckets[i]!.charges.push(c);
  }
  for (const s of drainSamples([...drives, ...charges])) {
    const i = place(s.start);
    if (i >= 0) buckets[i]!.drain.push(s);
  }
  return starts.map((s, i) => row(s, buckets[i]!.drives, buckets[i]!.charges, buckets[i]!.drain, capacity));
}

function nextStart(start: number, period: StatsPeriod, tz: string): number {
  return zonedToEpoch(nextDate(periodDate(wallTime(start, tz), period), period), tz);
}
