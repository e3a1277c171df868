/**
 * Renders a Home Assistant MQTT value template the way HA does (nunjucks, a Jinja-compatible engine,
 * with HA's filters): the variables `value` (the payload text) and `value_json` (the payload parsed,
 * when it is JSON), the result stripped (template.py async_render_with_possible_json_value), output
 * as Python prints it (None, True/False, floats such as 62.0).
 *
 * HA's filters, after its documentation (home-assistant.io/template-functions/float, /round,
 * /is_number) and helpers/template.py:
 * - `float(default)`: Python's float() of the value; the default when it is not a number, and an
 *   error when there is no default ("float got invalid input … but no default was specified");
 * - `int(default)`: the same for int();
 * - `round(precision=0, method='common', default)`: Python's round() (half to even, on the exact
 *   binary value) or ceil/floor/half; an int when the precision is 0, else a float;
 * - `is_number`: whether Python's float() takes the value and the result is finite.
 *
 * Not modelled: the other HA functions (states(), now(), …): a template using one fails to render
 * here, which a test then reports.
 */
import nunjucks from 'nunjucks';

/** A Python float (JS numbers stand for Python ints when integral): renders as Python's repr. */
class PyFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
  toString(): string {
    return pyFloatRepr(this.value);
  }
}

/** Python's repr of a float: shortest round-trip digits, fixed for 1e-4 <= |x| < 1e16, else d.ddde±XX. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const s = String(x);
  return s.includes('.') ? s : `${s}.0`;
}

const PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*|\d(?:_?\d)*\.)(?:[eE][+-]?\d(?:_?\d)*)?$/;

/** Python's float(value); undefined where Python raises (ValueError, TypeError). */
export function pyFloat(v: unknown): number | undefined {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  return PY_FLOAT.test(s) ? Number(s.replace(/_/g, '')) : undefined;
}

function noDefault(name: string, value: unknown): never {
  throw new Error(`Template error: ${name} got invalid input '${String(value)}' but no default was specified`);
}

/** Python's round(x, n) for n >= 0: the exact decimal expansion of the double, half to even. */
export function pyRound(x: number, n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new Error(`round: precision ${n} is not modelled`);
  if (!Number.isFinite(x)) return x;
  // toFixed(100) is exact for |x| >= 2^-47 (at most 99 binary fraction digits); smaller values round to 0
  const exact = Math.abs(x).toFixed(100);
  const [intPart, frac] = exact.split('.') as [string, string];
  const kept = intPart + frac.slice(0, n);
  const rest = frac.slice(n);
  const half = '5'.padEnd(rest.length, '0');
  const up = rest > half || (rest === half && Number(kept.at(-1)) % 2 === 1);
  const digits = up ? (BigInt(kept) + 1n).toString().padStart(kept.length, '0') : kept;
  const text = n === 0 ? digits : `${digits.slice(0, -n) || '0'}.${digits.slice(-n)}`;
  return (x < 0 ? -1 : 1) * Number(text);
}

/**
 * A filter's arguments as Jinja binds them: positional ones by name, then keyword ones (nunjucks
 * passes those as a last object marked `__keywords`); `default` absent is HA's "no default".
 */
function bind(names: readonly string[], args: readonly unknown[]): Record<string, unknown> {
  const last = args.at(-1);
  const keywords = typeof last === 'object' && last !== null && '__keywords' in last ? (last as Record<string, unknown>) : null;
  const positional = keywords ? args.slice(0, -1) : args;
  const out: Record<string, unknown> = {};
  names.forEach((n, i) => i < positional.length && (out[n] = positional[i]));
  for (const [k, v] of Object.entries(keywords ?? {})) if (k !== '__keywords') out[k] = v;
  return out;
}
const fallback = (name: string, value: unknown, a: Record<string, unknown>): unknown => ('default' in a ? a.default : noDefault(name, value));

const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });
env.addFilter('float', (value: unknown, ...args: unknown[]) => {
  const f = pyFloat(value);
  return f !== undefined ? new PyFloat(f) : fallback('float', value, bind(['default'], args));
});
env.addFilter('int', (value: unknown, ...args: unknown[]) => {
  const f = pyFloat(value);
  return f !== undefined && Number.isFinite(f) ? Math.trunc(f) : fallback('int', value, bind(['default'], args));
});
env.addFilter('round', (value: unknown, ...args: unknown[]) => {
  const a = bind(['precision', 'method', 'default'], args);
  const f = pyFloat(value);
  if (f === undefined) return fallback('round', value, a);
  const n = Number(a.precision ?? 0);
  const m = 10 ** n;
  const method = a.method ?? 'common';
  const r = method === 'ceil' ? Math.ceil(f * m) / m : method === 'floor' ? Math.floor(f * m) / m : method === 'half' ? pyRound(f * 2, 0) / 2 : pyRound(f, n);
  return n === 0 ? Math.trunc(r) : new PyFloat(r);
});
const isNumber = (value: unknown): boolean => {
  const f = pyFloat(value);
  return f !== undefined && Number.isFinite(f);
};
env.addFilter('is_number', isNumber);
env.addGlobal('is_number', isNumber);

// Jinja prints Python's text of a value: None for none, True/False, floats by repr. nunjucks prints
// through runtime.suppressValue; while a template renders here, that shows values as Jinja would.
type Runtime = { suppressValue: (val: unknown, autoescape: boolean) => unknown };
const runtime = (nunjucks as unknown as { runtime: Runtime }).runtime;
const suppressValue = runtime.suppressValue;
let rendering = false;
runtime.suppressValue = (val, autoescape) => {
  if (!rendering) return suppressValue(val, autoescape);
  if (val === null) return 'None';
  if (typeof val === 'boolean') return val ? 'True' : 'False';
  if (val instanceof PyFloat) return val.toString();
  if (typeof val === 'number' && !Number.isSafeInteger(val)) return pyFloatRepr(val);
  return suppressValue(val, autoescape);
};

/** The state HA takes from a payload through a value template (throws where HA logs a template error). */
export function renderValueTemplate(template: string, payload: string, vars: Record<string, unknown> = {}): string {
  const context: Record<string, unknown> = { ...vars, value: payload };
  try {
    context.value_json = JSON.parse(payload) as unknown;
  } catch {
    // not JSON: no value_json
  }
  rendering = true;
  try {
    return env.renderString(template, context).trim();
  } finally {
    rendering = false;
  }
}
