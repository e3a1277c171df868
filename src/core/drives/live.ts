/**
 * Drives, charges and inferred charges from a vehicle's live `S`, `D`, `L` data, taken in time
 * order (issue 28; fields in docs/protocol/messages.md §3.1–3.3). What this file finds depends on
 * the live data only, never on the firmware logs, so the tracker can join both in any order.
 *
 * Drives
 * - A car that ever reported its ignition (doors1 bit 0x80) drives from the `D` with the bit set
 *   to the `D` with it clear. One that never did drives while its odometer grows at a plausible
 *   pace (src/core/records/trips.ts `maxStep`): the drive starts at the reading before the growth
 *   and ends at the last growth once 15 minutes pass without any.
 * - A drive with no record for 15 minutes (`SILENCE`) ends at its last movement (odometer growth,
 *   or an `L` speed above zero); the next record, or a tick, decides.
 * - Distance is the sum of plausible odometer steps; less than 0.1 unit is not a drive. Energy is
 *   the sum of the growth of the `L` counters, a decrease meaning the car restarted them.
 * - An open drive is shown (published) once it has 0.1 unit, then at most once per `PUBLISH_EVERY`
 *   seconds of data, at each tick that finds it changed, and when it ends.
 *
 * Charges
 * - From an `S` in a charging state (`charging`, `topoff`) to one in any other state; a stop
 *   followed within 2 minutes by charging again at the same place (100 m, or a position unknown)
 *   is the same charge, and nothing is shown for the flap. A drive starting ends a charge.
 * - Energy is the growth of the charged kWh (field 12) and the grid kWh (field 39), counted from
 *   zero at the start, a decrease meaning a restart; power is the peak of field 35 (else 32); DC
 *   above 22 kW or when the charge mode text says DC. A charge that added no energy and no SOC is
 *   dropped.
 * - A SOC gain of 3 points or more across a gap of more than 20 minutes without records
 *   (`OFFLINE`), with no charge running when the gap began, the odometer unchanged across it and
 *   the car not charging when it came back, is an inferred charge spanning the gap. It is decided
 *   once an `S` and a `D` after the gap are seen (or 2 minutes after the gap's end).
 */
import { maxStep } from '../records/trips.js';
import { CHARGING_STATES, counterStep, parseD, parseL, parseS, round1, round3, thin } from './log-fields.js';
import { MAX_POINTS, type DriveMember } from './merge.js';
import { FLAP_SECONDS } from './log-sessions.js';
import { chargeMember, closeCharge, onCharge, settle } from './live-charges.js';
import type { LiveState, OpenDrive } from './live-state.js';
import type { DistanceUnits } from './types.js';

export { emptyLive, type LiveState } from './live-state.js';

/** Seconds without a record that end a drive. */
export const SILENCE = 900;
/** Seconds without a record after which the car counts as having been offline. */
export const OFFLINE = 1200;
/** Seconds of data between two showings of an open session. */
export const PUBLISH_EVERY = 60;

const units = (s: LiveState): DistanceUnits => s.units ?? 'K';

function driveMember(d: OpenDrive, end: number | null): DriveMember {
  return {
    start: d.start,
    end,
    seen: d.lastRecord,
    startOdometer: d.startOdo === null ? null : round1(d.startOdo / 10),
    endOdometer: d.odo === null ? null : round1(d.odo / 10),
    distance: round1(d.tenths / 10),
    socStart: d.socStart,
    socEnd: d.socEnd,
    energyUsed: d.used === null ? null : round3(d.used),
    energyRecovered: d.recovered === null ? null : round3(d.recovered),
    maxSpeed: d.maxSpeed,
    from: d.from,
    to: d.to,
    soh: d.soh,
    path: d.path.slice(),
  };
}

function closeDrive(s: LiveState, end: number): void {
  const d = s.drive;
  if (!d) return;
  s.drive = null;
  if (d.tenths >= 1) s.drives.push(driveMember(d, end));
  if (d.tenths >= 1 || d.snap) s.dirty = true;
}


/** Ends what the passing of time ends at `t`: a silent drive, a stopped charge that did not resume. */
export function expire(s: LiveState, t: number): void {
  const d = s.drive;
  if (d && t - (d.mode === 'ignition' ? d.lastRecord : d.lastMove) > SILENCE) closeDrive(s, d.lastMove);
  const c = s.charge;
  if (c && c.stopAt !== null && t - c.stopAt > FLAP_SECONDS) closeCharge(s, c.stopAt);
}

/** Shows the open sessions that changed (at a tick, and at the throttle's pace). */
export function publish(s: LiveState, t: number, force: boolean, every = PUBLISH_EVERY): void {
  const d = s.drive;
  if (d && d.tenths >= 1 && (d.snap === null || (d.changed && (force || t - d.snapAt >= every)))) {
    d.snap = driveMember(d, null);
    d.snapAt = t;
    d.changed = false;
    s.dirty = true;
  }
  const c = s.charge;
  if (c && c.stopAt === null && (c.snap === null || (c.changed && (force || t - c.snapAt >= every)))) {
    c.snap = chargeMember(c, null);
    c.snapAt = t;
    c.changed = false;
    s.dirty = true;
  }
}

/** Whether anything waits on time or on a tick. */
export function liveBusy(s: LiveState): boolean {
  return s.drive !== null || s.charge !== null;
}

/** One live record, in time order. */
export function live(s: LiveState, code: string, t: number, data: string, every = PUBLISH_EVERY): void {
  expire(s, t);
  if (s.lastLive > 0 && t - s.lastLive > OFFLINE) {
    if (s.gap) settle(s, true);
    if (s.soc !== null && !(s.charge && s.charge.stopAt === null)) {
      s.gap = { g0: s.lastLive, g1: t, soc0: s.soc, odo0: s.odo, pos0: s.pos, soh: s.soh, soc1: null, odo1: null, charging: false };
    }
  }
  if (s.drive) {
    s.drive.lastRecord = t;
    s.drive.changed = true;
  }
  if (s.charge) s.charge.lastRecord = t;
  if (code === 'S') onS(s, t, data);
  else if (code === 'D') onD(s, t, data);
  else if (code === 'L') onL(s, t, data);
  if (s.gap) settle(s, t > s.gap.g1 + FLAP_SECONDS);
  publish(s, t, false, every);
  s.lastLive = t;
}

function onS(s: LiveState, t: number, data: string): void {
  const f = parseS(data);
  if (f.units) s.units = f.units;
  if (f.soc !== null) s.soc = f.soc;
  if (f.soh !== null) s.soh = f.soh;
  if (s.gap && s.gap.soc1 === null && f.soc !== null) {
    s.gap.soc1 = f.soc;
    s.gap.charging = f.chargeState !== null && CHARGING_STATES.has(f.chargeState);
  }
  if (s.drive) {
    s.drive.socEnd = s.soc;
    s.drive.soh = s.soh;
  }
  onCharge(s, t, f);
}

function onD(s: LiveState, t: number, data: string): void {
  const f = parseD(data);
  if (f.ignition) s.hasIgnition = true;
  const o = f.odometer;
  if (s.gap && s.gap.odo1 === null && o !== null) s.gap.odo1 = o;
  const step = o === null || s.odo === null ? 0 : o - s.odo;
  const plausible = step > 0 && step <= maxStep(t - s.odoTime, units(s));
  let d = s.drive;
  if (d) {
    if (plausible) {
      d.tenths += step;
      d.lastMove = t;
    } else if (step !== 0 && d.mode === 'odometer') closeDrive(s, d.lastMove);
    if (d.mode === 'odometer' && f.ignition) d.mode = 'ignition';
    if (o !== null) d.odo = o;
    if (d.mode === 'ignition' && f.ignition === false) closeDrive(s, t);
  } else if (f.ignition) {
    if (s.charge) closeCharge(s, s.charge.stopAt ?? t);
    d = s.drive = openDrive(s, 'ignition', t, o ?? s.odo);
    d.odo = o ?? s.odo;
  } else if (!s.hasIgnition && plausible) {
    d = s.drive = openDrive(s, 'odometer', s.odoTime, s.odo);
    d.from = s.restPos;
    d.socStart = s.restSoc;
    d.tenths = step;
    d.lastMove = t;
    d.lastRecord = t;
    d.odo = o;
  }
  if (o !== null) {
    s.odo = o;
    s.odoTime = t;
  }
  if (!s.drive) {
    s.restPos = s.pos;
    s.restSoc = s.soc;
  }
}

function openDrive(s: LiveState, mode: OpenDrive['mode'], start: number, odo: number | null): OpenDrive {
  return {
    mode,
    start,
    lastRecord: start,
    lastMove: start,
    startOdo: odo,
    odo,
    tenths: 0,
    socStart: s.soc,
    socEnd: s.soc,
    used: null,
    recovered: null,
    maxSpeed: null,
    from: s.pos,
    to: s.pos,
    soh: s.soh,
    path: [],
    snap: null,
    snapAt: start,
    changed: false,
  };
}

function onL(s: LiveState, t: number, data: string): void {
  const f = parseL(data);
  if (f.position) s.pos = f.position;
  const d = s.drive;
  if (d) {
    if (f.used !== null && s.used !== null) d.used = (d.used ?? 0) + counterStep(s.used, f.used);
    if (f.recovered !== null && s.recovered !== null) d.recovered = (d.recovered ?? 0) + counterStep(s.recovered, f.recovered);
    if (f.speed !== null && f.speed >= 0) {
      d.maxSpeed = Math.max(d.maxSpeed ?? 0, f.speed);
      if (f.speed > 0 && d.mode === 'ignition') d.lastMove = t;
    }
    if (f.position) {
      d.to = f.position;
      d.path.push({ t, lat: f.position.lat, lon: f.position.lon, speed: f.speed, soc: s.soc });
      d.path = thin(d.path, MAX_POINTS);
    }
  }
  if (f.used !== null) s.used = f.used;
  if (f.recovered !== null) s.recovered = f.recovered;
}
