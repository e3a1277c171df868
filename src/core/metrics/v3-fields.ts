/**
 * Helpers of src/core/metrics/v3-metrics.ts: strict field parsing (a field that is missing, empty or
 * not a plain decimal number gives nothing, never NaN), the inverse tables of the S record's number
 * keys, and the collector that turns values into `[metric, payload]` pairs with the module's own
 * payload text (payload.ts). Pure.
 */
import { METRIC_CATALOG } from './catalog.js';
import type { MetricValue } from './metric.js';
import { metricPayload } from './payload.js';
import { CHARGE_MODE, CHARGE_STATE, CHARGE_SUBSTATE, KM_TO_MI } from './v2-records.js';

export type DistanceUnit = 'K' | 'M';

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const UNSIGNED = /^\d{1,10}$/;
const HEX = /^[0-9a-fA-F]{1,8}$/;

/** A plain decimal number (as the firmware prints: `85.3`, `-7.200`, `1e+06`); undefined otherwise. */
export function decimalOf(text: string | undefined): number | undefined {
  if (text === undefined || !DECIMAL.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A non-negative decimal integer below 2^32 (bit fields, counts); undefined otherwise. */
export function unsignedOf(text: string | undefined): number | undefined {
  if (text === undefined || !UNSIGNED.test(text)) return undefined;
  const n = Number(text);
  return n < 2 ** 32 ? n : undefined;
}

/** C's `%x` of an int read back as the signed 32-bit int it printed (`ffffffff` → -1). */
export function hexOf(text: string | undefined): number | undefined {
  if (text === undefined || !HEX.test(text)) return undefined;
  return Number.parseInt(text, 16) | 0;
}

/** Whether every element is a number (a vector with a missing element gives no metric). */
export function allNumbers(xs: readonly (number | undefined)[]): xs is number[] {
  return xs.every((x) => x !== undefined);
}

/** The text of a table's key for a number: `{ a: 1 }` → 1 → `a`. */
function inverse(table: Readonly<Record<string, number>>): ReadonlyMap<number, string> {
  return new Map(Object.entries(table).map(([text, n]) => [n, text]));
}

/** S field 13 → `v.c.substate` (0, "other", has no text). */
export const SUBSTATE_OF_KEY = inverse(CHARGE_SUBSTATE);
/** S field 14 → `v.c.state` (0, "other", has no text). */
export const STATE_OF_KEY = inverse(CHARGE_STATE);
/** S field 15 → `v.c.mode` (-1, "other", has no text). */
export const MODE_OF_KEY = inverse(CHARGE_MODE);

/** The charge states in which `v.c.charging` is true when S is its source. */
export const CHARGING_STATES: ReadonlySet<string> = new Set(['charging', 'topoff']);

/** One D bit: [metric, mask]. */
export type Bit = readonly [string, number];

/**
 * Reads the 1-based fields of one record and collects `[metric, payload]` pairs: each name once (the
 * first source wins), only names of METRIC_CATALOG, only finite numbers.
 */
export class Collector {
  readonly out: Array<[string, string]> = [];
  private readonly seen = new Set<string>();
  private readonly fields: readonly string[];

  constructor(
    data: string,
    private readonly unit: DistanceUnit,
  ) {
    this.fields = data.split(',');
  }

  /** Field `n` (1-based) as sent; undefined when the record ends before it. */
  raw(n: number): string | undefined {
    return this.fields[n - 1];
  }

  /** Field `n` as a decimal number. */
  num(n: number): number | undefined {
    return decimalOf(this.raw(n));
  }

  /** Field `n` as a non-negative integer (bit fields). */
  uint(n: number): number | undefined {
    return unsignedOf(this.raw(n));
  }

  /** Field `n` as a non-empty text. */
  text(n: number): string | undefined {
    const t = this.raw(n);
    return t === undefined || t === '' ? undefined : t;
  }

  /** Gives `name` = `value` (an unknown name, a repeated name or a non-finite number gives nothing). */
  put(name: string, value: MetricValue | undefined): void {
    if (value === undefined || this.seen.has(name)) return;
    const def = METRIC_CATALOG.get(name);
    if (def === undefined) return;
    if (typeof value === 'number' && !Number.isFinite(value)) return;
    if (Array.isArray(value) && !value.every((v: number) => Number.isFinite(v))) return;
    this.seen.add(name);
    this.out.push([name, metricPayload(def, value)]);
  }

  /** Field `n` as a number, divided by `scale` (the ×10 fields). */
  number(n: number, name: string, scale = 1): void {
    const v = this.num(n);
    if (v !== undefined) this.put(name, v / scale);
  }

  /**
   * Field `n` in the record's distance unit (÷ `scale`, 10 or 1), as km or km/h. Miles are converted
   * and rounded to the decimals the field has (one more for a ×10 field): `32.5` mi/h → 52.3 km/h, not
   * 52.3038, which would claim a precision the record does not have.
   */
  distance(n: number, name: string, scale: 1 | 10 = 1): void {
    const text = this.raw(n);
    const v = decimalOf(text);
    if (v === undefined || text === undefined) return;
    if (this.unit !== 'M') {
      this.put(name, v / scale);
      return;
    }
    const point = text.indexOf('.');
    const decimals = (point < 0 || /[eE]/.test(text) ? 0 : text.length - point - 1) + (scale === 10 ? 1 : 0);
    const km = v / scale / KM_TO_MI;
    const p = 10 ** Math.min(decimals, 6);
    const rounded = Math.round(km * p) / p;
    this.put(name, Number.isFinite(rounded) ? rounded : km);
  }

  /** Field `n` as a non-empty text. */
  string(n: number, name: string, decode: (t: string) => string = (t) => t): void {
    const t = this.text(n);
    if (t !== undefined) this.put(name, decode(t));
  }

  /** Field `n` as 0 / non-zero: a boolean. */
  flag(n: number, name: string): void {
    const v = this.num(n);
    if (v !== undefined) this.put(name, v !== 0);
  }

  /** Field `n` as a bit field: one boolean per bit; nothing when it is not an unsigned integer. */
  bits(n: number, bits: readonly Bit[]): void {
    const v = this.uint(n);
    if (v === undefined) return;
    for (const [name, mask] of bits) this.put(name, (v & mask) !== 0);
  }
}
