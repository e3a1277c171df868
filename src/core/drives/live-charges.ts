/**
 * Charges and inferred charges from the live `S` records (the rules are in live.ts's header).
 */
import { CHARGING_STATES, counterStep, isDcText, metres, round3, thin, type SFields } from './log-fields.js';
import { DC_POWER, MAX_POINTS, type ChargeMember } from './merge.js';
import { FLAP_SECONDS, SAME_PLACE_METRES } from './log-sessions.js';
import type { Gap, LiveState, OpenCharge } from './live-state.js';

/** SOC points gained across a gap that make an inferred charge. */
export const INFERRED_SOC = 3;

export function chargeMember(c: OpenCharge, end: number | null): ChargeMember {
  return {
    start: c.start,
    end,
    seen: c.lastRecord,
    socStart: c.socStart,
    socEnd: c.socEnd,
    energyAdded: c.kwh === null ? null : round3(c.kwh),
    energyFromGrid: c.grid !== null && c.grid > 0 ? round3(c.grid) : null,
    maxPower: c.maxPower,
    chargeKind: c.dc || (c.maxPower ?? 0) > DC_POWER ? 'dc' : 'ac',
    at: c.at,
    soh: c.soh,
    samples: c.samples.slice(),
  };
}

export function closeCharge(s: LiveState, end: number): void {
  const c = s.charge;
  if (!c) return;
  s.charge = null;
  const gained = (c.kwh ?? 0) > 0 || (c.socEnd ?? 0) - (c.socStart ?? 0) > 0;
  if (gained) s.charges.push(chargeMember(c, end));
  if (gained || c.snap) s.dirty = true;
}

/** Decides a pending gap: an inferred charge or nothing (`force`: with what is known now). */
export function settle(s: LiveState, force: boolean): void {
  const g = s.gap as Gap;
  if (!force && (g.soc1 === null || (g.odo1 === null && g.odo0 !== null))) return;
  s.gap = null;
  const still = g.odo0 === null || g.odo1 === null || Math.abs(g.odo1 - g.odo0) < 1;
  if (g.soc1 === null || g.charging || !still || g.soc1 - g.soc0 < INFERRED_SOC) return;
  s.inferred.push({
    start: g.g0,
    end: g.g1,
    seen: g.g1,
    socStart: g.soc0,
    socEnd: g.soc1,
    energyAdded: null,
    energyFromGrid: null,
    maxPower: null,
    chargeKind: null,
    at: g.pos0,
    soh: g.soh,
    samples: [],
  });
  s.dirty = true;
}

/** The charge side of an `S`. */
export function onCharge(s: LiveState, t: number, f: SFields): void {
  if (f.chargeState === null) return;
  const charging = CHARGING_STATES.has(f.chargeState);
  let c = s.charge;
  if (c && c.stopAt !== null && charging) {
    const here = c.at === null || s.pos === null || metres(c.at, s.pos) <= SAME_PLACE_METRES;
    if (t - c.stopAt <= FLAP_SECONDS && here) c.stopAt = null;
    else closeCharge(s, c.stopAt);
  }
  c = s.charge;
  if (!c && charging) {
    c = s.charge = {
      start: t,
      lastRecord: t,
      stopAt: null,
      socStart: s.soc,
      socEnd: s.soc,
      kwh: null,
      kwhPrev: 0,
      grid: null,
      gridPrev: 0,
      maxPower: null,
      dc: false,
      at: s.pos,
      soh: s.soh,
      samples: [],
      snap: null,
      snapAt: t,
      changed: false,
    };
  }
  if (!c || c.stopAt !== null) return;
  c.socEnd = s.soc;
  c.soh = s.soh;
  c.changed = true;
  if (f.chargedKwh !== null) {
    c.kwh = (c.kwh ?? 0) + counterStep(c.kwhPrev, f.chargedKwh);
    c.kwhPrev = f.chargedKwh;
  }
  if (f.gridKwh !== null) {
    c.grid = (c.grid ?? 0) + counterStep(c.gridPrev, f.gridKwh);
    c.gridPrev = f.gridKwh;
  }
  if (!charging) {
    c.stopAt = t;
    return;
  }
  if (f.power !== null && f.power > 0) c.maxPower = Math.max(c.maxPower ?? 0, f.power);
  if (isDcText(f.chargeMode)) c.dc = true;
  c.samples.push({ t, soc: s.soc, power: f.power, energy: c.kwh === null ? null : round3(c.kwh), grid: c.grid === null ? null : round3(c.grid) });
  c.samples = thin(c.samples, MAX_POINTS);
}
