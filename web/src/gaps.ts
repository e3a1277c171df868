/**
 * Lines that break where a series has no data: a chart of a car that was offline for hours must
 * not draw a slope across them. Pure (no DOM): the unit test imports it.
 *
 * Two consecutive values are a gap when they are further apart than 3× the series' median spacing
 * or than 30 minutes. The threshold never goes below 11 minutes: a parked car that no app watches
 * reports every 10 minutes, and those values are one line, not dots.
 */

/** A gap is never shorter than this (seconds). */
export const MIN_GAP = 11 * 60;
/** A gap is never longer than this (seconds). */
export const MAX_GAP = 30 * 60;
/** Above this many values a segment is thinned (per time bucket, its lowest and highest value). */
const MAX_POINTS = 1200;

export type Value = [number, number];
/** A value, or a break (`y` null) between two segments. */
export interface XY {
  x: number;
  y: number | null;
}

function median(sorted: number[]): number {
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The spacing (seconds) above which two consecutive times are a gap; `maxGap`: the longest spacing
 * that is never a gap whatever the median (Infinity for a series with a value a day, such as SOH).
 */
export function gapThreshold(times: readonly number[], maxGap = MAX_GAP): number {
  const steps: number[] = [];
  for (let i = 1; i < times.length; i++) steps.push(times[i]! - times[i - 1]!);
  steps.sort((a, b) => a - b);
  return Math.min(maxGap, Math.max(MIN_GAP, 3 * median(steps)));
}

/** The series cut at its gaps: runs of values, time-ordered. */
export function segments(points: readonly Value[], maxGap = MAX_GAP): Value[][] {
  const sorted = points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  if (sorted.length === 0) return [];
  const limit = gapThreshold(sorted.map((p) => p[0]), maxGap);
  const out: Value[][] = [[sorted[0]!]];
  for (let i = 1; i < sorted.length; i++) {
    const p = sorted[i]!;
    if (p[0] - sorted[i - 1]![0] > limit) out.push([p]);
    else out[out.length - 1]!.push(p);
  }
  return out;
}

/** At most about `max` values of a segment: per time bucket its lowest and highest, in time order. */
export function thin(seg: readonly Value[], max = MAX_POINTS): Value[] {
  if (seg.length <= max) return [...seg];
  const buckets = Math.max(1, Math.floor(max / 2));
  const t0 = seg[0]![0];
  const width = (seg[seg.length - 1]![0] - t0) / buckets || 1;
  const out: Value[] = [];
  let i = 0;
  for (let b = 0; b < buckets && i < seg.length; b++) {
    const end = b === buckets - 1 ? Number.POSITIVE_INFINITY : t0 + (b + 1) * width;
    let lo: Value | null = null;
    let hi: Value | null = null;
    for (; i < seg.length && seg[i]![0] < end; i++) {
      const p = seg[i]!;
      if (!lo || p[1] < lo[1]) lo = p;
      if (!hi || p[1] > hi[1]) hi = p;
    }
    if (lo && hi) out.push(...(lo === hi ? [lo] : lo[0] <= hi[0] ? [lo, hi] : [hi, lo]));
  }
  return out;
}

/**
 * The chart's data (x in ms): each segment thinned, a break (`y: null`) between two segments.
 * `alone`: the indexes of values with no neighbour in their segment (drawn as a dot).
 */
export function withBreaks(points: readonly Value[], maxGap = MAX_GAP): { data: XY[]; alone: Set<number> } {
  const data: XY[] = [];
  const alone = new Set<number>();
  for (const seg of segments(points, maxGap)) {
    if (data.length) data.push({ x: (data[data.length - 1]!.x + seg[0]![0] * 1000) / 2, y: null });
    const thinned = thin(seg);
    if (thinned.length === 1) alone.add(data.length);
    for (const [t, v] of thinned) data.push({ x: t * 1000, y: v });
  }
  return { data, alone };
}
