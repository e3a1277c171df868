/**
 * Battery health from the sessions: capacity estimated per charge, SOH series, vampire drain
 * (docs/web-api.md "Battery"), and a drive's efficiency.
 */
import type { ChargeSession, DriveSession, Session } from './types.js';

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

/** A charge must add this many SOC points to estimate the capacity. */
export const MIN_CAPACITY_GAIN = 10;
/** How many of the newest samples the current figures are the median of. */
export const RECENT_SAMPLES = 5;
/** A parked gap shorter than this tells nothing about drain (seconds). */
export const MIN_DRAIN_GAP = 6 * 3600;

function round(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Capacity samples of the finished charges, oldest first. */
export function capacitySamples(charges: readonly ChargeSession[]): CapacitySample[] {
  const out: CapacitySample[] = [];
  for (const c of charges) {
    if (c.end === null || c.socStart === null || c.socEnd === null || c.energyAdded === null || !(c.energyAdded > 0)) continue;
    const gain = c.socEnd - c.socStart;
    if (gain < MIN_CAPACITY_GAIN) continue;
    out.push({ t: c.end, capacity: c.energyAdded / (gain / 100), socGain: gain, energy: c.energyAdded });
  }
  return out.sort((a, b) => a.t - b.t);
}

/** The vehicle's capacity now (kWh, unrounded): the median of the newest samples; null without any. */
export function capacityEstimate(samples: readonly CapacitySample[]): number | null {
  return median(samples.slice(-RECENT_SAMPLES).map((s) => s.capacity));
}

function endSoc(s: Session): number | null {
  return s.socEnd;
}

/**
 * Drain samples: for each parked gap of 6 h or more between one session's end and the next one's
 * start (sessions by start; the gap starts at the latest end so far, and an open session ends the
 * search), with the SOC known at both ends and lower at the second.
 */
export function drainSamples(sessions: readonly Session[]): DrainSample[] {
  const sorted = [...sessions].sort((a, b) => a.start - b.start || (a.end ?? Infinity) - (b.end ?? Infinity));
  const out: DrainSample[] = [];
  let last: Session | null = null;
  for (const s of sorted) {
    if (last !== null && last.end !== null) {
      const gap = s.start - last.end;
      const before = endSoc(last);
      if (gap >= MIN_DRAIN_GAP && before !== null && s.socStart !== null && s.socStart < before) {
        const socLost = before - s.socStart;
        out.push({ start: last.end, end: s.start, socLost: round(socLost, 2), perDay: round(socLost / (gap / 86400), 2) });
      }
    }
    if (last === null || (last.end !== null && (s.end === null || s.end >= last.end))) last = s;
  }
  return out;
}

/** Sessions in any order. */
export function batteryReport(drives: readonly DriveSession[], charges: readonly ChargeSession[]): BatteryReport {
  const samples = capacitySamples(charges);
  const estimate = capacityEstimate(samples);
  const max = samples.length === 0 ? null : Math.max(...samples.map((s) => s.capacity));
  const degradation = estimate === null || max === null ? null : round(Math.max(0, 1 - estimate / max) * 100, 1);

  const all: Session[] = [...drives, ...charges];
  const soh: [number, number][] = [];
  for (const s of all.filter((x) => x.end !== null && x.soh !== null).sort((a, b) => a.end! - b.end!)) {
    const prev = soh[soh.length - 1];
    if (prev === undefined || prev[1] !== s.soh) soh.push([s.end!, s.soh!]);
  }

  const drain = drainSamples(all);
  return {
    capacity: { estimate: estimate === null ? null : round(estimate, 1), max: max === null ? null : round(max, 1), degradation },
    samples: samples.map((s) => ({ ...s, capacity: round(s.capacity, 2) })),
    soh,
    vampireDrain: { perDay: drainPerDay(drain), samples: drain },
  };
}

/** SOC points lost per parked day now: the median of the newest drain samples; null without any. */
export function drainPerDay(samples: readonly DrainSample[]): number | null {
  const m = median(samples.slice(-RECENT_SAMPLES).map((s) => s.perDay));
  return m === null ? null : round(m, 2);
}

/**
 * The energy a drive took from the battery (kWh): energy used less energy recovered when the car
 * reports them, else the SOC used × the capacity; null when neither is known.
 */
export function driveEnergy(drive: DriveSession, capacity: number | null): number | null {
  if (drive.energyUsed !== null) return drive.energyUsed - (drive.energyRecovered ?? 0);
  if (drive.socStart !== null && drive.socEnd !== null && capacity !== null) return ((drive.socStart - drive.socEnd) / 100) * capacity;
  return null;
}

/** Wh per distance unit: energy used, else SOC used × capacity; null when neither is known or no distance. */
export function driveEfficiency(drive: DriveSession, capacity: number | null): number | null {
  if (drive.distance === null || !(drive.distance > 0)) return null;
  const kwh = driveEnergy(drive, capacity);
  return kwh === null ? null : round((kwh * 1000) / drive.distance, 1);
}
