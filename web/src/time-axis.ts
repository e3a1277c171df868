/**
 * The time axis of the history charts: which part of a period to show, and ticks at round local
 * times that leave room between their labels. Pure (no DOM): the unit test imports it.
 */

/** Tick steps in minutes; they divide a day, or are whole days. */
const STEPS_MIN = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080];

/** The narrowest span shown (seconds), so that a few values do not fill the chart from edge to edge. */
export const MIN_SPAN = 1800;

/**
 * The step (minutes) for a span: the smallest giving at most `maxTicks` ticks, but small enough
 * for two ticks at least (a span of two steps holds two round times whatever its start).
 */
export function tickStep(spanSeconds: number, maxTicks: number): number {
  const limit = Math.max(2, Math.floor(maxTicks));
  const step = STEPS_MIN.find((m) => spanSeconds / (m * 60) <= limit) ?? STEPS_MIN[STEPS_MIN.length - 1]!;
  if (spanSeconds >= 2 * step * 60) return step;
  const two = STEPS_MIN.filter((m) => spanSeconds >= 2 * m * 60);
  return two[two.length - 1] ?? STEPS_MIN[0]!;
}

/** How many labels of `labelWidth` pixels fit side by side in `width` pixels, with `gap` between them. */
export function ticksThatFit(width: number, labelWidth: number, gap = 24): number {
  return Math.max(2, Math.floor((width + gap) / (labelWidth + gap)));
}

/** Ticks (epoch ms) at round local times (whole hours, midnights) between two epoch-second times. */
export function timeTicks(from: number, to: number, maxTicks = 8): number[] {
  const step = tickStep(to - from, maxTicks);
  const d = new Date(from * 1000);
  d.setHours(0, 0, 0, 0); // local midnight: the steps divide a day (or are whole days)
  const ticks: number[] = [];
  while (d.getTime() <= to * 1000) {
    if (d.getTime() >= from * 1000) ticks.push(d.getTime());
    d.setMinutes(d.getMinutes() + step); // wall-clock steps, also across daylight-saving changes
  }
  return ticks;
}

/** The label of a tick: the time of day, with the date when the span is longer than 36 hours. */
export function tickLabel(ms: number, spanSeconds: number): string {
  const d = new Date(ms);
  const hm = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return spanSeconds > 36 * 3600 ? `${d.toLocaleDateString(undefined, { day: '2-digit', month: '2-digit' })} ${hm}` : hm;
}

export interface Span {
  from: number;
  to: number;
}

/**
 * The part of a period that a chart shows: from the first to the last value in it, widened to
 * `minSpan` seconds (inside the period) when the values are closer together; the whole period
 * when it has none.
 */
export function fitSpan(period: Span, first: number | null, last: number | null, minSpan = MIN_SPAN): Span {
  if (first === null || last === null) return period;
  let from = Math.max(period.from, Math.min(first, last));
  let to = Math.min(period.to, Math.max(first, last));
  const need = minSpan - (to - from);
  if (need > 0) {
    to = Math.min(period.to, to + need / 2);
    from = Math.max(period.from, to - minSpan);
    to = Math.min(period.to, from + minSpan);
  }
  return { from: Math.floor(from), to: Math.ceil(to) };
}

/** The first and last time among lists of `[time, …]` points (null, null when there are none). */
export function extent(lists: readonly (readonly (readonly number[])[] | undefined)[]): { first: number | null; last: number | null } {
  let first: number | null = null;
  let last: number | null = null;
  for (const list of lists) {
    for (const p of list ?? []) {
      const t = p[0];
      if (t === undefined || !Number.isFinite(t)) continue;
      if (first === null || t < first) first = t;
      if (last === null || t > last) last = t;
    }
  }
  return { first, last };
}
