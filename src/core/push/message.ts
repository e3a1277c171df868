/**
 * The text of a push notification as the reference builds it (docs/protocol/mp.md §12.1): the car's
 * text, with `E` vehicle-error alerts rendered as the reference does without its code tables
 * (VECE), and the vehicle named by its id and, where the owner gave it one, its name.
 */

/** The result of `pushText`: the text to push and keep, and whether the reference would push it. */
export interface PushText {
  text: string;
  /** false for `E` alerts whose text holds `: DMC:` (debug alerts: kept as history, never pushed). */
  push: boolean;
}

/**
 * Perl's numeric value of a string, as the reference's sprintf sees its arguments: leading blanks,
 * an optional sign, digits with an optional fraction and exponent; anything else ends the number
 * (`"12ab"` → 12, `"abc"` → 0).
 */
function perlNumber(s: string): number {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(s);
  if (!m) return 0;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n : 0;
}

/** `%d`: the number truncated toward zero. */
function perlD(s: string): string {
  const n = Math.trunc(perlNumber(s));
  return Number.isSafeInteger(n) ? String(n) : BigInt(Math.round(n)).toString();
}

/** `%08x`: the number truncated to an integer, negative ones as 64-bit two's complement. */
function perlX8(s: string): string {
  let n = BigInt(Math.trunc(perlNumber(s)));
  if (n < 0n) n = (1n << 64n) + n;
  if (n >= 1n << 64n) n = (1n << 64n) - 1n;
  return n.toString(16).padStart(8, '0');
}

/**
 * `E<vehicletype>,<errorcode>,<errordata>` as the reference renders it without a VECE table:
 * `Vehicle Alert Code: <vehicletype>/<code as decimal> (<errordata as 8 hex digits>)`.
 */
export function vehicleErrorText(raw: string): string {
  const [vehicleType = '', code = '', data = ''] = raw.split(',');
  return `Vehicle Alert Code: ${vehicleType}/${perlD(code)} (${perlX8(data)})`;
}

/** The text a `P<type><text>` notification is pushed and kept with. */
export function pushText(alertType: string, raw: string): PushText {
  if (alertType !== 'E') return { text: raw, push: true };
  const text = vehicleErrorText(raw);
  return { text, push: !/:\sDMC:/.test(text) };
}

/**
 * How a notification names the vehicle for people: its id, or `<name> (<id>)` when the owner
 * named it something else.
 */
export function vehicleLabel(vehicleId: string, vehicleName: string): string {
  const name = vehicleName.trim();
  return name === '' || name.toUpperCase() === vehicleId.toUpperCase() ? vehicleId : `${name} (${vehicleId})`;
}
