/**
 * The firmware's metric units (docs/protocol/module-console.md §1): unit codes as commands take them
 * (`metrics get v.p.odometer miles`), the labels the console glues to values, their groups, the
 * metric and imperial equivalents and the conversions between units of one group. A metric's
 * native unit comes from its definition's label (`km`, `°C`, …); labels not in this table (and
 * `bytes`) are printed without a label and never converted. Pure.
 */

export type UnitGroup =
  | 'other'
  | 'distance'
  | 'distanceshort'
  | 'speed'
  | 'accel'
  | 'accelshort'
  | 'power'
  | 'energy'
  | 'charge'
  | 'consumption'
  | 'temp'
  | 'pressure'
  | 'time'
  | 'signal'
  | 'torque'
  | 'direction'
  | 'ratio'
  | 'date';

export interface Unit {
  /** The name commands take (`km`, `miles`, `celcius`: the firmware's spelling). */
  readonly code: string;
  /** What the console glues to a value. */
  readonly label: string;
  readonly group: UnitGroup;
  /** Codes of the metric and imperial equivalents (itself when undefined). */
  readonly metric?: string;
  readonly imperial?: string;
  /** To the group's base unit and back. */
  readonly toBase: (v: number) => number;
  readonly fromBase: (v: number) => number;
}

const MI = 1.609347;
const same = (v: number): number => v;

function unit(code: string, label: string, group: UnitGroup, factor = 1, equiv: { metric?: string; imperial?: string } = {}): Unit {
  return { code, label, group, ...equiv, toBase: (v) => v * factor, fromBase: (v) => v / factor };
}

/** Every unit, in the firmware's order. */
export const UNITS: readonly Unit[] = [
  unit('km', 'km', 'distance', 1, { imperial: 'miles' }),
  unit('miles', 'M', 'distance', MI, { metric: 'km' }),
  unit('meters', 'm', 'distanceshort', 1, { imperial: 'feet' }),
  unit('feet', 'ft', 'distanceshort', 0.3048, { metric: 'meters' }),
  { code: 'celcius', label: '°C', group: 'temp', imperial: 'fahrenheit', toBase: same, fromBase: same },
  {
    code: 'fahrenheit',
    label: '°F',
    group: 'temp',
    metric: 'celcius',
    toBase: (f) => ((f - 32) * 5) / 9,
    fromBase: (c) => (c * 9) / 5 + 32,
  },
  unit('kpa', 'kPa', 'pressure', 1, { imperial: 'psi' }),
  unit('pa', 'Pa', 'pressure', 0.001, { imperial: 'psi' }),
  unit('psi', 'psi', 'pressure', 6.894757, { metric: 'kpa' }),
  unit('bar', 'bar', 'pressure', 100, { imperial: 'psi' }),
  unit('volts', 'V', 'other'),
  unit('amps', 'A', 'other'),
  unit('amphours', 'Ah', 'charge'),
  unit('kw', 'kW', 'power'),
  unit('kwh', 'kWh', 'energy'),
  unit('watts', 'W', 'power', 0.001),
  unit('watthours', 'Wh', 'energy', 0.001),
  unit('kilocoulombs', 'kC', 'charge', 1 / 3.6),
  unit('megajoules', 'MJ', 'energy', 1 / 3.6),
  unit('seconds', 'Sec', 'time'),
  unit('minutes', 'Min', 'time', 60),
  unit('hours', 'Hour', 'time', 3600),
  unit('degrees', '°', 'direction'),
  unit('kmph', 'km/h', 'speed', 1, { imperial: 'miph' }),
  unit('miph', 'Mph', 'speed', MI, { metric: 'kmph' }),
  unit('mps', 'm/s', 'speed', 3.6, { imperial: 'ftps' }),
  unit('ftps', 'ft/s', 'speed', 3.6 * 0.3048, { metric: 'mps' }),
  unit('kmphps', 'km/h/s', 'accel', 1, { imperial: 'miphps' }),
  unit('miphps', 'Mph/s', 'accel', MI, { metric: 'kmphps' }),
  unit('mpss', 'm/s²', 'accelshort', 1, { imperial: 'ftpss' }),
  unit('ftpss', 'ft/s²', 'accelshort', 0.3048, { metric: 'mpss' }),
  { code: 'dbm', label: 'dBm', group: 'signal', imperial: 'sq', toBase: same, fromBase: same },
  {
    code: 'sq',
    label: 'sq',
    group: 'signal',
    metric: 'dbm',
    toBase: (sq) => sq * 2 - 113,
    fromBase: (dbm) => (dbm <= -51 ? (dbm + 113) / 2 : 31),
  },
  { code: 'utcdate', label: '', group: 'date', toBase: same, fromBase: same },
  unit('percent', '%', 'ratio'),
  unit('permille', '\u2030', 'ratio', 0.1),
  unit('whpkm', 'Wh/km', 'consumption', 1, { imperial: 'whpmi' }),
  unit('whpmi', 'Wh/mi', 'consumption', 1 / MI, { metric: 'whpkm' }),
  unit('kwhp100km', 'kWh/100km', 'consumption', 10, { imperial: 'mipkwh' }),
  {
    code: 'kmpkwh',
    label: 'km/kWh',
    group: 'consumption',
    imperial: 'mipkwh',
    toBase: (v) => (v === 0 ? 0 : 1000 / v),
    fromBase: (v) => (v === 0 ? 0 : 1000 / v),
  },
  {
    code: 'mipkwh',
    label: 'mi/kWh',
    group: 'consumption',
    metric: 'kmpkwh',
    toBase: (v) => (v === 0 ? 0 : 1000 / (v * MI)),
    fromBase: (v) => (v === 0 ? 0 : 1000 / v / MI),
  },
  unit('nm', 'Nm', 'torque'),
];

/** Pseudo units a command may name instead of a unit: `native`, `metric`, `imperial`, `user`. */
export type UnitMode = 'native' | 'metric' | 'imperial' | 'user';
export const UNIT_MODES: readonly UnitMode[] = ['native', 'metric', 'imperial', 'user'];

const BY_CODE = new Map(UNITS.map((u) => [u.code, u]));
const BY_LABEL = new Map<string, Unit>(UNITS.filter((u) => u.label !== '').map((u) => [u.label, u]));
BY_LABEL.set('Km', BY_CODE.get('km') as Unit); // the label of older firmware
BY_LABEL.set('date', BY_CODE.get('utcdate') as Unit);

export function unitByCode(code: string): Unit | undefined {
  return BY_CODE.get(code);
}

/** The unit a metric definition's label names; undefined for none, `bytes` and unknown labels. */
export function unitOfLabel(label: string): Unit | undefined {
  return BY_LABEL.get(label);
}

/**
 * A unit or pseudo unit named by a token: the exact code, else the only code (among units and
 * pseudo units) that starts with it; undefined when none or several do.
 */
export function unitByPrefix(token: string): Unit | UnitMode | undefined {
  const names: (Unit | UnitMode)[] = [...UNIT_MODES, ...UNITS];
  const nameOf = (u: Unit | UnitMode): string => (typeof u === 'string' ? u : u.code);
  const exact = names.find((u) => nameOf(u) === token);
  if (exact) return exact;
  const found = names.filter((u) => token !== '' && nameOf(u).startsWith(token));
  return found.length === 1 ? found[0] : undefined;
}

/** Converts between two units of one group (the value unchanged across groups). */
export function convert(value: number, from: Unit, to: Unit): number {
  if (from === to || from.group !== to.group) return value;
  return to.fromBase(from.toBase(value));
}

/**
 * The unit a metric in `native` is shown in for a target: the native unit itself, its metric or
 * imperial equivalent, the user's choice for the group (`vehicle` `units.<group>` config, as
 * `userUnit` reads it), or an explicit unit of the same group (the native unit otherwise).
 */
export function targetUnit(native: Unit, target: Unit | UnitMode, userUnit: (group: UnitGroup) => string | undefined): Unit {
  if (typeof target !== 'string') return target.group === native.group ? target : native;
  switch (target) {
    case 'native':
      return native;
    case 'metric':
      return (native.metric && BY_CODE.get(native.metric)) || native;
    case 'imperial':
      return (native.imperial && BY_CODE.get(native.imperial)) || native;
    case 'user': {
      let code = userUnit(native.group);
      if (native.group === 'distance') code = code === 'M' ? 'miles' : code === 'K' ? 'km' : code;
      const u = code ? BY_CODE.get(code) : undefined;
      return u && u.group === native.group ? u : native;
    }
  }
}
