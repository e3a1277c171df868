/**
 * Time-of-use windows: which price applies at an instant, and how an even flow of energy over a
 * span of time divides among the prices (docs/web-api.md "Places"). Windows follow the wall clock
 * of the place's time zone, across midnight and across DST changes.
 */
import type { TariffWindow } from './types.js';
import { offsetAt, offsetChanges } from './zoned-time.js';

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes since midnight of an `HH:MM` text (00:00–23:59), null when it is not one. */
export function parseHhmm(text: string): number | null {
  const m = HHMM.exec(text);
  return m === null ? null : Number(m[1]) * 60 + Number(m[2]);
}

interface Window {
  from: number;
  to: number;
  price: number;
}

/** The windows in seconds of the day; unreadable ones are left out (checkPlace refuses them). */
function windowsOf(list: readonly TariffWindow[]): Window[] {
  const out: Window[] = [];
  for (const w of list) {
    const from = parseHhmm(w.from);
    const to = parseHhmm(w.to);
    if (from !== null && to !== null) out.push({ from: from * 60, to: to * 60, price: w.pricePerKwh });
  }
  return out;
}

/** The price at a second of the local day: the first window holding it, else the base price. */
function priceAtSecond(sod: number, windows: readonly Window[], base: number): number {
  for (const w of windows) {
    // `to` at or before `from` spans midnight (equal: the whole day)
    const inside = w.to > w.from ? sod >= w.from && sod < w.to : sod >= w.from || sod < w.to;
    if (inside) return w.price;
  }
  return base;
}

/** The price per kWh at instant `t` in zone `tz`. */
export function priceAt(t: number, tz: string, base: number, list: readonly TariffWindow[]): number {
  const local = t + offsetAt(t, tz);
  return priceAtSecond(mod(local, 86400), windowsOf(list), base);
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** A span of time (epoch seconds, [a, b)) with one price per kWh. */
export interface PriceSpan {
  a: number;
  b: number;
  price: number;
}

/**
 * The prices over [a, b]: the span cut where the wall clock crosses a window's edge or the zone's
 * offset changes, neighbours of the same price joined. Within a piece of fixed offset the wall
 * clock is the instant plus the offset, so the edges fall at known instants.
 */
export function priceSpans(a: number, b: number, tz: string, base: number, list: readonly TariffWindow[]): PriceSpan[] {
  const windows = windowsOf(list);
  if (windows.length === 0 || b <= a) return [{ a, b: Math.max(a, b), price: windows.length === 0 ? base : priceAt(a, tz, base, list) }];
  const edges = [...new Set(windows.flatMap((w) => [w.from, w.to]))].sort((x, y) => x - y);
  const cuts = [a, ...offsetChanges(a, b, tz).filter((t) => t < b), b];
  const out: PriceSpan[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const off = offsetAt(cuts[i]!, tz);
    let cursor = cuts[i]! + off;
    const end = cuts[i + 1]! + off;
    while (cursor < end) {
      const sod = mod(cursor, 86400);
      const next = edges.find((e) => e > sod) ?? 86400;
      const stop = Math.min(end, cursor - sod + next);
      const price = priceAtSecond(sod, windows, base);
      const last = out[out.length - 1];
      if (last !== undefined && last.price === price && last.b === cursor - off) last.b = stop - off;
      else out.push({ a: cursor - off, b: stop - off, price });
      cursor = stop;
    }
  }
  return out;
}

/**
 * The cost of `kwh` flowing evenly over [a, b] under `spans` (which cover it; sorted): each piece
 * pays its price for its share of the energy. A span of no length pays the price of its instant.
 * `from` is the index of a span at or before `a` (a walk over sorted intervals passes it on).
 */
export function costOver(kwh: number, a: number, b: number, spans: readonly PriceSpan[], from = 0): { cost: number; index: number } {
  let i = from;
  while (i + 1 < spans.length && spans[i]!.b <= a) i++;
  if (kwh === 0) return { cost: 0, index: i };
  if (b <= a) return { cost: kwh * spans[i]!.price, index: i };
  let cost = 0;
  let j = i;
  for (; j < spans.length && spans[j]!.a < b; j++) {
    const lo = Math.max(a, spans[j]!.a);
    const hi = Math.min(b, spans[j]!.b);
    if (hi > lo) cost += ((kwh * (hi - lo)) / (b - a)) * spans[j]!.price;
  }
  return { cost, index: i };
}

/** The cost of `kwh` flowing evenly over [a, b] at a place's prices. */
export function spreadCost(kwh: number, a: number, b: number, tz: string, base: number, list: readonly TariffWindow[]): number {
  return costOver(kwh, a, b, priceSpans(a, b, tz, base, list)).cost;
}
