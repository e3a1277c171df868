/**
 * Wall-clock time in an IANA time zone, from the runtime's own zone data (Intl, full ICU in
 * Node 20): epoch seconds to the local date and time, and back. Correct across DST changes: a
 * day may last 23 or 25 hours, a wall time may not exist (the spring gap) or exist twice (the
 * autumn fold).
 */

export interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  /** 1–31 */
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= 256) formatters.clear();
    formatters.set(tz, f);
  }
  return f;
}

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * The zone's name when `tz` is an IANA zone the runtime knows (`UTC` included), else null: as the
 * runtime spells it when that differs only in case, else as given (ICU would turn a current name
 * such as Asia/Kolkata into an older alias).
 */
export function canonicalZone(tz: string): string | null {
  if (tz.length === 0 || tz.length > 64 || !ZONE_NAME.test(tz)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
  } catch {
    return null;
  }
}

/** The local date and time of `t` (epoch seconds) in `tz`. */
export function wallTime(t: number, tz: string): WallTime {
  const whole = Math.floor(t);
  const parts = formatter(tz).formatToParts(new Date(whole * 1000));
  const get = (type: Intl.DateTimeFormatPartTypes): number => {
    const p = parts.find((x) => x.type === type);
    return p === undefined ? 0 : Number(p.value);
  };
  let year = get('year');
  // en-US writes years before 1 AD with an era; vts's times are all after 1970
  if (parts.some((p) => p.type === 'era' && p.value.startsWith('B'))) year = 1 - year;
  return { year, month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** The wall time read as if it were UTC: seconds since 1970-01-01 00:00 local. */
export function wallSeconds(w: WallTime): number {
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) / 1000;
}

/** The zone's offset from UTC at `t`, in seconds (e.g. 7200 in Berlin in summer). */
export function offsetAt(t: number, tz: string): number {
  const whole = Math.floor(t);
  return wallSeconds(wallTime(whole, tz)) - whole;
}

/**
 * The instant at which the wall clock in `tz` shows `w`. A wall time shown twice (the autumn fold)
 * gives the earlier instant; one that does not exist (the spring gap) gives the instant the clock
 * jumps over it (the end of the gap), the first whose wall time is later.
 */
export function zonedToEpoch(w: WallTime, tz: string): number {
  const local = wallSeconds(w);
  // the offsets in force a day either side cover every candidate (zones change at most once a day);
  // the same offset on both sides: no change near, one answer
  const before = offsetAt(local - 86400, tz);
  const after = offsetAt(local + 86400, tz);
  if (before === after) return local - before;
  const offsets = [...new Set([before, offsetAt(local, tz), after])];
  const hits = offsets.map((o) => local - o).filter((t) => offsetAt(t, tz) === local - t);
  if (hits.length > 0) return Math.min(...hits);
  // in a gap: the change lies between the candidate instants; find it to the second
  const candidates = offsets.map((o) => local - o).sort((a, b) => a - b);
  let lo = candidates[0]!;
  let hi = candidates[candidates.length - 1]!;
  const first = offsetAt(lo, tz);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid, tz) === first) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The instants within (a, b] at which the zone's offset changes, each the first second of the new
 * offset. Looks a day at a time (no zone changes twice in a day).
 */
export function offsetChanges(a: number, b: number, tz: string): number[] {
  const out: number[] = [];
  let lo = a;
  let off = offsetAt(lo, tz);
  while (lo < b) {
    const end = Math.min(b, lo + 86400);
    const endOff = offsetAt(end, tz);
    if (endOff !== off) {
      let l = lo;
      let h = end;
      while (h - l > 1) {
        const mid = Math.floor((l + h) / 2);
        if (offsetAt(mid, tz) === off) l = mid;
        else h = mid;
      }
      out.push(h);
      off = endOff;
    }
    lo = end;
  }
  return out;
}

/** Local midnight that starts the day of `t` in `tz`. */
export function startOfDay(t: number, tz: string): number {
  const w = wallTime(t, tz);
  return zonedToEpoch({ year: w.year, month: w.month, day: w.day, hour: 0, minute: 0, second: 0 }, tz);
}

/** Adds whole calendar days, months or years to a local date (day overflow normalised as Date.UTC does). */
export function addToDate(w: WallTime, days: number, months = 0, years = 0): WallTime {
  const d = new Date(Date.UTC(w.year + years, w.month - 1 + months, w.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: w.hour, minute: w.minute, second: w.second };
}
