/**
 * Drives and charges from the firmware's own logs (issue 28; the records of
 * docs/protocol/messages.md §3.11). Both are functions of the set of logs, taken in time order,
 * so a log that arrives late simply joins the set and the sessions are worked out again.
 *
 * Trip logs (one at every ignition change) pair up as on → off. Which is which is read from the
 * figures, since the record does not say: two consecutive logs `a`, `b` are a drive when
 * - `b` closes a trip: its drive time (field 8) or trip distance (field 7) is above zero, and
 * - `a` opens one: its trip distance and drive time are about zero (a firmware that resets the trip
 *   at ignition on), or the odometer grew from `a` to `b` by `b`'s trip distance (± 0.2 or 2 %:
 *   a firmware that still shows the previous trip in the "on" log), and
 * - `b` comes after `a`, within a day, and `b`'s drive time fits between them (2 minutes slack).
 * The scan goes left to right and a pair uses both logs. Distance is the odometer's growth
 * (the trip distance when an odometer is missing); energy, SOC, SOH come from the "off" log.
 *
 * Grid logs (one at every charge-state change): a charging state (`charging`, `topoff`) opens a
 * charge, any other state stops it; a stop followed within 2 minutes by a charging log at the same
 * place (100 m, or a position unknown) is a flap and the charge goes on. The charge ends at the
 * stop's log; energy is the growth of fields 21 (battery) and 22 (grid) over its logs, a decrease
 * meaning the counter restarted. A charge whose stop has not come yet is not a session (the live
 * data shows it meanwhile).
 */
import { CHARGING_STATES, counterStep, isDcText, metres, round1, round3, type GridLog, type TripLog } from './log-fields.js';
import type { ChargeMember, DriveMember } from './merge.js';
import type { GeoPoint } from './types.js';

/** A session from logs, and the indices (in the sorted list) of the first and last log it used. */
export interface LogPart<M> {
  member: M | null;
  first: number;
  last: number;
}

/** Seconds a stopped charge may take to resume and still be the same charge. */
export const FLAP_SECONDS = 120;
/** Metres within which a resumed charge is at the same place. */
export const SAME_PLACE_METRES = 100;
/** Shorter than this (in the unit) is not a drive. */
export const MIN_DISTANCE = 0.1;

const about0 = (n: number | null): boolean => n === null || Math.abs(n) < 0.05;

function isPair(a: TripLog, b: TripLog): boolean {
  const dt = b.t - a.t;
  if (dt <= 0 || dt > 86_400) return false;
  const closes = (b.driveTime ?? 0) > 0 || (b.trip ?? 0) > 0;
  if (!closes) return false;
  if (b.driveTime !== null && b.driveTime > dt + 120) return false;
  const opens = about0(a.trip) && (a.driveTime === null || a.driveTime < 10);
  const grew =
    a.odometer !== null && b.odometer !== null && b.trip !== null && Math.abs(b.odometer - a.odometer - b.trip) <= Math.max(0.2, 0.02 * b.trip);
  return opens || grew;
}

export function tripDrives(logs: readonly TripLog[]): LogPart<DriveMember>[] {
  const parts: LogPart<DriveMember>[] = [];
  for (let i = 0; i + 1 < logs.length; i++) {
    const a = logs[i] as TripLog;
    const b = logs[i + 1] as TripLog;
    if (!isPair(a, b)) continue;
    const odo = a.odometer !== null && b.odometer !== null && b.odometer >= a.odometer ? b.odometer - a.odometer : null;
    const distance = odo ?? (b.trip !== null && b.trip >= 0 ? b.trip : null);
    const member: DriveMember | null =
      distance === null || distance < MIN_DISTANCE
        ? null
        : {
            start: a.t,
            end: b.t,
            seen: b.t,
            startOdometer: a.odometer === null ? null : round1(a.odometer),
            endOdometer: b.odometer === null ? null : round1(b.odometer),
            distance: round1(distance),
            socStart: a.soc,
            socEnd: b.soc,
            energyUsed: b.used === null ? null : round3(b.used),
            energyRecovered: b.recovered === null ? null : round3(b.recovered),
            maxSpeed: null,
            from: a.position,
            to: b.position,
            soh: b.soh ?? a.soh,
            path: [],
          };
    parts.push({ member, first: i, last: i + 1 });
    i++;
  }
  return parts;
}

const samePlace = (a: GeoPoint | null, b: GeoPoint | null): boolean => a === null || b === null || metres(a, b) <= SAME_PLACE_METRES;

export function gridCharges(logs: readonly GridLog[]): LogPart<ChargeMember>[] {
  const parts: LogPart<ChargeMember>[] = [];
  let first = -1;
  let stop = -1;
  const close = (): void => {
    parts.push({ member: chargeOf(logs.slice(first, stop + 1)), first, last: stop });
    first = -1;
    stop = -1;
  };
  logs.forEach((g, i) => {
    const charging = CHARGING_STATES.has(g.chargeState);
    if (first >= 0 && stop >= 0) {
      const s = logs[stop] as GridLog;
      if (charging && g.t - s.t <= FLAP_SECONDS && samePlace((logs[first] as GridLog).position, g.position)) {
        stop = -1;
        return;
      }
      close();
    }
    if (first < 0) {
      if (charging) first = i;
    } else if (!charging) stop = i;
  });
  if (first >= 0 && stop >= 0) close();
  return parts;
}

function chargeOf(logs: readonly GridLog[]): ChargeMember {
  const a = logs[0] as GridLog;
  const b = logs[logs.length - 1] as GridLog;
  let kwh: number | null = null;
  let grid: number | null = null;
  let kPrev = 0;
  let gPrev = 0;
  for (const g of logs.slice(1)) {
    if (g.kwh !== null) {
      kwh = (kwh ?? 0) + counterStep(kPrev, g.kwh);
      kPrev = g.kwh;
    }
    if (g.grid !== null) {
      grid = (grid ?? 0) + counterStep(gPrev, g.grid);
      gPrev = g.grid;
    }
  }
  const types = logs.map((g) => g.chargeType).filter((t) => t !== '');
  return {
    start: a.t,
    end: b.t,
    seen: b.t,
    socStart: a.soc,
    socEnd: b.soc,
    energyAdded: kwh === null ? null : round3(kwh),
    energyFromGrid: grid !== null && grid > 0 ? round3(grid) : null,
    maxPower: null,
    chargeKind: types.some(isDcText) ? 'dc' : types.length ? 'ac' : null,
    at: a.position ?? b.position,
    soh: b.soh ?? a.soh,
    samples: [],
  };
}
