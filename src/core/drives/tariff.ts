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

/**
 * The cost of `kwh` flowing evenly over [a, b] (epoch seconds): the span is cut where the wall
 * clock crosses a window's edge or the zone's offset changes, and each piece pays its price for
 * its share of the energy. A span of no length pays the price of its instant.
 */
export function spreadCost(kwh: number, a: number, b: number, tz: string, base: number, list: readonly TariffWindow[]): number {
  if (kwh === 0) return 0;
  const windows = windowsOf(list);
  if (windows.length === 0) return kwh * base;
  if (b <= a) return kwh * priceAtSecond(mod(a + offsetAt(a, tz), 86400), windows, base);
  const edges = [...new Set(windows.flatMap((w) => [w.from, w.to]))].sort((x, y) => x - y);
  const cuts = [a, ...offsetChanges(a, b, tz).filter((t) => t < b), b];
  let cost = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    // within a piece the offset is fixed: the wall clock is the instant plus the offset
    const pa = cuts[i]!;
    const pb = cuts[i + 1]!;
    const off = offsetAt(pa, tz);
    let cursor = pa + off;
    const end = pb + off;
    while (cursor < end) {
      const sod = mod(cursor, 86400);
      const next = edges.find((e) => e > sod) ?? 86400;
      const stop = Math.min(end, cursor - sod + next);
      cost += (kwh * (stop - cursor)) / (b - a) * priceAtSecond(sod, windows, base);
      cursor = stop;
    }
  }
  return cost;
}
