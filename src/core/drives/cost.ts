/**
 * What a charge cost at a place (docs/web-api.md "Places"): the energy billed × its price per kWh
 * (time-of-use windows divide the energy by the samples), plus minutes × the price per minute,
 * plus the session fee.
 */
import type { ChargeSample, ChargeSession, Place } from './types.js';
import { costOver, priceSpans } from './tariff.js';

type Priced = Pick<ChargeSession, 'start' | 'end' | 'energyAdded' | 'energyFromGrid' | 'samples'>;
type Tariff = Pick<Place, 'timezone' | 'pricePerKwh' | 'pricePerMinute' | 'sessionFee' | 'timeOfUse'>;

/** Rounds to cents (2 decimals), half away from zero, without binary surprises (1.005 → 1.01). */
export function roundCents(x: number): number {
  const abs = Math.abs(x);
  // below a tenth of a cent it is 0; from 1e15 on there are no cents to round (and String() of
  // either could be in exponent form, which the shift below cannot take)
  if (abs < 0.001) return 0;
  if (abs >= 1e15 || !Number.isFinite(abs)) return x;
  return Math.sign(x) * Number(`${Math.round(Number(`${abs}e2`))}e-2`);
}

/** The end of the priced span: the charge's end, or for an open charge its last sample (its start without one). */
export function pricedEnd(c: Priced): number {
  if (c.end !== null) return c.end;
  let last = c.start;
  for (const s of c.samples) if (s.t > last) last = s.t;
  return last;
}

/**
 * The energy billed: from the grid when known, else into the battery; for an open charge without
 * figures yet, the last sample's. The series its samples follow: `grid` when the grid is billed
 * and the samples carry it, else `energy`.
 */
function billed(c: Priced): { kwh: number | null; series: (s: ChargeSample) => number | null } {
  const lastOf = (pick: (s: ChargeSample) => number | null): number | null => {
    let best: ChargeSample | null = null;
    for (const s of c.samples) if (pick(s) !== null && (best === null || s.t >= best.t)) best = s;
    return best === null ? null : pick(best);
  };
  const grid = c.energyFromGrid ?? (c.end === null && c.energyAdded === null ? lastOf((s) => s.grid) : null);
  if (grid !== null) {
    const hasGrid = c.samples.some((s) => s.grid !== null);
    return { kwh: grid, series: hasGrid ? (s) => s.grid : (s) => s.energy };
  }
  const added = c.energyAdded ?? (c.end === null ? lastOf((s) => s.energy) : null);
  return { kwh: added, series: (s) => s.energy };
}

/**
 * The shape of the flow: cumulative points (t, value) from the start (value 0) through the samples
 * inside the span; each rise is a share of the energy over its interval. Falls count as nothing.
 * Null when the samples show no rise: the energy is then spread evenly.
 */
function flowShape(c: Priced, end: number, series: (s: ChargeSample) => number | null): { a: number; b: number; share: number }[] | null {
  const points = c.samples
    .filter((s) => series(s) !== null && s.t >= c.start && s.t <= end)
    .map((s) => ({ t: s.t, v: series(s)! }))
    .sort((x, y) => x.t - y.t);
  if (points.length === 0) return null;
  if (points[0]!.t > c.start) points.unshift({ t: c.start, v: 0 });
  const parts: { a: number; b: number; rise: number }[] = [];
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    const rise = Math.max(0, points[i]!.v - points[i - 1]!.v);
    if (rise > 0) parts.push({ a: points[i - 1]!.t, b: points[i]!.t, rise });
    total += rise;
  }
  if (total <= 0) return null;
  return parts.map((p) => ({ a: p.a, b: p.b, share: p.rise / total }));
}

/** The energy part of the cost, unrounded (null when the energy is unknown). */
export function energyCost(c: Priced, tariff: Tariff): number | null {
  const { kwh, series } = billed(c);
  if (kwh === null) return null;
  const end = pricedEnd(c);
  // the prices over the whole charge, found once; the intervals walk them in time order
  const spans = priceSpans(c.start, end, tariff.timezone, tariff.pricePerKwh, tariff.timeOfUse);
  const shape = flowShape(c, end, series);
  if (shape === null) return costOver(kwh, c.start, end, spans).cost;
  let cost = 0;
  let index = 0;
  for (const p of shape) {
    const step = costOver(kwh * p.share, p.a, p.b, spans, index);
    cost += step.cost;
    index = step.index;
  }
  return cost;
}

/**
 * The charge's cost at the place, rounded to cents. Null when the energy is unknown and the place
 * charges per kWh (a base price or a window above 0); a place that charges only per minute and per
 * session prices it anyway.
 */
export function chargeCost(c: Priced, tariff: Tariff): number | null {
  const perKwh = tariff.pricePerKwh > 0 || tariff.timeOfUse.some((w) => w.pricePerKwh > 0);
  const energy = energyCost(c, tariff);
  if (energy === null && perKwh) return null;
  const minutes = (pricedEnd(c) - c.start) / 60;
  return roundCents((energy ?? 0) + minutes * tariff.pricePerMinute + tariff.sessionFee);
}
