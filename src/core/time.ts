/** UTC date-time text as the reference writes it: `YYYY-MM-DD HH:MM:SS`. Times are epoch seconds. */

/** The same stored times are formatted again on every poll: the recent ones are remembered. */
const formatted = new Map<number, string>();

export function formatUtc(epochSeconds: number): string {
  let text = formatted.get(epochSeconds);
  if (text === undefined) {
    const iso = new Date(epochSeconds * 1000).toISOString();
    text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
    if (formatted.size >= 4096) formatted.clear();
    formatted.set(epochSeconds, text);
  }
  return text;
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
