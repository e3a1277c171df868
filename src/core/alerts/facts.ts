/**
 * What the alert engine knows of one car (JSON, part of its state) and how each input changes it:
 * SOC and range, the charge (started, stopped pending a resume, done), the module link, the 12 V
 * reading and the position. Fields as in docs/protocol/messages.md §3.1–3.3: `S` 1 SOC, 2 units,
 * 5 charge state, 7/8 ideal/estimated range; `D` 15 the 12 V; `L` 1–2 the position.
 */
import { numberAt } from '../records/fields.js';
import { CHARGING_STATES, parseL, pickFields } from '../drives/log-fields.js';
import { FLAP_SECONDS } from '../drives/log-sessions.js';
import type { DistanceUnits, DriveSession, GeoPoint } from '../drives/types.js';

/** Seconds after a charging stop within which a `done` (with no charging between) is the charge's end. */
export const DONE_AFTER_STOP_SECONDS = 3600;

/** One thing that happened to the car, in time order, at the `now` of its evaluation. */
export type AlertInput =
  /** A live record as the car sends it (`S`, `D`, `L`; others are ignored). Not paranoid (encrypted). */
  | { type: 'record'; code: string; data: string }
  /** The module's link came up or went down; `since` (default now) when the change happened. */
  | { type: 'link'; online: boolean; since?: number }
  /** Time passing: only the waits (`after`) advance. */
  | { type: 'tick' }
  /** A finished drive (end set). */
  | { type: 'drive'; drive: DriveSession };

/** A charging stop that may still resume. */
export interface PendingStop {
  at: number;
  soc: number | null;
}

export interface CarFacts {
  soc: number | null;
  /** Range in `units` (estimated, else ideal); null when unknown or zero. */
  range: number | null;
  units: DistanceUnits;
  /** S field 5, lower case; null before the first. */
  chargeState: string | null;
  /** Whether that state is a charging one; null before the first. */
  charging: boolean | null;
  /** Counts the charges begun (a resume within FLAP_SECONDS is the same charge). */
  chargeSeq: number;
  /** A charge stopped before done and not resumed (yet). */
  stop: PendingStop | null;
  /** The module link; null before the first link input or record. */
  online: boolean | null;
  /** When the link last changed. */
  linkSince: number;
  v12: number | null;
  pos: GeoPoint | null;
}

export function emptyFacts(): CarFacts {
  return { soc: null, range: null, units: 'K', chargeState: null, charging: null, chargeSeq: 0, stop: null, online: null, linkSince: 0, v12: null, pos: null };
}

/** What an input changed, for the rules that react to changes rather than to states. */
export interface Changes {
  /** A new charge began (not a resume, not the first state ever seen). */
  chargeStarted: boolean;
  /** The charge ended in `done`. */
  chargeDone: boolean;
  /** The link came back; `offlineSince` is when it went down. */
  cameOnline: { offlineSince: number } | null;
  /** A fresh 12 V reading. */
  v12: boolean;
  /** A fresh position. */
  position: boolean;
}

const S_WANTED = [1, 2, 5, 7, 8] as const;

function onS(f: CarFacts, data: string, now: number, c: Changes): void {
  const p = pickFields(data, S_WANTED);
  const soc = numberAt(p, 0);
  if (soc !== null && soc >= 0 && soc <= 100) f.soc = soc;
  const u = p[1]?.trim().toUpperCase();
  if (u === 'K' || u === 'M') f.units = u;
  const estimated = numberAt(p, 4);
  const ideal = numberAt(p, 3);
  const range = estimated !== null && estimated > 0 ? estimated : ideal !== null && ideal > 0 ? ideal : null;
  if (range !== null) f.range = range;
  const stateText = p[2]?.trim().toLowerCase();
  if (stateText === undefined || stateText === '') return;
  const charging = CHARGING_STATES.has(stateText);
  const was = f.charging;
  if (charging && was !== true) {
    const resumed = f.stop !== null && now - f.stop.at <= FLAP_SECONDS;
    if (!resumed) {
      f.chargeSeq++;
      if (was === false) c.chargeStarted = true;
    }
    f.stop = null;
  } else if (!charging && was === true) {
    if (stateText === 'done') c.chargeDone = true;
    else f.stop = { at: now, soc: f.soc };
  } else if (stateText === 'done' && f.stop !== null) {
    // stopped, then done with no charging between: the charge finished after all, if within the
    // hour (a charge-stopped rule whose wait ended before has told of the stop); a `done` long
    // after a stop is the state of a parked car
    if (now - f.stop.at <= DONE_AFTER_STOP_SECONDS) c.chargeDone = true;
    f.stop = null;
  }
  f.chargeState = stateText;
  f.charging = charging;
}

function onD(f: CarFacts, data: string, c: Changes): void {
  const v = numberAt(pickFields(data, [15]), 0);
  // 0 or less: no reading (a module without the sensor sends 0)
  if (v === null || !(v > 0)) return;
  f.v12 = v;
  c.v12 = true;
}

function onL(f: CarFacts, data: string, c: Changes): void {
  const pos = parseL(data).position;
  if (pos === null) return;
  f.pos = pos;
  c.position = true;
}

function setLink(f: CarFacts, online: boolean, since: number, c: Changes): void {
  if (f.online === online) return;
  if (online && f.online === false) c.cameOnline = { offlineSince: f.linkSince };
  f.online = online;
  f.linkSince = since;
}

/** Applies one input to the facts (in place) and says what changed. */
export function applyInput(f: CarFacts, input: AlertInput, now: number): Changes {
  const c: Changes = { chargeStarted: false, chargeDone: false, cameOnline: null, v12: false, position: false };
  if (input.type === 'link') setLink(f, input.online, input.since ?? now, c);
  else if (input.type === 'record') {
    // a record means the car is connected
    setLink(f, true, now, c);
    if (input.code === 'S') onS(f, input.data, now, c);
    else if (input.code === 'D') onD(f, input.data, c);
    else if (input.code === 'L') onL(f, input.data, c);
  }
  return c;
}
