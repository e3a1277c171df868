/**
 * The plain text form of a metric value: the MQTT payload (docs/protocol/mqtt-v3.md §3.1) and the "dflt" form
 * of the v2 records (§11). Native unit, no label: bools `yes`/`no`, ints as decimal integers, floats
 * in the C++ stream default (≤ 6 significant digits) unless the metric fixes its decimals (latitude,
 * longitude: 6), vectors as comma lists, strings as they are, dates as epoch seconds. The inverse,
 * `parseMetricPayload`, is for the MQTT bridge; an empty payload means "undefined" (§3.1). Pure.
 */
import { formatFixed, formatFloat, formatInt } from './format.js';
import type { MetricDef, MetricType, MetricValue } from './metric.js';

function inferType(value: MetricValue): MetricType {
  if (typeof value === 'boolean') return 'B';
  if (typeof value === 'string') return 'S';
  if (typeof value === 'number') return Number.isInteger(value) ? 'I' : 'F';
  return 'V';
}

/** A value as one number: bools 1/0, text parsed (NaN when it is not a number), a vector's first. */
function scalar(value: MetricValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return value.trim() === '' ? NaN : Number(value);
  return value[0] ?? NaN;
}

function vector(value: MetricValue): readonly number[] {
  if (Array.isArray(value)) return value as readonly number[];
  if (typeof value === 'string') return value === '' ? [] : value.split(',').map((v) => scalar(v));
  return [scalar(value as number | boolean)];
}

function truthy(value: MetricValue): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return parseBool(value) ?? false;
  return value.length > 0;
}

/** The plain text of `value` as the metric `def` (undefined: a custom metric, typed by the value). */
export function metricPayload(def: MetricDef | undefined, value: MetricValue): string {
  const type = def?.type ?? inferType(value);
  const decimals = def?.decimals;
  const float = (x: number): string => (decimals !== undefined ? formatFixed(x, decimals) : formatFloat(x));
  switch (type) {
    case 'B':
      return truthy(value) ? 'yes' : 'no';
    case 'I':
    case 'I64':
      return formatInt(scalar(value));
    case 'F':
      return float(scalar(value));
    case 'S':
      if (typeof value === 'string') return value;
      return metricPayload(undefined, value);
    case 'V':
      return vector(value).map(float).join(',');
    case 'VS':
      return vector(value).map(formatInt).join(',');
  }
}

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NAN_INF = /^([+-]?)(nan|inf|infinity)$/i;

function parseBool(text: string): boolean | undefined {
  switch (text.trim().toLowerCase()) {
    case 'yes':
    case 'true':
    case 'on':
    case '1':
      return true;
    case 'no':
    case 'false':
    case 'off':
    case '0':
      return false;
    default:
      return undefined;
  }
}

function parseInt64(text: string): number | undefined {
  const t = text.trim();
  return INT.test(t) ? Number(t) : undefined;
}

function parseFloat64(text: string): number | undefined {
  const t = text.trim();
  if (FLOAT.test(t)) return Number(t);
  const m = NAN_INF.exec(t);
  if (!m) return undefined;
  if (m[2]?.toLowerCase() === 'nan') return NaN;
  return m[1] === '-' ? -Infinity : Infinity;
}

function parseList(text: string, element: (t: string) => number | undefined): number[] | undefined {
  const out: number[] = [];
  for (const part of text.split(',')) {
    const v = element(part);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

/**
 * The value a plain text stands for, as the metric `def`; undefined when the text is empty (an
 * undefined metric, §3.1) or does not parse for the type. Bools take `yes`/`no` (also `true`/`false`,
 * `on`/`off`, `1`/`0`); ints and dates decimal integers; floats decimal or exponent forms and
 * `nan`/`inf`; vectors comma lists of those. A custom metric (no `def`) stays text.
 */
export function parseMetricPayload(def: MetricDef | undefined, text: string): MetricValue | undefined {
  if (text === '') return undefined;
  switch (def?.type ?? 'S') {
    case 'B':
      return parseBool(text);
    case 'I':
    case 'I64':
      return parseInt64(text);
    case 'F':
      return parseFloat64(text);
    case 'S':
      return text;
    case 'V':
      return parseList(text, parseFloat64);
    case 'VS':
      return parseList(text, parseInt64);
  }
}
