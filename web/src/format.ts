/** Formatting of values for the page: numbers from API v2 strings, ages, times, units. */
import type { LinkKind } from './types';

export const DASH = '—';

/** A number from an API value (`"80.5"`, 80.5); null when absent or not a number. */
export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** `12.3 unit` with at most `digits` decimals (a no-break space: never "100" and "%" on two lines), or a dash. */
export function fmt(v: unknown, unit = '', digits = 1): string {
  const n = num(v);
  if (n === null) return DASH;
  const text = n.toLocaleString(undefined, { maximumFractionDigits: digits });
  return unit ? `${text}\u00a0${unit}` : text;
}

/** A string field of an API v2 body, or a dash. */
export function str(v: unknown): string {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : DASH;
}

/** The distance unit of a `units` value (`K` kilometres, `M` miles). */
export function distanceUnit(units: unknown): string {
  return units === 'M' ? 'mi' : 'km';
}

/** Human age of the last update: "12 s", "5 min", "3 h", "2 d". */
export function ageText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return 'never';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/** A duration: "45 s", "12 min", "1 h 05 min". */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/** The link of a vehicle as the dashboard names it. */
export function linkLabel(link: LinkKind | undefined, online = link !== null): string {
  if (!online || !link) return 'offline';
  if (link === 'v2') return 'v2';
  if (link === 'mqtt') return 'MQTT';
  return 'both';
}

export function linkTitle(link: LinkKind | undefined, online = link !== null): string {
  if (!online || !link) return 'Not connected';
  if (link === 'v2+mqtt') return 'Connected over the v2 protocol and MQTT';
  return link === 'v2' ? 'Connected over the v2 protocol' : 'Connected over MQTT (v3 module)';
}

/** Epoch seconds of a time given as epoch seconds, an ISO string or API v2 `YYYY-MM-DD HH:MM:SS` (UTC). */
export function epochOf(t: unknown): number | null {
  if (typeof t === 'number') return Number.isFinite(t) ? (t > 1e12 ? t / 1000 : t) : null;
  if (typeof t !== 'string' || t === '') return null;
  if (/^\d+(\.\d+)?$/.test(t)) return epochOf(Number(t));
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(t);
  if (m) return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : ms / 1000;
}

/** Local time of day, e.g. 14:03:27. */
export function timeText(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Local date and time, e.g. 22/11/2026, 14:03. */
export function dateTimeText(epochSeconds: number, seconds = false): string {
  return new Date(epochSeconds * 1000).toLocaleString(undefined, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
  });
}

/** An API v2 UTC time `YYYY-MM-DD HH:MM:SS` shown in local time; the text as is when it does not parse. */
export function utcText(t: unknown): string {
  const e = epochOf(t);
  return e === null ? str(t) : dateTimeText(e);
}

/** `YYYY-MM-DD HH:MM:SS` in UTC (the `since` of API v2). */
export function utcStamp(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The value of a datetime-local input for an epoch time (local). */
export function localInputValue(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
