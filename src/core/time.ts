/** UTC date-time text as the reference writes it: `YYYY-MM-DD HH:MM:SS`. Times are epoch seconds. */

/**
 * Answers of many records (years of history) format a time each, nearly all different: a whole
 * time is put together from its day's text (remembered: records come day by day) and the time of
 * day from two tables, without a Date per record. Other times (fractions, before 1970, after
 * 9999) go through Date.
 */
const dayTexts = new Map<number, string>();
const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
/** `HH:` for each hour. */
const HOURS = Array.from({ length: 24 }, (_, h) => `${pad2(h)}:`);
/** `MM:SS` for each second of an hour. */
const MINUTES_SECONDS = Array.from({ length: 3600 }, (_, k) => `${pad2(Math.floor(k / 60))}:${pad2(k % 60)}`);
/** 10000-01-01 00:00:00 UTC: from there on the ISO text has six year digits. */
const YEAR_10000 = 253402300800;

export function formatUtc(epochSeconds: number): string {
  if (!Number.isInteger(epochSeconds) || epochSeconds < 0 || epochSeconds >= YEAR_10000) {
    const iso = new Date(epochSeconds * 1000).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  }
  const day = Math.floor(epochSeconds / 86400);
  let dayText = dayTexts.get(day);
  if (dayText === undefined) {
    dayText = `${new Date(day * 86_400_000).toISOString().slice(0, 10)} `;
    if (dayTexts.size >= 4096) dayTexts.clear();
    dayTexts.set(day, dayText);
  }
  const second = epochSeconds - day * 86400;
  const hour = Math.floor(second / 3600);
  return dayText + HOURS[hour]! + MINUTES_SECONDS[second - hour * 3600]!;
}

/** `YYYY-MM-DD` of an epoch-seconds time (UTC). */
export function utcDay(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}

/** Epoch seconds of the UTC midnight that starts the day of `epochSeconds`. */
export function startOfUtcDay(epochSeconds: number): number {
  return Math.floor(epochSeconds / 86400) * 86400;
}

const SINCE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Parses a `since` bound (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM[:SS]`, UTC) to epoch seconds. REF's
 * default `0000-00-00` means "everything" and gives -1 (before any stored time). Returns null when
 * malformed.
 */
export function parseSince(text: string): number | null {
  const m = SINCE.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((v) => v ?? '0') as string[];
  if (Number(y) === 0) return -1;
  const [Y, M, D, H, I, S] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(2000, M - 1, D, H, I, S));
  t.setUTCFullYear(Y, M - 1, D); // Date.UTC reads years 0–99 as 1900–1999
  const ms = t.getTime();
  // reject what Date.UTC would roll over (month 13, 30 February, hour 25)
  if (t.getUTCMonth() !== M - 1 || t.getUTCDate() !== D || H > 23 || I > 59 || S > 59) return null;
  return Math.floor(ms / 1000);
}
