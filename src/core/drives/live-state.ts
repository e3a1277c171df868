/**
 * The state of the live side of the session tracker (live.ts, live-charges.ts): the car's latest
 * readings, the open drive and charge, a pending offline gap, and the closed parts kept for late
 * logs. JSON, part of the tracker's checkpoint.
 */
import type { ChargeMember, DriveMember } from './merge.js';
import type { ChargeSample, DistanceUnits, GeoPoint, PathPoint } from './types.js';

export interface Shown<M> {
  /** What was last published; null before the first time. */
  snap: M | null;
  snapAt: number;
  /** Changed since it was published. */
  changed: boolean;
}

export interface OpenDrive extends Shown<DriveMember> {
  mode: 'ignition' | 'odometer';
  start: number;
  lastRecord: number;
  lastMove: number;
  startOdo: number | null;
  odo: number | null;
  tenths: number;
  socStart: number | null;
  socEnd: number | null;
  used: number | null;
  recovered: number | null;
  maxSpeed: number | null;
  from: GeoPoint | null;
  to: GeoPoint | null;
  soh: number | null;
  path: PathPoint[];
}

export interface OpenCharge extends Shown<ChargeMember> {
  start: number;
  lastRecord: number;
  /** When a non-charging state was seen (the charge may still resume). */
  stopAt: number | null;
  socStart: number | null;
  socEnd: number | null;
  kwh: number | null;
  kwhPrev: number;
  grid: number | null;
  gridPrev: number;
  maxPower: number | null;
  dc: boolean;
  at: GeoPoint | null;
  soh: number | null;
  samples: ChargeSample[];
}

export interface Gap {
  g0: number;
  g1: number;
  soc0: number;
  odo0: number | null;
  pos0: GeoPoint | null;
  soh: number | null;
  soc1: number | null;
  odo1: number | null;
  charging: boolean;
}

/** The live side of the tracker's state (JSON). */
export interface LiveState {
  units: DistanceUnits | null;
  soc: number | null;
  soh: number | null;
  odo: number | null;
  odoTime: number;
  pos: GeoPoint | null;
  used: number | null;
  recovered: number | null;
  hasIgnition: boolean;
  restPos: GeoPoint | null;
  restSoc: number | null;
  lastLive: number;
  drive: OpenDrive | null;
  charge: OpenCharge | null;
  gap: Gap | null;
  /** Closed parts, kept while they may still join a late log. */
  drives: DriveMember[];
  charges: ChargeMember[];
  inferred: ChargeMember[];
  /** The parts changed since the sessions were last worked out. */
  dirty: boolean;
}

export function emptyLive(): LiveState {
  return {
    units: null,
    soc: null,
    soh: null,
    odo: null,
    odoTime: 0,
    pos: null,
    used: null,
    recovered: null,
    hasIgnition: false,
    restPos: null,
    restSoc: null,
    lastLive: 0,
    drive: null,
    charge: null,
    gap: null,
    drives: [],
    charges: [],
    inferred: [],
    dirty: false,
  };
}
