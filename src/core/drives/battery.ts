/**
 * Battery health from the sessions: capacity estimated per charge, SOH series, vampire drain
 * (docs/web-api.md "Battery").
 *
 * (Contract stub: implemented by the battery-and-stats change.)
 */
import type { ChargeSession, DriveSession } from './types.js';

/** A capacity estimate from one charge that added 10 SOC points or more. */
export interface CapacitySample {
  t: number;
  /** kWh: energy into the battery ÷ SOC gained. */
  capacity: number;
  socGain: number;
  energy: number;
}

/** SOC lost while parked between two sessions. */
export interface DrainSample {
  start: number;
  end: number;
  socLost: number;
  /** SOC points per day. */
  perDay: number;
}

export interface BatteryReport {
  capacity: { estimate: number | null; max: number | null; degradation: number | null };
  samples: CapacitySample[];
  soh: [number, number][];
  vampireDrain: { perDay: number | null; samples: DrainSample[] };
}

/** Sessions in any order. */
export function batteryReport(drives: readonly DriveSession[], charges: readonly ChargeSession[]): BatteryReport {
  void drives;
  void charges;
  return { capacity: { estimate: null, max: null, degradation: null }, samples: [], soh: [], vampireDrain: { perDay: null, samples: [] } };
}

/** Wh per distance unit: energy used, else SOC used × capacity; null when neither is known or no distance. */
export function driveEfficiency(drive: DriveSession, capacity: number | null): number | null {
  void drive;
  void capacity;
  return null;
}
