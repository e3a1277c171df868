/**
 * One drive or charge from what several sources say about it (docs/web-api.md "Drives and
 * charges"). The tracker keeps the parts apart — drives and charges seen in the live data, pairs
 * of firmware logs, charges inferred from a SOC gain across a gap — and this file joins them, as a
 * function of those sets only, so that the order in which they were learnt never shows:
 *
 * - Each live part (and each inferred charge) belongs to the log pair it overlaps most in time
 *   (overlap = the shorter end minus the later start, within `SLACK` seconds of touching); parts
 *   that overlap none stay alone.
 * - A log pair with its parts is one session with the log's figures (times, distance, odometer,
 *   SOC, energy) and the live parts' route, samples, top speed and peak power.
 * - Its key is taken from the part that is known first while things happen: the earliest live
 *   part (`live:<start>`), else the inferred charge (`inferred:<start>`), else the log
 *   (`log:<start>`). A live session that a late log completes keeps its key.
 */
import { round1, thin } from './log-fields.js';
import type { ChargeSession, DistanceUnits, DriveSession } from './types.js';
import { textHash } from '../text-hash.js';

/** What one source says about a drive. `end` null: still open; `seen` the time of its newest data. */
export interface DriveMember
  extends Pick<
    DriveSession,
    | 'startOdometer' | 'endOdometer' | 'distance' | 'socStart' | 'socEnd' | 'energyUsed' | 'energyRecovered'
    | 'maxSpeed' | 'from' | 'to' | 'soh' | 'path'
  > {
  start: number;
  end: number | null;
  seen: number;
}

/** What one source says about a charge. */
export interface ChargeMember
  extends Pick<ChargeSession, 'socStart' | 'socEnd' | 'energyAdded' | 'energyFromGrid' | 'maxPower' | 'chargeKind' | 'at' | 'soh' | 'samples'> {
  start: number;
  end: number | null;
  seen: number;
}

/** Seconds two parts may lie apart and still be one session (clocks of the car and the server). */
export const SLACK = 60;
/** The most points of a route or samples of a charge kept; beyond, every other one goes. */
export const MAX_POINTS = 2000;
/** Power (kW) above which a charge is DC. */
export const DC_POWER = 22;

interface Span {
  start: number;
  end: number | null;
  seen: number;
}

const endOf = (m: Span): number => m.end ?? m.seen;
const overlap = (a: Span, b: Span): number => Math.min(endOf(a), endOf(b)) - Math.max(a.start, b.start);

/** For each part, the index of the log it belongs to, or -1. */
function assign(parts: readonly Span[], logs: readonly Span[]): number[] {
  return parts.map((p) => {
    let best = -1;
    let bestOv = -SLACK;
    logs.forEach((l, i) => {
      const ov = overlap(p, l);
      if (ov > bestOv || (ov === bestOv && best === -1)) {
        best = i;
        bestOv = ov;
      }
    });
    return best;
  });
}

/** A group of parts that make one session. */
export interface Group<M> {
  key: string;
  log: M | null;
  lives: M[];
  inferred: M[];
}

/** Groups the parts: each log pair with the parts it overlaps most, the rest alone. */
export function group<M extends Span>(lives: readonly M[], logs: readonly M[], inferred: readonly M[] = []): Group<M>[] {
  const groups: Group<M>[] = logs.map((log) => ({ key: '', log, lives: [], inferred: [] }));
  const alone: Group<M>[] = [];
  assign(lives, logs).forEach((i, n) => {
    const m = lives[n] as M;
    if (i >= 0) (groups[i] as Group<M>).lives.push(m);
    else alone.push({ key: '', log: null, lives: [m], inferred: [] });
  });
  assign(inferred, logs).forEach((i, n) => {
    const m = inferred[n] as M;
    if (i >= 0) (groups[i] as Group<M>).inferred.push(m);
    else alone.push({ key: '', log: null, lives: [], inferred: [m] });
  });
  const all = [...groups, ...alone];
  for (const g of all) {
    g.lives.sort((a, b) => a.start - b.start);
    g.inferred.sort((a, b) => a.start - b.start);
    g.key = g.lives[0] ? `live:${g.lives[0].start}` : g.inferred[0] ? `inferred:${g.inferred[0].start}` : `log:${(g.log as M).start}`;
  }
  return all.sort((a, b) => groupStart(a) - groupStart(b) || (a.key < b.key ? -1 : 1));
}

export function groupStart<M extends Span>(g: Group<M>): number {
  return Math.min(...[g.log, ...g.lives, ...g.inferred].filter((m): m is M => m !== null).map((m) => m.start));
}

/** The group's end (null while a part that decides it is open). */
export function groupEnd<M extends Span>(g: Group<M>): number | null {
  const parts = [g.log, ...g.lives, ...g.inferred].filter((m): m is M => m !== null);
  if (parts.some((m) => m.end === null)) return null;
  return Math.max(...parts.map((m) => m.end as number));
}

const maxOf = (xs: readonly (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? Math.max(...v) : null;
};

export function driveSession(g: Group<DriveMember>, units: DistanceUnits): DriveSession {
  const lives = g.lives;
  const base = g.log ?? (lives[0] as DriveMember);
  const path = lives.length === 1 ? (lives[0] as DriveMember).path : thinAll(lives.flatMap((m) => m.path));
  const first = lives[0];
  const last = lives[lives.length - 1];
  return {
    session: 'drive',
    key: g.key,
    start: base.start,
    end: base.end,
    soh: base.soh ?? last?.soh ?? null,
    units,
    startOdometer: base.startOdometer,
    endOdometer: base.endOdometer,
    distance: base.distance === null ? null : round1(base.distance),
    socStart: base.socStart,
    socEnd: base.socEnd,
    energyUsed: base.energyUsed,
    energyRecovered: base.energyRecovered,
    maxSpeed: maxOf(lives.map((m) => m.maxSpeed)) ?? base.maxSpeed,
    from: base.from ?? first?.from ?? null,
    to: base.to ?? last?.to ?? null,
    fromPlace: null,
    toPlace: null,
    source: g.log ? 'log' : 'live',
    path: path.slice(),
  };
}

function thinAll<T>(points: T[]): T[] {
  let p = points;
  while (p.length > MAX_POINTS) p = thin(p, MAX_POINTS);
  return p;
}

export function chargeSession(g: Group<ChargeMember>): ChargeSession {
  const lives = g.lives;
  const base = g.log ?? lives[0] ?? (g.inferred[0] as ChargeMember);
  const samples = lives.length === 1 ? (lives[0] as ChargeMember).samples : thinAll(lives.flatMap((m) => m.samples));
  const maxPower = maxOf(lives.map((m) => m.maxPower)) ?? base.maxPower;
  let kind = base.chargeKind;
  if (g.log) {
    kind = g.log.chargeKind ?? (lives.some((m) => m.chargeKind === 'dc') ? 'dc' : (lives[0]?.chargeKind ?? null));
    if (kind === null) kind = averagePower(g.log) > DC_POWER ? 'dc' : 'ac';
  }
  return {
    session: 'charge',
    key: g.key,
    start: base.start,
    end: base.end,
    soh: base.soh ?? lives[lives.length - 1]?.soh ?? null,
    socStart: base.socStart,
    socEnd: base.socEnd,
    energyAdded: base.energyAdded,
    energyFromGrid: base.energyFromGrid,
    maxPower,
    chargeKind: kind,
    at: base.at ?? lives[0]?.at ?? g.inferred[0]?.at ?? null,
    place: null,
    cost: null,
    currency: null,
    source: g.log ? 'log' : lives.length ? 'live' : 'inferred',
    samples: samples.slice(),
  };
}

/** kW over the whole charge: energy ÷ duration (0 when either is unknown). */
function averagePower(m: ChargeMember): number {
  const hours = ((m.end ?? m.seen) - m.start) / 3600;
  return m.energyAdded !== null && hours > 0 ? m.energyAdded / hours : 0;
}

/** A compact fingerprint of a session: its figures and the extent of its route or samples. */
export function signature(s: DriveSession | ChargeSession): string {
  const series: readonly { t: number }[] = s.session === 'drive' ? s.path : s.samples;
  const figures = JSON.stringify(s, (k, v: unknown) => (k === 'path' || k === 'samples' ? undefined : v));
  // hashed: each open session's signature is kept in memory and in its checkpoint
  return textHash(figures + `|${series.length}|${series[0]?.t ?? ''}|${series[series.length - 1]?.t ?? ''}`);
}
