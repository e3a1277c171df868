/**
 * The owner's delivery settings for alerts (issue 30): quiet hours, during which alerts are logged
 * and held until they end, and the collapse of repeats (the same text from the same car within
 * 60 s is sent once). Pure: the time is passed in (epoch seconds).
 */
import { parseHhmm } from '../drives/tariff.js';
import { addToDate, canonicalZone, wallTime, zonedToEpoch } from '../drives/zoned-time.js';

/** Quiet hours on the wall clock of `timezone`; `to` at or before `from` spans midnight. */
export interface QuietHours {
  /** `HH:MM` */
  from: string;
  /** `HH:MM` */
  to: string;
  /** IANA time zone. */
  timezone: string;
}

export type QuietCheck = { ok: true; quiet: QuietHours } | { ok: false; field: string; message: string };

/** Quiet hours from a request body, or the first bad field (`from`, `to`, `timezone`). */
export function checkQuietHours(body: unknown): QuietCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, field: 'body', message: 'the body must be a JSON object' };
  const b = body as Record<string, unknown>;
  for (const edge of ['from', 'to'] as const) {
    const v = b[edge];
    if (typeof v !== 'string' || parseHhmm(v) === null) return { ok: false, field: edge, message: `${edge} must be a time HH:MM (00:00–23:59)` };
  }
  const zone = typeof b.timezone === 'string' ? canonicalZone(b.timezone) : null;
  if (zone === null) return { ok: false, field: 'timezone', message: 'timezone must be an IANA time zone such as Europe/Berlin' };
  return { ok: true, quiet: { from: b.from as string, to: b.to as string, timezone: zone } };
}

/**
 * Whether `now` falls in the quiet hours: the local wall time is at or after `from` and before
 * `to` (across midnight when `to` ≤ `from`). `from` equal to `to` means no quiet hours. Unreadable
 * settings (checkQuietHours refuses them) mean none too.
 */
export function inQuietHours(q: QuietHours | null, now: number): boolean {
  if (q === null) return false;
  const from = parseHhmm(q.from);
  const to = parseHhmm(q.to);
  if (from === null || to === null || from === to || canonicalZone(q.timezone) === null) return false;
  const w = wallTime(now, q.timezone);
  const minute = w.hour * 60 + w.minute;
  return to > from ? minute >= from && minute < to : minute >= from || minute < to;
}

/**
 * When the quiet hours that hold `now` end: the first instant after `now` at which the local clock
 * shows `to` (epoch seconds); null when `now` is not in quiet hours. A `to` the spring change
 * skips ends them when the clock jumps over it; one the autumn change shows twice ends them the
 * first time.
 */
export function quietEnds(q: QuietHours | null, now: number): number | null {
  if (q === null || !inQuietHours(q, now)) return null;
  const to = parseHhmm(q.to) as number;
  const today = wallTime(now, q.timezone);
  for (let d = 0; d <= 2; d++) {
    const day = addToDate(today, d);
    const t = zonedToEpoch({ ...day, hour: Math.floor(to / 60), minute: to % 60, second: 0 }, q.timezone);
    if (t > now) return t;
  }
  return null; // not reached: quiet hours last less than a day
}

/** Seconds within which the same text from the same car is a repeat. */
export const COLLAPSE_SECONDS = 60;

/** An alert text sent for a car, and when. */
export interface SentText {
  vehicleId: string;
  text: string;
  time: number;
}

/** Whether the same text from the same car was sent within the last 60 s (at or after now − 60). */
export function collapse(recentSent: readonly SentText[], vehicleId: string, text: string, now: number): boolean {
  return recentSent.some((s) => s.vehicleId === vehicleId && s.text === text && s.time <= now && now - s.time <= COLLAPSE_SECONDS);
}

/** The list after sending `text` at `now`, without the entries too old to collapse anything (a new array). */
export function rememberSent(recentSent: readonly SentText[], vehicleId: string, text: string, now: number): SentText[] {
  const kept = recentSent.filter((s) => now - s.time <= COLLAPSE_SECONDS);
  kept.push({ vehicleId, text, time: now });
  return kept;
}
