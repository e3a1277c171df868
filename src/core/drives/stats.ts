/**
 * Statistics per day, week (from Monday), month or year in a time zone (docs/web-api.md "Stats").
 *
 * (Contract stub: implemented by the battery-and-stats change.)
 */
import type { ChargeSession, DriveSession } from './types.js';

export type StatsPeriod = 'day' | 'week' | 'month' | 'year';

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

/** One row per period that starts within [from, to] (empty periods included), oldest first. */
export function statsReport(
  drives: readonly DriveSession[],
  charges: readonly ChargeSession[],
  period: StatsPeriod,
  timezone: string,
  from: number,
  to: number,
  capacity: number | null,
): StatsRow[] {
  void drives;
  void charges;
  void period;
  void timezone;
  void from;
  void to;
  void capacity;
  return [];
}
