/**
 * The alert engine of one vehicle (issue 30): `evaluate(state, rules, input, now, car)` gives the
 * next state and the alerts fired. Pure and deterministic; the state is plain JSON (checkpoint it
 * after each evaluation and restore it after a restart or failover: what fired is in it, so
 * nothing fires twice). The given state is never changed.
 *
 * When each kind fires (every input, ticks included, checks the waits at `now`):
 * - soc-reached: while charging, the SOC at or above the threshold, once per charge, and only if
 *   the SOC was seen below the threshold since it last fired (plugging in above it tells nothing).
 *   A new charge re-arms it; a resume within 120 s (FLAP_SECONDS) is the same charge.
 * - soc-below: the SOC below the threshold while not charging; once, re-armed when the SOC is
 *   back at threshold + 1 (hysteresis of 1 point) or more. A rule created while the SOC is already
 *   below fires at the next input.
 * - charge-started: a charging state after a non-charging one (not a resume within 120 s; not the
 *   very first state the engine sees, which may be hours into a charge).
 * - charge-done: the charge state goes from charging to `done` (or to `done` within an hour of a
 *   stop, with no charging between: DONE_AFTER_STOP_SECONDS).
 * - charge-stopped: a charging state followed by one that is neither charging nor `done`, and no
 *   charging state within `after` seconds; once per stop. `done` cancels a pending stop. A stop
 *   already pending when the rule is created (or changed) does not fire it.
 * - offline: no link for `after` seconds (a record counts as a link); once per outage, and then
 *   `online` (kind `online`, the same rule id) when the link comes back. Never online without offline.
 *   A rule created while the car has been offline that long fires at the next input. The engine
 *   knows the link only from its inputs: after a restart the wiring tells it the link as it is
 *   (`{type:'link', online:false, since: lastSeen}` for a car not connected).
 * - place-arrive / place-leave: the position enters the place's circle (distance ≤ radius) /
 *   leaves it (distance > radius + margin, the margin 10 % of the radius and at least 25 m). The
 *   first position decides where the car is without firing.
 * - v12-low: the 12 V reading below the threshold for `after` seconds (the last reading counts
 *   until the next); once, re-armed when a reading is at threshold + 0.2 V or more.
 * - drive-report: each finished drive, once per drive key.
 * Rules fire in the order given. A rule whose settings change starts afresh; state of rules no
 * longer given is dropped.
 */
import { distanceMetres } from '../drives/places.js';
import { driveEnergy } from '../drives/battery.js';
import type { DistanceUnits, DriveSession } from '../drives/types.js';
import { driveText, socText, texts, type Alert, type AlertKind, type VehicleShow } from './alert.js';
import { applyInput, emptyFacts, type AlertInput, type CarFacts, type Changes } from './facts.js';
import { ruleSignature, type AlertRule } from './rules.js';

export type { AlertInput } from './facts.js';

/** SOC points above the threshold that re-arm soc-below. */
export const SOC_HYSTERESIS = 1;
/** Volts above the threshold that re-arm v12-low. */
export const V12_HYSTERESIS = 0.2;
/** The margin outside a place's circle before the car has left it: 10 % of the radius, at least this (m). */
export const PLACE_MARGIN_MIN = 25;
export const PLACE_MARGIN_SHARE = 0.1;
/** Drive keys remembered per drive-report rule. */
const DRIVE_KEYS = 32;

/** Per-rule memory (JSON). Fields a kind does not use stay at their initial values. */
export interface RuleMemo {
  /** The settings it was made for (rules.ts ruleSignature). */
  sig: string;
  /** soc-below, offline, v12-low: fired and not re-armed yet. */
  fired: boolean;
  /** soc-reached: the SOC was below the threshold since it last fired. */
  below: boolean;
  /** soc-reached: the charge (chargeSeq) it fired in. */
  seq: number | null;
  /** charge-stopped: the stop (its time) it fired for; v12-low: since when the reading is low. */
  at: number | null;
  /** place rules: inside the circle; null until a position decides. */
  inside: boolean | null;
  /** drive-report: the keys of the drives reported, newest last. */
  keys: string[];
}

export interface AlertState {
  v: 1;
  facts: CarFacts;
  memos: Record<string, RuleMemo>;
}

/** A place as the engine needs it (drives/types.ts Place fits). */
export interface AlertPlace {
  id: number;
  name: string;
  lat: number;
  lon: number;
  /** Metres. */
  radius: number;
}

/** The car and its owner's places, as the texts and place rules need them. */
export interface AlertContext extends VehicleShow {
  vehicleId: string;
  places: readonly AlertPlace[];
  /** Usable battery capacity (kWh) for a drive's energy when the car reports none; null when unknown. */
  capacity?: number | null;
}

export interface Evaluation {
  state: AlertState;
  fired: Alert[];
  /** Whether the state must be saved before the alerts are raised (see `evaluate`). */
  changed: boolean;
}

export function emptyAlertState(): AlertState {
  return { v: 1, facts: emptyFacts(), memos: {} };
}

function newMemo(rule: AlertRule, f: CarFacts): RuleMemo {
  const below = (rule.kind === 'soc-reached' || rule.kind === 'soc-below') && f.soc !== null && f.soc < rule.threshold;
  // a stop seen before the rule existed (or changed) is not its to tell
  const at = rule.kind === 'charge-stopped' ? (f.stop?.at ?? null) : null;
  return { sig: ruleSignature(rule), fired: false, below, seq: null, at, inside: null, keys: [] };
}

/** A deep copy (the state is plain JSON; this is what JSON.parse(JSON.stringify()) gives, cheaper). */
function copyState(s: AlertState): AlertState {
  const f = s.facts;
  const facts: CarFacts = { ...f, stop: f.stop === null ? null : { ...f.stop }, pos: f.pos === null ? null : { ...f.pos } };
  const memos: Record<string, RuleMemo> = {};
  for (const [id, m] of Object.entries(s.memos)) memos[id] = { ...m, keys: m.keys.slice() };
  return { v: s.v, facts, memos };
}

/** The place margin (m) of a circle of `radius` m. */
export function placeMargin(radius: number): number {
  return Math.max(PLACE_MARGIN_MIN, PLACE_MARGIN_SHARE * radius);
}

interface Step {
  rule: AlertRule;
  m: RuleMemo;
  f: CarFacts;
  c: Changes;
  input: AlertInput;
  now: number;
  car: AlertContext;
  fire: (kind: AlertKind, text: string) => void;
}

const soc = (f: CarFacts, car: AlertContext): string => socText(f.soc ?? 0, f.range, f.units, car);

function socRules(s: Step, threshold: number): void {
  const { m, f } = s;
  if (f.soc === null) return;
  if (s.rule.kind === 'soc-reached') {
    if (f.soc < threshold) m.below = true;
    // 0 % is reached by every charge (no SOC is below it): once per charge
    else if (f.charging === true && (m.below || threshold <= 0) && m.seq !== f.chargeSeq) {
      m.seq = f.chargeSeq;
      m.below = false;
      s.fire('soc-reached', texts.socReached(s.car, soc(f, s.car)));
    }
    return;
  }
  // re-armed above the threshold (at 100 % for a threshold of 100: no SOC is above it)
  if (f.soc >= Math.min(threshold + SOC_HYSTERESIS, 100)) m.fired = false;
  else if (f.soc < threshold && f.charging !== true && !m.fired) {
    m.fired = true;
    s.fire('soc-below', texts.socBelow(s.car, soc(f, s.car)));
  }
}

function placeRule(s: Step, placeId: number): void {
  const place = s.car.places.find((p) => p.id === placeId);
  const pos = s.f.pos;
  if (place === undefined || pos === null || !s.c.position) return;
  const d = distanceMetres(pos, place);
  const band = d > place.radius && d <= place.radius + placeMargin(place.radius);
  // a first position in the margin counts as outside: the car's next position inside is an arrival
  const inside = d <= place.radius ? true : band && s.m.inside !== null ? null : false;
  if (inside === null || inside === s.m.inside) return;
  const was = s.m.inside;
  s.m.inside = inside;
  if (was === null) return;
  if (inside && s.rule.kind === 'place-arrive') s.fire('place-arrive', texts.arrived(s.car, place.name));
  if (!inside && s.rule.kind === 'place-leave') s.fire('place-leave', texts.left(s.car, place.name));
}

function v12Rule(s: Step, threshold: number, after: number): void {
  const { m, f } = s;
  if (s.c.v12 && f.v12 !== null) {
    if (f.v12 < threshold) m.at ??= s.now;
    else m.at = null;
    if (f.v12 >= threshold + V12_HYSTERESIS) m.fired = false;
  }
  if (m.at !== null && !m.fired && f.v12 !== null && s.now - m.at >= after) {
    m.fired = true;
    s.fire('v12-low', texts.v12Low(s.car, f.v12));
  }
}

function driveReport(s: Step, d: DriveSession): void {
  if (d.end === null || s.m.keys.includes(d.key)) return;
  s.m.keys = [...s.m.keys, d.key].slice(-DRIVE_KEYS);
  const units: DistanceUnits = d.units;
  s.fire('drive-report', driveText(s.car, { distance: d.distance, units, duration: d.end - d.start, energy: driveEnergy(d, s.car.capacity ?? null) }));
}

function stepRule(s: Step): void {
  const { rule, m, f, c, now } = s;
  switch (rule.kind) {
    case 'soc-reached':
    case 'soc-below':
      socRules(s, rule.threshold);
      return;
    case 'charge-started':
      if (c.chargeStarted) s.fire('charge-started', texts.chargeStarted(s.car, f.soc));
      return;
    case 'charge-done':
      if (c.chargeDone) s.fire('charge-done', texts.chargeDone(s.car, f.soc === null ? null : soc(f, s.car)));
      return;
    case 'charge-stopped':
      if (f.stop !== null && m.at !== f.stop.at && now - f.stop.at >= rule.after) {
        m.at = f.stop.at;
        s.fire('charge-stopped', texts.chargeStopped(s.car, f.stop.soc));
      }
      return;
    case 'offline':
      if (c.cameOnline !== null && m.fired) {
        m.fired = false;
        s.fire('online', texts.online(s.car, now - c.cameOnline.offlineSince));
      }
      if (f.online === false && !m.fired && now - f.linkSince >= rule.after) {
        m.fired = true;
        // the outage as long as it is (a wait noticed late, after a crash, tells its real length)
        s.fire('offline', texts.offline(s.car, now - f.linkSince));
      }
      return;
    case 'place-arrive':
    case 'place-leave':
      placeRule(s, rule.place);
      return;
    case 'v12-low':
      v12Rule(s, rule.threshold, rule.after);
      return;
    case 'drive-report':
      if (s.input.type === 'drive') driveReport(s, s.input.drive);
      return;
  }
}

/** The `fired` of an evaluation that fired nothing (shared; never changed). */
const NOTHING_FIRED: Alert[] = [];

/** Options of `evaluate`. */
export interface EvaluateOptions {
  /**
   * Change the given state in place instead of a copy (the caller owns it and reads it again from
   * its store when a save fails). The default keeps the given state as it was.
   */
  inPlace?: boolean;
}

/** Signatures of the rules seen (a rule object's settings never change: the store gives new ones). */
const signatures = new WeakMap<AlertRule, string>();

function signatureOf(rule: AlertRule): string {
  let sig = signatures.get(rule);
  if (sig === undefined) {
    sig = ruleSignature(rule);
    signatures.set(rule, sig);
  }
  return sig;
}

/** The rules a memos object was last found to fit (the same rules array: no need to look again). */
const fitting = new WeakMap<Record<string, RuleMemo>, readonly AlertRule[]>();

/** The memos for `rules` (each rule's, or a fresh one when it is new or changed); the same object when nothing changed. */
function memosFor(state: AlertState, rules: readonly AlertRule[]): Record<string, RuleMemo> {
  const old = state.memos;
  if (fitting.get(old) === rules) return old;
  const memos = freshMemos(state, rules);
  fitting.set(memos, rules);
  return memos;
}

function freshMemos(state: AlertState, rules: readonly AlertRule[]): Record<string, RuleMemo> {
  const old = state.memos;
  let same = Object.keys(old).length === rules.length;
  for (let i = 0; same && i < rules.length; i++) {
    const rule = rules[i]!;
    same = old[rule.id]?.sig === signatureOf(rule);
  }
  if (same) return old;
  const memos: Record<string, RuleMemo> = {};
  for (const rule of rules) {
    const m = old[rule.id];
    memos[rule.id] = m !== undefined && m.sig === signatureOf(rule) ? m : newMemo(rule, state.facts);
  }
  return memos;
}


/** Whether a memo moved (its fields other than `sig`, which never changes for a kept memo). */
function memoMoved(m: RuleMemo, fired: boolean, below: boolean, seq: number | null, at: number | null, inside: boolean | null, keys: number): boolean {
  return m.fired !== fired || m.below !== below || m.seq !== seq || m.at !== at || m.inside !== inside || m.keys.length !== keys;
}

/**
 * One input for one vehicle at `now` (epoch seconds; inputs in time order): the next state and
 * the alerts fired, in rule order, and whether anything must be saved before they are raised
 * (`changed`: a memo, a new or changed rule, or a fact the rules decide on moved; false when the
 * input changed only readings such as the SOC, the 12 V or the position). `rules` are the
 * vehicle's rules as stored now.
 */
export function evaluate(state: AlertState, rules: readonly AlertRule[], input: AlertInput, now: number, car: AlertContext, opts: EvaluateOptions = {}): Evaluation {
  const next = opts.inPlace === true ? state : copyState(state);
  const memos = memosFor(next, rules);
  let changed = memos !== next.memos;
  next.memos = memos;
  // the facts that decide something, as they were before the input (no array per record)
  const f = next.facts;
  const { chargeState, charging, chargeSeq, online, linkSince, units } = f;
  const stopAt = f.stop?.at;
  const stopSoc = f.stop?.soc;
  const c = applyInput(f, input, now);
  changed ||=
    chargeState !== f.chargeState || charging !== f.charging || chargeSeq !== f.chargeSeq || online !== f.online ||
    linkSince !== f.linkSince || units !== f.units || stopAt !== f.stop?.at || stopSoc !== f.stop?.soc;
  let fired: Alert[] = NOTHING_FIRED;
  const step: Step = {
    rule: rules[0]!,
    m: undefined as unknown as RuleMemo,
    f,
    c,
    input,
    now,
    car,
    fire(kind, text) {
      if (fired === NOTHING_FIRED) fired = [];
      fired.push({ rule: this.rule.id, kind, vehicleId: car.vehicleId, time: now, text });
    },
  };
  for (const rule of rules) {
    const m = memos[rule.id] as RuleMemo;
    const { fired: f0, below, seq, at, inside } = m;
    const keys = m.keys.length;
    step.rule = rule;
    step.m = m;
    stepRule(step);
    if (!changed) changed = memoMoved(m, f0, below, seq, at, inside, keys);
  }
  return { state: next, fired, changed: changed || fired.length > 0 };
}

/**
 * The earliest time after `now` at which a tick could fire a wait (charge-stopped, offline,
 * v12-low), or null when none is pending: the wiring sets one timer for it instead of polling.
 */
export function nextWake(state: AlertState, rules: readonly AlertRule[], now: number): number | null {
  const f = state.facts;
  let best: number | null = null;
  const at = (t: number): void => {
    const due = Math.max(t, now);
    if (best === null || due < best) best = due;
  };
  for (const rule of rules) {
    const m = state.memos[String(rule.id)];
    if (m === undefined || m.sig !== signatureOf(rule)) continue;
    if (rule.kind === 'charge-stopped' && f.stop !== null && m.at !== f.stop.at) at(f.stop.at + rule.after);
    if (rule.kind === 'offline' && f.online === false && !m.fired) at(f.linkSince + rule.after);
    if (rule.kind === 'v12-low' && m.at !== null && !m.fired) at(m.at + rule.after);
  }
  return best;
}
