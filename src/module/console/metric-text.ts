/**
 * Metric values as the console prints them (docs/protocol/module-console.md §1, §5): booleans `yes`/`no`,
 * floats with up to 6 significant digits (or the fixed decimals of the definition or of the
 * command), integers, vectors as comma lists with one trailing unit label, dates as
 * `YYYY-MM-DD HH:MM:SS UTC` (the emulated module's time zone is UTC), and the unit label glued to
 * the number after converting to the requested unit (`AsUnitString`). The known metrics are those
 * of the set's catalog plus any other metric that has a value.
 */
import type { MetricSet } from '../../core/metrics/metric-set.js';
import type { MetricDef, MetricType, MetricValue } from '../../core/metrics/metric.js';
import { formatFixed, formatFloat, formatInt } from '../../core/metrics/format.js';
import { formatUtc } from '../../core/time.js';
import { atof } from './c-numbers.js';
import { convert, targetUnit, unitByCode, unitOfLabel, type Unit, type UnitGroup, type UnitMode } from './units.js';

export interface TextOptions {
  /** Unit or pseudo unit to show the value in (default native). */
  unit?: Unit | UnitMode;
  /** Fixed decimals for floats (default: the definition's, else 6 significant digits). */
  decimals?: number;
  /** Whether to glue the unit label (default true). */
  label?: boolean;
}

function typeOfValue(v: MetricValue): MetricType {
  if (typeof v === 'boolean') return 'B';
  if (typeof v === 'string') return 'S';
  if (typeof v === 'number') return 'F';
  return 'V';
}

/** The value a metric of this type holds before it is first set (the firmware's default). */
export function zeroValue(type: MetricType): MetricValue {
  switch (type) {
    case 'B':
      return false;
    case 'S':
      return '';
    case 'V':
    case 'VS':
      return [];
    default:
      return 0;
  }
}

export class MetricText {
  constructor(
    private readonly metrics: MetricSet,
    /** The user's unit code for a group (`vehicle` `units.<group>`), undefined for native. */
    private readonly userUnit: (group: UnitGroup) => string | undefined,
  ) {}

  /** Known names (catalog and defined), byte-wise sorted. */
  names(): string[] {
    const all = new Set([...this.metrics.catalog.keys(), ...this.metrics.names()]);
    return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  known(name: string): boolean {
    return this.metrics.def(name) !== undefined || this.metrics.has(name);
  }

  defined(name: string): boolean {
    return this.metrics.has(name);
  }

  def(name: string): MetricDef | undefined {
    return this.metrics.def(name);
  }

  /** The metric's type: its definition's, else that of its value (custom metrics). */
  type(name: string): MetricType | undefined {
    const def = this.metrics.def(name);
    if (def) return def.type;
    const v = this.metrics.get(name);
    return v === undefined ? undefined : typeOfValue(v);
  }

  /** The native unit, undefined for unit-less metrics. */
  nativeUnit(name: string): Unit | undefined {
    const label = this.metrics.def(name)?.unit;
    return label ? unitOfLabel(label) : undefined;
  }

  /** The unit a value would be shown in for a target. */
  unitFor(name: string, target: Unit | UnitMode = 'native'): Unit | undefined {
    const native = this.nativeUnit(name);
    return native ? targetUnit(native, target, this.userUnit) : undefined;
  }

  /** The unit the user prefers for the group of a unit (by code, e.g. `km`). */
  userUnitOf(code: string): Unit {
    const u = unitByCode(code) as Unit;
    return targetUnit(u, 'user', this.userUnit);
  }

  /** A number in the native unit converted to `unit` (unchanged for unit-less metrics). */
  toUnit(name: string, value: number, unit: Unit | undefined): number {
    const native = this.nativeUnit(name);
    return native && unit ? convert(value, native, unit) : value;
  }

  /** `AsUnitString`: the value with its label, undefined when the metric has no value. */
  text(name: string, opts: TextOptions = {}): string | undefined {
    const v = this.metrics.get(name);
    if (v === undefined) return undefined;
    const type = this.type(name) ?? typeOfValue(v);
    const unit = this.unitFor(name, opts.unit ?? 'native');
    const decimals = opts.decimals ?? this.metrics.def(name)?.decimals;
    const num = (x: number): string => {
      const y = this.toUnit(name, x, unit);
      if (type === 'I' || type === 'I64' || type === 'VS') return formatInt(y);
      return decimals === undefined ? formatFloat(y) : formatFixed(y, decimals);
    };
    let s: string;
    if (typeof v === 'boolean') s = v ? 'yes' : 'no';
    else if (typeof v === 'string') s = v;
    else if (typeof v === 'number') {
      if (unit?.group === 'date') return `${formatUtc(v)} UTC`;
      s = num(v);
    } else s = v.map(num).join(',');
    return opts.label === false || !unit ? s : s + unit.label;
  }

  /** `AsString`: the native value without label (what `metrics set` takes back). */
  plain(name: string): string | undefined {
    const v = this.metrics.get(name);
    if (v === undefined) return undefined;
    if (this.nativeUnit(name)?.group === 'date' && typeof v === 'number') return formatInt(v);
    return this.text(name, { label: false });
  }

  /**
   * Parses `text` as the firmware's `SetValue(string)` does for the metric's type (atoi, atof,
   * `yes`/`1`/`true`, comma lists), from `unit` to the native unit. Undefined for unknown names.
   */
  parse(name: string, text: string, unit?: Unit): MetricValue | undefined {
    const type = this.type(name);
    if (type === undefined) return undefined;
    const native = this.nativeUnit(name);
    const from = (x: number): number => (native && unit ? convert(x, unit, native) : x);
    switch (type) {
      case 'B':
        return text === 'yes' || text === '1' || text === 'true';
      case 'S':
        return text;
      case 'I':
      case 'I64':
        return Math.trunc(from(Math.trunc(atof(text))));
      case 'F':
        return from(atof(text));
      case 'V':
        return text === '' ? [] : text.split(',').map((s) => from(atof(s)));
      case 'VS':
        return text === '' ? [] : text.split(',').map((s) => Math.trunc(atof(s)));
    }
  }
}
