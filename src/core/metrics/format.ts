/**
 * Number formatting as the module firmware prints metric values (docs/protocol/mqtt-v3.md §3.1, §11): the C++
 * stream default (`%g`, 6 significant digits, trailing zeros dropped, exponent form for large and
 * small magnitudes), fixed decimals (`%.<d>f`, "f1"/"f2"/"f3"/"f6") and C's int() truncation.
 *
 * Rounding works on the exact binary value of the double with ties to even, as the C library does
 * (0.125 in f2 is `0.12`, 81.25 in f1 is `81.2`); the sign of a negative zero is kept (`-0.00`);
 * NaN and infinities print as `nan`, `inf`, `-inf`. Pure.
 */

/** The exact decimal digits of a positive finite double (101 significant digits) and its exponent. */
function decimal(ax: number): { digits: string; exp: number } {
  const [mantissa = '0', exp = '0'] = ax.toExponential(100).split('e');
  return { digits: mantissa.replace('.', ''), exp: Number(exp) };
}

/**
 * Keeps the first `keep` (≥ 1) digits of `digits`, rounding half to even; `carry` when the rounding
 * overflowed (999 → 100 with carry: the value gained a digit).
 */
function roundDigits(digits: string, keep: number): { digits: string; carry: boolean } {
  if (keep >= digits.length) return { digits: digits.padEnd(keep, '0'), carry: false };
  const head = digits.slice(0, keep);
  const rest = digits.slice(keep);
  const first = rest.charCodeAt(0) - 48;
  const up =
    first > 5 || (first === 5 && (/[1-9]/.test(rest.slice(1)) || (head.charCodeAt(keep - 1) - 48) % 2 === 1));
  if (!up) return { digits: head, carry: false };
  const n = (BigInt(head) + 1n).toString();
  return n.length > keep ? { digits: n.slice(0, keep), carry: true } : { digits: n.padStart(keep, '0'), carry: false };
}

function special(x: number): string | undefined {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return undefined;
}

function signOf(x: number): string {
  return x < 0 || Object.is(x, -0) ? '-' : '';
}

/** Drops trailing zeros of a fraction, and the point when nothing is left after it. */
function trimFraction(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** C's `%.<decimals>f`. */
export function formatFixed(x: number, decimals: number): string {
  const sp = special(x);
  if (sp !== undefined) return sp;
  const d = Math.max(0, Math.trunc(decimals));
  let scaled = 0n; // round(|x| × 10^d)
  if (Math.abs(x) >= 2 ** 53) {
    scaled = BigInt(Math.abs(x)) * 10n ** BigInt(d); // an integer: exact
  } else if (x !== 0) {
    const { digits, exp } = decimal(Math.abs(x));
    const keep = exp + 1 + d; // digits left of the rounding point
    // The leading '0' takes a carry, and makes keep = 0 (x just below 10^-d) round too.
    if (keep >= 0) scaled = BigInt(roundDigits('0' + digits, keep + 1).digits);
  }
  const s = scaled.toString().padStart(d + 1, '0');
  return signOf(x) + (d > 0 ? `${s.slice(0, -d)}.${s.slice(-d)}` : s);
}

/** The C++ stream default for a double (`%g` with `precision` significant digits, 6 by default). */
export function formatFloat(x: number, precision = 6): string {
  const sp = special(x);
  if (sp !== undefined) return sp;
  const sign = signOf(x);
  if (x === 0) return sign + '0';
  const p = Math.max(1, Math.trunc(precision));
  const { digits, exp } = decimal(Math.abs(x));
  const r = roundDigits(digits, p);
  const e = r.carry ? exp + 1 : exp;
  const d = r.digits;
  if (e < -4 || e >= p) {
    const mantissa = trimFraction(`${d[0]}.${d.slice(1)}`);
    return `${sign}${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const fixed = e >= 0 ? `${d.slice(0, e + 1)}.${d.slice(e + 1)}` : `0.${'0'.repeat(-e - 1)}${d}`;
  return sign + trimFraction(fixed);
}

/** C's int() conversion printed: truncation toward zero; NaN and infinities give `0`. */
export function formatInt(x: number): string {
  if (!Number.isFinite(x)) return '0';
  const t = Math.trunc(x);
  if (t === 0) return '0';
  return Math.abs(t) < 1e21 ? String(t) : BigInt(t).toString();
}
