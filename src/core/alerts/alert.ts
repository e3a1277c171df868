/**
 * A fired alert and the sentence a person reads for it ("DEMO1 reached 80 % (62 km)"). Distances
 * are shown in the unit the caller asks for, converted from the car's unit when they differ.
 */
import type { DistanceUnits } from '../drives/types.js';
import type { RuleKind } from './rules.js';

/** What fired: a rule's kind, or `online` (an offline rule's car came back after it fired). */
export type AlertKind = RuleKind | 'online';

export interface Alert {
  /** The rule's id. */
  rule: number;
  kind: AlertKind;
  vehicleId: string;
  /** Epoch seconds: when the engine saw the condition met (the `now` of the evaluation). */
  time: number;
  text: string;
}

/** How the vehicle is shown: its display name and the distance unit of the texts. */
export interface VehicleShow {
  name: string;
  units: DistanceUnits;
}

const KM_PER_MILE = 1.609344;

/** A distance in `from` units shown in `to` units. */
export function convertDistance(value: number, from: DistanceUnits, to: DistanceUnits): number {
  if (from === to) return value;
  return from === 'M' ? value * KM_PER_MILE : value / KM_PER_MILE;
}

const unitText = (u: DistanceUnits): string => (u === 'M' ? 'mi' : 'km');

/** A duration in seconds as a person says it: `45 s`, `31 min`, `1 h`, `2 h 5 min`, `3 d 4 h`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  const hours = Math.round(minutes / 60);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return h === 0 ? `${d} d` : `${d} d ${h} h`;
}

const pct = (soc: number): string => `${Math.round(soc)} %`;

/** ` (62 km)` when the range is known (in `from` units), else empty. */
function rangeText(range: number | null, from: DistanceUnits, show: VehicleShow): string {
  if (range === null || !(range > 0)) return '';
  return ` (${Math.round(convertDistance(range, from, show.units))} ${unitText(show.units)})`;
}

/** The SOC with the range after it: `80 % (62 km)`. */
export function socText(soc: number, range: number | null, from: DistanceUnits, show: VehicleShow): string {
  return pct(soc) + rangeText(range, from, show);
}

export const texts = {
  socReached: (v: VehicleShow, soc: string): string => `${v.name} reached ${soc}`,
  socBelow: (v: VehicleShow, soc: string): string => `${v.name} is down to ${soc}`,
  chargeStarted: (v: VehicleShow, soc: number | null): string => `${v.name} started charging` + (soc === null ? '' : ` at ${pct(soc)}`),
  chargeDone: (v: VehicleShow, soc: string | null): string => `${v.name} finished charging` + (soc === null ? '' : ` at ${soc}`),
  chargeStopped: (v: VehicleShow, soc: number | null): string =>
    `${v.name}: charging stopped` + (soc === null ? '' : ` at ${pct(soc)}`) + ' and did not resume',
  offline: (v: VehicleShow, seconds: number): string => `${v.name} has been offline for ${formatDuration(seconds)}`,
  online: (v: VehicleShow, seconds: number): string => `${v.name} is online again after ${formatDuration(seconds)}`,
  arrived: (v: VehicleShow, place: string): string => `${v.name} arrived at ${place}`,
  left: (v: VehicleShow, place: string): string => `${v.name} left ${place}`,
  v12Low: (v: VehicleShow, volts: number): string => `${v.name}: 12 V battery at ${volts.toFixed(1)} V`,
};

/** What the drive report tells: distance in `units`, seconds, kWh used; each null when unknown. */
export interface DriveFigures {
  distance: number | null;
  units: DistanceUnits;
  duration: number | null;
  energy: number | null;
}

/** `DEMO1 drove 23.4 km in 31 min, 3.9 kWh (167 Wh/km)`; parts unknown are left out. */
export function driveText(v: VehicleShow, d: DriveFigures): string {
  const distance = d.distance === null ? null : convertDistance(d.distance, d.units, v.units);
  let text = v.name + ' drove';
  if (distance !== null) text += ` ${distance.toFixed(1)} ${unitText(v.units)}`;
  if (d.duration !== null) text += ` in ${formatDuration(d.duration)}`;
  if (d.energy !== null) {
    text += `, ${d.energy.toFixed(1)} kWh`;
    if (distance !== null && distance > 0) text += ` (${Math.round((d.energy * 1000) / distance)} Wh/${unitText(v.units)})`;
  }
  return text;
}

/** Kinds that tell of a problem: pushed and sent to apps as alerts (`A`); the others as information (`I`). */
const PROBLEMS: ReadonlySet<AlertKind> = new Set<AlertKind>(['soc-below', 'charge-stopped', 'offline', 'v12-low']);

/** The notification type an alert is raised with (`PA` / `PI` to the apps). */
export function alertTypeOf(kind: AlertKind): 'A' | 'I' {
  return PROBLEMS.has(kind) ? 'A' : 'I';
}
