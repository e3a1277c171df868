/**
 * The firmware's C number parsing, as the console commands and the metric setters read numbers:
 * whatever leads the text counts, the rest is ignored, and no number at all is 0.
 */

/** C's `atoi`: leading blanks, an optional sign, digits; 0 when there are none. */
export function atoi(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m ? Math.trunc(Number(m[1])) : 0;
}

/** C's `atof` (decimal forms only); 0 when there is no number. */
export function atof(s: string): number {
  const n = parseFloat(s.trim());
  return Number.isFinite(n) ? n : 0;
}
